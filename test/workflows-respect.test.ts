// The workflows run by the standard runner, Redocly Respect (`redocly respect`, @redocly/cli 2 of
// the main install), which also checks every answer against the description it came from:
// - the workflows guide's command (docs/guides/workflows.md), as written (its port aside), against the stateful mock: every
//   workflow passes;
// - against a proxy that breaks one rule of the contract at a time: the matching workflow fails,
//   at the step that reads what broke;
// - the same workflows through the in-process MSW handlers (msw's `getResponse` behind a loopback
//   bridge): every one passes there too.
// Respect's run time is printed for the report; nothing here asserts a time.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type MockHandlers } from '../src/msw/index.js';
import { generatedDir, repoRoot, type JsonObject } from './helpers/contract.js';
import { failedSteps, respectLine, runRespectCommand, startMswBridge, startRewritingProxy, workflowResults, type LoopbackServer, type ProxiedExchange, type RespectRun } from './helpers/respect.js';
import { newKey, startStatefulMock } from './helpers/stateful-mock.js';
import { useStatefulMock } from './helpers/simulator-harness.js';

const arazzo = JSON.parse(readFileSync(path.join(generatedDir, 'workflows.arazzo.json'), 'utf8')) as JsonObject;
const workflowIds = (arazzo.workflows as JsonObject[]).map((w) => String(w.workflowId));

/** The workflows guide's Respect command: the one line a user types, run here with the mock's port. */
const GUIDE_LINE = readFileSync(path.join(repoRoot, 'docs/guides/workflows.md'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .find((line) => line.startsWith('npx redocly respect generated/workflows.arazzo.yaml'));

function expectEveryWorkflowPassed(run: RespectRun): void {
  expect(run.report, run.output.slice(-4000)).toBeDefined();
  const results = workflowResults(run.report!);
  expect(results.map((w) => w.workflowId).sort()).toEqual([...workflowIds].sort());
  const failed = results.filter((w) => w.status !== 'success').map((w) => `${w.workflowId}: ${failedSteps(w).join('; ')}`);
  expect(failed).toEqual([]);
  expect(run.code, run.output.slice(-4000)).toBe(0);
}

const mock = useStatefulMock();

describe('Redocly Respect against the stateful mock', () => {
  it('the workflows guide gives the command', () => {
    expect(GUIDE_LINE).toMatch(/^npx redocly respect generated\/workflows\.arazzo\.yaml -S numbersApi=http:\/\/127\.0\.0\.1:4010 -S mockControl=http:\/\/127\.0\.0\.1:4010 -i apiKey=sk_live_\w+$/);
  });

  it('the guide command, as written, passes every workflow', async () => {
    const line = GUIDE_LINE!.replaceAll('http://127.0.0.1:4010', mock().url);
    const started = Date.now();
    const run = await runRespectCommand(line, { json: true });
    const wall = Date.now() - started;
    expectEveryWorkflowPassed(run);
    const steps = (run.output.match(/Steps: (\d+) passed/) ?? [])[1];
    console.log(`Respect against the mock: ${workflowIds.length} workflows, ${steps} steps, ${Math.round(run.report!.totalTime)} ms in Respect, ${wall} ms for the command`);
  }, 240_000);
});

/** One rule of the contract broken by a proxy, the workflow that reads it, and the step that must fail. */
const BROKEN: Array<[rule: string, workflowId: string, stepId: string, rewrite: (exchange: ProxiedExchange) => void]> = [
  [
    'a replay answers 201 instead of 200 (part 7.2)',
    'placeCallWithReplay',
    'replayCall',
    (x) => {
      if (x.method === 'POST' && x.pathname === '/api/v1/calls' && x.status === 200) x.status = 201;
    },
  ],
  [
    'verify leaves out registrationId for a new email (part 4.1)',
    'beginRegistration',
    'registrationVerifyEmail',
    (x) => {
      if (x.pathname === '/api/v1/auth/verify' && x.status === 200) delete (x.body as JsonObject).registrationId;
    },
  ],
  [
    'the messages list answers oldest first (part 8)',
    'sendListDeliver',
    'listed',
    (x) => {
      if (x.method === 'GET' && x.pathname === '/api/v1/messages' && Array.isArray(x.body)) x.body.reverse();
    },
  ],
  [
    'cancel leaves cancelAtPeriodEnd false (part 3)',
    'subscriptionLifecycle',
    'cancelling',
    (x) => {
      const subscription = (x.body as JsonObject | undefined)?.subscription;
      if (x.method === 'GET' && x.pathname === '/api/v1/billing' && subscription) subscription.cancelAtPeriodEnd = false;
    },
  ],
  [
    'call.status_changed renames previousState to from (part 6)',
    'placeCallWithReplay',
    'queuedEvent',
    (x) => {
      const body = x.body as JsonObject | undefined;
      if (x.pathname === '/api/v1/events/wait' && body?.type === 'call.status_changed') {
        body.data.from = body.data.previousState;
        delete body.data.previousState;
      }
    },
  ],
  [
    'a rejected 10DLC registration carries no reason (part 2)',
    'tenDlcRejectionAndResubmission',
    'rejected',
    (x) => {
      const body = x.body as JsonObject | undefined;
      if (x.method === 'GET' && /\/10dlc$/.test(x.pathname) && body?.status === 'rejected') body.reason = null;
    },
  ],
];

describe('a mock that breaks one rule fails the workflow that reads it', () => {
  // Each rule on a mock of its own behind its own proxy, all at once: a run mostly waits (long
  // polls, Respect's start), and no two runs share an account or a clock.
  const runs = new Map<string, RespectRun>();
  beforeAll(async () => {
    await Promise.all(
      BROKEN.map(async ([rule, workflowId, , rewrite]) => {
        const own = await startStatefulMock();
        const proxy: LoopbackServer = await startRewritingProxy(own.url, rewrite);
        try {
          runs.set(rule, await runRespectCommand(respectLine(proxy.url, newKey('broken'), [workflowId]), { json: true }));
        } finally {
          await proxy.close();
          await own.close();
        }
      }),
    );
  }, 240_000);

  it.each(BROKEN)('%s: %s fails at %s', (rule, workflowId, stepId) => {
    const run = runs.get(rule)!;
    expect(run.code, run.output.slice(-3000)).not.toBe(0);
    const [result] = workflowResults(run.report!);
    expect(result?.workflowId).toBe(workflowId);
    expect(result?.status).not.toBe('success');
    // Respect ends a workflow at its first failing step: the one that reads what broke.
    const failures = failedSteps(result!);
    expect(failures.length, run.output.slice(-3000)).toBeGreaterThan(0);
    expect(failures.every((f) => f.startsWith(`${stepId}:`)), failures.join('\n')).toBe(true);
  });
});

describe('the same workflows through the in-process MSW handlers', () => {
  let api: MockHandlers;
  let bridge: LoopbackServer;
  beforeAll(async () => {
    api = createHandlers({ validateResponses: 'strict' });
    // The handlers answer the contract's servers and the control surface's (http://127.0.0.1:4010).
    bridge = await startMswBridge(api.handlers, 'http://127.0.0.1:4010');
  });
  afterAll(async () => {
    await bridge?.close();
    api?.control.stop();
  });

  it('Respect passes every workflow against createHandlers()', async () => {
    const run = await runRespectCommand(respectLine(bridge.url, newKey('msw')), { json: true });
    expectEveryWorkflowPassed(run);
  }, 240_000);
});
