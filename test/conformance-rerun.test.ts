// `--rerun <finding-id>` as a CI gate (issue 38), against deployment stand-ins of our own: a proxy
// in front of the mock (test/helpers/breaking-proxy.ts) that breaks one rule at a time, with
// /__mock/ hidden and unknown keys refused (the mock runs --strict-keys, seeded with the run's key
// and a second account's), as a real deployment would. One finding of each kind (a shape, a flow,
// rules across requests: usage days, list order, an idempotency replay, events/wait filters; an
// isolation finding; a finding on an account the suite signed up on the mock), each: `Still there`
// (exit 1) while broken, `Gone` (exit 0) once the stand-in is faithful, and exit 2 with what it
// needs where it cannot judge. Then the command line: a usage error leaves the report untouched,
// and the rerun line printed for a finding runs as pasted in a new shell.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/cli/usage-error.js';
import { resolveRef } from '../src/contract/json-pointer.js';
import { startMock, type RunningMock } from '../src/mock/start-mock.js';
import { runConformanceCli } from '../conformance/cli.js';
import type { ConformanceConfig } from '../conformance/config.js';
import { loadDescription, type Json } from '../conformance/description.js';
import { createEnvironment } from '../conformance/environment.js';
import { planScenarios } from '../conformance/plan.js';
import type { FindingGroup } from '../conformance/reporters/finding-groups.js';
import { reportFiles, rerunReportFile, writeReports } from '../conformance/reporters/files.js';
import { buildReport, formatFinding, formatSummary, type ConformanceReport } from '../conformance/reporters/report.js';
import { rerunFinding, type RerunReport } from '../conformance/rerun.js';
import { runScenario } from '../conformance/scenario.js';
import { renameField, startBreakingProxy, type BreakingProxy, type BreakRule } from './helpers/breaking-proxy.js';
import { repoRoot } from './helpers/contract.js';
import { TEST_KEY, testConfig } from './helpers/conformance-harness.js';

const SECOND_KEY = 'sk_live_CONFORMANCEsecondKEY5b8e2d47a91c';
const document = loadDescription();
const reportRoot = mkdtempSync(path.join(tmpdir(), 'conformance-rerun-'));

/** A documented example, by operation, status and name. */
function example(pathName: string, method: string, status: number, name: string): Json {
  const media = document.paths[pathName][method].responses[String(status)].content['application/json'];
  return structuredClone(resolveRef(document, media.examples[name]).value);
}

/** The second account holds numbers of its own (other ids, other numbers), so isolation can be judged both ways. */
const secondNumbers = (example('/api/v1/numbers', 'get', 200, 'twoNumbers') as Json[]).map((n, i) => ({ ...n, id: `pn_01SECOND0000000000000000${i}`, number: `+1202555010${i}` }));

/** A deployment hides the mock's control surface: its paths answer the contract's 404. */
const HIDDEN: BreakRule[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((method) => ({
  on: `${method} /__mock/.*`,
  answer: () => ({ status: 404, headers: { 'content-type': 'application/json' }, body: { error: 'Not found' } }),
}));

let mock: RunningMock;
/** The deployment stand-in: /__mock/ hidden. */
let deployment: BreakingProxy;
/** The mock seen through a proxy that hides nothing: it announces itself, so the suite signs accounts up there. */
let mockDoor: BreakingProxy;

beforeAll(async () => {
  mock = await startMock({ port: 0, strictKeys: true, seed: { accounts: [{ keys: [TEST_KEY] }, { keys: [SECOND_KEY], numbers: secondNumbers as never }] } });
  await mock.ready;
  deployment = await startBreakingProxy(mock.url);
  mockDoor = await startBreakingProxy(mock.url);
  deployment.rules.push(...HIDDEN);
});
afterAll(async () => {
  await deployment?.close();
  await mockDoor?.close();
  await mock?.close();
  rmSync(reportRoot, { recursive: true, force: true });
});
afterEach(() => {
  deployment.rules.splice(0, deployment.rules.length, ...HIDDEN);
  mockDoor.rules.length = 0;
});

/** The run's settings against `url`: the contract level unless said, the run's key, --to for writes. */
function config(url: string, overrides: Partial<ConformanceConfig> = {}): ConformanceConfig {
  return { ...testConfig({ url } as never), level: 'contract', timeoutMs: 15_000, retryBudgetMs: 20_000, eventWindowMs: 8_000, ...overrides };
}

const onMock = (overrides: Partial<ConformanceConfig> = {}): ConformanceConfig => config(mockDoor.url, { level: 'writes', mock: 'strict', mockControlToken: mock.controlToken, ...overrides });

/** One scenario run as the suite runs it, its report written to a directory of its own; the finding `pick` chooses. */
async function findingOf(cfg: ConformanceConfig, scenarioId: string, pick: (g: FindingGroup) => boolean): Promise<{ group: FindingGroup; dir: string; report: ConformanceReport }> {
  const env = createEnvironment(cfg);
  const options = { mock: cfg.mock !== undefined, secondKey: cfg.secondKey !== undefined };
  const plan = planScenarios(env.document, cfg.level, options);
  const scenario = plan.scenarios.find((s) => s.id === scenarioId);
  if (!scenario) throw new Error(`No scenario ${scenarioId}`);
  const outcome = await runScenario(env, scenario);
  const report = buildReport({ document: env.document, outcomes: [outcome], notSent: plan.notSent, baseUrl: cfg.baseUrl, level: cfg.level, ...(cfg.level === 'writes' ? { to: cfg.to } : {}), ...options });
  const dir = mkdtempSync(path.join(reportRoot, 'run-'));
  writeReports(dir, report);
  const group = report.findings.find(pick);
  if (!group) throw new Error(`No such finding:\n${formatSummary(report)}`);
  expect(group.scenarioIds).toEqual([scenarioId]);
  return { group, dir, report };
}

interface Rerun {
  code: number;
  text: string;
  /** Refused before anything was sent (a usage error). */
  refused: boolean;
}

async function rerun(cfg: ConformanceConfig, dir: string, id: string): Promise<Rerun> {
  const lines: string[] = [];
  try {
    const code = await rerunFinding({ ...cfg, reportDir: dir }, id, (line) => lines.push(line));
    return { code, text: lines.join('\n'), refused: false };
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, text: error.message, refused: true };
    throw error;
  }
}

/** The run's report files as they are: bytes and modification times. */
function snapshot(dir: string): Record<string, { bytes: string; mtimeMs: number }> {
  return Object.fromEntries(Object.values(reportFiles(dir)).map((file) => [file, { bytes: readFileSync(file, 'utf8'), mtimeMs: statSync(file).mtimeMs }]));
}

/** Still there while broken, gone once faithful; the run's report never touched, the rerun's own beside it. */
async function expectGate(cfg: ConformanceConfig, dir: string, group: FindingGroup, fix: () => void): Promise<{ still: Rerun; gone: Rerun }> {
  const before = snapshot(dir);
  const still = await rerun(cfg, dir, group.id);
  expect(still.code, still.text).toBe(1);
  expect(still.text).toMatch(new RegExp(`^Still there: finding ${group.id} came again`, 'm'));
  const own = JSON.parse(readFileSync(rerunReportFile(dir, group.id), 'utf8')) as RerunReport;
  expect(own).toMatchObject({ finding: { id: group.id, check: group.check }, result: 'still-there', exitCode: 1 });
  expect(own.findings.map((g) => g.id)).toContain(group.id);
  fix();
  const gone = await rerun(cfg, dir, group.id);
  expect(gone.code, gone.text).toBe(0);
  expect(gone.text).toMatch(new RegExp(`^Gone: .*judged ${group.check} on ${group.operationId} again without finding ${group.id}\\.$`, 'm'));
  expect(JSON.parse(readFileSync(rerunReportFile(dir, group.id), 'utf8'))).toMatchObject({ result: 'gone', exitCode: 0 });
  expect(snapshot(dir)).toEqual(before);
  return { still, gone };
}

const resetRules = (proxy: BreakingProxy) => () => proxy.rules.splice(0, proxy.rules.length, ...(proxy === deployment ? HIDDEN : []));

describe('--rerun judges a finding the way its scenario did, on a deployment that breaks one rule', () => {
  it('a shape: a renamed field in every record of the numbers list', async () => {
    deployment.rules.push({ on: 'GET /api/v1/numbers', answer: (a) => ({ ...a, body: renameField(a.body, 'createdAt', 'created_at') }) });
    const cfg = config(deployment.url);
    const { group, dir } = await findingOf(cfg, 'listNumbers/read', (g) => g.check === 'response-schema-conformance' && g.at === '/*/createdAt');
    expect(group.level).toBe('contract');
    const before = deployment.requests.length;
    const { still } = await expectGate(cfg, dir, group, resetRules(deployment));
    expect(still.text).toMatch(/listNumbers: a read with the key succeeds and its answer matches the description: fail\n {4}GET \/api\/v1\/numbers \(with the API key\) → 200/);
    expect(deployment.requests.slice(before, before + 1).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/numbers']);
  });

  it('a flow: the account cap is answered, then read back as it was before (read your write, part 4.2)', async () => {
    const first = new Map<string, unknown>();
    deployment.rules.push({
      on: 'GET /api/v1/account',
      answer: (a, request) => {
        const who = String(request.headers.authorization);
        const body = a.body as Json;
        if (a.status !== 200) return undefined;
        if (!first.has(who)) first.set(who, body.maxCallDurationSeconds);
        return { ...a, body: { ...body, maxCallDurationSeconds: first.get(who) } };
      },
    });
    const cfg = config(deployment.url, { level: 'writes' });
    const { group, dir } = await findingOf(cfg, 'updateAccount/account-cap-read-your-write', (g) => g.check === 'account-cap-read-your-write' && /^Read back/.test(g.title));
    expect(group.level).toBe('writes');
    // Its scenario creates or changes something: only at --level writes, said before anything is sent.
    const sent = deployment.requests.length;
    const refused = await rerun({ ...cfg, level: 'contract' }, dir, group.id);
    expect(refused).toMatchObject({ code: 2, refused: true });
    expect(refused.text).toMatch(new RegExp(`^Finding ${group.id} \\(account-cap-read-your-write on getAccount\\) came from updateAccount/account-cap-read-your-write; judging it again needs --level writes\\.$`));
    expect(deployment.requests.length).toBe(sent);
    expect(existsSync(rerunReportFile(dir, group.id))).toBe(false);
    const { still } = await expectGate(cfg, dir, group, resetRules(deployment));
    // Every request of the flow went again: the read first, the change, the read back, the restore.
    expect(still.text).toMatch(/GET \/api\/v1\/account [^\n]*→ 200\n {4}PATCH \/api\/v1\/account [^\n]*→ 200\n {4}GET \/api\/v1\/account [^\n]*→ 200\n {4}PATCH \/api\/v1\/account/);
  });

  it('a rule across requests: usage ignores `days` (part 4.3), and the days=7 finding is judged apart from days=90', async () => {
    deployment.rules.push({ on: 'GET /api/v1/usage', answer: (a) => ({ ...a, body: { ...(a.body as Json), periodDays: 30 } }) });
    const cfg = config(deployment.url);
    const { group, dir, report } = await findingOf(cfg, 'getUsage/usage-days-fallback', (g) => g.check === 'usage-days-fallback' && /^days=7:/.test(g.title));
    const ninety = report.findings.find((g) => /^days=90:/.test(g.title))!;
    expect(ninety.id).not.toBe(group.id);
    const { still } = await expectGate(cfg, dir, group, resetRules(deployment));
    expect(still.text).toContain(`Other findings of the run these scenarios still show (each has its own --rerun): ${ninety.id}.`);
  });

  it('a rule across requests: the messages list served oldest first (part 8), judged by the two messages it sends first', async () => {
    deployment.rules.push({ on: 'GET /api/v1/messages', answer: (a) => (Array.isArray(a.body) ? { ...a, body: [...a.body].reverse() } : undefined) });
    const cfg = config(deployment.url, { level: 'writes' });
    const { group, dir } = await findingOf(cfg, 'listMessages/message-send-then-list', (g) => /^Not newest first/.test(g.title));
    const { still } = await expectGate(cfg, dir, group, resetRules(deployment));
    expect(still.text.match(/POST \/api\/v1\/test\/messages\/inbound [^\n]*→ 201/g)).toHaveLength(2);
  });

  it('a rule across requests: an Idempotency-Key replay places a second call (part 7.2), judged by the call and its replay', async () => {
    // The deployment loses the key on its way in: every attempt is a new call.
    deployment.rules.push({ on: 'POST /api/v1/calls', request: (r) => ({ headers: { ...r.headers, 'idempotency-key': `lost-${randomUUID()}` }, body: r.body }) });
    const cfg = config(deployment.url, { level: 'writes' });
    const { group, dir } = await findingOf(cfg, 'createCall/call-idempotent-replay', (g) => g.check === 'call-idempotent-replay' && g.verdict === 'fail');
    expect(group.title).toMatch(/^Replay with the same key: 201 \(200 required/);
    const { still, gone } = await expectGate(cfg, dir, group, resetRules(deployment));
    expect(still.text.match(/POST \/api\/v1\/calls [^\n]*→ 201/g)).toHaveLength(2);
    expect(gone.text).toMatch(/POST \/api\/v1\/calls [^\n]*→ 201\n {4}POST \/api\/v1\/calls [^\n]*→ 200/);
  });

  it('a rule across requests: events/wait ignores its filter (part 4.5), judged on the flow\'s own message; a wait that answers 503 cannot judge it', async () => {
    const dropFilters: BreakRule = { on: 'POST /api/v1/events/wait', request: (r) => ({ headers: r.headers, body: { ...(r.body as Json), filters: undefined } }) };
    deployment.rules.push(dropFilters);
    const cfg = config(deployment.url, { level: 'writes' });
    const { group, dir } = await findingOf(cfg, 'waitForEvent/event-message-received', (g) => g.check === 'event-wait-no-match-408');
    expect(group.title).toMatch(/a group that cannot exist, answered an event while a message arrived: the filter was not applied/);
    // The event stream gone: the flow skips, and the rerun says why it cannot judge (exit 2, after running).
    deployment.rules.push({ on: 'POST /api/v1/events/wait', answer: () => ({ status: 503, headers: { 'content-type': 'application/json' }, body: { error: 'Event stream not configured' } }) });
    const unjudged = await rerun(cfg, dir, group.id);
    expect(unjudged).toMatchObject({ code: 2, refused: false });
    expect(unjudged.text).toMatch(/^Cannot judge it here: waitForEvent: .* did not run to its end: 503: the event stream is not configured on this deployment \(part 7\)\.$/m);
    expect(JSON.parse(readFileSync(rerunReportFile(dir, group.id), 'utf8'))).toMatchObject({ result: 'cannot-judge', exitCode: 2 });
    deployment.rules.pop();
    await expectGate(cfg, dir, group, resetRules(deployment));
  });

  it("an isolation finding: one account's 10DLC registration served to the other (part 7); without --second-key it says so", async () => {
    const approved = example('/api/v1/numbers/{id}/10dlc', 'get', 200, 'approved');
    deployment.rules.push({
      on: 'GET /api/v1/numbers/[^/]+/10dlc',
      answer: (a, request) => (a.status === 404 && request.headers.authorization === `Bearer ${SECOND_KEY}` ? { status: 200, headers: { 'content-type': 'application/json' }, body: approved } : undefined),
    });
    const cfg = config(deployment.url, { secondKey: SECOND_KEY });
    const { group, dir } = await findingOf(cfg, 'getTenDlcRegistration/cross-account-404', (g) => g.check === 'cross-account-404' && g.verdict === 'fail');
    expect(group.title).toMatch(/of the run's account answered 200 to the second key's account/);
    const { secondKey: _none, ...alone } = cfg;
    const refused = await rerun(alone, dir, group.id);
    expect(refused).toMatchObject({ code: 2, refused: true });
    expect(refused.text).toMatch(/judging it again needs --second-key <a key of a second account> \(or NUMBERS_API_SECOND_KEY\)\.$/);
    await expectGate(cfg, dir, group, resetRules(deployment));
  });

  it('a finding on an account the suite signed up on the mock: the rerun signs one up again; elsewhere it says it needs the mock', async () => {
    // The mock's accounts are deleted for good (part 4.2); this door keeps answering a deleted account's key.
    const deleted = new Set<string>();
    const lastRead = new Map<string, unknown>();
    mockDoor.rules.push(
      { on: 'DELETE /api/v1/account', answer: (a, request) => void (a.status === 200 && deleted.add(String(request.headers.authorization))) },
      {
        on: 'GET /api/v1/account',
        answer: (a, request) => {
          const who = String(request.headers.authorization);
          if (a.status === 200) lastRead.set(who, a.body);
          return deleted.has(who) && lastRead.has(who) ? { status: 200, headers: { 'content-type': 'application/json' }, body: lastRead.get(who) } : undefined;
        },
      },
    );
    const cfg = onMock();
    const { group, dir } = await findingOf(cfg, 'verifyPhoneNumber/sign-up-flow', (g) => g.check === 'sign-up-flow' && g.verdict === 'fail');
    expect(group.title).toMatch(/The deleted account's key, read again .*expected 401, got 200/);
    expect(group.example.sent?.auth).toBe('scratch');
    // The console explains $SCRATCH_KEY and offers the rerun, which signs up again.
    const text = formatFinding(group, { reportDir: dir }).join('\n');
    expect(text).toContain('-H "Authorization: Bearer $SCRATCH_KEY"');
    expect(text).toMatch(/\$SCRATCH_KEY is the key of an account the suite signed up on the package's mock for this check; the suite never keeps it\. Its rerun line runs the check again/);
    expect(text).toMatch(new RegExp(`rerun: npm run conformance -- --rerun ${group.id} --level writes --report-dir \\S+ {3}# installed: npx numbers-api conformance --rerun ${group.id} --level writes`));
    // Against a deployment (the mock hidden), it cannot run: said before anything is sent.
    const refused = await rerun(config(deployment.url, { level: 'writes' }), dir, group.id);
    expect(refused).toMatchObject({ code: 2, refused: true });
    expect(refused.text).toMatch(/judging it again needs the package's mock as the base URL: it runs only there \(a sign-up emails and texts codes to a person/);
    const { still } = await expectGate(cfg, dir, group, resetRules(mockDoor));
    expect(still.text).toMatch(/POST \/api\/v1\/auth\/signup [^\n]*→ 200/);
  });
});

/** The environment of a new shell: none of this runner's settings, the keys as a person exports them. */
function newShell(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key.startsWith('CONFORMANCE_') || (key.startsWith('NUMBERS_API_') && !(key in extra)) || key === 'TEST' || key === 'NODE_ENV') delete env[key];
  return env;
}

describe('the command line', () => {
  const saved = { ...process.env };
  async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; err: string }> {
    for (const key of Object.keys(process.env)) if (key.startsWith('CONFORMANCE_') || key.startsWith('NUMBERS_API_')) delete process.env[key];
    Object.assign(process.env, env);
    let err = '';
    const [writeErr, writeOut] = [process.stderr.write.bind(process.stderr), process.stdout.write.bind(process.stdout)];
    process.stderr.write = ((chunk: string) => ((err += chunk), true)) as typeof process.stderr.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      return { code: await runConformanceCli(args), err };
    } finally {
      process.stderr.write = writeErr;
      process.stdout.write = writeOut;
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  }

  it('a refused run or rerun writes no report: the last run\'s files keep their bytes and times', async () => {
    deployment.rules.push({ on: 'GET /api/v1/usage', answer: (a) => ({ ...a, body: { ...(a.body as Json), periodDays: 30 } }) });
    const { group, dir } = await findingOf(config(deployment.url), 'getUsage/usage-days-fallback', (g) => g.check === 'usage-days-fallback');
    const before = snapshot(dir);
    const key = { NUMBERS_API_KEY: TEST_KEY };
    const refusals: Array<[string[], Record<string, string>, RegExp]> = [
      [['--rerun', group.id, '--report-dir', dir, '--bogus'], key, /Unknown option '--bogus'/],
      [['--rerun', 'ffffffff', '--report-dir', dir], key, /No finding ffffffff in .*; its findings are /],
      [['--rerun', group.id, '--report-dir', dir], {}, /No API key: set NUMBERS_API_KEY/],
      [['--report-dir', dir], key, /No base URL: pass --base-url <url> or set NUMBERS_API_BASE_URL/],
      [['--report-dir', dir, '--base-url', deployment.url, '--level', 'writes'], key, /--level writes needs --to <test number>/],
    ];
    for (const [args, env, message] of refusals) {
      const { code, err } = await cli(args, env);
      expect(code, err).toBe(2);
      expect(err).toMatch(message);
      expect(err).not.toContain(TEST_KEY);
      expect(snapshot(dir)).toEqual(before);
    }
    expect(existsSync(rerunReportFile(dir, group.id))).toBe(false);
  });

  it('the rerun line printed for a finding runs as pasted in a new shell: Still there (exit 1), then Gone (exit 0)', async () => {
    deployment.rules.push({ on: 'GET /api/v1/messages', answer: (a) => (Array.isArray(a.body) ? { ...a, body: [...a.body].reverse() } : undefined) });
    const { group, dir, report } = await findingOf(config(deployment.url, { level: 'writes' }), 'listMessages/message-send-then-list', (g) => /^Not newest first/.test(g.title));
    const line = formatFinding(group, { reportDir: dir }).find((l) => l.startsWith('    rerun: '))!.slice('    rerun: '.length);
    expect(line).toBe(`npm run conformance -- --rerun ${group.id} --level writes --report-dir ${dir}   # installed: npx numbers-api conformance --rerun ${group.id} --level writes --report-dir ${dir}`);
    // The HTML report offers the same line.
    expect(readFileSync(reportFiles(dir).html, 'utf8')).toContain(`<code>${line}</code>`);
    // The base URL and --to come from the report; the key from its variable, as the curl's.
    expect(report).toMatchObject({ baseUrl: deployment.url, level: 'writes', to: '+14155550199' });
    const before = snapshot(dir);
    const paste = () =>
      promisify(execFile)('bash', ['-c', line], { cwd: repoRoot, env: newShell({ NUMBERS_API_KEY: TEST_KEY }), encoding: 'utf8', timeout: 120_000 }).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
      );
    const still = await paste();
    expect(still.code, still.out + still.err).toBe(1);
    expect(still.out).toMatch(new RegExp(`^Judged again against ${deployment.url} at --level writes \\(--to \\+14155550199\\)`, 'm'));
    expect(still.out).toMatch(new RegExp(`^Still there: finding ${group.id} came again`, 'm'));
    expect(still.out).toContain(`Rerun report: ${rerunReportFile(dir, group.id)}`);
    expect(still.out + still.err).not.toContain(TEST_KEY);
    resetRules(deployment)();
    const gone = await paste();
    expect(gone.code, gone.out + gone.err).toBe(0);
    expect(gone.out).toMatch(/^Gone: /m);
    expect(snapshot(dir)).toEqual(before);
  }, 240_000);
});
