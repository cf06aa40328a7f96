#!/usr/bin/env node
// The mock's speed (part of `npm run bench`; protocol in scripts/bench.mjs: one `BENCH {json}` line
// per figure on stdout, progress on stderr).
//
// 1. Start-up: `npm start` (the stateful mock) on a free port, timed to the first answered
//    GET /api/v1/account (median of 3). Target: under 3 s.
// 2. Throughput and latency with autocannon (10 connections) on GET /api/v1/account,
//    GET /api/v1/messages and POST /api/v1/messages (its first documented request example), side by
//    side in one run: the stateful mock (`npm start`), the example server (`--stateless`), and a
//    bare node:http server (its own process, like the mock) returning the same status, headers and
//    bodies: the ceiling of this machine. Targets for the stateful mock on GET /api/v1/account and
//    POST /api/v1/messages: at least 2,000 requests/s and p99 under 25 ms. The sends rotate over
//    100 keys (accounts), as parallel test runs would.
// 4. Memory and history: 100,000 sends over 100 keys to the stateful mock; the front's RSS
//    (target under 400 MB) and the p50 of GET /api/v1/messages before and after (flat: each
//    account keeps its 500 most recent messages, src/simulator/state.ts HISTORY_LIMIT).
// 3. Reference points on GET /api/v1/account, to see what moves the figure: the mock without its
//    request log, with two Prism processes instead of one, with Prism's response validation on, on
//    the YAML bundle, and the stock `prism mock` command alone (no front), silent and with its
//    default logging. CPU per request is read from /proc (summed over the Prism processes).
//
// Every request the bench sends is derived from generated/openapi.json, never restated.
// MOCK_BENCH_SECONDS (default 6) sets the length of each measurement.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchOutput, firstRequestExample, freePort, loadOpenApi, root, sleep } from '../bench-support.mjs';

const openapi = loadOpenApi();
const SECONDS = Number(process.env.MOCK_BENCH_SECONDS ?? 6);
const CONNECTIONS = 10;
const KEY = 'Bearer sk_live_benchmark0001';

const { emit, progress } = benchOutput('mock');



const endpoints = [
  { name: 'GET /api/v1/account', method: 'GET', path: '/api/v1/account' },
  { name: 'GET /api/v1/messages', method: 'GET', path: '/api/v1/messages' },
  { name: 'POST /api/v1/messages', method: 'POST', path: '/api/v1/messages', body: JSON.stringify(firstRequestExample(openapi, '/api/v1/messages', 'post')) },
];


/** One request; resolves with status, headers and body, or rejects on a connection error. */
function request(port, endpoint) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: endpoint.method, path: endpoint.path, agent: false, headers: { Authorization: KEY, ...(endpoint.body ? { 'Content-Type': 'application/json' } : {}) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(endpoint.body);
  });
}

/** Starts a process in its own group; `stop` ends the whole group (npm, tsx, node, Prism). */
function startProcess(command, args, env = {}) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    stderr: () => stderr,
    async stop() {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }, 5000);
      await exited;
      clearTimeout(timer);
    },
    exited,
  };
}

/** Polls until the first answer; resolves with the milliseconds since `started`. */
async function firstAnswer(port, started, proc, limitMs = 60_000) {
  let exited = false;
  proc.exited.then(() => (exited = true));
  while (Date.now() - started < limitMs) {
    if (exited) throw new Error(`exited before answering:\n${proc.stderr()}`);
    try {
      await request(port, endpoints[0]);
      return Date.now() - started;
    } catch {
      await sleep(10);
    }
  }
  throw new Error(`no answer within ${limitMs} ms`);
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU milliseconds (user + system) a process (or the sum of several) has used so far, from /proc. */
function cpuMs(pid) {
  if (Array.isArray(pid)) return pid.reduce((sum, one) => sum + cpuMs(one), 0);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The processes in `root`'s tree whose command line matches, as `{ name: pid }` (`[pids]` for `prism`). */
function findProcesses(rootPid, patterns) {
  const found = {};
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  for (const pid of tree) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {}
    for (const [name, pattern] of Object.entries(patterns)) {
      if (!pattern.test(cmdline)) continue;
      if (name === 'prism') found.prism = [...(found.prism ?? []), pid];
      else found[name] = pid;
    }
  }
  return found;
}

const ROTATING_KEYS = Array.from({ length: 100 }, (_, i) => `Bearer sk_live_benchmark${String(i).padStart(4, '0')}`);

/** `seconds` of load, or `amount` requests; writes rotate over 100 keys. */
function runAutocannon(port, endpoint, seconds = SECONDS, amount = undefined) {
  let turn = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}${endpoint.path}`,
        method: endpoint.method,
        headers: { Authorization: KEY, ...(endpoint.body ? { 'Content-Type': 'application/json' } : {}) },
        body: endpoint.body,
        connections: CONNECTIONS,
        ...(amount ? { amount } : { duration: seconds }),
        ...(endpoint.method === 'POST'
          ? { requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, Authorization: ROTATING_KEYS[turn++ % ROTATING_KEYS.length] } }) }] }
          : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/**
 * Requests/s and latency, plus the CPU each watched process spent per request: a figure that does
 * not depend on what else the machine is doing (requests/s does).
 */
async function measure(label, port, endpoint, pids = {}, warmUp = true) {
  if (warmUp) await runAutocannon(port, endpoint, 2); // Prism compiles validators on first use; the JIT warms up
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const result = await runAutocannon(port, endpoint);
  const cpuPerRequest = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, Math.round(((cpuMs(pid) - before[name]) / Math.max(result.requests.total, 1)) * 1000) / 1000]),
  );
  const figures = {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuPerRequest,
  };
  const cpu = Object.entries(cpuPerRequest).map(([name, ms]) => `${name} ${ms} ms CPU/req`).join(', ');
  progress(`${label} ${endpoint.name}: ${figures.rps} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}${cpu ? `, ${cpu}` : ''}`);
  return figures;
}

/** A bare node:http server, in its own process, answering each endpoint with the mock's answer. */
async function startCeiling(answers) {
  const port = await freePort();
  const code = `
    const http = require('node:http');
    const answers = JSON.parse(process.env.ANSWERS);
    http.createServer((req, res) => {
      const a = answers[req.method + ' ' + req.url.split('?')[0]];
      req.resume();
      req.on('end', () => { res.writeHead(a.status, { 'content-type': a.type }); res.end(a.body); });
    }).listen(${port}, '127.0.0.1', () => process.stdout.write('up'));`;
  const proc = startProcess(process.execPath, ['-e', code], { ANSWERS: JSON.stringify(answers) });
  await firstAnswer(port, Date.now(), proc, 10_000);
  return { port, proc };
}

async function startMockVia(command, args, env = {}) {
  const port = await freePort();
  const started = Date.now();
  const proc = startProcess(command, args, { PORT: String(port), ...env });
  const ms = await firstAnswer(port, started, proc);
  return { port, proc, ms };
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const tsxCli = [process.execPath, ['--import', 'tsx', path.join(root, 'src/cli.ts'), 'mock', '--quiet']];

async function main() {
  // 1. Start-up, as a user starts it.
  const startups = [];
  for (let i = 0; i < 3; i++) {
    const { proc, ms } = await startMockVia(npm, ['start', '--silent']);
    startups.push(ms);
    progress(`npm start: first answer after ${ms} ms`);
    await proc.stop();
  }
  const startup = [...startups].sort((a, b) => a - b)[1];
  emit({ metric: 'npm start to first answered request (median of 3)', value: startup, unit: 'ms', target: '< 3000', pass: startup < 3000 });

  // 2. The mock (as npm start runs it, with its request log) against the bare ceiling.
  const mock = await startMockVia(npm, ['start', '--silent']);
  await sleep(3000); // the second Prism starts once the first has answered
  const answers = {};
  for (const endpoint of endpoints) {
    const answer = await request(mock.port, endpoint);
    answers[`${endpoint.method} ${endpoint.path}`] = { status: answer.status, type: answer.headers['content-type'], body: answer.body };
  }
  const mockPids = findProcesses(mock.proc.child.pid, { front: /src\/cli\.ts mock/, prism: /prism-child/ });
  const results = {};
  // Warm every endpoint first, so that the first one measured does not pay for the JIT alone.
  for (const endpoint of endpoints) await runAutocannon(mock.port, endpoint, 3);
  for (const endpoint of endpoints) results[endpoint.name] = { mock: await measure('stateful mock', mock.port, endpoint, mockPids, false) };
  await mock.proc.stop();

  const stateless = await startMockVia(npm, ['start', '--silent', '--', '--stateless']);
  await sleep(3000);
  const statelessPids = findProcesses(stateless.proc.child.pid, { front: /src\/cli\.ts mock/, prism: /prism-child/ });
  for (const endpoint of endpoints) await runAutocannon(stateless.port, endpoint, 3);
  for (const endpoint of endpoints) results[endpoint.name].stateless = await measure('stateless mock', stateless.port, endpoint, statelessPids, false);
  await stateless.proc.stop();

  const ceiling = await startCeiling(answers);
  for (const endpoint of endpoints) await runAutocannon(ceiling.port, endpoint, 2);
  for (const endpoint of endpoints) results[endpoint.name].ceiling = await measure('bare node:http', ceiling.port, endpoint, { server: ceiling.proc.child.pid }, false);
  await ceiling.proc.stop();

  for (const endpoint of endpoints) {
    const { mock: m, ceiling: c, stateless: st } = results[endpoint.name];
    const targeted = endpoint.name !== 'GET /api/v1/messages';
    emit({ metric: `${endpoint.name} requests/s (stateful)`, value: m.rps, unit: 'req/s', ...(targeted ? { target: '>= 2000', pass: m.rps >= 2000 } : {}) });
    emit({ metric: `${endpoint.name} p50 (stateful)`, value: m.p50, unit: 'ms' });
    emit({ metric: `${endpoint.name} p99 (stateful)`, value: m.p99, unit: 'ms', ...(targeted ? { target: '< 25', pass: m.p99 < 25 } : {}) });
    emit({ metric: `${endpoint.name} stateless: requests/s (p99)`, value: st.rps, unit: `req/s (p99 ${st.p99} ms)` });
    emit({ metric: `${endpoint.name} stateful as a share of stateless`, value: Math.round((m.rps / st.rps) * 1000) / 10, unit: '%' });
    if (m.non2xx > 0) emit({ metric: `${endpoint.name} non-2xx answers (stateful)`, value: m.non2xx, target: '0', pass: false });
    emit({ metric: `${endpoint.name} share of bare node:http (${c.rps} req/s, p99 ${c.p99} ms)`, value: Math.round((m.rps / c.rps) * 1000) / 10, unit: '%' });
    for (const [name, ms] of Object.entries(m.cpuPerRequest)) {
      emit({ metric: `${endpoint.name} CPU per request, ${name === 'prism' ? 'Prism' : 'front'} (${Math.round(1000 / Math.max(ms, 0.001))} req/s per core)`, value: ms, unit: 'ms' });
    }
    emit({ metric: `${endpoint.name} CPU per request, bare node:http`, value: c.cpuPerRequest.server, unit: 'ms' });
    if (m.errors > 0) emit({ metric: `${endpoint.name} connection errors`, value: m.errors, target: '0', pass: false });
  }

  // 4. Memory and history after 100,000 sends over 100 keys.
  {
    const held = await startMockVia(tsxCli[0], [...tsxCli[1]]);
    await sleep(3000);
    const front = findProcesses(held.proc.child.pid, { front: /src\/cli\.ts mock/ }).front ?? held.proc.child.pid;
    const send = endpoints[2];
    const list = endpoints[1];
    const listLatency = async () => (await runAutocannon(held.port, list, undefined, 500)).latency.p50;
    await runAutocannon(held.port, send, undefined, 2000);
    const before = await listLatency();
    const started = Date.now();
    const result = await runAutocannon(held.port, send, undefined, 100_000);
    progress(`100,000 sends over 100 keys in ${((Date.now() - started) / 1000).toFixed(1)} s, non-2xx ${result.non2xx}, errors ${result.errors}`);
    const after = await listLatency();
    const rssMb = Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${front}/status`, 'utf8'))[1]) / 1024);
    emit({ metric: 'stateful mock RSS after 100,000 sends over 100 keys', value: rssMb, unit: 'MB', target: '< 400', pass: rssMb < 400 });
    emit({ metric: 'GET /api/v1/messages p50 before / after 100,000 sends', value: Math.round((after / Math.max(before, 0.01)) * 100) / 100, unit: `x (${before} ms -> ${after} ms)` });
    if (result.non2xx > 0) emit({ metric: 'non-2xx among the 100,000 sends', value: result.non2xx, target: '0', pass: false });
    await held.proc.stop();
  }

  // 3. What moves the figure, on GET /api/v1/account.
  const account = endpoints[0];
  const variants = [
    ['mock, no request log (--quiet)', tsxCli[0], [...tsxCli[1]]],
    ['stateless mock, no request log (--stateless --quiet)', tsxCli[0], [...tsxCli[1], '--stateless']],
    ['mock, two Prism processes (--prism-workers 2)', tsxCli[0], [...tsxCli[1], '--prism-workers', '2']],
    ['mock, Prism response validation on (--validate-response)', tsxCli[0], [...tsxCli[1], '--validate-response']],
    ['mock, Prism on the YAML bundle', tsxCli[0], [...tsxCli[1], '--document', 'generated/openapi.yaml']],
    ['stock prism mock -v silent, no front', process.execPath, [path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', '-v', 'silent', 'generated/openapi.dereferenced.json'], true],
    ['stock prism mock (default logging), no front', process.execPath, [path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', 'generated/openapi.dereferenced.json'], true],
  ];
  for (const [label, command, args, stock] of variants) {
    const port = await freePort();
    const started = Date.now();
    const proc = startProcess(command, stock ? [...args, '--port', String(port)] : args, { PORT: String(port) });
    try {
      const ms = await firstAnswer(port, started, proc);
      if (!stock) await sleep(3000); // the second Prism starts once the first has answered
      const pids = stock ? { prism: proc.child.pid } : findProcesses(proc.child.pid, { front: /src\/cli\.ts mock/, prism: /prism-child/ });
      const figures = await measure(label, port, account, pids);
      const cpu = Object.entries(figures.cpuPerRequest).map(([name, v]) => `${name} ${v} ms`).join(', ');
      emit({ metric: `${label}: GET /api/v1/account`, value: figures.rps, unit: `req/s (p99 ${figures.p99} ms; CPU/req ${cpu}; start ${ms} ms)` });
    } finally {
      await proc.stop();
    }
  }
}

main().catch((error) => {
  progress(`mock bench failed: ${error.stack ?? error}`);
  process.exit(1);
});
