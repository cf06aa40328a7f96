// Recording over HTTP (`numbers-api mock --record <dir>`) and replaying: a frontend's flow
// (test/fixtures/recording-frontend.ts) run twice on two mocks gives byte-identical recordings
// with no key in them, valid under `redocly lint` and the contract's workflow check; the recording
// replays with Redocly Respect and with the package's runner against a fresh mock (pass), against
// a deployment with harmless differences (extra fields: pass), and against purpose-built broken
// deployments (a renamed field the frontend sent back, a dropped value it carried, a reordered
// page it paged): each fails at the step that depends on it. Moved to a folder outside the clone,
// it replays there by the guide's two commands: the descriptions are named at the mock's address.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWorkflows, formatWorkflowProblem } from '../src/contract/workflows.js';
import { replayRecording, type ReplayResult } from '../src/recording/replay.js';
import { checkoutFlow } from './fixtures/recording-frontend.js';
import { generatedDir, repoRoot, type JsonObject } from './helpers/contract.js';
import { failedSteps, runRespectCommand, startRewritingProxy, workflowResults, type LoopbackServer, type ProxiedExchange, type RespectRun } from './helpers/respect.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const document = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
const controlDocument = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;

const dirs: string[] = [];
const keys: string[] = [];
let file: string;
let recording: JsonObject;
let mock: StatefulMock;
const urls: string[] = [];
const opened: StatefulMock[] = [];

async function recordOnce(): Promise<{ dir: string; own: StatefulMock }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'recording-'));
  dirs.push(dir);
  const own = await startStatefulMock({ recordDir: dir });
  opened.push(own);
  urls.push(own.url);
  const key = newKey('rec');
  keys.push(key);
  await checkoutFlow(client(own.url, key));
  return { dir, own };
}

/** The recording of the flow in `dir` once the mock has written all of it (it writes shortly after each change). */
async function written(dir: string): Promise<string> {
  const at = path.join(dir, 'recording-1.arazzo.json');
  for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((resolve) => setTimeout(resolve, 50))) {
    try {
      const text = readFileSync(at, 'utf8');
      if (((JSON.parse(text).workflows as JsonObject[])[0]!.steps as JsonObject[]).length === FLOW_STEPS.length) return at;
    } catch {
      // not written yet
    }
  }
  throw new Error(`${at} was not written whole within 20 s`);
}

beforeAll(async () => {
  const first = await recordOnce();
  const second = await recordOnce();
  await second.own.close();
  // The first mock keeps running: the recording names its descriptions at its address, where Respect reads them.
  file = await written(first.dir);
  recording = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
  mock = await startStatefulMock();
}, 60_000);
afterAll(async () => {
  await mock?.close();
  for (const own of opened) await own.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const FLOW_STEPS = ['listNumbers', 'sendMessage', 'mockAdvanceClock', 'waitForEvent', 'createCreditsCheckout', 'mockCompleteCheckout', 'listBillingActivity', 'listBillingActivity2'];
const stepIds = (): string[] => ((recording.workflows as JsonObject[])[0]!.steps as JsonObject[]).map((s) => String(s.stepId));

describe('a recording made over HTTP', () => {
  it('is one file per account, byte-identical across two runs of the same flow but for the address of the mock that made it', () => {
    expect(readdirSync(dirs[0]!)).toEqual(['recording-1.arazzo.json']);
    const text = (dir: string, url: string): string => readFileSync(path.join(dir, 'recording-1.arazzo.json'), 'utf8').replaceAll(url, '<mock>');
    expect(text(dirs[1]!, urls[1]!)).toBe(text(dirs[0]!, urls[0]!));
    expect(recording.sourceDescriptions).toEqual([
      { name: 'numbersApi', url: `${urls[0]}/__mock/descriptions/openapi.json`, type: 'openapi' },
      { name: 'mockControl', url: `${urls[0]}/__mock/descriptions/mock-control.json`, type: 'openapi' },
    ]);
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
    expect(stepIds()).toEqual(FLOW_STEPS);
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

describe('kept in another folder', () => {
  /** The commands of the recording guide's "Kept in another folder". */
  const GUIDE_LINES = readFileSync(path.join(repoRoot, 'docs/guides/recording.md'), 'utf8')
    .split('## Kept in another folder')[1]!
    .split('\n## ')[0]!
    .split('```sh\n')[1]!
    .split('```')[0]!
    .trim()
    .split('\n');

  it("the guide's two commands, run from a folder outside the clone, replay it there", async () => {
    expect(GUIDE_LINES).toHaveLength(2);
    const away = mkdtempSync(path.join(os.tmpdir(), 'my-app-'));
    dirs.push(away);
    expect(path.relative(repoRoot, away).startsWith('..')).toBe(true);
    mkdirSync(path.join(away, 'recordings'));
    copyFileSync(file, path.join(away, 'recordings', 'checkout-flow.arazzo.json'));
    // The clone's commands for `npx numbers-api` and `npx @redocly/cli` (what a project installs); the mock the recording was made on.
    const tsx = pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;
    const adapt = (line: string): string =>
      line
        .replace('npx numbers-api', `"${process.execPath}" --import "${tsx}" "${path.join(repoRoot, 'bin/numbers-api.ts')}"`)
        .replace('npx @redocly/cli', `"${path.join(repoRoot, 'node_modules/.bin/redocly')}"`)
        .replaceAll('http://127.0.0.1:4010', urls[0]!)
        .replaceAll('sk_live_test', newKey('away'));
    // One after the other: both move the mock's clock.
    const suite = await runRespectCommand(adapt(GUIDE_LINES[0]!), { cwd: away });
    const respect = await runRespectCommand(adapt(GUIDE_LINES[1]!), { cwd: away, json: true });
    expect(suite.code, suite.output.slice(-3000)).toBe(0);
    expect(suite.output).toMatch(/Replay of recording recording-1/);
    expect(respect.code, respect.output.slice(-3000)).toBe(0);
    expect(workflowResults(respect.report!).map((w) => w.status)).toEqual(['success']);
  }, 120_000);
});
