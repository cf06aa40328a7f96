#!/usr/bin/env node
// Hosting at the disk's pace (issue 39; part of `npm run bench`, protocol in scripts/bench.mjs):
// what durability, recording, the request log, a shared store and the validating proxy cost, each
// as a ratio to a setup measured in this same run, never as a time. autocannon, 10 connections:
//
//   - bare node:http (this machine's ceiling: the memory mock's own answer bytes) and stock
//     `prism mock -v silent`, as reference;
//   - the memory store (`mock --quiet`), and the same with its request log on (stdout a pipe this
//     bench drains, as a log collector would);
//   - the file store (`--state`: every write on disk before it is answered), beside the fsync
//     ceiling of the state's own disk, measured here (a write and an fdatasync in place, as the
//     journal writes them, one after another);
//   - `--record` (every account recorded); the Valkey/Redis store, one replica (appendfsync
//     everysec), with the CPU per request of the mock (/proc, the counters process.cpuUsage reads)
//     and of redis-server (INFO cpu), so a team can size its hosts;
//   - `numbers-api proxy` in front of the memory mock, beside the mock answering directly.
//
// Endpoints: GET /api/v1/account, GET /api/v1/messages (a list of 100 records, sent first),
// POST /api/v1/messages (its first documented request example) rotating over 100 keys and on one.
// HOSTING_BENCH_SECONDS (default 5) sets each measurement's length; HOSTING_BENCH_ONLY (names,
// comma-separated, of SETUPS) measures only those.
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchOutput, cpuMs, firstRequestExample, freePort, loadOpenApi, request as requestWith, root, sleep, startBareServer, startProcess } from '../bench-support.mjs';

const openapi = loadOpenApi();
const SECONDS = Number(process.env.HOSTING_BENCH_SECONDS ?? 5);
const KEY = 'Bearer sk_live_hostbench0000';
/** One request with the bench's key. */
const request = (port, endpoint) => requestWith(port, endpoint, KEY);
const KEYS = Array.from({ length: 100 }, (_, i) => `Bearer sk_live_hostbench${String(i + 1).padStart(4, '0')}`);
/** The one key of the one-key sends (not the reading key: its list stays 100 records long). */
const ONE_KEY = 'Bearer sk_live_hostbench0101';
const { emit, progress } = benchOutput('hosting');

const send = JSON.stringify(firstRequestExample(openapi, '/api/v1/messages', 'post'));
const ENDPOINTS = {
  account: { name: 'GET /api/v1/account', method: 'GET', path: '/api/v1/account' },
  list: { name: 'GET /api/v1/messages (100 records)', method: 'GET', path: '/api/v1/messages' },
  sends: { name: 'POST /api/v1/messages over 100 keys', method: 'POST', path: '/api/v1/messages', body: send, keys: KEYS },
  sendsOneKey: { name: 'POST /api/v1/messages on one key', method: 'POST', path: '/api/v1/messages', body: send, keys: [ONE_KEY] },
};
const ALL = Object.keys(ENDPOINTS);

function load(port, endpoint, seconds = SECONDS, amount = undefined) {
  let turn = 0;
  const keys = endpoint.keys ?? [KEY];
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: `http://127.0.0.1:${port}${endpoint.path}`,
        method: endpoint.method,
        headers: { Authorization: keys[0], ...(endpoint.body ? { 'Content-Type': 'application/json' } : {}) },
        body: endpoint.body,
        connections: 10,
        ...(amount ? { amount } : { duration: seconds }),
        ...(keys.length > 1 ? { requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, Authorization: keys[turn++ % keys.length] } }) }] } : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
}


async function answers(port, proc) {
  for (let i = 0; i < 600; i++) {
    try {
      const answer = await request(port, ENDPOINTS.account);
      if (answer.status < 500) return;
    } catch {}
    if (proc.child.exitCode !== null) throw new Error(`exited: ${proc.stderr()}`);
    await sleep(50);
  }
  throw new Error(`no answer on ${port}: ${proc.stderr()}`);
}

/** A process started in a group of its own; `drain`: its stdout a pipe read and dropped (a log collector). */
async function started(command, args, { drain = false } = {}) {
  const port = await freePort();
  const proc = startProcess(command, args.map((arg) => (arg === '$PORT' ? String(port) : arg)), {}, { stdout: drain ? 'pipe' : 'ignore' });
  proc.child.stdout?.resume();
  await answers(port, proc);
  return { port, pid: proc.child.pid, stop: () => proc.stop() };
}

const cli = (...args) => [process.execPath, ['--import', 'tsx', path.join(root, 'bin/numbers-api.ts'), ...args]];
const mock = (...args) => started(...cli('mock', '--port', '$PORT', ...args));
const tmp = (prefix) => mkdtempSync(path.join(os.tmpdir(), prefix));


/** The pid of the node process serving `port` under `rootPid` (npm, tsx ... run it as a child). */
function serverPid(rootPid) {
  const children = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  // The deepest process of the group is the one answering.
  let pid = rootPid;
  for (let next = children(pid); next.length > 0; next = children(pid)) pid = next[0];
  return pid;
}

/** redis-server's CPU ms so far (INFO cpu: used_cpu_user + used_cpu_sys, seconds). */
function redisCpuMs(port) {
  const info = execFileSync('redis-cli', ['-p', String(port), 'info', 'cpu'], { encoding: 'utf8' });
  const field = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

async function redis() {
  const port = await freePort();
  const proc = startProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', tmp('bench-redis-')]);
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
      break;
    } catch {
      await sleep(50);
    }
  }
  return { port, url: `redis://127.0.0.1:${port}/0`, stop: () => proc.stop() };
}

/** Sequential write + fdatasync of a journal-sized line in place (space written ahead, as the journal does): fsyncs a second. */
function fsyncCeiling(dir, seconds = 2) {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const zeros = Buffer.alloc(8 * 1024 * 1024);
  writeSync(fd, zeros, 0, zeros.length, 0);
  fdatasyncSync(fd);
  const line = Buffer.from(`${'x'.repeat(900)}\n`);
  let count = 0;
  const until = performance.now() + seconds * 1000;
  const startedAt = performance.now();
  while (performance.now() < until) {
    writeSync(fd, line, 0, line.length, (count * line.length) % (zeros.length - line.length));
    fdatasyncSync(fd);
    count++;
  }
  const elapsed = (performance.now() - startedAt) / 1000;
  closeSync(fd);
  rmSync(file, { force: true });
  return { perSecond: Math.round(count / elapsed), ms: Math.round((elapsed * 1000 * 1000) / count) / 1000 };
}

const stateDir = tmp('bench-state-');

/** The setups, each started, warmed, measured on its endpoints, stopped; `cpu` names what its CPU per request is read from. */
const SETUPS = [
  { name: 'memory', label: 'memory store (mock --quiet)', endpoints: ALL, start: () => mock('--quiet'), capture: true },
  { name: 'logged', label: 'memory store, request log on (stdout a drained pipe)', endpoints: ['account', 'sends'], start: () => started(...cli('mock', '--port', '$PORT'), { drain: true }) },
  { name: 'file', label: 'file store (--state, each write on disk before answered)', endpoints: ALL, start: () => mock('--quiet', '--state', path.join(stateDir, 'state.json')) },
  { name: 'record', label: 'memory store with --record', endpoints: ALL, start: () => mock('--quiet', '--record', tmp('bench-record-')) },
  {
    name: 'redis',
    label: 'Redis store, 1 replica (appendfsync everysec)',
    endpoints: ['account', 'sends', 'sendsOneKey'],
    start: async () => {
      const store = await redis();
      const one = await mock('--quiet', '--store', store.url);
      return { ...one, redisPort: store.port, stop: async () => (await one.stop(), await store.stop()) };
    },
  },
  {
    name: 'prism',
    label: 'stock prism mock -v silent',
    endpoints: ['account', 'sends'],
    start: () => started(process.execPath, [path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', '-v', 'silent', '--port', '$PORT', 'generated/openapi.dereferenced.json']),
  },
  {
    name: 'proxy',
    label: 'numbers-api proxy in front of the memory mock',
    endpoints: ['account', 'sends'],
    start: async () => {
      const upstream = await mock('--quiet');
      const front = await started(...cli('proxy', '--base-url', `http://127.0.0.1:${upstream.port}`, '--port', '$PORT'), { drain: true });
      return { ...front, stop: async () => (await front.stop(), await upstream.stop()) };
    },
  },
];

/** A bare node:http server in its own process answering each endpoint with `bytes` (the memory mock's answers). */
async function bare(bytes) {
  const port = await freePort();
  const proc = startBareServer(port, bytes);
  await answers(port, proc);
  return { port, pid: proc.child.pid, stop: () => proc.stop() };
}

const ONLY = process.env.HOSTING_BENCH_ONLY ? new Set(process.env.HOSTING_BENCH_ONLY.split(',')) : undefined;

async function measureSetup(setup, running, results) {
  const pid = serverPid(running.pid);
  // The list read: 100 records of the reading key.
  if (setup.endpoints.includes('list')) await load(running.port, { ...ENDPOINTS.sendsOneKey, keys: [KEY] }, undefined, 100);
  for (const name of setup.endpoints) await load(running.port, ENDPOINTS[name], 2);
  for (const name of setup.endpoints) {
    const endpoint = ENDPOINTS[name];
    const cpuBefore = cpuMs(pid);
    const redisBefore = running.redisPort ? redisCpuMs(running.redisPort) : 0;
    const result = await load(running.port, endpoint);
    const total = Math.max(result.requests.total, 1);
    const figures = {
      rps: Math.round(result.requests.average),
      p99: result.latency.p99,
      bad: result.non2xx + result.errors + result.timeouts,
      cpu: Math.round(((cpuMs(pid) - cpuBefore) / total) * 1000) / 1000,
      ...(running.redisPort ? { redisCpu: Math.round(((redisCpuMs(running.redisPort) - redisBefore) / total) * 1000) / 1000 } : {}),
    };
    (results[name] ??= {})[setup.name] = figures;
    progress(`${setup.label} ${endpoint.name}: ${figures.rps} req/s, p99 ${figures.p99} ms, ${figures.cpu} ms CPU/req${figures.redisCpu !== undefined ? ` + redis ${figures.redisCpu}` : ''}, non-2xx or errors ${figures.bad}`);
  }
}

async function main() {
  const results = {};
  let bytes;
  for (const setup of SETUPS.filter((s) => !ONLY || ONLY.has(s.name) || s.capture)) {
    const running = await setup.start();
    try {
      if (setup.capture) {
        bytes = {};
        for (const endpoint of [ENDPOINTS.account, ENDPOINTS.sends]) bytes[`${endpoint.method} ${endpoint.path}`] = await request(running.port, endpoint);
      }
      await measureSetup(setup, running, results);
    } finally {
      await running.stop();
    }
  }
  if (!ONLY || ONLY.has('bare')) {
    const ceiling = await bare(bytes);
    try {
      await measureSetup({ name: 'bare', label: 'bare node:http', endpoints: ['account', 'sends'] }, ceiling, results);
    } finally {
      await ceiling.stop();
    }
  }
  const fsync = fsyncCeiling(stateDir);
  progress(`fsync ceiling of ${stateDir}: ${fsync.perSecond}/s (${fsync.ms} ms each)`);

  const figure = (endpoint, setup) => results[endpoint]?.[setup];
  const ratio = (endpoint, of, to, metric, target) => {
    const a = figure(endpoint, of);
    const b = figure(endpoint, to);
    if (!a || !b) return;
    const value = Math.round((a.rps / b.rps) * 100) / 100;
    emit({ metric: `${ENDPOINTS[endpoint].name}: ${metric}`, value, unit: `x (${a.rps} / ${b.rps} req/s)`, ...(target !== undefined ? { target: `>= ${target}`, pass: value >= target } : {}) });
  };

  // Durable sends beside the memory store and the disk's own pace.
  emit({ metric: `fsync ceiling of the state's disk (write + fdatasync in place, one after another)`, value: fsync.perSecond, unit: `/s (${fsync.ms} ms each)` });
  ratio('sends', 'file', 'memory', 'file store (--state) / memory store', 0.6);
  ratio('sendsOneKey', 'file', 'memory', 'file store (--state) / memory store', 0.6);
  for (const endpoint of ['sends', 'sendsOneKey']) {
    const f = figure(endpoint, 'file');
    if (f) emit({ metric: `${ENDPOINTS[endpoint].name}: file store sends per fsync the disk allows`, value: Math.round((f.rps / fsync.perSecond) * 100) / 100, unit: `x (${f.rps} req/s, ${fsync.perSecond} fsync/s)` });
  }
  // Reads under --state with nothing pending.
  ratio('account', 'file', 'memory', 'file store (--state) / memory store, nothing pending', 0.8);
  ratio('list', 'file', 'memory', 'file store (--state) / memory store, nothing pending', 0.8);
  // --record on every endpoint.
  for (const endpoint of ALL) ratio(endpoint, 'record', 'memory', 'with --record / without', 0.8);
  // The request log line: at most a tenth of a GET.
  ratio('account', 'logged', 'memory', 'request log on / --quiet', 0.9);
  ratio('sends', 'logged', 'memory', 'request log on / --quiet');
  for (const setup of ['memory', 'logged']) ratio('account', setup, 'bare', `${setup === 'memory' ? '--quiet' : 'request log on'} / bare node:http`);
  {
    const quiet = figure('account', 'memory');
    const logged = figure('account', 'logged');
    if (quiet && logged) {
      const share = Math.round(((logged.cpu - quiet.cpu) / quiet.cpu) * 100) / 100;
      emit({ metric: 'GET /api/v1/account: CPU of the request log line / CPU of the GET', value: share, unit: `(${logged.cpu} - ${quiet.cpu} ms)`, target: '<= 0.1', pass: share <= 0.1 });
    }
  }
  // The Redis store on one replica, and what each request costs the hosts.
  ratio('sends', 'redis', 'prism', 'Redis store, 1 replica / stock Prism', 2);
  ratio('account', 'redis', 'prism', 'Redis store, 1 replica / stock Prism');
  ratio('sends', 'redis', 'memory', 'Redis store, 1 replica / memory store');
  // The mock beside stock Prism and the proxy beside the mock answering directly.
  ratio('account', 'memory', 'prism', 'memory store / stock Prism');
  ratio('sends', 'memory', 'prism', 'memory store / stock Prism');
  ratio('account', 'proxy', 'memory', 'numbers-api proxy in front of the mock / the mock directly');
  ratio('sends', 'proxy', 'memory', 'numbers-api proxy in front of the mock / the mock directly');
  ratio('account', 'memory', 'bare', 'memory store / bare node:http');
  ratio('sends', 'memory', 'bare', 'memory store / bare node:http');
  for (const [endpoint, bySetup] of Object.entries(results)) {
    for (const [setup, f] of Object.entries(bySetup)) {
      emit({ metric: `${ENDPOINTS[endpoint].name}: CPU per request, ${setup}`, value: Math.round((f.cpu + (f.redisCpu ?? 0)) * 1000) / 1000, unit: `ms (${f.rps} req/s, p99 ${f.p99} ms${f.redisCpu !== undefined ? `; mock ${f.cpu} + redis-server ${f.redisCpu}` : ''})` });
      if (f.bad > 0) emit({ metric: `${ENDPOINTS[endpoint].name}: non-2xx or errors, ${setup}`, value: f.bad, target: '0', pass: false });
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
