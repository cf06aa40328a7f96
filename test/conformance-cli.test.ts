// The conformance command end to end, as a user runs it (a child process through tsx, vitest
// started inside it): exit codes 0/1/2, the console summary by operation, the JSON and JUnit
// reports (written on every exit but a usage error, named by part and check), the coverage table, -t and --shard,
// the API key kept out of every output, no warning that is not the suite's own, part 5.1 on a
// mock that announces it accepts any key, and an account --level writes cannot run on.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceCli } from '../conformance/cli.js';
import { listOperations, loadDescription } from '../conformance/description.js';
import { neverSentReason } from '../conformance/policy.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import type { ConformanceReport } from '../conformance/reporters/report.js';
import { startFakeDeployment, type FakeDeployment } from './helpers/conformance-fake-deployment.js';
import { TEST_KEY } from './helpers/conformance-harness.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const reportRoot = mkdtempSync(path.join(tmpdir(), 'conformance-cli-'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  reportDir: string;
}

/** The JSON report that `run` wrote. */
function reportOf(run: Run): ConformanceReport {
  return JSON.parse(readFileSync(path.join(run.reportDir, 'conformance-report.json'), 'utf8'));
}

/** A run once it has ended, with its report. */
async function ended(started: Promise<Run>): Promise<{ run: Run; report: ConformanceReport }> {
  const run = await started;
  return { run, report: reportOf(run) };
}

function runCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const reportDir = mkdtempSync(path.join(reportRoot, 'run-'));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' };
  for (const key of Object.keys(childEnv)) if (key.startsWith('VITEST') || key === 'TEST' || key === 'NODE_ENV') delete childEnv[key];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'conformance/bin.ts', '--report-dir', reportDir, ...args],
      { cwd: repoRoot, env: childEnv, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr, reportDir }),
    );
  });
}

function reportFiles(dir: string): string {
  return readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

let fake: FakeDeployment;
let broken: FakeDeployment;
let writesFake: FakeDeployment;
let anyKeyFake: FakeDeployment;
let announcingFake: FakeDeployment;
let noCreditFake: FakeDeployment;
let mock: StatefulMock;
// The runs start together (each is a child process), so the file takes about one run's time.
let conformingRun: Promise<Run>;
let brokenRun: Promise<Run>;
let shardRun: Promise<Run>;
let writesRun: Promise<Run>;
let unannouncedRun: Promise<Run>;
let announcedRun: Promise<Run>;
let emptyWalletRun: Promise<Run>;
let noCreditRun: Promise<Run>;
beforeAll(async () => {
  fake = await startFakeDeployment({ apiKey: TEST_KEY });
  broken = await startFakeDeployment({ apiKey: TEST_KEY });
  writesFake = await startFakeDeployment({ apiKey: TEST_KEY });
  anyKeyFake = await startFakeDeployment({ apiKey: TEST_KEY });
  announcingFake = await startFakeDeployment({ apiKey: TEST_KEY });
  noCreditFake = await startFakeDeployment({ apiKey: TEST_KEY });
  mock = await startStatefulMock();
  broken.breaks.add('usage-days');
  broken.breaks.add('key-preview-full');
  // Both accept any well-formed key; only one says so.
  anyKeyFake.breaks.add('unknown-key-accepted');
  announcingFake.breaks.add('unknown-key-accepted');
  announcingFake.quirks.add('announces-any-key');
  noCreditFake.breaks.add('no-credit');
  const brokeKey = newKey('broke');
  expect((await client(mock.url, brokeKey)('PUT', '/__mock/wallet', { balance: 0 })).status).toBe(200);
  conformingRun = runCli([], { CONFORMANCE_BASE_URL: fake.url, CONFORMANCE_API_KEY: TEST_KEY });
  brokenRun = runCli(['--base-url', broken.url, '--api-key', TEST_KEY, '-t', 'getUsage|getAccount']);
  shardRun = runCli(['--shard', '1/4', '--base-url', fake.url], { CONFORMANCE_API_KEY: TEST_KEY });
  writesRun = runCli(['--base-url', writesFake.url, '--level', 'writes', '--to', '+14155550199', '--max-sends', '15'], { CONFORMANCE_API_KEY: TEST_KEY });
  unannouncedRun = runCli(['--base-url', anyKeyFake.url, '-t', 'auth-required'], { CONFORMANCE_API_KEY: TEST_KEY });
  announcedRun = runCli(['--base-url', announcingFake.url, '-t', 'auth-required'], { CONFORMANCE_API_KEY: TEST_KEY });
  emptyWalletRun = runCli(['--base-url', mock.url, '--level', 'writes', '--to', '+14155550199'], { CONFORMANCE_API_KEY: brokeKey });
  noCreditRun = runCli(['--base-url', noCreditFake.url, '--level', 'writes', '--to', '+14155550199'], { CONFORMANCE_API_KEY: TEST_KEY });
}, 60_000);
afterAll(async () => {
  for (const server of [fake, broken, writesFake, anyKeyFake, announcingFake, noCreditFake]) await server?.close();
  await mock?.close();
  rmSync(reportRoot, { recursive: true, force: true });
});

describe('against a conforming deployment (key from the environment only)', () => {
  let run: Run;
  let report: ConformanceReport;
  beforeAll(async () => void ({ run, report } = await ended(conformingRun)), 240_000);

  it('exits 0 and prints the summary by operation and the coverage table, and no warning that is not its own', () => {
    // Nothing foreign on stderr (vitest once warned that importing "vitest/reporters" is deprecated).
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^PASS +getUsage +GET \/api\/v1\/usage +\[part 4\.3\]$/m);
    expect(run.stdout).toMatch(/^NOT SENT deleteAccount +DELETE \/api\/v1\/account +\[part [^\]]+\] +\(not sent: deletes the account/m);
    expect(run.stdout).toMatch(/^ADVISORY listCalls/m);
    expect(run.stdout).toMatch(/Scenarios: \d+ passed, 0 failed, 2 advisory, 0 skipped/);
    expect(run.stdout).toMatch(/^Coverage$/m);
    expect(run.stdout).toMatch(/^getUsage +GET \/api\/v1\/usage +yes +200\* 401\*$/m);
  });

  it('exercises every operation the safety policy allows, and lists the others as never sent', () => {
    const notExercised = report.coverage.filter((c) => !c.exercised);
    expect(notExercised.map((c) => c.operationId).sort()).toEqual(
      ['createCreditsCheckout', 'createPaymentMethodSetup', 'createSubscriptionCheckout', 'deleteAccount'].sort(),
    );
    expect(notExercised.every((c) => c.notSentReason)).toBe(true);
    expect(report.totals.fail).toBe(0);
  });

  it('writes a JUnit report: suites named by part and check, cases by operation and scenario, skipped never-sent operations, advisory properties', () => {
    const junit = readFileSync(path.join(run.reportDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/^<\?xml/);
    expect(junit).not.toMatch(/slice-\d|\.conformance\./);
    expect(junit).toMatch(/<testsuite name="auth-required \(part 5\.1\)" tests="\d+" failures="0"/);
    expect(junit).toMatch(/<testsuite name="usage-days-fallback \(part 4\.3\)"/);
    expect(junit).toMatch(/<testcase classname="auth-required \(part 5\.1\)" name="getAccount: answers 401 without Authorization \(part 5\.1\)"/);
    expect(junit).toMatch(/<testcase classname="never sent \(safety policy\)" name="deleteAccount: never sent: deletes the account[^"]*" time="0\.000">\n\s*<skipped message="deletes the account/);
    expect(junit).toMatch(/<property name="advisory" value="history-list-limit-order: /);
    expect(junit).not.toMatch(/<failure/);
  });

  it('sent nothing that could act on a conforming or a wrongly accepting deployment (the contract level)', () => {
    const document = loadDescription();
    const validator = contractValidator(document);
    const operations = listOperations(document);
    const neverSent = fake.requests.filter((r) => operations.some((op) => op.operationId === r.operationId && neverSentReason(op)));
    expect(neverSent).toEqual([]);
    const writes = fake.requests.filter((r) => r.method !== 'GET' && r.authorization === `Bearer ${TEST_KEY}`);
    expect(writes.length).toBeGreaterThan(10);
    const harmful = writes.filter((r) => {
      const op = operations.find((o) => o.operationId === r.operationId);
      if (!op || `${r.url} ${JSON.stringify(r.body ?? '')}`.includes('conformance0nonexistent')) return false; // an id that cannot exist, in the path or the body
      if (op.operationId === 'waitForEvent' || op.operationId === 'previewSubscriptionChange') return false; // waiting and a preview change nothing (part 4.4)
      // The billing status shows no subscription: cancel, resume and change have nothing to act on (read first).
      if (['cancelSubscription', 'resumeSubscription', 'changeSubscriptionInterval'].includes(op.operationId)) return false;
      // An injection to a number the account does not hold: nothing can receive it.
      if (op.operationId === 'injectTestInboundMessage' && !fake.numbers.some((n) => n.number === (r.body as { to?: string }).to)) return false;
      const invalid = r.body === undefined || !validator.accepts(`${op.pointer}/requestBody/content/application~1json/schema`, r.body);
      return !invalid;
    });
    expect(harmful).toEqual([]);
  });

  it('never shows the key', () => {
    expect(run.stdout + run.stderr + reportFiles(run.reportDir)).not.toContain(TEST_KEY);
  });

  it('says where the reports went in one line', () => {
    expect(run.stdout).not.toContain('JUNIT report written');
    expect(run.stdout.match(/^Reports: .*conformance-report\.json, .*junit\.xml, .*conformance-report\.html$/gm)).toHaveLength(1);
  });

  it('shows no sends at the contract level', () => {
    expect(run.stdout).not.toMatch(/^Sends/m);
    expect(report.sends).toMatchObject({ total: 0, requests: [] });
  });
});

describe('--level writes (key from the environment, --max-sends 15)', () => {
  let run: Run;
  let report: ConformanceReport;
  beforeAll(async () => void ({ run, report } = await ended(writesRun)), 240_000);

  it('exits 0 with the flows judged and passed', () => {
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.code).toBe(0);
    const flows = report.operations.flatMap((o) => o.scenarios).filter((s) => s.level === 'writes');
    expect(flows.map((s) => `${s.scenarioId} ${s.verdict}`).sort()).toEqual(
      [
        'createCall/call-idempotent-replay pass',
        'listMessages/message-send-then-list pass',
        'sendMessage/event-message-status-changed pass',
        'sendMessage/whatsapp-spacing-429 pass',
        'updateAccount/account-cap-read-your-write pass',
        'updateNumber/unchanged-writes pass',
        'waitForEvent/event-message-received pass',
      ].sort(),
    );
  });

  it('counts its sends against --max-sends, in the console and the report', () => {
    expect(run.stdout).toMatch(/^Sends \(creating or changing something\): 14 of at most 15 \(--max-sends\): /m);
    expect(report.sends).toMatchObject({
      limit: 15,
      total: 14,
      byOperation: { injectTestInboundMessage: 3, sendMessage: 3, createCall: 2, updateAccount: 2, updateNumber: 1, setTypingIndicator: 1, setDefaultPaymentMethod: 1, pingWebhook: 1 },
    });
    expect(writesFake.account.maxCallDurationSeconds).toBeNull();
  });

  it('marks in the coverage table the statuses only the writes level reached', () => {
    expect(run.stdout).toMatch(/^createCall +POST \/api\/v1\/calls +yes +200\+ 201\+ 400\* 401\*/m);
    expect(run.stdout).toMatch(/documented statuses provoked: \d+\/133 \(\d+ at level contract, \d+ at level writes\)/);
    expect(report.coverage.find((c) => c.operationId === 'injectTestInboundMessage')?.seenOnlyAtWrites).toEqual(['201']);
  });

  it('never shows the key', () => {
    expect(run.stdout + run.stderr + reportFiles(run.reportDir)).not.toContain(TEST_KEY);
  });
});

describe('against a deployment that breaks rules (key as a flag)', () => {
  let run: Run;
  beforeAll(async () => {
    run = await brokenRun;
  }, 240_000);

  it('exits 1 and names the failed check, its part, the reason and the request', () => {
    expect(run.code).toBe(1);
    const junit = readFileSync(path.join(run.reportDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="usage-days-fallback \(part 4\.3\)" tests="1" failures="1"/);
    expect(junit).toMatch(/<failure message="days=45 \(not 7\/30\/90\): periodDays is 45, expected 30\." type="ConformanceFailure">/);
    expect(run.stdout).toMatch(/^FAIL +getUsage/m);
    expect(run.stdout).toContain('FAIL [usage-days-fallback, part 4.3] days=45 (not 7/30/90): periodDays is 45, expected 30.');
    expect(run.stdout).toContain('request: GET /api/v1/usage?days=45 (with the API key)');
    expect(run.stdout).toContain('[key-previews-not-full-keys, part 2, 5.3]');
  });

  it('ran only the scenarios the filter named', () => {
    const report = reportOf(run);
    const ran = report.operations.filter((o) => o.scenarios.length).map((o) => o.operationId);
    expect(ran.sort()).toEqual(['getAccount', 'getUsage']);
  });

  it('keeps the key out of every output even when the deployment echoes it back', () => {
    // The broken deployment returns the full key in the account; the suite must still not print it.
    expect(run.stdout).toContain('The account answer contains the full API key used for this run (shown here redacted).');
    expect(run.stdout + run.stderr + reportFiles(run.reportDir)).not.toContain(TEST_KEY);
  });
});

describe('part 5.1 on a deployment that accepts any well-formed key', () => {
  it('fails it when the deployment does not announce it: the behaviour alone never excuses it', async () => {
    const run = await unannouncedRun;
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL \[auth-required, part 5\.1\] Authentication ignored: 200 with a well-formed unknown key/);
    expect(run.stdout).not.toMatch(/Not applicable/);
  }, 240_000);

  it('reports the unknown-key checks as not applicable, in one line saying what to pass, when it announces it (GET /__mock/about)', async () => {
    const run = await announcedRun;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/FAIL/);
    const lines = run.stdout.split('\n').filter((line) => /Not applicable/.test(line));
    expect(lines).toEqual([
      expect.stringMatching(/^Not applicable \(\d+ scenarios\): http:\/\/127\.0\.0\.1:\d+ announces itself as the numbers-api mock accepting any well-formed key \(GET \/__mock\/about\), so the unknown-key 401 checks of part 5\.1 do not apply to it; start the mock with --strict-keys to run them\.$/),
    ]);
    expect(run.stdout).toMatch(/Scenarios: \d+ passed, 0 failed, 0 advisory, 0 skipped, \d+ not applicable/);
    const report = reportOf(run);
    expect(report.totals['not-applicable']).toBeGreaterThan(20);
  }, 240_000);
});

describe('--level writes on an account it cannot run on: exit 2, one line saying what the account needs', () => {
  it('the mock, with an empty wallet: found before anything is sent', async () => {
    const run = await emptyWalletRun;
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^--level writes cannot run on this account: the account has no credit: GET \/api\/v1\/billing shows a wallet balance of 0, .*Top up its wallet \(on the numbers-api mock: PUT \/__mock\/wallet \{"balance": 50\}\), then run again\.\n$/);
    expect(run.stdout).not.toMatch(/FAIL|answered 402/);
    const report = reportOf(run);
    expect(report.stopped).toEqual({ exitCode: 2, message: run.stderr.trim() });
    expect(readFileSync(path.join(run.reportDir, 'junit.xml'), 'utf8')).toMatch(/<error message="--level writes cannot run on this account: the account has no credit/);
  }, 240_000);

  it('a deployment whose sends answer 402 although its reads showed credit: no failure, the same line', async () => {
    const run = await noCreditRun;
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^--level writes cannot run on this account: the account has no credit: POST \/api\/v1\/(messages|calls) answered 402 \(part 7: insufficient credit\)\. Top up its wallet/)]);
    expect(run.stdout).not.toMatch(/^FAIL/m);
    expect(run.stdout).toMatch(/Scenarios: \d+ passed, 0 failed/);
    const report = reportOf(run);
    expect(report.totals.fail).toBe(0);
    expect(report.stopped?.exitCode).toBe(2);
  }, 240_000);
});

describe('--shard', () => {
  it('runs one shard of the slices', async () => {
    const run = await shardRun;
    expect(run.code).toBe(0);
    const report = reportOf(run);
    const ran = report.operations.filter((o) => o.scenarios.length).length;
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(report.operations.length - 5);
  }, 240_000);
});

describe('usage errors exit 2 with a clear message', () => {
  const saved = { ...process.env };
  let lastReportDir = '';
  async function usage(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; err: string; out: string }> {
    for (const key of Object.keys(process.env)) if (key.startsWith('CONFORMANCE_') || key.startsWith('NUMBERS_API_')) delete process.env[key];
    lastReportDir = mkdtempSync(path.join(reportRoot, 'usage-'));
    Object.assign(process.env, { CONFORMANCE_REPORT_DIR: lastReportDir, ...env });
    let err = '';
    let out = '';
    const write = process.stderr.write.bind(process.stderr);
    const writeOut = process.stdout.write.bind(process.stdout);
    process.stderr.write = ((chunk: string) => {
      err += chunk;
      return true;
    }) as typeof process.stderr.write;
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    try {
      return { code: await runConformanceCli(args), err, out };
    } finally {
      process.stderr.write = write;
      process.stdout.write = writeOut;
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  }

  it.each([
    [[], {}, /No base URL: pass --base-url <url> or set NUMBERS_API_BASE_URL/],
    [['--base-url', 'not a url'], { CONFORMANCE_API_KEY: TEST_KEY }, /--base-url "not a url" is not a URL/],
    [['--base-url', 'ftp://example.org'], { CONFORMANCE_API_KEY: TEST_KEY }, /must use http:\/\/ or https:\/\//],
    [['--base-url', 'http://127.0.0.1:9'], {}, /No API key: set NUMBERS_API_KEY/],
    [['--base-url', 'http://127.0.0.1:9'], { NUMBERS_API_KEY: 'not-a-key' }, /--api-key must be a key beginning sk_live_/],
    [['--base-url', 'http://127.0.0.1:9', '--level', 'writes'], { CONFORMANCE_API_KEY: TEST_KEY }, /--level writes needs --to <test number>/],
    [['--base-url', 'http://127.0.0.1:9', '--level', 'everything'], { CONFORMANCE_API_KEY: TEST_KEY }, /--level must be one of contract, writes/],
    [['--base-url', 'http://127.0.0.1:9', '--concurrency', '0'], { CONFORMANCE_API_KEY: TEST_KEY }, /--concurrency must be a whole number of at least 1/],
    [['--base-url', 'http://127.0.0.1:9', '--shard', 'half'], { CONFORMANCE_API_KEY: TEST_KEY }, /--shard must be <i>\/<n> with 1 <= i <= n <= 4 .*got "half"/],
    [['--base-url', 'http://127.0.0.1:9', '--shard', '3/2'], { CONFORMANCE_API_KEY: TEST_KEY }, /--shard must be <i>\/<n> with 1 <= i <= n <= 4 .*got "3\/2"/],
    [['--base-url', 'http://127.0.0.1:9', '--shard', '0/2'], { CONFORMANCE_API_KEY: TEST_KEY }, /--shard must be <i>\/<n> .*got "0\/2"/],
    [['--base-url', 'http://127.0.0.1:9', '--shard', '1/8'], { CONFORMANCE_API_KEY: TEST_KEY }, /\(the suite has 4 slices\), got "1\/8"/],
    [['--base-url', 'http://127.0.0.1:9', '-t', '(unclosed'], { CONFORMANCE_API_KEY: TEST_KEY }, /-t "\(unclosed" is not a regular expression/],
    [['--base-url', 'http://127.0.0.1:9', '--level', 'writes', '--to', '+14155550123', '--max-sends', 'many'], { CONFORMANCE_API_KEY: TEST_KEY }, /--max-sends must be a whole number/],
    [['--bogus'], {}, /Unknown option '--bogus'/],
  ])('%j', async (args, env, message) => {
    const { code, err } = await usage(args as string[], env as Record<string, string>);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    // One line, then where to read more.
    expect(err.split('\n')).toEqual([expect.stringMatching(/^numbers-api conformance: /), 'Run numbers-api conformance --help for the options.', '']);
    expect(err).not.toContain(TEST_KEY);
    // A usage error writes no report: the last run's would otherwise be lost (issue 38).
    expect(readdirSync(lastReportDir)).toEqual([]);
  });

  it('--report-dir given on a line that does not parse gets nothing written to it', async () => {
    const dir = path.join(mkdtempSync(path.join(reportRoot, 'flag-')), 'reports');
    const { code } = await usage(['--report-dir', dir, '--bogus']);
    expect(code).toBe(2);
    expect(existsSync(dir)).toBe(false);
  });

  it('-t that matches nothing says so, with what the names look like, and sends nothing', async () => {
    const { code, err, out } = await usage(['--base-url', 'http://127.0.0.1:9', '-t', 'nomatchatall'], { CONFORMANCE_API_KEY: TEST_KEY });
    expect(code).toBe(2);
    expect(err).toMatch(/^numbers-api conformance: -t "nomatchatall" matches no scenario\. Names are "<operationId> <title> \[<check>\]", e\.g\. -t getUsage/);
    expect(err).toMatch(/ Checks: .*auth-required.*usage-days-fallback\. /);
    expect(err).toMatch(/ With --level writes also: .*call-idempotent-replay.*message-send-then-list/);
    expect(out).not.toMatch(/^Reports: /m);
    expect(readdirSync(lastReportDir)).toEqual([]);
  });

  describe('a base URL that is not this API stops the run in one line', () => {
    const servers: Server[] = [];
    async function serve(handler: Parameters<typeof createHttpServer>[1]): Promise<string> {
      const server = createHttpServer(handler);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
    afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

    it.each([
      ['a static file server (200 text/html for everything)', 200, 'text/html', '<!doctype html><title>Home</title>', /answered 200 text\/html without a key and 200 text\/html with it/],
      ['a server that answers 404 text/plain for everything', 404, 'text/plain', 'Not Found', /answered 404 text\/plain without a key and 404 text\/plain with it/],
      ['another JSON API (404 JSON for an unknown path)', 404, 'application/json', '{"message":"Not Found"}', /answered 404 application\/json without a key and 404 application\/json with it/],
    ])('%s', async (_name, status, type, body, message) => {
      const url = await serve((_req, res) => res.writeHead(status, { 'content-type': type }).end(body));
      const { code, err, out } = await usage(['--base-url', url], { CONFORMANCE_API_KEY: TEST_KEY });
      expect(code).toBe(2);
      expect(err).toMatch(new RegExp(`^${url.replace(/[.]/g, '\\.')} does not look like this API: GET /api/v1/account `));
      expect(err).toMatch(message);
      expect(err.trimEnd().split('\n')).toHaveLength(1);
      expect(out).toMatch(/^Reports: \S+conformance-report\.json, \S+junit\.xml, \S+conformance-report\.html\n$/);
    });

    it('a key the deployment refuses', async () => {
      const { code, err } = await usage(['--base-url', fake.url], { CONFORMANCE_API_KEY: 'sk_live_notTheKeyOfThisAccount000' });
      expect(code).toBe(2);
      expect(err).toBe('The API key was refused: GET /api/v1/account answered 401 with it, as without one. Check --api-key (or NUMBERS_API_KEY).\n');
    });
  });

  it('says when the base URL does not answer', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as AddressInfo;
        server.close(() => resolve(p));
      });
    });
    const { code, err } = await usage(['--base-url', `http://127.0.0.1:${port}`], { CONFORMANCE_API_KEY: TEST_KEY });
    expect(code).toBe(2);
    expect(err).toMatch(new RegExp(`^Cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED.*Check --base-url\\.\\n$`));
  });

  it('does not echo a key passed with a bad flag', async () => {
    const { code, err } = await usage(['--api-key', TEST_KEY, '--base-url', 'nope']);
    expect(code).toBe(2);
    expect(err).not.toContain(TEST_KEY);
  });
});
