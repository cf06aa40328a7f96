#!/usr/bin/env node
// The mock's speed (part of `npm run bench`; protocol in scripts/bench.mjs: one `BENCH {json}` line
// per figure on stdout, progress on stderr). Issue 20's goals, as ratios from this one run:
//
// 1. Start-up: `npm start` (the stateful mock) on a free port, timed to the first answered
//    GET /api/v1/account (median of 3). Goal: under 1.5 s.
// 2. Throughput and latency with autocannon (10 connections) on GET /api/v1/account,
//    GET /api/v1/messages and POST /api/v1/messages (its first documented request example; the
//    sends rotate over 100 keys, as parallel test runs would), side by side in one run: the
//    stateful mock (`npm start`, its request log on), the same on Prism's own validator in-process
//    (`--gate prism`, the other gate option), stock `prism mock -v silent` with no front, the
//    example server (`--stateless`: the pipeline with Prism answering), the stateful mock with `--state` (each
//    write answered only once it is on disk, issue 21), the stateful mock with `--record` (every
//    account recorded as it runs, issue 31; goal: at least 0.8x of without) and a bare node:http server in its own
//    process answering the same bytes (this machine's ceiling). Goals: GET /api/v1/account at
//    least 2x stock Prism, POST /api/v1/messages at least 1.5x, p99 under 10 ms for both.
// 3. CPU per request of each stage of the pipeline: the process's CPU per request from /proc, and
//    each stage timed in this process on the same requests with the package's own functions
//    (reading the request, the gate (ajv and Prism's validator), the simulator, the
//    composed-answer check, writing the JSON); node:http and the adapter are the rest.
// 4. Memory and history: 100,000 sends over 100 keys; the mock's RSS (goal under 300 MB) and the
//    p50 of GET /api/v1/messages before and after (flat: each account keeps its newest 500
//    messages, src/simulator/state.ts HISTORY_LIMIT).
//
// Every request the bench sends is derived from generated/openapi.json, never restated.
// MOCK_BENCH_SECONDS (default 6) sets the length of each measurement.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { benchOutput, cpuMs, firstRequestExample, freePort, loadOpenApi, request as requestWith, root, sleep, startBareServer, startProcess } from '../bench-support.mjs';

const load = (file) => import(pathToFileURL(path.join(root, file)).href);

const openapi = loadOpenApi();
const SECONDS = Number(process.env.MOCK_BENCH_SECONDS ?? 6);
const CONNECTIONS = 10;
const KEY = 'Bearer sk_live_benchmark0001';
/** One request with the bench's key. */
const request = (port, endpoint) => requestWith(port, endpoint, KEY);

const { emit, progress } = benchOutput('mock');

const endpoints = [
  { name: 'GET /api/v1/account', method: 'GET', path: '/api/v1/account' },
  { name: 'GET /api/v1/messages', method: 'GET', path: '/api/v1/messages' },
  { name: 'POST /api/v1/messages', method: 'POST', path: '/api/v1/messages', body: JSON.stringify(firstRequestExample(openapi, '/api/v1/messages', 'post')) },
];
/** The goals of issue 20, as multiples of stock Prism in the same run. */
const GOALS = { 'GET /api/v1/account': 2, 'POST /api/v1/messages': 1.5 };
const P99_GOAL_MS = 10;



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
  const proc = startBareServer(port, answers);
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
const tsxCli = (...args) => [process.execPath, ['--import', 'tsx', path.join(root, 'bin/numbers-api.ts'), 'mock', ...args]];
const prismCli = path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js');

/** The servers compared side by side, each started, warmed and measured on every endpoint in turn. */
const SERVERS = [
  { name: 'stateful', label: 'stateful mock (npm start)', start: () => startMockVia(npm, ['start', '--silent']) },
  { name: 'prismGate', label: 'stateful mock, Prism validator in-process (--gate prism)', start: () => startMockVia(...tsxCli('--gate', 'prism')) },
  {
    // Issue 31: every account's requests recorded as Arazzo, the files written as it runs.
    name: 'recording',
    label: 'stateful mock with --record (every account recorded)',
    start: () => startMockVia(npm, ['start', '--silent', '--', '--record', mkdtempSync(path.join(os.tmpdir(), 'bench-record-'))]),
  },
  {
    name: 'durable',
    label: 'stateful mock with --state (a write answered once on disk)',
    start: () => startMockVia(...tsxCli('--state', path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-state-')), 'state.json'))),
  },
  {
    name: 'prism',
    label: 'stock prism mock -v silent, no front',
    start: async () => {
      const port = await freePort();
      const started = Date.now();
      const proc = startProcess(process.execPath, [prismCli, 'mock', '-v', 'silent', '--port', String(port), 'generated/openapi.dereferenced.json']);
      return { port, proc, ms: await firstAnswer(port, started, proc) };
    },
  },
  { name: 'stateless', label: 'example server (--stateless)', start: () => startMockVia(...tsxCli('--stateless')), settle: 3000 },
];

/** CPU ms per call of `fn`, over `rounds` calls after a warm-up. */
function cpuPerCall(fn, rounds = 20_000) {
  for (let i = 0; i < 2000; i++) fn(i);
  const before = process.cpuUsage();
  for (let i = 0; i < rounds; i++) fn(i);
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / 1000 / rounds) * 10_000) / 10_000;
}

/** Each stage of the pipeline on `endpoint`'s request, with the package's own functions, in this process. */
async function stageCosts(endpoint) {
  const { createMockCore } = await load('src/serve/mock-core.ts');
  const { ajvGate } = await load('src/serve/gate.ts');
  const { answerCheck } = await load('src/serve/pipeline.ts');
  const { contractValidator } = await load('src/contract/contract-validator.ts');
  const { readBody } = await load('src/serve/request-body.ts');
  const { prismGate } = await load('src/mock/prism-gate.ts');
  const { generatedPath, readGeneratedJson } = await load('src/contract/generated-files.ts');
  const core = createMockCore({ document: openapi, controlDocument: readGeneratedJson('mock-control.json'), answerCheck: 'off' });
  const contract = core.simulator.contract;
  const route = contract.match(endpoint.method, endpoint.path);
  const keys = Array.from({ length: 100 }, (_, i) => `Bearer sk_live_benchstage${String(i).padStart(4, '0')}`);
  const bytes = new TextEncoder().encode(endpoint.body ?? '');
  const request = (i) => ({
    method: endpoint.method,
    pathname: endpoint.path,
    query: new URLSearchParams(),
    headers: { authorization: endpoint.method === 'POST' ? keys[i % keys.length] : KEY, ...(endpoint.body ? { 'content-type': 'application/json', 'content-length': String(bytes.length) } : {}) },
    body: endpoint.body ? JSON.parse(endpoint.body) : undefined,
    violations: [],
  });
  const validator = contractValidator(openapi);
  const ajv = ajvGate(validator);
  const prism = (await prismGate(generatedPath('openapi.dereferenced.json')))(validator);
  const checked = answerCheck('header', () => validator);
  const sample = core.simulator.handle(request(0), route);
  const costs = {
    'reading the request (URL, headers, JSON body)': cpuPerCall(() => {
      const r = { method: endpoint.method, pathname: endpoint.path, query: new URLSearchParams(''), headers: {}, body: undefined, violations: [] };
      void readBody(r, bytes, endpoint.body ? 'application/json' : undefined);
    }),
    'gate: ajv (default)': cpuPerCall((i) => ajv.check(route.operationId, request(i))),
    "gate: Prism's validator in-process": cpuPerCall((i) => prism.check(route.operationId, request(i)), 5000),
    'simulator (the resource module)': cpuPerCall((i) => core.simulator.handle(request(i), route)),
    'composed-answer check (--validate-response)': cpuPerCall(() => checked.check(route.operationId, sample)),
    'writing the JSON answer': cpuPerCall(() => JSON.stringify(sample.body)),
  };
  core.stop();
  return costs;
}

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
  emit({ metric: 'npm start to first answered request (median of 3)', value: startup, unit: 'ms', target: '< 1500', pass: startup < 1500 });

  // 2. Side by side: every server on every endpoint, then the bare ceiling on the same answers.
  const results = Object.fromEntries(endpoints.map((endpoint) => [endpoint.name, {}]));
  let answers;
  for (const server of SERVERS) {
    const running = await server.start();
    try {
      if (server.settle) await sleep(server.settle); // the example server's second Prism starts once the first has answered
      if (server.name === 'stateful') {
        answers = {};
        for (const endpoint of endpoints) {
          const answer = await request(running.port, endpoint);
          answers[`${endpoint.method} ${endpoint.path}`] = { status: answer.status, type: answer.headers['content-type'], body: answer.body };
        }
      }
      const pids = findProcesses(running.proc.child.pid, { server: /bin\/numbers-api\.ts mock|prism-cli\/dist\/index\.js/, prism: /prism-child/ });
      // Warm every endpoint first, so that the first one measured does not pay for the JIT alone.
      for (const endpoint of endpoints) await runAutocannon(running.port, endpoint, 3);
      for (const endpoint of endpoints) results[endpoint.name][server.name] = await measure(server.label, running.port, endpoint, pids, false);
    } finally {
      await running.proc.stop();
    }
  }
  const ceiling = await startCeiling(answers);
  for (const endpoint of endpoints) await runAutocannon(ceiling.port, endpoint, 2);
  for (const endpoint of endpoints) results[endpoint.name].ceiling = await measure('bare node:http', ceiling.port, endpoint, { server: ceiling.proc.child.pid }, false);
  await ceiling.proc.stop();

  for (const endpoint of endpoints) {
    const r = results[endpoint.name];
    const m = r.stateful;
    const goal = GOALS[endpoint.name];
    const beside = `stock Prism ${r.prism.rps} req/s p99 ${r.prism.p99} ms; bare node:http ${r.ceiling.rps} req/s p99 ${r.ceiling.p99} ms`;
    const ratio = Math.round((m.rps / r.prism.rps) * 100) / 100;
    emit({ metric: `${endpoint.name} stateful mock requests/s (${beside})`, value: m.rps, unit: 'req/s' });
    emit({ metric: `${endpoint.name} stateful mock / stock Prism`, value: ratio, unit: 'x', ...(goal ? { target: `>= ${goal}`, pass: ratio >= goal } : {}) });
    emit({ metric: `${endpoint.name} stateful mock p99`, value: m.p99, unit: `ms (p50 ${m.p50} ms)`, ...(goal ? { target: `< ${P99_GOAL_MS}`, pass: m.p99 < P99_GOAL_MS } : {}) });
    emit({ metric: `${endpoint.name} stateful mock share of bare node:http`, value: Math.round((m.rps / r.ceiling.rps) * 1000) / 10, unit: '%' });
    emit({ metric: `${endpoint.name} stateful mock on Prism's validator (--gate prism) / stock Prism`, value: Math.round((r.prismGate.rps / r.prism.rps) * 100) / 100, unit: `x (${r.prismGate.rps} req/s, p99 ${r.prismGate.p99} ms)` });
    const recorded = Math.round((r.recording.rps / m.rps) * 100) / 100;
    emit({ metric: `${endpoint.name} with --record / without`, value: recorded, unit: `x (${r.recording.rps} req/s, p99 ${r.recording.p99} ms)`, target: '>= 0.8', pass: recorded >= 0.8 });
    emit({ metric: `${endpoint.name} with --state (durable before answered) / without`, value: Math.round((r.durable.rps / m.rps) * 100) / 100, unit: `x (${r.durable.rps} req/s, p99 ${r.durable.p99} ms)` });
    emit({ metric: `${endpoint.name} example server (--stateless) / stock Prism`, value: Math.round((r.stateless.rps / r.prism.rps) * 100) / 100, unit: `x (${r.stateless.rps} req/s, p99 ${r.stateless.p99} ms)` });
    for (const [name, figures] of Object.entries(r)) {
      const cpu = Object.entries(figures.cpuPerRequest).map(([process, ms]) => `${process} ${ms}`).join(' + ');
      emit({ metric: `${endpoint.name} CPU per request: ${name}`, value: Object.values(figures.cpuPerRequest).reduce((a, b) => a + b, 0), unit: `ms (${cpu})` });
    }
    if (m.non2xx > 0) emit({ metric: `${endpoint.name} non-2xx answers (stateful)`, value: m.non2xx, target: '0', pass: false });
    if (m.errors > 0) emit({ metric: `${endpoint.name} connection errors (stateful)`, value: m.errors, target: '0', pass: false });
  }

  // 3. Each stage of the pipeline, in this process; node:http and the adapter are what is left of the process's CPU.
  for (const endpoint of [endpoints[0], endpoints[2]]) {
    const costs = await stageCosts(endpoint);
    let staged = 0;
    for (const [stage, ms] of Object.entries(costs)) {
      emit({ metric: `${endpoint.name} stage CPU: ${stage}`, value: ms, unit: 'ms' });
      if (!stage.startsWith('gate: Prism') && !stage.startsWith('composed')) staged += ms;
    }
    const total = Object.values(results[endpoint.name].stateful.cpuPerRequest).reduce((a, b) => a + b, 0);
    emit({ metric: `${endpoint.name} stage CPU: node:http, the adapter and the request log (the rest of ${total} ms)`, value: Math.max(0, Math.round((total - staged) * 1000) / 1000), unit: 'ms' });
  }

  // 4. Memory and history after 100,000 sends over 100 keys.
  {
    const held = await startMockVia(...tsxCli('--quiet'));
    const mockPid = findProcesses(held.proc.child.pid, { server: /bin\/numbers-api\.ts mock/ }).server ?? held.proc.child.pid;
    const send = endpoints[2];
    const list = endpoints[1];
    const listLatency = async () => (await runAutocannon(held.port, list, undefined, 500)).latency.p50;
    await runAutocannon(held.port, send, undefined, 2000);
    const before = await listLatency();
    const started = Date.now();
    const result = await runAutocannon(held.port, send, undefined, 100_000);
    progress(`100,000 sends over 100 keys in ${((Date.now() - started) / 1000).toFixed(1)} s, non-2xx ${result.non2xx}, errors ${result.errors}`);
    const after = await listLatency();
    const rssMb = Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${mockPid}/status`, 'utf8'))[1]) / 1024);
    emit({ metric: 'stateful mock RSS after 100,000 sends over 100 keys', value: rssMb, unit: 'MB', target: '< 300', pass: rssMb < 300 });
    emit({ metric: 'GET /api/v1/messages p50 before / after 100,000 sends', value: Math.round((after / Math.max(before, 0.01)) * 100) / 100, unit: `x (${before} ms -> ${after} ms)` });
    if (result.non2xx > 0) emit({ metric: 'non-2xx among the 100,000 sends', value: result.non2xx, target: '0', pass: false });
    await held.proc.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    progress(`mock bench failed: ${error.stack ?? error}`);
    process.exit(1);
  },
);
