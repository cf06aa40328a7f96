// The rule table (conformance/rules.ts, the README's "What it checks, rule by rule, and what it
// cannot see") and the suite, held to each other: every checked row names scenarios that exist and
// run at its level, every scenario names its rows, every part cited exists, and the README shows
// the table as the data gives it. Then every checked row is shown failing against a deployment
// stand-in that breaks it: the package's mock (strict keys, two accounts of their own) behind a
// breaking proxy that hides /__mock/, one break per row, the row's scenarios run in-process; the
// finding must name the row. And the faithful stand-in, with harmless variations, fails nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxSends, type ConformanceConfig } from '../conformance/config.js';
import { loadDescription, type Json } from '../conformance/description.js';
import { createEnvironment } from '../conformance/environment.js';
import type { Finding, ScenarioOutcome } from '../conformance/findings.js';
import { planScenarios } from '../conformance/plan.js';
import { buildReport } from '../conformance/reporters/report.js';
import { RULES, type Rule } from '../conformance/rules.js';
import { runScenario, type Scenario } from '../conformance/scenario.js';
import { CONTENT_TYPE_CONFORMANCE } from '../conformance/checks/content-type-conformance.js';
import { KEY_EXPOSURE_CHECK } from '../conformance/checks/key-exposure.js';
import { NOT_A_SERVER_ERROR } from '../conformance/checks/not-a-server-error.js';
import { RESPONSE_HEADERS_CONFORMANCE } from '../conformance/checks/response-headers-conformance.js';
import { RESPONSE_SCHEMA_CONFORMANCE } from '../conformance/checks/response-schema-conformance.js';
import { STATUS_CODE_CONFORMANCE } from '../conformance/checks/status-code-conformance.js';
import { interfaceParts } from '../docs/build/parts.mjs';
import { otherRegionSources } from '../scripts/guides.mjs';
import { startMockAsDeployment, type BreakRule, type ProxiedAnswer, type ProxiedRequest } from './helpers/breaking-proxy.js';
import { TEST_KEY, testConfig } from './helpers/conformance-harness.js';
import { EMPTY_WALLET_KEY, EMPTY_WALLET_SEED, FIXTURE_KEYS, FREE_ACCOUNT_KEY, FREE_ACCOUNT_SEED } from './helpers/conformance-fixture-accounts.js';

const document = loadDescription();
const GENERIC_CHECKS = [NOT_A_SERVER_ERROR, STATUS_CODE_CONFORMANCE, CONTENT_TYPE_CONFORMANCE, RESPONSE_SCHEMA_CONFORMANCE, RESPONSE_HEADERS_CONFORMANCE, KEY_EXPOSURE_CHECK];
/** What a deployment's run plans (a second key and both fixture accounts, no mock), and what a run on the announced mock does. */
const DEPLOYMENT_OPTIONS = { secondKey: true, emptyWallet: true, freeAccount: true };
const onDeployment = planScenarios(document, 'writes', DEPLOYMENT_OPTIONS).scenarios;
const onMock = planScenarios(document, 'writes', { mock: true }).scenarios.filter((s) => s.mockOnly);
const rulesOf = (s: Scenario) => s.rules ?? [s.check];

/** The scenarios an entry of a row names: an id, or `*\/<name>` (every `<operationId>/<name>[/<variant>]`). */
function resolve(entry: string, plan: Scenario[]): Scenario[] {
  if (!entry.startsWith('*/')) return plan.filter((s) => s.id === entry);
  const name = entry.slice(2);
  return plan.filter((s) => s.id.split('/')[1] === name);
}

const checkedRows = RULES.filter((r) => r.checked);

describe('the rule table and the suite, held to each other', () => {
  it('each row has a unique id, cites parts the specification has, and is either checked or says why not', () => {
    const known = new Set(interfaceParts(document).flatMap((part: { number: string; sections?: Array<{ number: string }> }) => [part.number, ...(part.sections ?? []).map((s) => s.number)]));
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    for (const rule of RULES) {
      expect(rule.part.split(', ').filter((p) => !known.has(p)), `${rule.id} cites ${rule.part}`).toEqual([]);
      expect(Boolean(rule.checked) !== Boolean(rule.notChecked), `${rule.id}: checked or not, one of them`).toBe(true);
      if (rule.checked) expect(Boolean(rule.checked.by?.length) !== Boolean(rule.checked.everyAnswer), `${rule.id}: by scenarios or on every answer`).toBe(true);
      // A fixture account is named by the option that gives it.
      if (rule.notChecked?.reason === 'needs-fixture-account') expect(rule.notChecked.unlock, rule.id).toMatch(/^--[a-z-]+$/);
    }
  });

  it.each(checkedRows.filter((r) => r.checked?.by).map((r) => [r.id, r] as const))('%s: names scenarios a deployment runs, at its level, and each names the row', (_id, rule) => {
    for (const entry of rule.checked!.by!) {
      const found = resolve(entry, onDeployment);
      expect(found.length, `${rule.id}: ${entry} names no scenario of a deployment's plan`).toBeGreaterThan(0);
      for (const s of found) {
        expect(s.level, `${s.id} runs at ${s.level}`).toBe(rule.checked!.level);
        expect(rulesOf(s), `${s.id} names ${rule.id}`).toContain(rule.id);
      }
    }
  });

  it('the rows judged on every answer are the generic checks, each once', () => {
    expect(checkedRows.map((r) => r.checked?.everyAnswer).filter(Boolean).sort()).toEqual([...GENERIC_CHECKS].sort());
  });

  it.each(RULES.filter((r) => r.onMock).map((r) => [r.id, r] as const))('%s: its scenarios on the mock exist, run only there, and name the row', (_id, rule) => {
    for (const entry of rule.onMock!) {
      const found = resolve(entry, onMock);
      expect(found.length, `${rule.id}: ${entry} is no mock-only scenario`).toBeGreaterThan(0);
      for (const s of found) expect(rulesOf(s), `${s.id} names ${rule.id}`).toContain(rule.id);
    }
  });

  it('every scenario names rows that exist, and each of those rows names it back', () => {
    const unnamed: string[] = [];
    for (const s of [...onDeployment, ...onMock]) {
      for (const id of rulesOf(s)) {
        const rule = RULES.find((r) => r.id === id);
        const names = s.mockOnly ? rule?.onMock : rule?.checked?.by;
        if (!names?.some((entry) => resolve(entry, [s]).length)) unnamed.push(`${s.id}${s.mockOnly ? ' (mock)' : ''} -> ${id}`);
      }
    }
    expect(unnamed).toEqual([]);
  });

  it('the README shows the table as the data gives it (npm run guides), with its counts', () => {
    const [readme] = otherRegionSources().filter((s: { file: string }) => s.file === 'conformance/README.md');
    expect(readme.source).toBe(readme.fresh);
    expect(readme.source).toContain('## What it checks, rule by rule, and what it cannot see');
    expect(readme.source).toContain(`${RULES.length} rules: ${checkedRows.length} checked on any deployment`);
    for (const rule of RULES) expect(readme.source).toContain(`| \`${rule.id}\` | ${rule.part} |`);
  });
});

// The stand-in: the mock refuses unknown keys and holds five accounts: the run's (the demo seed),
// a second account with records of its own (a number, a webhook subscription), a subscribed one,
// and the two fixture accounts (an empty wallet, a free account).
const SECOND_KEY = 'sk_live_CONFORMANCEsecondKEY0b1c2d3e4f5a';
const SUBSCRIBED_KEY = 'sk_live_CONFORMANCEsubscribedKEY9e8d7c6b';
const SECOND_SEED = {
  keys: [SECOND_KEY],
  numbers: [{ id: 'pn_secondaccount01', number: '+13125550111', nickname: 'Second', createdAt: '2026-11-21T09:30:00Z', capabilities: ['sms', 'voice'], maxCallDurationSeconds: null, billingMode: 'PAYG', tenDlc: { status: 'not_registered', reason: null }, inboundPrompt: 'Hello.' }],
  webhooks: [{ id: 'wh_secondaccount01', url: 'http://127.0.0.1:9/second-account', eventTypes: ['message.received'] }],
  messages: [],
  calls: [],
  groups: [],
  paymentMethods: [],
  deposits: [],
  activity: [],
  invoices: {},
  tenDlc: {},
};
const SUBSCRIBED_SEED = { keys: [SUBSCRIBED_KEY], subscription: { cancelAtPeriodEnd: false, periodEnd: '2027-12-02T15:04:05Z', invoiceId: 'in_subscribedaccount01', interval: 'monthly' } };

let proxy: Awaited<ReturnType<typeof startMockAsDeployment>>;
beforeAll(async () => {
  proxy = await startMockAsDeployment([{ keys: [TEST_KEY] }, SECOND_SEED, SUBSCRIBED_SEED, EMPTY_WALLET_SEED, FREE_ACCOUNT_SEED]);
});
afterAll(() => proxy?.close());
afterEach(() => proxy.reset());

function config(overrides: Partial<ConformanceConfig> = {}): ConformanceConfig {
  return { ...testConfig({ url: proxy.url } as never), secondKey: SECOND_KEY, ...FIXTURE_KEYS, maxSends: defaultMaxSends(FIXTURE_KEYS), timeoutMs: 15_000, eventWindowMs: 8_000, ...overrides };
}

/** Runs the scenarios named, one after another in one environment, as a run has them. */
async function run(ids: string[], overrides: Partial<ConformanceConfig> = {}): Promise<ScenarioOutcome[]> {
  const env = createEnvironment(config(overrides), document);
  const plan = planScenarios(env.document, 'writes', DEPLOYMENT_OPTIONS).scenarios;
  const outcomes: ScenarioOutcome[] = [];
  for (const id of ids) {
    const scenario = plan.find((s) => s.id === id);
    if (!scenario) throw new Error(`No scenario ${id}`);
    outcomes.push(await runScenario(env, scenario));
  }
  return outcomes;
}

const json = (answer: ProxiedAnswer, status: number, body: unknown): ProxiedAnswer => ({ ...answer, status, headers: { ...answer.headers, 'content-type': 'application/json' }, body });
const key = (r: ProxiedRequest) => String(r.headers.authorization ?? '');
const query = (r: ProxiedRequest) => new URL(r.url, 'http://x').searchParams;
const records = (a: ProxiedAnswer) => (Array.isArray(a.body) ? (a.body as Json[]) : []);
const unknownEvent = () => ({ id: `evt_conformance_${Math.random().toString(36).slice(2, 10)}`, object: 'event', type: 'conformance.unknown_type', version: 1, createdAt: new Date().toISOString(), relatedObject: null, data: {} });

/** Remembers the last answer a rule matched without `when`, for a break that serves it where it should not. */
function remembering(on: string, when: (r: ProxiedRequest) => boolean, serve: (remembered: ProxiedAnswer, answer: ProxiedAnswer, request: ProxiedRequest) => ProxiedAnswer | undefined): BreakRule {
  let remembered: ProxiedAnswer | undefined;
  return {
    on,
    answer(answer, request) {
      if (!when(request)) {
        remembered = structuredClone(answer);
        return undefined;
      }
      return remembered ? serve(remembered, answer, request) : undefined;
    },
  };
}

/** Breaks every answer after the first (a state that changes under a request that must change nothing), or only the first (`first`, with `change` leaving the others). */
function afterFirst(on: string, change: (answer: ProxiedAnswer) => ProxiedAnswer, first?: (answer: ProxiedAnswer) => ProxiedAnswer): BreakRule {
  let seen = 0;
  return { on, answer: (answer) => (seen++ === 0 ? first?.(answer) : change(answer)) };
}

interface Case {
  /** The scenarios to run (each must be among the row's); the row's only one when omitted. */
  scenarios?: string[];
  breaks: BreakRule[];
  config?: Partial<ConformanceConfig>;
}

/** One break per checked row: how a deployment could break it. */
const BREAKS: Record<string, Case> = {
  'not-a-server-error': { scenarios: ['getAccount/read'], breaks: [{ on: 'GET /api/v1/account', answer: (a, r) => (key(r).includes(TEST_KEY) ? json(a, 500, { error: 'boom' }) : undefined) }] },
  'status-code-conformance': { scenarios: ['getAccount/read'], breaks: [{ on: 'GET /api/v1/account', answer: (a) => json(a, 418, { error: 'teapot' }) }] },
  'content-type-conformance': { scenarios: ['getAccount/read'], breaks: [{ on: 'GET /api/v1/account', answer: (a) => ({ ...a, headers: { ...a.headers, 'content-type': 'text/plain' } }) }] },
  'response-schema-conformance': { scenarios: ['getAccount/read'], breaks: [{ on: 'GET /api/v1/account', answer: (a) => json(a, a.status, { ...(a.body as Json), maxCallDurationSeconds: 'ten minutes' }) }] },
  // The lookup's first answer is a 429 without its Retry-After: the suite waits it out and judges it.
  'response-headers-conformance': { scenarios: ['lookupNumber/read'], breaks: [afterFirst('GET /api/v1/lookup', (a) => a, (a) => json(a, 429, { error: 'Too many lookups.', code: 'rate_limited' }))] },
  'no-full-key-in-answers': { scenarios: ['getAccount/read'], breaks: [{ on: 'GET /api/v1/account', answer: (a) => json(a, a.status, { ...(a.body as Json), note: 'sk_live_LEAKEDfullKEY00112233445566778899aa' }) }] },
  'key-previews-not-full-keys': { breaks: [{ on: 'GET /api/v1/account', answer: (a) => json(a, a.status, { ...(a.body as Json), apiKeys: [{ preview: TEST_KEY }] }) }] },
  'ten-dlc-null-when-not-applicable': { breaks: [{ on: 'GET /api/v1/numbers', answer: (a) => json(a, a.status, records(a).map((n) => (String(n.number).startsWith('+1') ? n : { ...n, tenDlc: { status: 'not_registered', reason: null } }))) }] },
  'subscription-state-answers': { breaks: [{ on: 'POST /api/v1/billing/subscription/cancel', answer: (a) => json(a, 200, { status: 'ok' }) }] },
  'subscription-preview-changes-nothing': {
    config: { apiKey: SUBSCRIBED_KEY, secondKey: undefined },
    breaks: [afterFirst('GET /api/v1/billing', (a) => json(a, a.status, { ...(a.body as Json), subscription: { ...((a.body as Json).subscription as Json), cancelAtPeriodEnd: true } }))],
  },
  'auth-required': { scenarios: ['getAccount/auth-required/none'], breaks: [{ on: 'GET /api/v1/account', answer: (a, r) => (key(r) ? undefined : json(a, 200, { maxCallDurationSeconds: null, limits: null, apiKeys: [] })) }] },
  'read-succeeds': { scenarios: ['getUsage/read'], breaks: [{ on: 'GET /api/v1/usage', answer: (a) => json(a, 403, { error: 'Forbidden' }) }] },
  'unknown-resource-404': { scenarios: ['getInvoice/unknown-resource-404'], breaks: [{ on: 'GET /api/v1/billing/invoices/.+', answer: (a) => json(a, 200, { invoicePdf: 'https://files.example.com/i.pdf', hostedInvoiceUrl: 'https://pay.example.com/i' }) }] },
  'negative-data-rejected': { scenarios: ['setTypingIndicator/negative-data-rejected'], breaks: [{ on: 'POST /api/v1/typing', answer: (a) => json(a, 200, {}) }] },
  'negative-query-rejected': { scenarios: ['listBillingActivity/negative-query-rejected/filter'], breaks: [{ on: 'GET /api/v1/billing/activity', answer: (a) => json(a, 200, { items: [], hasMore: false }) }] },
  'signup-needs-no-key': { scenarios: ['signUp/signup-needs-no-key'], breaks: [{ on: 'POST /api/v1/auth/signup', answer: (a) => json(a, 401, { error: 'Unauthorized' }) }] },
  'sign-up-code-refused': { breaks: [{ on: 'POST /api/v1/auth/verify', answer: (a) => json(a, 200, { registrationId: 'reg_conformance' }) }] },
  'sign-up-registration-unknown': { scenarios: ['registerNumber/unknown-registration-409'], breaks: [{ on: 'POST /api/v1/auth/register-number', answer: (a) => json(a, 200, { sent: true }) }] },
  'call-duration-range': { scenarios: ['updateNumber/call-duration-range'], breaks: [{ on: 'PATCH /api/v1/numbers/[^/]+', answer: (a, r) => ((r.body as Json)?.maxCallDurationSeconds === 59 ? json(a, 200, {}) : undefined) }] },
  'account-cap-read-your-write': { breaks: [{ on: 'PATCH /api/v1/account', answer: (a) => json(a, a.status, { ...(a.body as Json), maxCallDurationSeconds: 1234 }) }] },
  'usage-days-fallback': { breaks: [{ on: 'GET /api/v1/usage', answer: (a) => json(a, a.status, { ...(a.body as Json), periodDays: 30 }) }] },
  'usage-current-period-independent': { breaks: [{ on: 'GET /api/v1/usage', answer: (a, r) => (query(r).get('days') === '90' ? json(a, a.status, { ...(a.body as Json), currentPeriod: { ...((a.body as Json).currentPeriod as Json), start: '2026-09-01T00:00:00Z' } }) : undefined) }] },
  'billing-activity-limit': { breaks: [{ on: 'GET /api/v1/billing/activity', answer: (a, r) => (query(r).get('limit') === '1' ? json(a, 200, { ...(a.body as Json), items: [...((a.body as Json).items as Json[]), ...((a.body as Json).items as Json[])] }) : undefined) }] },
  'billing-activity-has-more': { breaks: [{ on: 'GET /api/v1/billing/activity', answer: (a) => json(a, 200, { ...(a.body as Json), hasMore: false }) }] },
  'billing-activity-order': { breaks: [{ on: 'GET /api/v1/billing/activity', answer: (a, r) => (query(r).has('starting_after') ? undefined : json(a, 200, { ...(a.body as Json), items: [...((a.body as Json).items as Json[])].reverse() })) }] },
  'billing-activity-starting-after': { breaks: [remembering('GET /api/v1/billing/activity', (r) => query(r).has('starting_after'), (remembered) => remembered)] },
  'message-send-error-texts': { breaks: [{ on: 'POST /api/v1/messages', answer: (a) => (a.status === 400 ? json(a, 400, { error: 'Bad request.' }) : undefined) }] },
  'messages-filter-group': { breaks: [remembering('GET /api/v1/messages', (r) => query(r).has('groupId'), (remembered) => remembered)] },
  'history-list-limit-order': { scenarios: ['listCalls/history-list-limit-order'], breaks: [{ on: 'GET /api/v1/calls', answer: (a) => json(a, 200, Array.from({ length: 101 }, (_, i) => ({ ...records(a)[i % records(a).length], id: `call_conformance${i}` }))) }] },
  'call-idempotent-replay': { breaks: [{ on: 'POST /api/v1/calls', answer: (a) => (a.status === 200 ? { ...a, status: 201 } : undefined) }] },
  'calls-newest-first': { breaks: [{ on: 'GET /api/v1/calls', answer: (a) => json(a, 200, [...records(a)].reverse()) }] },
  'message-send-then-list': { breaks: [{ on: 'GET /api/v1/messages', answer: (a) => json(a, 200, records(a).filter((m) => !String(m.body).includes('conformance test message'))) }] },
  'messages-newest-first': { breaks: [{ on: 'GET /api/v1/messages', answer: (a) => json(a, 200, [...records(a)].reverse()) }] },
  'message-source-internal': { breaks: [{ on: 'GET /api/v1/messages', answer: (a) => json(a, 200, records(a).map((m) => ({ ...m, source: 'external' }))) }] },
  'test-helper-not-your-number': { breaks: [{ on: 'POST /api/v1/test/messages/inbound', answer: (a) => (a.status === 404 ? json(a, 201, {}) : undefined) }] },
  'events-wait-timeout': { breaks: [{ on: 'POST /api/v1/events/wait', answer: (a) => json(a, 202, {}) }] },
  'events-wait-timeout-range': { breaks: [{ on: 'POST /api/v1/events/wait', answer: (a, r) => ((r.body as Json)?.timeout === 61 ? json(a, 408, { error: 'Timed out' }) : undefined) }] },
  'event-wait-no-match-408': { breaks: [{ on: 'POST /api/v1/events/wait', answer: (a) => json(a, 200, unknownEvent()) }] },
  'event-message-received': { breaks: [{ on: 'POST /api/v1/events/wait', answer: (a) => ((a.body as Json)?.type === 'message.received' ? json(a, 200, { ...(a.body as Json), data: { ...((a.body as Json).data as Json), source: 'external' } }) : undefined) }] },
  'event-message-status-changed': { breaks: [{ on: 'POST /api/v1/messages', answer: (a) => (a.status === 201 ? { ...a, status: 200 } : undefined) }] },
  'unchanged-writes': { breaks: [{ on: 'PATCH /api/v1/numbers/[^/]+', answer: (a) => (a.status === 200 ? json(a, 200, { ...(a.body as Json), maxCallDurationSeconds: 61 }) : undefined) }] },
  'whatsapp-spacing': { breaks: [{ on: 'POST /api/v1/messages', answer: (a, r) => (a.status === 429 ? json(a, 201, { id: 'msg_conformance_spaced', ...(r.body as Json) }) : undefined) }] },
  'cross-account-404': { breaks: [{ on: 'GET /api/v1/numbers/[^/]+/10dlc', answer: (a) => (a.status === 404 ? json(a, 200, { status: 'not_registered', reason: null, optInImageUrl: null }) : undefined) }] },
  'cross-account-ping-404': { breaks: [{ on: 'POST /api/v1/webhooks/[^/]+/ping', answer: (a) => (a.status === 404 ? json(a, 200, { delivered: true }) : undefined) }] },
  // A deployment that adds another account's message to GET /api/v1/messages (issue 38).
  // The fixture accounts' rows (issue 38): a 500 for the empty wallet's 402, a FIXED line gated, a
  // fee not asked for, a free account shown as paid, and a cap above the free ceiling accepted.
  'wallet-gating-402': { breaks: [{ on: 'POST /api/v1/messages', answer: (a) => (a.status === 402 ? json(a, 500, { error: 'Internal error.' }) : undefined) }] },
  'wallet-fixed-not-gated': { breaks: [{ on: 'POST /api/v1/messages', answer: (a, r) => (key(r).includes(EMPTY_WALLET_KEY) && a.status === 201 ? json(a, 402, { error: 'Insufficient credit.' }) : undefined) }] },
  'ten-dlc-fee-402': { breaks: [{ on: 'POST /api/v1/numbers/[^/]+/10dlc', answer: (a) => (a.status === 402 ? json(a, 200, { status: 'pending', reason: null, brand: { brandId: 'BRD_conformance', status: 'pending' } }) : undefined) }] },
  'free-account-limits-object': { breaks: [{ on: 'GET /api/v1/account', answer: (a, r) => (key(r).includes(FREE_ACCOUNT_KEY) ? json(a, 200, { ...(a.body as Json), limits: null }) : undefined) }] },
  'free-call-cap-400': { breaks: [{ on: 'PATCH /api/v1/account', answer: (a, r) => (key(r).includes(FREE_ACCOUNT_KEY) && a.status === 400 ? json(a, 200, { maxCallDurationSeconds: 301, limits: null, apiKeys: [] }) : undefined) }] },
  'cross-account-lists': {
    breaks: [remembering('GET /api/v1/messages', (r) => key(r).includes(TEST_KEY), (theirs, a) => json(a, 200, [...records(theirs), ...records(a)]))],
  },
};

/** The scenarios a case runs: its own, or the row's. */
function scenariosOf(rule: Rule, c: Case): string[] {
  return c.scenarios ?? rule.checked!.by!.flatMap((entry) => resolve(entry, onDeployment).map((s) => s.id));
}

/** Whether a finding is the row's: it names the row, or it is the generic check the row is. */
const isRow = (rule: Rule) => (f: Finding) => (rule.checked?.everyAnswer ? f.check === rule.checked.everyAnswer : f.rule === rule.id);

describe('every checked row fails against a deployment stand-in that breaks it', () => {
  it('has one break per checked row, and no break of a row that is not checked', () => {
    expect(Object.keys(BREAKS).sort()).toEqual(checkedRows.map((r) => r.id).sort());
  });

  it.each(checkedRows.map((r) => [r.id, r] as const))('%s', async (_id, rule) => {
    const c = BREAKS[rule.id]!;
    const ids = scenariosOf(rule, c);
    for (const id of ids) expect(rule.checked?.everyAnswer || rule.checked?.by?.some((entry) => resolve(entry, onDeployment).some((s) => s.id === id)), `${id} is a scenario of ${rule.id}`).toBeTruthy();
    proxy.rules.push(...c.breaks);
    const outcomes = await run(ids, c.config);
    const findings = outcomes.flatMap((o) => o.findings).filter(isRow(rule));
    const wanted = rule.checked?.advisory ? ['fail', 'advisory'] : ['fail'];
    const named = findings.filter((f) => wanted.includes(f.verdict));
    expect(named.map((f) => `${f.verdict} [${f.rule ?? f.check}] ${f.reason}`), `${rule.id}: outcomes ${JSON.stringify(outcomes.map((o) => [o.scenarioId, o.verdict, o.skipReason]))}`).not.toEqual([]);
    // A finding of a scenario's further rule cites that rule's part (its first rule, the scenario's).
    for (const f of named) {
      const outcome = outcomes.find((o) => o.findings.includes(f))!;
      const first = rulesOf(onDeployment.find((s) => s.id === outcome.scenarioId)!)[0];
      if (f.rule && f.rule !== first) expect(f.part, `${rule.id}'s finding cites its part`).toBe(rule.part);
    }
  });
});

describe('the reports name the row', () => {
  it("a calls list served oldest first: the JSON report's finding carries the row's id and part", async () => {
    proxy.rules.push(...BREAKS['calls-newest-first']!.breaks);
    const outcomes = await run(['createCall/call-idempotent-replay']);
    const report = buildReport({ document, outcomes, notSent: [], baseUrl: proxy.url, level: 'writes' });
    const group = report.findings.find((g) => g.ruleId === 'calls-newest-first');
    expect(group).toMatchObject({ verdict: 'fail', check: 'call-idempotent-replay', part: '4.5, 8', operationId: 'listCalls' });
    expect(group?.title).toBe('Not newest first: the call placed last is listed after the call the list showed first just before it was placed (parts 4.5, 8).');
    // The call's id and place are facts: the finding's words, and so its id, are the same at every run.
    expect(group?.actual).toMatchObject({ placed: { id: expect.stringMatching(/^call_/) }, listedFirstBefore: { id: expect.stringMatching(/^call_/) } });
  });
});

/** What a sound deployment may do: charset, gzip, extra fields, key order, extra headers, and events of types part 6 does not list. */
const VARIATIONS: BreakRule[] = [
  {
    on: '[A-Z]+ /api/v1/.*',
    answer(a) {
      if (!/json/.test(a.headers['content-type'] ?? '') || a.body === undefined) return undefined;
      const vary = (value: unknown): unknown =>
        value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries([...Object.entries(value), ['conformanceExtraField', 'harmless']].reverse()) : value;
      const body = Array.isArray(a.body) ? a.body.map(vary) : vary(a.body);
      return { ...a, body, headers: { ...a.headers, 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip', 'x-conformance-extra': 'harmless' } };
    },
  },
  // A wait of the flows (no filter) that would time out answers an event of an unknown type instead.
  { on: 'POST /api/v1/events/wait', answer: (a, r) => (a.status === 408 && JSON.stringify((r.body as Json)?.filters) === '{}' ? json(a, 200, unknownEvent()) : undefined) },
];

describe('a faithful stand-in gives no false alarm', () => {
  /** Every scenario the checked rows name (one or two of each `*\/` family), as a run has them. */
  const ids = [
    ...new Set(
      checkedRows.flatMap((rule) => (rule.checked?.by ?? ['getAccount/read']).flatMap((entry) => resolve(entry, onDeployment).slice(0, entry.startsWith('*/') ? 2 : undefined).map((s) => s.id))),
    ),
  ];

  it.each([
    ['as the mock answers', []],
    ['with harmless variations', VARIATIONS],
  ] as const)('%s: every scenario of a checked row passes', async (_what, variations) => {
    proxy.rules.push(...variations);
    // The preview of an active subscription needs an account that has one.
    const outcomes = [...(await run(ids)), ...(await run(['previewSubscriptionChange/subscription-state-answers'], { apiKey: SUBSCRIBED_KEY }))];
    const judged = outcomes.map((o) => ({ scenario: o.scenarioId, failed: o.findings.filter((f) => f.verdict === 'fail').map((f) => `[${f.rule ?? f.check}] ${f.reason}`) }));
    expect(judged.filter((j) => j.failed.length)).toEqual([]);
    // Judged, not skipped: each checked row has a passing finding of its own.
    const passed = new Set(outcomes.flatMap((o) => o.findings.filter((f) => f.verdict === 'pass').flatMap((f) => [f.rule, f.check])));
    const unjudged = checkedRows.filter((r) => !passed.has(r.checked?.everyAnswer ?? r.id)).map((r) => r.id);
    expect(unjudged).toEqual([]);
  });
});

// The Safety table: with --second-key, the writes level sends one message more, on the second
// account's line (injected where the test helper exists, else one message to --to), and nothing else.
describe('what --second-key adds at the writes level, as the proxy saw it', () => {
  const writesSent = (from: number) =>
    proxy.requests.slice(from).filter((r) => r.method !== 'GET' && !r.url.startsWith('/__mock/') && !(r.method === 'POST' && r.url === '/api/v1/test/messages/inbound' && JSON.stringify(r.body) === '{}'));

  it.each([
    ['with the test helper', [], { url: '/api/v1/test/messages/inbound', to: SECOND_SEED.numbers[0]!.number }],
    ['without it', [{ on: 'POST /api/v1/test/messages/inbound', answer: (a: ProxiedAnswer) => json(a, 404, { error: 'Not found' }) }], { url: '/api/v1/messages', to: '+14155550199' }],
  ] as const)('%s: one message on the second account, counted in --max-sends', async (_what, breaks, expected) => {
    proxy.rules.push(...breaks);
    const from = proxy.requests.length;
    const [outcome] = await run(['listMessages/cross-account-lists']);
    const sent = writesSent(from);
    expect(sent.map((r) => ({ url: r.url, key: r.headers.authorization, to: (r.body as Json).to }))).toEqual([{ url: expected.url, key: `Bearer ${SECOND_KEY}`, to: expected.to }]);
    expect(outcome!.sends).toHaveLength(1);
    expect(outcome!.verdict).toBe('pass');
  });

  it('with --max-sends spent, it sends nothing and says why', async () => {
    const from = proxy.requests.length;
    const [outcome] = await run(['listMessages/cross-account-lists'], { maxSends: 0 });
    expect(writesSent(from)).toEqual([]);
    expect(outcome!.skipReason).toMatch(/--max-sends 0: isolation's message of the second account's own needs 1 more send/);
  });
});
