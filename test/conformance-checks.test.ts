// Every check of the conformance suite, twice: it passes against a fake deployment that keeps the
// rule, and fails against the same deployment told to break that one rule. A check that cannot
// fail is a defect.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anyKeyNotApplicable, readAnnouncement } from '../conformance/announcement.js';
import { loadDescription } from '../conformance/description.js';
import { startFakeDeployment, type Break, type FakeDeployment } from './helpers/conformance-fake-deployment.js';
import { failedChecks, runScenarioById, TEST_KEY, expectCheckFailsWhenBroken } from './helpers/conformance-harness.js';

let fake: FakeDeployment;
beforeAll(async () => {
  fake = await startFakeDeployment({ apiKey: TEST_KEY });
});
afterAll(() => fake.close());
afterEach(() => fake.breaks.clear());

interface Case {
  /** The check that must fail (a finding's `check`). */
  check: string;
  scenario: string;
  breaks: Break;
}

const CASES: Case[] = [
  // The generic layer (Schemathesis's checks, in TypeScript).
  { check: 'not-a-server-error', scenario: 'getAccount/read', breaks: 'server-error' },
  { check: 'status-code-conformance', scenario: 'getAccount/read', breaks: 'undocumented-status' },
  { check: 'content-type-conformance', scenario: 'getAccount/read', breaks: 'content-type' },
  { check: 'response-schema-conformance', scenario: 'getAccount/read', breaks: 'schema' },
  { check: 'response-headers-conformance', scenario: 'lookupNumber/read', breaks: 'missing-retry-after' },
  { check: 'response-received', scenario: 'getAccount/read', breaks: 'slow' },
  { check: 'read-succeeds', scenario: 'getAccount/read', breaks: 'undocumented-status' },
  { check: 'negative-data-rejected', scenario: 'sendMessage/negative-data-rejected', breaks: 'negative-accepted' },
  { check: 'negative-data-rejected', scenario: 'createCall/negative-data-rejected', breaks: 'negative-accepted' },
  { check: 'negative-query-rejected', scenario: 'listBillingActivity/negative-query-rejected/filter', breaks: 'negative-accepted' },
  { check: 'negative-query-rejected', scenario: 'listBillingActivity/negative-query-rejected/starting_after', breaks: 'negative-accepted' },
  // Part 5.1: authentication not ignored; sign-up needs no key.
  { check: 'auth-required', scenario: 'getAccount/auth-required/none', breaks: 'auth-ignored' },
  { check: 'auth-required', scenario: 'getAccount/auth-required/malformed', breaks: 'malformed-key-accepted' },
  { check: 'auth-required', scenario: 'listCalls/auth-required/unknown-key', breaks: 'malformed-key-accepted' },
  { check: 'auth-required', scenario: 'sendMessage/auth-required/none', breaks: 'body-before-key' },
  { check: 'signup-needs-no-key', scenario: 'signUp/signup-needs-no-key', breaks: 'signup-demands-key' },
  { check: 'signup-needs-no-key', scenario: 'verifyPhoneNumber/signup-needs-no-key', breaks: 'signup-demands-key' },
  // Part 7: unknown ids.
  { check: 'unknown-resource-404', scenario: 'getInvoice/unknown-resource-404', breaks: 'unknown-id-200' },
  { check: 'unknown-resource-404', scenario: 'pingWebhook/unknown-resource-404', breaks: 'unknown-id-200' },
  // Named rules of the interface specification.
  { check: 'usage-days-fallback', scenario: 'getUsage/usage-days-fallback', breaks: 'usage-days' },
  { check: 'billing-activity-limit', scenario: 'listBillingActivity/billing-activity-limit', breaks: 'activity-limit' },
  { check: 'billing-activity-order', scenario: 'listBillingActivity/billing-activity-order', breaks: 'activity-order' },
  { check: 'billing-activity-order', scenario: 'listBillingActivity/billing-activity-order', breaks: 'activity-starting-after' },
  { check: 'history-list-limit-order', scenario: 'listMessages/history-list-limit-order', breaks: 'history-over-100' },
  { check: 'events-wait-timeout', scenario: 'waitForEvent/events-wait-timeout', breaks: 'events-wait-status' },
  { check: 'events-wait-timeout-range', scenario: 'waitForEvent/events-wait-timeout-range', breaks: 'events-wait-range' },
  { check: 'key-previews-not-full-keys', scenario: 'getAccount/key-previews-not-full-keys', breaks: 'key-preview-full' },
  { check: 'call-duration-range', scenario: 'updateAccount/call-duration-range', breaks: 'account-duration-range' },
  { check: 'call-duration-range', scenario: 'updateNumber/call-duration-range', breaks: 'number-duration-range' },
  // Severity follows the rule, not the container: a documented value (part 2, 3, 6) broken inside
  // an inferred envelope (the lists' array shape, an inferred operation, the events/wait answer)
  // is a failure, one case per documented field.
  { check: 'response-schema-conformance', scenario: 'listMessages/read', breaks: 'message-channel-unknown' },
  { check: 'response-schema-conformance', scenario: 'listMessages/read', breaks: 'message-source-unknown' },
  { check: 'response-schema-conformance', scenario: 'listCalls/read', breaks: 'call-termination-unknown' },
  { check: 'response-schema-conformance', scenario: 'listGroups/read', breaks: 'group-channel-unknown' },
  { check: 'response-schema-conformance', scenario: 'listNumbers/read', breaks: 'number-billing-mode-unknown' },
  { check: 'response-schema-conformance', scenario: 'waitForEvent/events-wait-timeout', breaks: 'wait-event-source-unknown' },
  { check: 'response-schema-conformance', scenario: 'waitForEvent/events-wait-timeout', breaks: 'wait-event-version-2' },
  // Part 5.3: a full-length key in any answer, not only the caller's own, in any field.
  { check: 'no-full-key-in-answers', scenario: 'listMessages/read', breaks: 'full-key-in-message' },
  { check: 'no-full-key-in-answers', scenario: 'getAccount/read', breaks: 'key-preview-full' },
  // The writes level's flows: test/conformance-writes.test.ts.
];

describe.each(CASES)('$check ($scenario)', ({ check, scenario, breaks }) => {
  it('passes against a deployment that keeps the rule', async () => {
    const outcome = await runScenarioById(fake, scenario);
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.findings.some((f) => f.verdict === 'pass')).toBe(true);
  });

  it(`fails against one that breaks it (${breaks})`, async () => {
    await expectCheckFailsWhenBroken(fake, scenario, check, breaks);
  });
});

describe('missing-required-header-rejected', () => {
  // No operation of the contract has a required header parameter today, so the check is proven on
  // a copy of the description that gives getUsage one.
  const document = loadDescription();
  const getUsage = document.paths['/api/v1/usage'].get;
  getUsage.parameters.push({ name: 'X-Conformance-Required', in: 'header', required: true, schema: { type: 'string' } });
  getUsage.responses['400'] = { $ref: '#/components/responses/BadRequest' };
  let headerFake: FakeDeployment;
  beforeAll(async () => {
    headerFake = await startFakeDeployment({ apiKey: TEST_KEY, document });
  });
  afterAll(() => headerFake.close());

  it('passes against a deployment that rejects the request without the header', async () => {
    const outcome = await runScenarioById(headerFake, 'getUsage/missing-required-header/X-Conformance-Required', { document });
    expect(outcome.verdict).toBe('pass');
  });

  it('fails against one that serves it anyway', async () => {
    headerFake.breaks.add('missing-header-accepted');
    const outcome = await runScenarioById(headerFake, 'getUsage/missing-required-header/X-Conformance-Required', { document });
    expect(failedChecks(outcome)).toEqual(['missing-required-header-rejected']);
  });
});

describe('restoring state a deployment wrongly accepted (PATCH /account, PATCH /numbers/{id})', () => {
  it('writes the original account cap back and says so', async () => {
    const before = fake.account.maxCallDurationSeconds;
    fake.breaks.add('account-duration-range');
    const outcome = await runScenarioById(fake, 'updateAccount/call-duration-range');
    expect(fake.account.maxCallDurationSeconds).toBe(before);
    expect(outcome.notes.join('\n')).toMatch(/wrongly accepted maxCallDurationSeconds=59; the suite restored it to/);
    const patches = fake.requests.filter((r) => r.operationId === 'updateAccount');
    expect(patches.at(-1)?.body).toEqual({ maxCallDurationSeconds: before });
  });

  it('writes the original number cap back', async () => {
    const number = fake.numbers[0];
    const before = number.maxCallDurationSeconds;
    fake.breaks.add('number-duration-range');
    const outcome = await runScenarioById(fake, 'updateNumber/call-duration-range');
    expect(number.maxCallDurationSeconds).toBe(before);
    expect(outcome.notes).toHaveLength(2);
  });

  it('sends no change at all when it cannot read the state first', async () => {
    fake.breaks.add('server-error');
    const sent = fake.requests.length;
    const outcome = await runScenarioById(fake, 'updateAccount/call-duration-range');
    expect(outcome.verdict).toBe('fail'); // the 500 on the read is itself a failure
    expect(outcome.skipReason).toMatch(/could not be read first/);
    expect(fake.requests.slice(sent).some((r) => r.operationId === 'updateAccount')).toBe(false);
  });
});

describe('inferred parts are advisory (x-inferred)', () => {
  it('reports a body that breaks only an inferred field as advisory, not a failure', async () => {
    fake.breaks.add('inferred-schema');
    const outcome = await runScenarioById(fake, 'getAccount/read');
    expect(failedChecks(outcome)).toEqual([]);
    expect(outcome.verdict).toBe('advisory');
    const finding = outcome.findings.find((f) => f.check === 'response-schema-conformance');
    expect(finding?.verdict).toBe('advisory');
    expect(finding?.reason).toMatch(/only inferred parts/);
  });

  it('reports a rule broken on an inferred operation as advisory (the deployment may not have it)', async () => {
    fake.breaks.add('auth-ignored');
    const inferred = await runScenarioById(fake, 'listGroups/auth-required/none'); // GET /api/v1/groups is x-inferred
    expect(inferred.verdict).toBe('advisory');
    expect(inferred.findings.find((f) => f.check === 'auth-required')?.reason).toMatch(/listGroups is inferred/);
    const documented = await runScenarioById(fake, 'listCalls/auth-required/none');
    expect(documented.verdict).toBe('fail');
  });

  it('reports an inferred query parameter that is not rejected as advisory', async () => {
    fake.breaks.add('negative-accepted');
    const outcome = await runScenarioById(fake, 'listMessages/negative-query-rejected/since'); // `since` is x-inferred
    expect(outcome.verdict).toBe('advisory');
    expect(failedChecks(outcome)).toEqual([]);
  });

  it('judges an inferred list order as advisory when the records carry no documented timestamp', async () => {
    const outcome = await runScenarioById(fake, 'listCalls/history-list-limit-order');
    expect(outcome.verdict).toBe('advisory');
    expect(outcome.findings.find((f) => f.verdict === 'advisory')?.reason).toMatch(/no documented timestamp/);
  });
});

describe('429 is never a failure (Retry-After honoured)', () => {
  it('waits Retry-After and retries, then judges the answer', async () => {
    fake.breaks.add('rate-limited-once');
    const lookups = fake.requests.filter((r) => r.operationId === 'lookupNumber').length;
    const started = Date.now();
    const outcome = await runScenarioById(fake, 'lookupNumber/read');
    expect(outcome.verdict).toBe('pass');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fake.requests.filter((r) => r.operationId === 'lookupNumber').length - lookups).toBe(2);
  });

  it('skips the check with the reason once the retry budget is spent', async () => {
    fake.breaks.add('rate-limited-always');
    const outcome = await runScenarioById(fake, 'lookupNumber/read');
    expect(outcome.verdict).toBe('skip');
    expect(outcome.skipReason).toMatch(/429 .*Retry-After 1s.*retry budget/);
    expect(failedChecks(outcome)).toEqual([]);
  });
});

describe('--any-key-valid (a mock without accounts)', () => {
  it('reports the unknown-key 401 check as not applicable with the reason, and only that one', async () => {
    fake.breaks.add('malformed-key-accepted');
    const unknown = await runScenarioById(fake, 'listCalls/auth-required/unknown-key', { config: { anyKeyValid: true } });
    expect(unknown.verdict).toBe('not-applicable');
    expect(unknown.skipReason).toMatch(/accepts every well-formed key/);
    const malformed = await runScenarioById(fake, 'listCalls/auth-required/malformed', { config: { anyKeyValid: true } });
    expect(malformed.verdict).toBe('fail');
  });
});

// Part 5.1 on the package's own mock: believed as announced (GET /__mock/about), never inferred
// from behaviour. Both fakes below accept any well-formed key; only the one that announces it is
// spared the unknown-key check.
describe('the mock announcement (GET /__mock/about)', () => {
  afterEach(() => fake.quirks.clear());

  it('is read only when the answer is the control description\'s MockAbout', async () => {
    expect(await readAnnouncement(fake.url, 2000)).toBeUndefined();
    fake.quirks.add('announces-any-key');
    expect(await readAnnouncement(fake.url, 2000)).toEqual({ keys: 'any', request: 'GET /__mock/about' });
    fake.quirks.clear();
    fake.quirks.add('announces-strict-keys');
    expect((await readAnnouncement(fake.url, 2000))?.keys).toBe('strict');
  });

  it('a deployment that accepts unknown keys and announces nothing still fails part 5.1', async () => {
    fake.breaks.add('unknown-key-accepted');
    expect(await readAnnouncement(fake.url, 2000)).toBeUndefined();
    const outcome = await runScenarioById(fake, 'listCalls/auth-required/unknown-key');
    expect(outcome.verdict).toBe('fail');
    expect(failedChecks(outcome)).toEqual(['auth-required']);
  });

  it('an announcing mock that accepts any key: the unknown-key check is not applicable, in one line that says what to pass', async () => {
    fake.breaks.add('unknown-key-accepted');
    fake.quirks.add('announces-any-key');
    const reason = anyKeyNotApplicable(fake.url, (await readAnnouncement(fake.url, 2000))!);
    expect(reason).not.toContain('\n');
    expect(reason).toMatch(/announces itself as the numbers-api mock accepting any well-formed key \(GET \/__mock\/about\).*--strict-keys/);
    const outcome = await runScenarioById(fake, 'listCalls/auth-required/unknown-key', { config: { anyKeyValid: true, anyKeyValidReason: reason } });
    expect(outcome).toMatchObject({ verdict: 'not-applicable', skipReason: reason });
  });
});
