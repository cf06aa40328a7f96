// The `writes` level's flows, each twice: it passes against a fake deployment that keeps the rule
// and fails against one that breaks it. Then what the flows must never do (exceed --max-sends,
// leave the account changed), and what a sound deployment may do that they must tolerate.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkWritesPreconditions, PreconditionError } from '../conformance/preconditions.js';
import { createEnvironment } from '../conformance/environment.js';
import { startFakeDeployment, type Break, type FakeDeployment, type Quirk } from './helpers/conformance-fake-deployment.js';
import { failedChecks, runScenarioById, runScenariosTogether, TEST_KEY, testConfig, expectCheckFailsWhenBroken } from './helpers/conformance-harness.js';

let fake: FakeDeployment;
beforeAll(async () => {
  fake = await startFakeDeployment({ apiKey: TEST_KEY });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.breaks.clear();
  fake.quirks.clear();
  fake.clearEvents();
});

const SEND_THEN_LIST = 'listMessages/message-send-then-list';
const IDEMPOTENT_CALL = 'createCall/call-idempotent-replay';
const MESSAGE_RECEIVED = 'waitForEvent/event-message-received';
const STATUS_CHANGED = 'sendMessage/event-message-status-changed';
const NO_MATCH_408 = 'waitForEvent/event-wait-no-match-408';
const READ_YOUR_WRITE = 'updateAccount/account-cap-read-your-write';

interface Case {
  check: string;
  scenario: string;
  breaks: Break;
}

const CASES: Case[] = [
  // Send, then list (parts 4.5, 8).
  { check: 'message-send-then-list', scenario: SEND_THEN_LIST, breaks: 'message-list-oldest-first' },
  { check: 'message-send-then-list', scenario: SEND_THEN_LIST, breaks: 'injected-not-listed' },
  { check: 'message-send-then-list', scenario: SEND_THEN_LIST, breaks: 'test-message-external' },
  // Idempotent call (part 7.2).
  { check: 'call-idempotent-replay', scenario: IDEMPOTENT_CALL, breaks: 'call-replay-201' },
  { check: 'call-idempotent-replay', scenario: IDEMPOTENT_CALL, breaks: 'call-replay-new-call' },
  { check: 'call-idempotent-replay', scenario: IDEMPOTENT_CALL, breaks: 'call-listed-twice' },
  // Events tie to actions (part 6).
  { check: 'event-message-received', scenario: MESSAGE_RECEIVED, breaks: 'no-message-received-event' },
  { check: 'event-message-received', scenario: MESSAGE_RECEIVED, breaks: 'event-source-external' },
  { check: 'event-message-received', scenario: MESSAGE_RECEIVED, breaks: 'injected-not-listed' },
  { check: 'event-message-status-changed', scenario: STATUS_CHANGED, breaks: 'send-message-200' },
  { check: 'event-wait-no-match-408', scenario: NO_MATCH_408, breaks: 'wait-408-early' },
  { check: 'event-wait-no-match-408', scenario: NO_MATCH_408, breaks: 'wait-ignores-filter' },
  // The same rule on the flow's own traffic: a wait filtered to a group that cannot exist is held while the message arrives.
  { check: 'event-wait-no-match-408', scenario: MESSAGE_RECEIVED, breaks: 'wait-ignores-filter' },
  // Read your write (part 4.2).
  { check: 'account-cap-read-your-write', scenario: READ_YOUR_WRITE, breaks: 'account-cap-answer-stale' },
  { check: 'account-cap-read-your-write', scenario: READ_YOUR_WRITE, breaks: 'account-cap-not-stored' },
];

describe.each(CASES)('$check ($scenario)', ({ check, scenario, breaks }) => {
  it('passes against a deployment that keeps the rule', async () => {
    const outcome = await runScenarioById(fake, scenario);
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.verdict).toBe('pass');
  });

  it(`fails against one that breaks it (${breaks})`, async () => {
    await expectCheckFailsWhenBroken(fake, scenario, check, breaks);
  });
});

describe('send, then list', () => {
  it('judges the order by the ids it was answered, with the injected messages listed as internal', async () => {
    const outcome = await runScenarioById(fake, SEND_THEN_LIST);
    const order = outcome.findings.find((f) => /Newest first/.test(f.reason));
    expect(order?.verdict).toBe('pass');
    expect(order?.reason).toMatch(/the second message \(msg_test_\w+\) is listed at 0, before the first \(msg_test_\w+\) at 1/);
    expect(outcome.sends.map((s) => s.operationId)).toEqual(['injectTestInboundMessage', 'injectTestInboundMessage']);
  });

  it('sends two real messages to --to where the deployment has no test helper', async () => {
    fake.breaks.add('no-test-helper');
    const before = fake.requests.length;
    const outcome = await runScenarioById(fake, SEND_THEN_LIST);
    expect(failedChecks(outcome)).toEqual([]);
    // The helper's 404 is judged like any answer (the contract documents a 404 on it), and fails nothing.
    expect(outcome.findings.some((f) => f.operationId === 'injectTestInboundMessage' && f.status === 404)).toBe(true);
    const sent = fake.requests.slice(before).filter((r) => r.operationId === 'sendMessage');
    expect(sent.map((r) => (r.body as { to?: string }).to)).toEqual(['+14155550199', '+14155550199']);
    // The helper was asked about once, with a body that injects nothing.
    expect(fake.requests.slice(before).filter((r) => r.url === '/api/v1/test/messages/inbound').map((r) => r.body)).toEqual([{}]);
  });

  it('fails when two sent messages are answered the same id; advises when the inferred helper does', async () => {
    fake.breaks.add('message-ids-repeat');
    const injected = await runScenarioById(fake, SEND_THEN_LIST);
    expect(injected.verdict).toBe('advisory');
    expect(injected.findings.find((f) => f.verdict === 'advisory')?.reason).toMatch(/Both messages were answered the same id \(msg_test_repeated\).*injectTestInboundMessage is inferred/);
    fake.breaks.add('no-test-helper');
    const sent = await runScenarioById(fake, SEND_THEN_LIST);
    expect(failedChecks(sent)).toEqual(['message-send-then-list']);
    expect(sent.findings.find((f) => f.verdict === 'fail')?.reason).toMatch(/Both messages were answered the same id \(msg_repeated\)/);
  });

  it('fails when a sent message answers 200 instead of 201 (part 4.5)', async () => {
    fake.breaks.add('no-test-helper');
    fake.breaks.add('send-message-200');
    const outcome = await runScenarioById(fake, SEND_THEN_LIST);
    expect(failedChecks(outcome)).toContain('message-send-then-list');
  });
});

describe('events tie to actions', () => {
  it('skips message.received, with the reason, where the deployment has no test helper', async () => {
    fake.breaks.add('no-test-helper');
    const outcome = await runScenarioById(fake, MESSAGE_RECEIVED);
    expect(outcome.verdict).toBe('skip');
    expect(outcome.skipReason).toMatch(/no test helper/);
    expect(outcome.sends).toEqual([]);
  });

  it('reports a missing message.received as advisory when other events arrived: it may have fired while a wait was renewed', async () => {
    fake.breaks.add('no-message-received-event');
    fake.quirks.add('unknown-event');
    const outcome = await runScenarioById(fake, MESSAGE_RECEIVED);
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.findings.find((f) => f.verdict === 'advisory')?.reason).toMatch(/No message.received arrived through events\/wait .*; 1 event\(s\) of other types did, so it may have fired while a wait was being renewed/);
  });

  it('reports a missing message.status_changed as advisory: part 6 gives it no timing', async () => {
    fake.breaks.add('no-status-event');
    const outcome = await runScenarioById(fake, STATUS_CHANGED);
    expect(outcome.verdict).toBe('advisory');
    expect(outcome.findings.find((f) => f.verdict === 'advisory')?.reason).toMatch(/No message.status_changed naming msg_\w+ arrived within 3 s/);
  });

  it('holds the no-match wait open: the 408 comes after the timeout', async () => {
    const outcome = await runScenarioById(fake, NO_MATCH_408);
    expect(outcome.findings.find((f) => /held for its 1 s timeout/.test(f.reason))?.verdict).toBe('pass');
    expect(fake.requests.at(-1)?.body).toMatchObject({ timeout: 1, filters: { groupId: expect.stringMatching(/^grp_conformance0nonexistent/) } });
  });
});

describe('read your write always restores the account', () => {
  it('restores the original cap when the check fails, and says so', async () => {
    const before = fake.account.maxCallDurationSeconds;
    fake.breaks.add('account-cap-answer-stale');
    const outcome = await runScenarioById(fake, READ_YOUR_WRITE);
    expect(outcome.verdict).toBe('fail');
    expect(fake.account.maxCallDurationSeconds).toBe(before);
    const patches = fake.requests.filter((r) => r.operationId === 'updateAccount');
    expect(patches.at(-1)?.body).toEqual({ maxCallDurationSeconds: before });
    expect(outcome.notes.join('\n')).toMatch(/set to \d+ to read it back, and restored to null/);
  });

  it('changes nothing when the account cannot be read first', async () => {
    fake.breaks.add('server-error');
    const before = fake.requests.length;
    const outcome = await runScenarioById(fake, READ_YOUR_WRITE);
    expect(outcome.skipReason).toMatch(/could not be read first/);
    expect(fake.requests.slice(before).some((r) => r.operationId === 'updateAccount')).toBe(false);
  });
});

describe('--max-sends bounds the sends', () => {
  it.each([SEND_THEN_LIST, IDEMPOTENT_CALL, MESSAGE_RECEIVED, STATUS_CHANGED, READ_YOUR_WRITE])('%s sends nothing it cannot finish within the budget', async (scenario) => {
    const before = fake.requests.length;
    const outcome = await runScenarioById(fake, scenario, { config: { maxSends: 1 } });
    const needsOne = scenario === MESSAGE_RECEIVED || scenario === STATUS_CHANGED;
    if (needsOne) {
      expect(outcome.sends).toHaveLength(1);
      return;
    }
    expect(outcome.verdict).toBe('skip');
    expect(outcome.skipReason).toMatch(/--max-sends 1: .* needs 2 more send\(s\)/);
    expect(outcome.sends).toEqual([]);
    const created = fake.requests.slice(before).filter((r) => ['sendMessage', 'createCall', 'updateAccount'].includes(r.operationId ?? '') || (r.operationId === 'injectTestInboundMessage' && JSON.stringify(r.body) !== '{}'));
    expect(created).toEqual([]);
  });

  it('with --max-sends 0, no flow creates or changes anything', async () => {
    for (const scenario of [SEND_THEN_LIST, IDEMPOTENT_CALL, MESSAGE_RECEIVED, STATUS_CHANGED, READ_YOUR_WRITE]) {
      const outcome = await runScenarioById(fake, scenario, { config: { maxSends: 0 } });
      expect(outcome.verdict).toBe('skip');
      expect(outcome.sends).toEqual([]);
    }
  });
});

describe('tolerates what a sound deployment may do', () => {
  const FLOWS = [SEND_THEN_LIST, IDEMPOTENT_CALL, MESSAGE_RECEIVED, STATUS_CHANGED, READ_YOUR_WRITE, 'getAccount/read', 'listMessages/read', 'waitForEvent/events-wait-timeout'];
  it.each<[Quirk, string]>([
    ['charset-variant', 'application/json;charset=UTF-8'],
    ['gzip', 'gzip-encoded bodies'],
    ['extra-fields', 'unknown extra fields in every object'],
    ['extra-headers', 'headers the contract does not mention'],
    ['unknown-event', 'an event of a type part 6 does not list, before every event'],
  ])('%s (%s): no failure', async (quirk) => {
    fake.quirks.add(quirk);
    // Together, as a run has them: the flows share the event stream, the account and the run's
    // locks (apart, two flows' long polls on one key would take each other's events).
    const outcomes = await runScenariosTogether(fake, FLOWS);
    const judged = outcomes.map((o) => ({ scenario: o.scenarioId, verdict: o.verdict, failed: o.findings.filter((f) => f.verdict !== 'pass').map((f) => `[${f.check}] ${f.reason}`) }));
    expect(judged).toEqual(outcomes.map((o) => ({ scenario: o.scenarioId, verdict: 'pass', failed: [] })));
  });

  it('passes over an unknown event type on events/wait, and validates it as an event', async () => {
    fake.quirks.add('unknown-event');
    const outcome = await runScenarioById(fake, MESSAGE_RECEIVED);
    expect(outcome.verdict).toBe('pass');
    expect(outcome.findings.some((f) => f.check === 'response-schema-conformance' && f.operationId === 'waitForEvent' && f.verdict === 'pass')).toBe(true);
  });

  it('a different name for a field the contract infers is advisory only (message.status_changed data)', async () => {
    fake.quirks.add('status-data-renamed');
    const outcome = await runScenarioById(fake, STATUS_CHANGED);
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.verdict).toBe('advisory');
    expect(outcome.findings.find((f) => f.verdict === 'advisory')?.reason).toMatch(/names msg_\w+ in data\.message_id, not in data\.messageId, which the contract infers/);
  });

  it('a different shape for a list the contract infers is advisory only (messages as {data: [...]})', async () => {
    fake.quirks.add('messages-wrapped');
    const read = await runScenarioById(fake, 'listMessages/read');
    expect(failedChecks(read)).toEqual([]);
    expect(read.findings.find((f) => f.check === 'response-schema-conformance')?.verdict).toBe('advisory');
    const flow = await runScenarioById(fake, SEND_THEN_LIST);
    expect(failedChecks(flow)).toEqual([]);
    expect(flow.findings.some((f) => /Newest first/.test(f.reason) && f.verdict === 'pass')).toBe(true);
  });
});

// An account the writes level cannot run on (no line, no credit) is not a finding about the
// deployment: the run stops with exit 2 and says what the account needs (conformance-cli.test.ts
// runs the command); here, the rule's two halves.
describe('preconditions of the account, not findings', () => {
  const FLOWS = [SEND_THEN_LIST, IDEMPOTENT_CALL, STATUS_CHANGED];

  it.each(FLOWS)('%s: a 402 on a send is "the account has no credit", never a failure', async (scenario) => {
    fake.breaks.add('no-credit');
    fake.breaks.add('no-test-helper');
    const outcome = await runScenarioById(fake, scenario);
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.verdict).toBe('skip');
    expect(outcome.precondition).toMatch(/^the account has no credit: POST \/api\/v1\/(messages|calls) answered 402 .*Top up its wallet \(on the numbers-api mock: PUT \/__mock\/wallet/);
  });

  it('an account with no number: the flows say so instead of failing', async () => {
    fake.breaks.add('no-numbers');
    const outcome = await runScenarioById(fake, SEND_THEN_LIST);
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.precondition).toMatch(/no number to send from: GET \/api\/v1\/numbers lists none/);
  });

  it('is found before anything is sent, from reads: no line, or a pay-as-you-go line on an empty wallet', async () => {
    const env = createEnvironment(testConfig(fake));
    const before = fake.requests.length;
    await expect(checkWritesPreconditions(env.document, env.config)).resolves.toBeUndefined();
    fake.breaks.add('no-numbers');
    await expect(checkWritesPreconditions(env.document, env.config)).rejects.toThrow(/^--level writes cannot run on this account: the account has no number to send from/);
    fake.breaks.delete('no-numbers');
    fake.breaks.add('wallet-empty');
    const noCredit = checkWritesPreconditions(env.document, env.config);
    await expect(noCredit).rejects.toThrow(PreconditionError);
    await expect(noCredit).rejects.toThrow(/the account has no credit: GET \/api\/v1\/billing shows a wallet balance of 0, and its line \+13125550187 is pay-as-you-go .*PUT \/__mock\/wallet/);
    fake.breaks.delete('wallet-empty');
    expect(fake.requests.slice(before).every((r) => r.method === 'GET')).toBe(true);
  });

  it('a 402 that is the rule is still judged where a check expects it (a send the deployment must refuse is no precondition)', async () => {
    // The contract level never writes: its sends go through ctx.send, and a 402 there is judged.
    fake.breaks.add('no-credit');
    const outcome = await runScenarioById(fake, 'sendMessage/negative-data-rejected');
    expect(outcome.precondition).toBeUndefined();
  });
});
