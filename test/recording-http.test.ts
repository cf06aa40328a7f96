// Recording over HTTP (`numbers-api mock --record <dir>`) and replaying: a frontend's flow
// (test/fixtures/recording-frontend.ts) run twice on two mocks gives byte-identical recordings
// with no key in them, valid under `redocly lint` and the contract's workflow check; the recording
// replays with Redocly Respect and with the package's runner against a fresh mock (pass), against
// a deployment with harmless differences (extra fields: pass), and against purpose-built broken
// deployments (a renamed field the frontend sent back, a dropped value it carried, a reordered
// page it paged): each fails at the step that depends on it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWorkflows, formatWorkflowProblem } from '../src/contract/workflows.js';
import { replayRecording, type ReplayResult } from '../src/recording/replay.js';
import { checkoutFlow } from './fixtures/recording-frontend.js';
import { generatedDir, type JsonObject } from './helpers/contract.js';
import { failedSteps, runRespectCommand, startRewritingProxy, workflowResults, type LoopbackServer, type ProxiedExchange, type RespectRun } from './helpers/respect.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const document = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
const controlDocument = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;

const dirs: string[] = [];
const keys: string[] = [];
let file: string;
let recording: JsonObject;
let mock: StatefulMock;

async function recordOnce(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'recording-'));
  dirs.push(dir);
  const own = await startStatefulMock({ recordDir: dir });
  const key = newKey('rec');
  keys.push(key);
  try {
    await checkoutFlow(client(own.url, key));
  } finally {
    await own.close();
  }
  return dir;
}

beforeAll(async () => {
  const [first] = [await recordOnce(), await recordOnce()];
  file = path.join(first!, 'recording-1.arazzo.json');
  recording = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
  mock = await startStatefulMock();
}, 60_000);
afterAll(async () => {
  await mock?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const stepIds = (): string[] => ((recording.workflows as JsonObject[])[0]!.steps as JsonObject[]).map((s) => String(s.stepId));

describe('a recording made over HTTP', () => {
  it('is one file per account, byte-identical across two runs of the same flow', () => {
    expect(readdirSync(dirs[0]!)).toEqual(['recording-1.arazzo.json']);
    expect(readFileSync(path.join(dirs[1]!, 'recording-1.arazzo.json'), 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  it('writes no key: the key is the input apiKey', () => {
    const text = readFileSync(file, 'utf8');
    for (const key of keys) expect(text).not.toContain(key);
    expect(text).not.toMatch(/sk_live_\w/);
    expect(text).toContain('Bearer {$inputs.apiKey}');
  });

  it('carries every value the mock issued by a runtime expression, and asserts it', () => {
    const steps = (recording.workflows as JsonObject[])[0]!.steps as JsonObject[];
    const byId = Object.fromEntries(steps.map((s) => [s.stepId, s]));
    expect(stepIds()).toEqual(['listNumbers', 'sendMessage', 'mockAdvanceClock', 'waitForEvent', 'createCreditsCheckout', 'mockCompleteCheckout', 'listBillingActivity', 'listBillingActivity2']);
    expect(byId.sendMessage.requestBody.payload.fromNumberId).toBe('$steps.listNumbers.outputs.id');
    expect(byId.sendMessage.successCriteria).toContainEqual({ condition: '$response.body#/phoneNumberId == $steps.listNumbers.outputs.id' });
    expect(byId.mockCompleteCheckout.requestBody.payload.clientSecret).toBe('$steps.createCreditsCheckout.outputs.clientSecret');
    expect(byId.listBillingActivity2.parameters).toContainEqual({ name: 'starting_after', in: 'query', value: '$steps.listBillingActivity.outputs.occurredAt' });
    // the cursor's page keeps its order (newest first), by relation, not literal
    expect(byId.listBillingActivity.successCriteria).toContainEqual({ condition: '$response.body#/items/0/occurredAt > $response.body#/items/1/occurredAt' });
    expect(byId.waitForEvent.requestBody.payload).toEqual({ timeout: 1, filters: { type: 'message.status_changed' } });
    expect(byId.mockAdvanceClock.description).toMatch(/^Mock only/);
    // values never sent back are never asserted
    expect(JSON.stringify(byId.sendMessage)).not.toMatch(/msg_/);
  });

  it('is valid under the contract workflow check and redocly lint', async () => {
    expect(checkWorkflows(recording, { numbersApi: document, mockControl: controlDocument }).map(formatWorkflowProblem)).toEqual([]);
    const lint = await runRespectCommand(`npx redocly lint --config redocly.workflows.yaml ${file}`);
    expect(lint.code, lint.output).toBe(0);
  }, 60_000);
});

/** A broken deployment, the rule it breaks, and the step of the recording that must fail. */
const BROKEN: Array<[what: string, stepId: string, rewrite: (x: ProxiedExchange) => void]> = [
  [
    'renames the number id the frontend sent back',
    'listNumbers',
    (x) => {
      if (x.method === 'GET' && x.pathname === '/api/v1/numbers' && Array.isArray(x.body)) for (const n of x.body) [n.numberId, n.id] = [n.id, undefined];
    },
  ],
  [
    'drops the line a sent message is on',
    'sendMessage',
    (x) => {
      if (x.method === 'POST' && x.pathname === '/api/v1/messages') delete (x.body as JsonObject).phoneNumberId;
    },
  ],
  [
    'reorders the ledger page the frontend paged',
    'listBillingActivity',
    (x) => {
      if (x.pathname === '/api/v1/billing/activity' && Array.isArray((x.body as JsonObject)?.items)) (x.body as JsonObject).items.reverse();
    },
  ],
];

function replay(baseUrl: string): Promise<ReplayResult> {
  return replayRecording({ recording, document, controlDocument, baseUrl, apiKey: newKey('replay'), isMock: true });
}

const failing = (result: ReplayResult): string[] => result.steps.filter((s) => s.outcome !== 'passed' && s.outcome !== 'skipped').map((s) => s.stepId);

describe('replayed by the package runner', () => {
  it('passes against a fresh mock (other ids and timestamps)', async () => {
    const result = await replay(mock.url);
    expect(result.steps.map((s) => `${s.stepId}: ${s.outcome} ${s.notes?.join('; ') ?? ''}`.trim())).toEqual(stepIds().map((id) => `${id}: passed`));
    expect(result.passed).toBe(true);
  });

  it('passes against a deployment with harmless differences (extra fields)', async () => {
    const proxy = await startRewritingProxy(mock.url, (x) => {
      const add = (o: unknown): void => {
        if (Array.isArray(o)) o.forEach(add);
        else if (o && typeof o === 'object') (o as JsonObject).xExtra = 'added';
      };
      add(x.body);
    });
    try {
      const result = await replay(proxy.url);
      expect(failing(result)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it.each(BROKEN)('a deployment that %s fails at %s', async (_what, stepId, rewrite) => {
    const proxy = await startRewritingProxy(mock.url, rewrite);
    try {
      const result = await replay(proxy.url);
      expect(result.passed).toBe(false);
      expect(failing(result)[0]).toBe(stepId);
    } finally {
      await proxy.close();
    }
  });
});

describe('replayed by Redocly Respect', () => {
  let passing: RespectRun;
  let broken: RespectRun;
  let proxy: LoopbackServer;
  beforeAll(async () => {
    proxy = await startRewritingProxy(mock.url, BROKEN[0]![2]);
    const line = (url: string, key: string): string => `npx redocly respect ${file} -S numbersApi=${url} -S mockControl=${url} -i apiKey=${key}`;
    [passing, broken] = await Promise.all([runRespectCommand(line(mock.url, newKey('respect')), { json: true }), runRespectCommand(line(proxy.url, newKey('respect')), { json: true })]);
  }, 120_000);
  afterAll(async () => proxy?.close());

  it('passes against the mock it was made on', () => {
    expect(passing.code, passing.output.slice(-3000)).toBe(0);
    expect(workflowResults(passing.report!).map((w) => w.status)).toEqual(['success']);
  });

  it('fails at the step whose value was renamed', () => {
    expect(broken.code).not.toBe(0);
    const failures = failedSteps(workflowResults(broken.report!)[0]!);
    expect(failures.length, broken.output.slice(-3000)).toBeGreaterThan(0);
    expect(failures[0]).toMatch(/^listNumbers:/);
  });
});
