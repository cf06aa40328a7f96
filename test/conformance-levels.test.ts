// What each level sends, proven on the wire: the whole plan of a level runs through a recording
// proxy in front of a fake deployment, and the proxy's record is judged, not the suite's own
// account of itself. Nothing deletes, releases, checks out, provisions or charges a fee at any
// level; the contract level creates and changes nothing; the writes level creates exactly what
// the README's Safety table says, within --max-sends, and never a call without an Idempotency-Key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceConfig, Level } from '../conformance/config.js';
import { listOperations, loadDescription, type Operation } from '../conformance/description.js';
import { createEnvironment } from '../conformance/environment.js';
import type { ScenarioOutcome } from '../conformance/findings.js';
import { planScenarios } from '../conformance/plan.js';
import { neverSentReason } from '../conformance/policy.js';
import { buildReport, formatCoverage, formatSummary, type ConformanceReport } from '../conformance/reporters/report.js';
import { runScenario } from '../conformance/scenario.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { startFakeDeployment, type FakeDeployment } from './helpers/conformance-fake-deployment.js';
import { testConfig, TEST_KEY } from './helpers/conformance-harness.js';
import { startRecordingProxy, type RecordedRequest, type RecordingProxy } from './helpers/conformance-recording-proxy.js';

const document = loadDescription();
const operations = listOperations(document);
const validator = contractValidator(document);

interface LevelRun {
  fake: FakeDeployment;
  proxy: RecordingProxy;
  outcomes: ScenarioOutcome[];
  report: ConformanceReport;
  /** The calls the deployment listed before the run. */
  callsBefore: number;
}

async function runLevel(level: Level, config: Partial<ConformanceConfig> = {}, prepare?: (fake: FakeDeployment) => void): Promise<LevelRun> {
  const fake = await startFakeDeployment({ apiKey: TEST_KEY });
  prepare?.(fake);
  const proxy = await startRecordingProxy(fake.url);
  const callsBefore = fake.calls.length;
  const env = createEnvironment({ ...testConfig(fake), baseUrl: proxy.url, level, timeoutMs: 20_000, ...config });
  const plan = planScenarios(env.document, level);
  const outcomes = await Promise.all(plan.scenarios.map((s) => runScenario(env, s)));
  const report = buildReport({ document, outcomes, notSent: plan.notSent, baseUrl: proxy.url, level, maxSends: level === 'writes' ? env.config.maxSends : undefined });
  return { fake, proxy, outcomes, report, callsBefore };
}

function operationOf(r: RecordedRequest): Operation | undefined {
  const pathname = r.url.split('?')[0] ?? '';
  return operations.find((op) => op.method === r.method.toLowerCase() && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname));
}

const withKey = (r: RecordedRequest) => r.headers.authorization === `Bearer ${TEST_KEY}`;

/** --to, the test number the writes level sends to. */
const TO = '+14155550199';

/**
 * A request that could act on a deployment that honours it: sent with the key, to ids that can
 * exist (in its path or its body: a send to a group that cannot exist has no one to reach), with a
 * body its schema accepts. Not so: waiting for an event; a preview (part 4.4: it
 * changes and charges nothing); an injection to a number the account does not hold (nothing can
 * receive it); a subscription operation sent after the billing status showed none to act on.
 */
function acting(r: RecordedRequest, run?: LevelRun): boolean {
  const op = operationOf(r);
  if (!op || op.method === 'get' || !withKey(r) || `${r.url} ${JSON.stringify(r.body ?? '')}`.includes('conformance0nonexistent') || ['waitForEvent', 'previewSubscriptionChange'].includes(op.operationId)) return false;
  const body = r.body as Record<string, unknown> | undefined;
  if (op.operationId === 'injectTestInboundMessage' && run && !run.fake.numbers.some((n) => n.number === body?.to)) return false;
  if (['cancelSubscription', 'resumeSubscription', 'changeSubscriptionInterval'].includes(op.operationId) && run && noSubscriptionBefore(run, r)) return false;
  if (!op.operation.requestBody) return true;
  return r.body !== undefined && validator.accepts(`${op.pointer}/requestBody/content/application~1json/schema`, r.body);
}

/** The billing status the deployment answered last before `r` showed no subscription (the state read first). */
function noSubscriptionBefore(run: LevelRun, r: RecordedRequest): boolean {
  const reads = run.proxy.requests.slice(0, run.proxy.requests.indexOf(r)).filter((x) => x.method === 'GET' && x.url === '/api/v1/billing');
  const last = reads.at(-1)?.answer as { subscription?: unknown } | undefined;
  return last !== undefined && last.subscription === null;
}

/** Never at any level: deleting, releasing, checking out, paying a fee, provisioning a number. */
function forbidden(r: RecordedRequest): string | undefined {
  const op = operationOf(r);
  const never = op && neverSentReason(op);
  if (never) return `${op.operationId}: ${never}`;
  if (r.method === 'DELETE' && !r.url.includes('conformance0nonexistent')) return `DELETE ${r.url} names an id that may exist`;
  if (/checkout/.test(r.url) && r.method === 'POST') return `POST ${r.url}`;
  // A 10DLC submission only to a number that cannot exist: no fee can be charged.
  if (/\/10dlc$/.test(r.url) && r.method === 'POST' && !r.url.includes('conformance0nonexistent')) return `POST ${r.url}`;
  if (op?.operationId === 'createNumber' && acting(r)) return 'provisions a number';
  // Any call, valid or not, with the key or without: the README says none goes without one.
  if (op?.operationId === 'createCall' && !r.headers['idempotency-key']) return 'a call without an Idempotency-Key';
  return undefined;
}

const runs: Partial<Record<Level, LevelRun>> = {};
beforeAll(async () => {
  // One after the other: each is a whole run's worth of requests.
  runs.contract = await runLevel('contract');
  runs.writes = await runLevel('writes');
}, 120_000);
afterAll(async () => {
  for (const run of Object.values(runs)) {
    await run?.proxy.close();
    await run?.fake.close();
  }
});

describe.each(['contract', 'writes'] as const)('level %s, as the recording proxy saw it', (level) => {
  it('sends nothing that deletes, releases, checks out, charges a fee or provisions a number', () => {
    const { proxy } = runs[level] as LevelRun;
    expect(proxy.requests.length).toBeGreaterThan(100);
    expect(proxy.requests.map(forbidden).filter(Boolean)).toEqual([]);
  });

  it('sends every DELETE to an id that cannot exist', () => {
    const deletes = (runs[level] as LevelRun).proxy.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes.every((r) => r.url.includes('conformance0nonexistent'))).toBe(true);
  });

  it('fails nothing against a conforming deployment', () => {
    const failed = (runs[level] as LevelRun).outcomes.filter((o) => o.verdict === 'fail').map((o) => o.scenarioId);
    expect(failed).toEqual([]);
  });
});

describe('the contract level', () => {
  it('creates and changes nothing', () => {
    expect(runs.contract?.proxy.requests.filter((r) => acting(r, runs.contract))).toEqual([]);
    expect(runs.contract?.report.sends.total).toBe(0);
  });
});

describe('the writes level', () => {
  const sent = () => (runs.writes as LevelRun).proxy.requests.filter((r) => acting(r, runs.writes));

  it('creates or changes exactly what the Safety table says: 3 injected messages, 1 message, 2 WhatsApp messages and 1 call to --to, 2 account changes, and the writes that change nothing its state allows', () => {
    const counts: Record<string, number> = {};
    for (const r of sent()) counts[operationOf(r)?.operationId ?? r.url] = (counts[operationOf(r)?.operationId ?? r.url] ?? 0) + 1;
    // This deployment has a default card, a webhook subscription and a ready WhatsApp line, no subscription.
    expect(counts).toEqual({ injectTestInboundMessage: 3, sendMessage: 3, createCall: 2, updateAccount: 2, updateNumber: 1, setTypingIndicator: 1, setDefaultPaymentMethod: 1, pingWebhook: 1 });
    for (const r of sent().filter((x) => ['sendMessage', 'createCall', 'setTypingIndicator'].includes(operationOf(x)?.operationId ?? ''))) expect((r.body as { to?: string; toNumber?: string }).to ?? (r.body as { toNumber?: string }).toNumber).toBe(TO);
    expect(sent().filter((r) => operationOf(r)?.operationId === 'sendMessage' && (r.body as { channel?: string }).channel === 'whatsapp')).toHaveLength(2);
    // The writes that change nothing carry what the account holds: the number's own cap, a typing indicator cleared.
    const patch = sent().find((r) => operationOf(r)?.operationId === 'updateNumber');
    expect(patch?.body).toEqual({ maxCallDurationSeconds: null });
    expect((sent().find((r) => operationOf(r)?.operationId === 'setTypingIndicator')?.body as { value: boolean }).value).toBe(false);
  });

  it('places one call: both attempts carry the same Idempotency-Key, and no call goes without one', () => {
    const calls = sent().filter((r) => operationOf(r)?.operationId === 'createCall');
    expect(new Set(calls.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(calls[0]?.headers['idempotency-key']).toMatch(/^conformance-/);
    const run = runs.writes as LevelRun;
    expect(run.fake.calls.length - run.callsBefore).toBe(1);
  });

  it('restores the account cap it changed, last', () => {
    const patches = sent().filter((r) => operationOf(r)?.operationId === 'updateAccount');
    expect(patches.at(-1)?.body).toEqual({ maxCallDurationSeconds: null });
    expect(runs.writes?.fake.account.maxCallDurationSeconds).toBeNull();
  });

  it('counts in the report what the proxy saw, within --max-sends', () => {
    const report = runs.writes?.report as ConformanceReport;
    expect(report.sends.total).toBe(sent().length);
    expect(report.sends.total).toBeLessThanOrEqual(report.sends.limit as number);
    expect(formatSummary(report)).toMatch(/^Sends \(creating or changing something\): 14 of at most 16 \(--max-sends\): /m);
  });

  it('shows in the coverage table the documented statuses each level reached', () => {
    const row = (id: string) => runs.writes?.report.coverage.find((c) => c.operationId === id);
    expect(row('createCall')).toMatchObject({ seen: expect.arrayContaining(['200', '201', '400', '401']), seenOnlyAtWrites: ['200', '201'] });
    expect(row('injectTestInboundMessage')?.seenOnlyAtWrites).toEqual(['201']);
    expect(formatCoverage(runs.writes?.report as ConformanceReport)).toMatch(/^createCall +POST \/api\/v1\/calls +yes +200\+ 201\+ 400\* 401\*/m);
    const contract = runs.contract?.report.coverage.find((c) => c.operationId === 'createCall');
    expect(contract?.seen).not.toContain('201');
    expect(contract?.seenOnlyAtWrites).toEqual([]);
  });
});

describe('the key never appears in the writes level output', () => {
  it('even when the deployment puts it in the ids the flows report', async () => {
    const echoing = await runLevel('writes', {}, (fake) => fake.breaks.add('echo-key'));
    try {
      expect(echoing.fake.calls.some((c) => String(c.id).includes(TEST_KEY))).toBe(true);
      const flows = echoing.outcomes.filter((o) => o.level === 'writes');
      // An answer that carries the caller's key breaks part 5.3, and only that: the flows themselves hold.
      const failed = new Set(flows.flatMap((o) => o.findings.filter((f) => f.verdict === 'fail').map((f) => f.check)));
      expect([...failed]).toEqual(['no-full-key-in-answers']);
      const output = [JSON.stringify(echoing.outcomes), JSON.stringify(echoing.report), formatSummary(echoing.report, { verbose: true }), formatCoverage(echoing.report)].join('\n');
      expect(output).toContain('[redacted key]');
      expect(output).not.toContain(TEST_KEY);
    } finally {
      await echoing.proxy.close();
      await echoing.fake.close();
    }
  }, 60_000);
});
