// The fixture accounts of the conformance suite (issue 38: --empty-wallet-key, --free-account-key),
// on the package's mock under --strict-keys behind a proxy that hides /__mock/ (a deployment as it
// looks): a fixture that is not what its option says is said about the fixture and nothing more is
// sent to it; what each option sends at each level, as the proxy saw it (the Safety table); what
// the coverage says each option unlocks, with and without it; and the command itself: the options
// and their variables in its help, a bad value one line and exit 2, an unfit fixture exit 2, and
// neither key in any report (JSON, JUnit, HTML, console), even where the deployment echoes them.
// That each of the five rows fails against a deployment that breaks it is shown with the rest of
// the rule table, in test/conformance-rules.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxSends, DEFAULT_MAX_SENDS, type ConformanceConfig, type Level } from '../conformance/config.js';
import { loadDescription, type Json } from '../conformance/description.js';
import { createEnvironment } from '../conformance/environment.js';
import type { ScenarioOutcome } from '../conformance/findings.js';
import { planScenarios, type PlanOptions } from '../conformance/plan.js';
import { buildReport, formatCoverage } from '../conformance/reporters/report.js';
import { runScenario } from '../conformance/scenario.js';
import { startMockAsDeployment, type BreakRule, type ProxiedRequest } from './helpers/breaking-proxy.js';
import { TEST_KEY, testConfig } from './helpers/conformance-harness.js';
import {
  EMPTY_WALLET_KEY,
  EMPTY_WALLET_SEED,
  FIXTURE_KEYS,
  FREE_ACCOUNT_KEY,
  FREE_ACCOUNT_SEED,
  FUNDED_KEY,
  FUNDED_SEED,
  TOPPED_UP_KEY,
  TOPPED_UP_SEED,
} from './helpers/conformance-fixture-accounts.js';

const document = loadDescription();
const repoRoot = path.resolve(import.meta.dirname, '..');
const TO = '+14155550199';
let proxy: Awaited<ReturnType<typeof startMockAsDeployment>>;
beforeAll(async () => {
  proxy = await startMockAsDeployment([{ keys: [TEST_KEY] }, EMPTY_WALLET_SEED, FREE_ACCOUNT_SEED, FUNDED_SEED, TOPPED_UP_SEED]);
});
afterAll(() => proxy?.close());

const FIXTURES_ONLY: PlanOptions = { emptyWallet: true, freeAccount: true };

/** Every fixture scenario a run at `level` plans, run in one environment, with what the proxy saw while they ran. */
async function runFixtures(level: Level, config: Partial<ConformanceConfig> = {}): Promise<{ outcomes: ScenarioOutcome[]; seen: ProxiedRequest[] }> {
  const settings = { ...FIXTURE_KEYS, ...config };
  const env = createEnvironment({ ...testConfig({ url: proxy.url } as never), level, timeoutMs: 15_000, maxSends: defaultMaxSends(settings), ...settings }, document);
  const from = proxy.requests.length;
  const scenarios = planScenarios(document, level, FIXTURES_ONLY).scenarios.filter((s) => s.fixture);
  const outcomes = await Promise.all(scenarios.map((s) => runScenario(env, s)));
  return { outcomes, seen: proxy.requests.slice(from) };
}

const keyOf = (r: ProxiedRequest) => String(r.headers.authorization ?? '').replace(/^Bearer /, '');
const writesOf = (seen: ProxiedRequest[]) => seen.filter((r) => r.method !== 'GET' && !(r.method === 'POST' && r.url === '/api/v1/events/wait'));
const fails = (outcomes: ScenarioOutcome[]) => outcomes.flatMap((o) => o.findings.filter((f) => f.verdict === 'fail').map((f) => `${o.scenarioId}: ${f.reason}`));

describe('a fixture that is not what its option says', () => {
  it('a funded wallet for --empty-wallet-key, a topped-up account for --free-account-key: said about the fixture, nothing sent to it but the reads', async () => {
    const { outcomes, seen } = await runFixtures('writes', { emptyWalletKey: FUNDED_KEY, freeAccountKey: TOPPED_UP_KEY });
    expect(outcomes.map((o) => o.scenarioId).sort()).toEqual(['getAccount/free-account-limits-object', 'sendMessage/wallet-fixed-not-gated', 'sendMessage/wallet-gating-402', 'submitTenDlcRegistration/ten-dlc-fee-402', 'updateAccount/free-call-cap-400']);
    for (const o of outcomes) {
      expect(o.verdict, o.scenarioId).toBe('skip');
      expect(o.findings.filter((f) => f.verdict === 'fail'), o.scenarioId).toEqual([]);
      expect(o.sends ?? []).toEqual([]);
    }
    const wallet = outcomes.find((o) => o.scenarioId === 'sendMessage/wallet-gating-402')!;
    expect(wallet.fixture).toBe(
      '--empty-wallet-key names an account that is not an account on an empty wallet: GET /api/v1/billing shows a wallet balance of 20 (part 3 gates at or below zero). Set aside an account on an empty wallet for it (conformance/README.md, Fixture accounts), or leave --empty-wallet-key out.',
    );
    expect(outcomes.find((o) => o.scenarioId === 'getAccount/free-account-limits-object')!.fixture).toMatch(/^--free-account-key names an account that is not a free account: GET \/api\/v1\/billing shows 1 deposit\(s\): it was topped up/);
    expect(writesOf(seen)).toEqual([]);
  });

  it('the empty wallet without a FIXED line: that rule is skipped with what to give the account, the others judged', async () => {
    proxy.rules.push({ on: 'GET /api/v1/numbers', answer: (a, r) => (keyOf(r) === EMPTY_WALLET_KEY ? { ...a, body: (a.body as Json[]).filter((n) => n.billingMode !== 'FIXED') } : undefined) });
    try {
      const { outcomes } = await runFixtures('writes');
      const fixed = outcomes.find((o) => o.scenarioId === 'sendMessage/wallet-fixed-not-gated')!;
      expect(fixed).toMatchObject({ verdict: 'skip', skipReason: expect.stringMatching(/^--empty-wallet-key: the fixture lists no FIXED line \(1 number\(s\)\)/) });
      expect(fixed.fixture).toBeUndefined();
      expect(outcomes.find((o) => o.scenarioId === 'sendMessage/wallet-gating-402')?.verdict).toBe('pass');
    } finally {
      proxy.reset();
    }
  });
});

// The Safety table (conformance/README.md): what each fixture option sends, on the fixture's own
// key, as the proxy saw it. Nothing at contract that a deployment could carry out (two cap changes
// a conforming one refuses, restored if not); at writes, 4 sends, each counted in --max-sends.
describe('what the fixture options send, as the proxy saw it', () => {
  it('at contract: the free account\'s two cap changes, both refused (400); nothing on the empty wallet', async () => {
    const { outcomes, seen } = await runFixtures('contract');
    expect(outcomes.map((o) => o.scenarioId).sort()).toEqual(['getAccount/free-account-limits-object', 'updateAccount/free-call-cap-400']);
    expect(fails(outcomes)).toEqual([]);
    expect(outcomes.every((o) => o.verdict === 'pass')).toBe(true);
    expect(writesOf(seen).map((r) => [r.method, r.url, keyOf(r), r.body])).toEqual(
      expect.arrayContaining([
        ['PATCH', '/api/v1/account', FREE_ACCOUNT_KEY, { maxCallDurationSeconds: 301 }],
        ['PATCH', '/api/v1/numbers/pn_freeaccount0line', FREE_ACCOUNT_KEY, { maxCallDurationSeconds: 301 }],
      ]),
    );
    expect(writesOf(seen)).toHaveLength(2);
    expect(outcomes.flatMap((o) => o.sends ?? [])).toEqual([]);
  });

  it('at writes: two messages and one call to --to and one 10DLC submission, refused but the FIXED line\'s message, within --max-sends', async () => {
    const { outcomes, seen } = await runFixtures('writes');
    expect(fails(outcomes)).toEqual([]);
    expect(outcomes.map((o) => [o.scenarioId, o.verdict])).toEqual(expect.arrayContaining([['sendMessage/wallet-gating-402', 'pass'], ['sendMessage/wallet-fixed-not-gated', 'pass'], ['submitTenDlcRegistration/ten-dlc-fee-402', 'pass'], ['updateAccount/free-call-cap-400', 'pass']]));
    // Besides these four, only the free account's two cap changes (refused): no DELETE, checkout, provisioning nor restore.
    expect(writesOf(seen).filter((r) => r.method !== 'POST').map((r) => `${r.method} ${r.url}`)).toEqual(expect.arrayContaining(['PATCH /api/v1/account', 'PATCH /api/v1/numbers/pn_freeaccount0line']));
    expect(writesOf(seen)).toHaveLength(6);
    const sent = writesOf(seen).filter((r) => r.method === 'POST');
    const described = sent.map((r) => `${r.url} ${keyOf(r) === EMPTY_WALLET_KEY ? 'empty-wallet' : keyOf(r) === FREE_ACCOUNT_KEY ? 'free-account' : keyOf(r)}`).sort();
    expect(described).toEqual(['/api/v1/calls free-account', '/api/v1/messages empty-wallet', '/api/v1/messages empty-wallet', '/api/v1/numbers/pn_emptywallet0payg/10dlc empty-wallet']);
    for (const r of sent.filter((x) => x.url === '/api/v1/messages' || x.url === '/api/v1/calls')) expect((r.body as Json).to).toBe(TO);
    expect(sent.find((r) => r.url === '/api/v1/calls')?.headers['idempotency-key']).toMatch(/^conformance-/);
    // What each got: only the FIXED line's message goes through.
    const sends = outcomes.flatMap((o) => o.sends ?? []).map((s) => `${s.operationId} ${s.status}`).sort();
    expect(sends).toEqual(['createCall 400', 'sendMessage 201', 'sendMessage 402', 'submitTenDlcRegistration 402']);
    // The default --max-sends leaves them their room: 16 and the 3 and 1 of the options.
    expect(defaultMaxSends(FIXTURE_KEYS)).toBe(DEFAULT_MAX_SENDS + sends.length);
    expect(defaultMaxSends({ emptyWalletKey: EMPTY_WALLET_KEY })).toBe(DEFAULT_MAX_SENDS + sends.filter((s) => !s.startsWith('createCall')).length);
  });
});

describe('what the coverage says each option unlocks', () => {
  const report = (options: PlanOptions & { level?: Level }) => buildReport({ document, outcomes: [], notSent: [], baseUrl: proxy.url, level: options.level ?? 'writes', ...options });
  const cell = (r: ReturnType<typeof report>, operationId: string, status: string) => r.coverage.find((c) => c.operationId === operationId)?.cells.find((c) => c.status === status && c.code === undefined);

  it('without the options: the rules and statuses each would let the suite judge, and the option', () => {
    const r = report({});
    const unlocked = (option: string) => r.unlocks.find((u) => u.unlock === option)?.what;
    expect(unlocked('--empty-wallet-key')?.[0]).toBe('an account on an empty wallet set aside: the rules wallet-gating-402, wallet-fixed-not-gated, ten-dlc-fee-402');
    expect(unlocked('--empty-wallet-key')).toEqual(expect.arrayContaining(['sendMessage 402', 'submitTenDlcRegistration 402']));
    expect(unlocked('--free-account-key')).toEqual(['a free account set aside: the rules free-account-limits-object, free-call-cap-400']);
    expect(cell(r, 'sendMessage', '402')).toMatchObject({ state: 'not-provoked', reason: 'needs a fixture account: an account on an empty wallet the team sets aside for it', unlock: '--empty-wallet-key' });
    expect(formatCoverage(r)).toMatch(/^ {2}- needs a fixture account: an account on an empty wallet the team sets aside for it: .*sendMessage 402/m);
    expect(formatCoverage(r)).toMatch(/^ {2}--free-account-key: a free account set aside: the rules free-account-limits-object, free-call-cap-400$/m);
  });

  it('with them: nothing left to unlock for them; at contract, the empty wallet\'s 402s wait for --level writes', () => {
    const r = report(FIXTURES_ONLY);
    expect(r.unlocks.map((u) => u.unlock)).not.toContain('--empty-wallet-key');
    expect(r.unlocks.map((u) => u.unlock)).not.toContain('--free-account-key');
    expect(cell(report({ ...FIXTURES_ONLY, level: 'contract' }), 'sendMessage', '402')).toMatchObject({ reason: 'provoked at --level writes (wallet-gating-402)', unlock: '--level writes --to <E.164>' });
  });
});

// The command, as a user runs it: a child process through tsx, vitest started inside it.
describe('the conformance command with the fixture options', () => {
  const reportRoot = mkdtempSync(path.join(tmpdir(), 'conformance-fixtures-'));
  afterAll(() => rmSync(reportRoot, { recursive: true, force: true }));

  function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; files: string }> {
    const reportDir = mkdtempSync(path.join(reportRoot, 'run-'));
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' };
    for (const key of Object.keys(childEnv)) if (key.startsWith('VITEST') || key === 'TEST' || key === 'NODE_ENV') delete childEnv[key];
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'conformance/bin.ts', '--report-dir', reportDir, ...args], { cwd: repoRoot, env: childEnv, maxBuffer: 32 * 1024 * 1024, timeout: 180_000 }, (error, out, err) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err, files: readdirSync(reportDir).map((f) => `${f}\n${readFileSync(path.join(reportDir, f), 'utf8')}`).join('\n') }),
      );
    });
  }
  const ONLY_FIXTURES = ['-t', 'wallet-gating|wallet-fixed|ten-dlc-fee|free-account-limits|free-call-cap'];

  it('--help names both options and their variables', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/--empty-wallet-key <key>[\s\S]*\[env\s+NUMBERS_API_EMPTY_WALLET_KEY\]/);
    expect(out).toMatch(/--free-account-key <key>[\s\S]*\[env\s+NUMBERS_API_FREE_ACCOUNT_KEY\]/);
  });

  it.each([
    [['--empty-wallet-key', 'not-a-key'], {}, /^numbers-api conformance: --empty-wallet-key must be a key beginning sk_live_ \(part 5\.1\)\.$/m],
    [[], { NUMBERS_API_FREE_ACCOUNT_KEY: 'not-a-key-either' }, /^numbers-api conformance: --free-account-key must be a key beginning sk_live_ \(part 5\.1\)\.$/m],
  ] as const)('a bad value %j %j is one line and exit 2, and writes no report', async (args, env, message) => {
    const { code, err, files } = await cli(['--base-url', 'http://127.0.0.1:9', ...args], { NUMBERS_API_KEY: TEST_KEY, ...env });
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err.split('\n')).toEqual([expect.stringMatching(/^numbers-api conformance: /), 'Run numbers-api conformance --help for the options.', '']);
    expect(files).toBe('');
  });

  it("conformance/README.md's fixture line passes as written (its keys and base URL given) on the faithful stand-in", async () => {
    const readme = readFileSync(path.join(repoRoot, 'conformance/README.md'), 'utf8');
    const line = /^NUMBERS_API_KEY=sk_live_\.\.\. NUMBERS_API_EMPTY_WALLET_KEY=sk_live_\.\.\. NUMBERS_API_FREE_ACCOUNT_KEY=sk_live_\.\.\. npx numbers-api conformance .*$/m.exec(readme)?.[0];
    expect(line, 'the README gives the fixture line').toBeDefined();
    const keys = [TEST_KEY, EMPTY_WALLET_KEY, FREE_ACCOUNT_KEY];
    const reportDir = mkdtempSync(path.join(reportRoot, 'readme-'));
    const command = `${line!.replace(/sk_live_\.\.\./g, () => keys.shift()!).replace('https://api.example.com', proxy.url)} --report-dir ${reportDir}`;
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
    for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key.startsWith('CONFORMANCE_') || key.startsWith('NUMBERS_API_') || key === 'TEST' || key === 'NODE_ENV') delete env[key];
    const { code, out } = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile('sh', ['-c', command], { cwd: repoRoot, env, maxBuffer: 32 * 1024 * 1024, timeout: 180_000 }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` })),
    );
    expect(code, out).toBe(0);
    expect(out).toMatch(/matches 5 scenario\(s\) of 4 operation\(s\)/);
    expect(out).toMatch(/^Scenarios: 5 passed, 0 failed/m);
    expect(out).toMatch(/^Sends \(creating or changing something\): 4 of at most 20 \(--max-sends\)/m);
  }, 200_000);

  it('neither key in any report nor on the console, even where the deployment echoes them; an unfit fixture stops with exit 2', async () => {
    // A deployment that puts each fixture's key in its answers: part 5.3 fails, and the evidence of the failure is redacted.
    const echo: BreakRule = { on: 'GET /api/v1/account', answer: (a, r) => (keyOf(r) === FREE_ACCOUNT_KEY ? { ...a, body: { ...(a.body as Json), note: FREE_ACCOUNT_KEY } } : undefined) };
    const echoBilling: BreakRule = { on: 'GET /api/v1/billing', answer: (a, r) => (keyOf(r) === EMPTY_WALLET_KEY ? { ...a, body: { ...(a.body as Json), note: EMPTY_WALLET_KEY } } : undefined) };
    proxy.rules.push(echo, echoBilling);
    try {
      const env = { NUMBERS_API_KEY: TEST_KEY, NUMBERS_API_EMPTY_WALLET_KEY: EMPTY_WALLET_KEY, NUMBERS_API_FREE_ACCOUNT_KEY: FREE_ACCOUNT_KEY };
      const [echoed, unfit] = await Promise.all([
        cli(['--base-url', proxy.url, '--level', 'writes', '--to', TO, ...ONLY_FIXTURES], env),
        cli(['--base-url', proxy.url, '--level', 'contract', ...ONLY_FIXTURES], { ...env, NUMBERS_API_FREE_ACCOUNT_KEY: TOPPED_UP_KEY }),
      ]);
      expect(echoed.code, echoed.err).toBe(1);
      expect(echoed.files).toMatch(/conformance-report\.json[\s\S]*junit\.xml|junit\.xml[\s\S]*conformance-report\.json/);
      expect(echoed.files).toContain('conformance-report.html');
      const everything = [echoed.out, echoed.err, echoed.files].join('\n');
      expect(everything).toContain('no-full-key-in-answers');
      expect(everything).toContain('[redacted key]');
      for (const secret of [EMPTY_WALLET_KEY, FREE_ACCOUNT_KEY, TEST_KEY]) expect(everything).not.toContain(secret);
      // The curl of a finding names the variable, never the key.
      expect(echoed.files).toMatch(/Bearer \$NUMBERS_API_(FREE_ACCOUNT|EMPTY_WALLET)_KEY/);

      expect(unfit.code, unfit.out).toBe(2);
      expect(unfit.err).toMatch(/^--free-account-key names an account that is not a free account: GET \/api\/v1\/billing shows 1 deposit\(s\)/m);
      for (const secret of [TOPPED_UP_KEY, EMPTY_WALLET_KEY, TEST_KEY]) expect([unfit.out, unfit.err, unfit.files].join('\n')).not.toContain(secret);
    } finally {
      proxy.reset();
    }
  }, 200_000);
});
