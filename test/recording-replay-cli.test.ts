// `numbers-api conformance --replay <recording>` under the suite's safety rules: against the mock
// (it announces itself) every step runs and passes; against a deployment (a proxy that does not
// announce the mock) a recording that sends or buys runs only at the level and with the --allow
// that permit it (else nothing is sent, exit 2, each step named with why), its mock-only steps are
// skipped and said so, and a deployment that drops a value the recording carried fails the step
// that depends on it, in the console and in the suite's report, each finding with a curl that,
// run as printed, gets the status its step got.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { configFromEnv } from '../conformance/config.js';
import { runReplayCli } from '../conformance/replay.js';
import { rerunFinding } from '../conformance/rerun.js';
import { createHandlers } from '../src/msw/index.js';
import { recordingText } from '../src/recording/to-arazzo.js';
import { checkoutFlow } from './fixtures/recording-frontend.js';
import { renameField, startBreakingProxy } from './helpers/breaking-proxy.js';
import type { JsonObject } from './helpers/contract.js';
import { startRewritingProxy, type LoopbackServer, type ProxiedExchange } from './helpers/respect.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const BASE = 'https://recording-replay.example.com';
let dir: string;
let file: string;
let mock: StatefulMock;
const sentToDeployment: string[] = [];

/** Stops `proxy` when the test that started it ends, passed or failed. */
function forThisTest<T extends { close(): Promise<void> }>(proxy: T): T {
  onTestFinished(() => proxy.close());
  return proxy;
}

/** A deployment for this test: the mock behind a proxy that hides its control surface (so it announces nothing). */
async function deployment(rewrite: (x: ProxiedExchange) => void = () => {}): Promise<LoopbackServer> {
  return forThisTest(await startRewritingProxy(mock.url, (x) => {
    if (x.pathname.startsWith('/__mock/')) {
      x.status = 404;
      x.body = { error: 'Not found' };
      return;
    }
    sentToDeployment.push(`${x.method} ${x.pathname}`);
    rewrite(x);
  }));
}

/** A deployment for this test that renames the `phoneNumberId` of a sent message (the mock behind a breaking proxy). */
async function renamingDeployment(): Promise<Awaited<ReturnType<typeof startBreakingProxy>>> {
  const proxy = forThisTest(await startBreakingProxy(mock.url));
  proxy.rules.push({ on: 'POST /api/v1/messages', answer: (a) => ({ ...a, body: renameField(a.body, 'phoneNumberId', 'phone_number_id') }) });
  return proxy;
}

async function replay(argv: string[], key = newKey('replay')): Promise<{ code: number; out: string; err: string; report?: JsonObject; reportDir: string }> {
  let out = '';
  let err = '';
  const reportDir = mkdtempSync(path.join(dir, 'report-'));
  const code = await runReplayCli(['--replay', file, '--api-key', key, '--report-dir', reportDir, ...argv], (t) => void (out += t), (t) => void (err += t), {});
  let report: JsonObject | undefined;
  try {
    report = JSON.parse(readFileSync(path.join(reportDir, 'conformance-report.json'), 'utf8')) as JsonObject;
  } catch {
    // no report
  }
  return { code, out, err, report, reportDir };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'recording-replay-'));
  file = path.join(dir, 'checkout-flow.arazzo.json');
  const api = createHandlers({ baseUrl: BASE });
  const server = setupServer(...api.handlers);
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const key = newKey('rec');
    api.control.startRecording(key, 'checkout-flow');
    await checkoutFlow(client(BASE, key));
    writeFileSync(file, recordingText(api.control.stopRecording(key) as JsonObject));
  } finally {
    server.close();
    api.control.stop();
  }
  mock = await startStatefulMock();
});
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('conformance --replay', () => {
  it('against the mock it was made on: every step passes, the report is written', async () => {
    const run = await replay(['--base-url', mock.url]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/pass {2}step mockCompleteCheckout/);
    expect(run.report?.totals).toMatchObject({ fail: 0, pass: 8 });
  });

  it('a deployment at the contract level: nothing is sent, each step that may not run is named with why', async () => {
    const proxy = await deployment();
    sentToDeployment.length = 0;
    const run = await replay(['--base-url', proxy.url]);
    expect(run.code).toBe(2);
    expect(run.err.trim().split('\n')).toHaveLength(1);
    expect(run.err).toMatch(/step sendMessage \(sendMessage\): it changes something: it runs only at --level writes/);
    expect(run.err).toMatch(/step createCreditsCheckout \(createCreditsCheckout\): it starts an embedded checkout .*--allow createCreditsCheckout/);
    expect(sentToDeployment).toEqual([]);
    expect(run.report?.stopped).toMatchObject({ exitCode: 2 });
  });

  it('a deployment at --level writes with --allow: runs, and says which mock-only steps it skipped', async () => {
    const proxy = await deployment();
    const run = await replay(['--base-url', proxy.url, '--level', 'writes', '--allow', 'createCreditsCheckout']);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/skip {2}step mockAdvanceClock \(mock only: the mock's control surface, left out on a deployment\)/);
    expect(run.out).toMatch(/skip {2}step mockCompleteCheckout \(mock only/);
    expect(run.out).toMatch(/pass {2}step createCreditsCheckout/);
  });

  it('a deployment that drops a value the recording carried fails the step that depends on it', async () => {
    const proxy = await deployment((x) => {
      if (x.method === 'POST' && x.pathname === '/api/v1/messages') delete (x.body as JsonObject).phoneNumberId;
    });
    const run = await replay(['--base-url', proxy.url, '--level', 'writes', '--allow', 'createCreditsCheckout']);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/fail {2}step sendMessage: .*phoneNumberId/);
    const send = (run.report!.operations as JsonObject[]).find((o) => o.operationId === 'sendMessage')!;
    expect(send.verdict).toBe('fail');
  });

  it("a deployment that renames a field the recording reads: the suite's findings, with the near miss, a curl with $NUMBERS_API_KEY and --rerun", async () => {
    const proxy = await renamingDeployment();
    const key = newKey('renamed');
    const run = await replay(['--base-url', proxy.url], key);
    expect(run.code).toBe(1);
    const groups = run.report!.findings as JsonObject[];
    const criterion = groups.find((g) => g.check === 'replay-step')!;
    expect(criterion).toMatchObject({ operationId: 'sendMessage', status: 201, expected: { criterion: '$response.body#/phoneNumberId == $steps.listNumbers.outputs.id' }, actual: { at: '/phoneNumberId', value: null } });
    expect(criterion.title).toMatch(/near miss: `phone_number_id` is there instead: renamed\?/);
    expect(criterion.example).toMatchObject({ sent: { method: 'POST', target: '/api/v1/messages', auth: 'valid', body: { fromNumberId: expect.stringMatching(/^pn_/) } }, acting: true, level: 'writes' });
    const schema = groups.find((g) => g.check === 'response-schema-conformance')!;
    // Message's required list is inferred (x-inferred): advisory, as the suite judges it.
    expect(schema).toMatchObject({ verdict: 'advisory', operationId: 'sendMessage', at: '/phoneNumberId', nearMiss: ['phone_number_id'] });
    // The console: the findings grouped as the suite prints them, each with its curl and rerun.
    expect(run.out).toMatch(/Findings: 1 failing, 1 advisory/);
    expect(run.out).toContain(`curl -sS -i -X POST '${proxy.url}/api/v1/messages' -H "Authorization: Bearer $NUMBERS_API_KEY"`);
    expect(run.out).toContain(`--rerun ${schema.id}`);
    expect(run.out).not.toMatch(/sk_live_\w/);
    // --rerun sends that step's request again (what its answer alone shows; a write: only at --level writes) and finds it still there.
    const config = { ...configFromEnv({ NUMBERS_API_BASE_URL: proxy.url, NUMBERS_API_KEY: key }), reportDir: run.reportDir };
    await expect(rerunFinding(config, String(schema.id), () => {})).rejects.toThrow(/judging it again needs --level writes: its request creates or changes something/);
    // The criterion needs the steps before it: judged by replaying the recording again, which the rerun says.
    await expect(rerunFinding({ ...config, level: 'writes' }, String(criterion.id), () => {})).rejects.toThrow(/needs a replay of the whole recording \(numbers-api conformance --replay <recording>\): its rule \(replay-step\) needs the steps before it/);
    const lines: string[] = [];
    const rerun = await rerunFinding({ ...config, level: 'writes' }, String(schema.id), (line) => lines.push(line));
    expect(rerun, lines.join('\n')).toBe(1);
    expect(lines.join('\n')).toMatch(/Still there/);
  });

  it("each finding's curl, run as printed (bash -c), gets the status its step got", async () => {
    const proxy = await renamingDeployment();
    const key = newKey('curl');
    const run = await replay(['--base-url', proxy.url], key);
    const groups = (run.report!.findings as JsonObject[]).filter((g) => g.example?.curl);
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) {
      const curl = String(group.example.curl);
      // As printed on the console, and as the JSON report keeps it.
      expect(run.out).toContain(curl);
      // The key as the variable the curl names; not execFileSync: the mock and the proxy answer from this process.
      const variable = /Bearer \$(\w+)/.exec(curl)![1]!;
      const { stdout: answered } = await promisify(execFile)('bash', ['-c', curl], { env: { ...process.env, [variable]: key }, timeout: 30_000 });
      expect([group.id, /^HTTP\/[\d.]+ (\d{3})/.exec(answered)?.[1]], answered.slice(0, 600)).toEqual([group.id, String(group.example.answer.status)]);
    }
  });

  it.each([
    [['--level', 'everything'], /--level must be contract or writes/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--base-url', 'not a url'], /--base-url "not a url" is not a URL/],
  ])('%j is one line, then where to read more, and exit 2', async (argv, message) => {
    const run = await replay(['--base-url', 'http://127.0.0.1:9', ...argv].slice(argv[0] === '--base-url' ? 2 : 0));
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(run.err.split('\n')).toEqual([expect.stringMatching(/^numbers-api conformance --replay: /), 'Run numbers-api conformance --replay --help for the options.', '']);
  });

  it('a bad recording file is one line and exit 2', async () => {
    const bad = path.join(dir, 'bad.arazzo.json');
    writeFileSync(bad, 'not json');
    let err = '';
    const code = await runReplayCli(['--replay', bad, '--base-url', mock.url, '--api-key', newKey('x'), '--report-dir', path.join(dir, 'bad-report')], () => {}, (t) => void (err += t), {});
    expect([code, err.trim().split('\n').length]).toEqual([2, 1]);
    expect(err).toMatch(/is not JSON/);
  });
});
