#!/usr/bin/env node
// The conformance suite's speed (part of `npm run bench`; protocol in scripts/bench.mjs: one
// `BENCH {json}` line per figure on stdout, progress on stderr).
//
// The package's mock is started with startMock (src/mock/start-mock.ts), behind a counting proxy
// (node:http, in this process). Each level then runs as a user runs it, `npm run conformance`'s
// command in a child process (tsx, vitest inside), and is timed from spawn to exit, after one
// unmeasured warm-up run:
// - the contract level: goal under 10 s on this machine;
// - the writes level: goal under 30 s.
// Also reported, without targets: the requests each level sent, the writes level's sends
// (creating or changing something) and the scenarios that failed. The mock may not keep every rule
// the writes flows judge (a stateless mock answers examples), so failed scenarios are shown, not
// judged here: this bench measures time.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const openapi = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
const KEY = 'sk_live_benchmarkConformance0001';
// The test number of the writes level: the description's own E.164 example, not restated.
const TO = openapi.components.schemas.E164.examples[0];

const emit = (row) => process.stdout.write(`BENCH ${JSON.stringify({ bench: 'conformance', ...row })}\n`);
const progress = (text) => process.stderr.write(`${text}\n`);

const LEVELS = [
  { level: 'contract', targetSeconds: 10, args: [] },
  { level: 'writes', targetSeconds: 30, args: ['--to', TO] },
];

/** Forwards every request to the mock and counts them. */
function startCountingProxy(upstream) {
  const target = new URL(upstream);
  const proxy = { count: 0, url: '', server: undefined };
  proxy.server = http.createServer((req, res) => {
    proxy.count++;
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
    });
    req.pipe(forward);
  });
  return new Promise((resolve) =>
    proxy.server.listen(0, '127.0.0.1', () => {
      proxy.url = `http://127.0.0.1:${proxy.server.address().port}`;
      resolve(proxy);
    }),
  );
}

/** One run of the CLI; resolves with its wall time, exit code and report. */
function runLevel(baseUrl, { level, args }, reportDir) {
  const started = process.hrtime.bigint();
  const env = { ...process.env, NUMBERS_API_KEY: KEY, FORCE_COLOR: '0' };
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name === 'NODE_ENV') delete env[name];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'conformance/bin.ts'), '--base-url', baseUrl, '--any-key-valid', '--level', level, '--report-dir', reportDir, ...args],
    { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      let report;
      try {
        report = JSON.parse(readFileSync(path.join(reportDir, 'conformance-report.json'), 'utf8'));
      } catch {
        report = undefined;
      }
      resolve({ seconds, code, report, stderr });
    });
  });
}

async function main() {
  register();
  const { startMock } = await import('../../src/mock/start-mock.ts');
  progress('conformance bench: starting the mock');
  const mock = await startMock({ port: 0 });
  await mock.ready;
  const proxy = await startCountingProxy(mock.url);
  const reports = mkdtempSync(path.join(tmpdir(), 'conformance-bench-'));
  try {
    // One run first, not measured: vite's transform cache and the mock's first answers are warm
    // after it, as they are on every run but the first.
    progress('conformance bench: warm-up run (not measured)');
    await runLevel(proxy.url, LEVELS[0], path.join(reports, 'warm-up'));
    for (const spec of LEVELS) {
      progress(`conformance bench: level ${spec.level} against the mock`);
      const before = proxy.count;
      const run = await runLevel(proxy.url, spec, path.join(reports, spec.level));
      const requests = proxy.count - before;
      if (!run.report) {
        progress(`level ${spec.level} wrote no report (exit ${run.code}):\n${run.stderr}`);
        process.exitCode = 1;
      }
      emit({ metric: `${spec.level} level: wall time`, value: run.seconds, unit: 's', target: `< ${spec.targetSeconds} s`, pass: run.seconds < spec.targetSeconds });
      emit({ metric: `${spec.level} level: requests sent`, value: requests, unit: 'requests' });
      if (spec.level === 'writes') emit({ metric: 'writes level: sends (creating or changing something)', value: run.report?.sends?.total ?? 0, unit: `of ${run.report?.sends?.limit ?? '?'}` });
      const totals = run.report?.totals ?? {};
      emit({ metric: `${spec.level} level: scenarios failed (exit ${run.code})`, value: totals.fail ?? 0, unit: `of ${Object.values(totals).reduce((a, b) => a + b, 0)}` });
    }
  } finally {
    rmSync(reports, { recursive: true, force: true });
    await new Promise((resolve) => proxy.server.close(resolve));
    proxy.server.closeAllConnections?.();
    await mock.close();
  }
}

main().catch((error) => {
  progress(error?.stack ?? String(error));
  process.exitCode = 1;
});
