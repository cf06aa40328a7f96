#!/usr/bin/env node
// The in-process mock's speed and size (issue 13; part of `npm run bench`, protocol in
// scripts/bench.mjs: one `BENCH {json}` line per figure on stdout, progress on stderr).
//
// 1. Size: numbers-api-contract/msw bundled for the browser by esbuild, minified and gzipped, the
//    handlers alone (msw left out: the app has it already) and with msw; and what dominates, from
//    esbuild's metafile: the bundled description (the examples are the mock's answers), ajv and its
//    formats (the request gate), the simulator core, msw.
// 2. Latency per request, p50/p99, one request at a time as a unit test sends them, for
//    GET /api/v1/account and POST /api/v1/messages (its first documented request example; the sends
//    rotate over 100 keys, as in scripts/bench/mock.mjs): the MSW handler itself (a Request in, a
//    Response out, as MSW runs it; goal p99 < 2 ms), the handlers under msw/node's setupServer
//    called with fetch (what a test sees: MSW's interception added), the simulator core alone (`handle`
//    alone: no gate, no fetch, no MSW: what the rules cost), and the HTTP stateful mock in the same run
//    (our front + Prism over loopback).
//
// MSW_BENCH_REQUESTS (default 3000) sets the requests measured per endpoint and transport.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { benchOutput, firstRequestExample, freePort, loadOpenApi, root } from '../bench-support.mjs';

const openapi = loadOpenApi();
const REQUESTS = Number(process.env.MSW_BENCH_REQUESTS ?? 3000);
const WARM_UP = 500;
const BASE = 'https://api.example.com';

const { emit, progress } = benchOutput('msw');
const kib = (bytes) => Math.round(bytes / 102.4) / 10;

const sendExample = firstRequestExample(openapi, '/api/v1/messages', 'post');
const KEYS = Array.from({ length: 100 }, (_, i) => `sk_live_mswbench${String(i).padStart(4, '0')}`);
const endpoints = [
  { name: 'GET /api/v1/account', method: 'GET', path: '/api/v1/account' },
  { name: 'POST /api/v1/messages', method: 'POST', path: '/api/v1/messages', body: sendExample },
];

// ---------------------------------------------------------------------------------------------
// 1. Size

const GROUPS = [
  ['the bundled description (generated/*.json)', (file) => file.startsWith('generated/')],
  ['ajv and its formats (the request gate)', (file) => /node_modules\/(ajv|ajv-formats|fast-uri|fast-deep-equal|json-schema-traverse|require-from-string)\//.test(file)],
  ['the simulator core, its store and its pipeline (src/simulator, src/store, src/serve, src/contract)', (file) => /^src\/(simulator|serve|store|contract)\//.test(file)],
  ['msw and its dependencies', (file) => file.includes('node_modules/')],
  ['the MSW transport (src/msw) and the rest', () => true],
];

async function browserBundle(external) {
  const result = await build({
    entryPoints: [path.join(root, 'src/msw/index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    external,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const groups = new Map(GROUPS.map(([name]) => [name, 0]));
  for (const [file, { bytesInOutput }] of Object.entries(inputs)) {
    const [name] = GROUPS.find(([, test]) => test(file));
    groups.set(name, groups.get(name) + bytesInOutput);
  }
  return { bytes: code.length, gzipped: gzipSync(code).length, groups };
}

async function sizes() {
  const alone = await browserBundle(['msw']);
  const withMsw = await browserBundle([]);
  emit({ metric: 'handlers bundle, minified (msw external)', value: kib(alone.bytes), unit: 'KiB' });
  emit({ metric: 'handlers bundle, minified + gzipped (msw external)', value: kib(alone.gzipped), unit: 'KiB' });
  emit({ metric: 'handlers + msw bundle, minified + gzipped', value: kib(withMsw.gzipped), unit: `KiB (${kib(withMsw.bytes)} KiB minified)` });
  // Within the description: its prose (description/summary, no use to the mock) and its examples (the answers).
  let prose = 0;
  let examples = 0;
  const walk = (node, inExample) => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, inExample));
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (!inExample && (key === 'description' || key === 'summary' || key === 'x-inferred-reason') && typeof value === 'string') prose += JSON.stringify(value).length + key.length + 3;
      if (!inExample && (key === 'examples' || key === 'example')) examples += JSON.stringify(value).length;
      walk(value, inExample || key === 'examples' || key === 'example');
    }
  };
  walk(openapi, false);
  const described = JSON.stringify(openapi).length;
  emit({ metric: 'of the description: prose (descriptions, summaries)', value: Math.round((prose / described) * 1000) / 10, unit: '%' });
  emit({ metric: 'of the description: examples', value: Math.round((examples / described) * 1000) / 10, unit: '%' });
  for (const [name, bytes] of withMsw.groups) {
    if (bytes > 0) emit({ metric: `share of the minified bundle: ${name}`, value: Math.round((bytes / withMsw.bytes) * 1000) / 10, unit: `% (${kib(bytes)} KiB)` });
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Latency

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Times `REQUESTS` calls of `send(i)` one after another (after a warm-up); p50/p99 in ms and the
 * non-2xx count. `prepare(i)`, when given, builds the input before the clock starts (the Fetch
 * Request a handler is handed is the caller's work, not the handler's).
 */
async function time(send, prepare = (i) => i) {
  for (let i = 0; i < WARM_UP; i++) await send(prepare(i));
  const samples = [];
  let non2xx = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const input = prepare(i);
    const started = performance.now();
    const status = await send(input);
    samples.push(performance.now() - started);
    if (status < 200 || status >= 300) non2xx++;
  }
  samples.sort((a, b) => a - b);
  const round = (ms) => Math.round(ms * 1000) / 1000;
  return { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)), non2xx };
}

function fetcher(base) {
  return (endpoint) => async (i) => {
    const key = endpoint.method === 'POST' ? KEYS[i % KEYS.length] : KEYS[0];
    const response = await fetch(`${base}${endpoint.path}`, {
      method: endpoint.method,
      headers: { authorization: `Bearer ${key}`, ...(endpoint.body ? { 'content-type': 'application/json' } : {}) },
      body: endpoint.body ? JSON.stringify(endpoint.body) : undefined,
    });
    await response.arrayBuffer();
    return response.status;
  };
}

/** The MSW entry built for Node (the sources are TypeScript), written under node_modules/.cache so its bare imports (msw, ajv) resolve. */
async function loadMswEntry() {
  const dir = path.join(root, 'node_modules/.cache/msw-bench');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `entry-${process.pid}.mjs`);
  await build({
    entryPoints: [path.join(root, 'src/msw/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: file,
    packages: 'external',
    logLevel: 'silent',
  });
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(file, { force: true });
  }
}


async function startHttpMock() {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin/numbers-api.ts'), 'mock', '--quiet', '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port) },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/account`, { headers: { authorization: `Bearer ${KEYS[0]}` } });
      await response.arrayBuffer();
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error('the HTTP mock did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        proc.once('exit', resolve);
        proc.kill('SIGTERM');
      }),
  };
}

async function latency() {
  const { createHandlers } = await loadMswEntry();
  const { setupServer } = await import('msw/node');
  const mock = createHandlers({ validateResponses: 'off' });
  const server = setupServer(...mock.handlers);
  server.listen({ onUnhandledRequest: 'bypass' });
  const results = {};
  // The handler itself, as MSW runs it for a request (its `run`): a Fetch Request in, a Response out.
  const apiHandler = mock.handlers.find((handler) => handler.info.path === `${BASE}/api/*`);
  for (const endpoint of endpoints) {
    const handler = await time(
      async ({ request, i }) => {
        const { response } = await apiHandler.run({ request, requestId: String(i) });
        await response.arrayBuffer();
        return response.status;
      },
      (i) => {
        const key = endpoint.method === 'POST' ? KEYS[i % KEYS.length] : KEYS[0];
        const request = new Request(`${BASE}${endpoint.path}`, {
          method: endpoint.method,
          headers: { authorization: `Bearer ${key}`, ...(endpoint.body ? { 'content-type': 'application/json' } : {}) },
          body: endpoint.body ? JSON.stringify(endpoint.body) : undefined,
        });
        return { request, i };
      },
    );
    progress(`MSW handler ${endpoint.name}: p50 ${handler.p50} ms, p99 ${handler.p99} ms, non-2xx ${handler.non2xx}`);
    results[endpoint.name] = { handler };
  }
  try {
    for (const endpoint of endpoints) {
      const inProcess = await time(fetcher(BASE)(endpoint));
      progress(`MSW setupServer ${endpoint.name}: p50 ${inProcess.p50} ms, p99 ${inProcess.p99} ms, non-2xx ${inProcess.non2xx}`);
      results[endpoint.name].inProcess = inProcess;
    }
  } finally {
    server.close();
  }
  // The core alone: the SimRequest the handlers would build, straight to `simulator.handle` (no
  // request gate, no fetch, no MSW): what the rules themselves cost.
  for (const endpoint of endpoints) {
    const core = await time(async (i) => {
      const key = endpoint.method === 'POST' ? KEYS[i % KEYS.length] : KEYS[0];
      const response = mock.simulator.handle({
        method: endpoint.method,
        pathname: endpoint.path,
        query: new URLSearchParams(),
        headers: { authorization: `Bearer ${key}`, ...(endpoint.body ? { 'content-type': 'application/json' } : {}) },
        body: endpoint.body ? JSON.parse(JSON.stringify(endpoint.body)) : undefined,
        violations: [],
      });
      JSON.stringify(response.body);
      return response.status;
    });
    progress(`simulator core alone ${endpoint.name}: p50 ${core.p50} ms, p99 ${core.p99} ms`);
    results[endpoint.name].core = core;
  }
  mock.control.stop();

  const http = await startHttpMock();
  try {
    for (const endpoint of endpoints) {
      const overHttp = await time(fetcher(http.url)(endpoint));
      progress(`HTTP stateful mock ${endpoint.name}: p50 ${overHttp.p50} ms, p99 ${overHttp.p99} ms, non-2xx ${overHttp.non2xx}`);
      results[endpoint.name].http = overHttp;
    }
  } finally {
    await http.stop();
  }

  for (const endpoint of endpoints) {
    const { handler, inProcess, core, http: overHttp } = results[endpoint.name];
    emit({ metric: `${endpoint.name} p50 (MSW handler)`, value: handler.p50, unit: 'ms' });
    emit({ metric: `${endpoint.name} p99 (MSW handler)`, value: handler.p99, unit: 'ms', target: '< 2', pass: handler.p99 < 2 });
    emit({ metric: `${endpoint.name} p50 / p99 (setupServer + fetch, what a test sees)`, value: inProcess.p50, unit: `ms / ${inProcess.p99} ms` });
    emit({ metric: `${endpoint.name} p50 / p99 (simulator.handle alone)`, value: core.p50, unit: `ms / ${core.p99} ms` });
    emit({ metric: `${endpoint.name} p50 / p99 (HTTP stateful mock, same run)`, value: overHttp.p50, unit: `ms / ${overHttp.p99} ms` });
    if (handler.non2xx + inProcess.non2xx > 0) emit({ metric: `${endpoint.name} non-2xx answers (MSW)`, value: inProcess.non2xx, target: '0', pass: false });
  }
}

await sizes();
await latency();
// p99 on a shared machine is mostly other processes and GC: the load says how quiet it was.
emit({ metric: 'load average (1 min) at the end, cores', value: Math.round(os.loadavg()[0] * 100) / 100, unit: `/ ${os.availableParallelism()} cores` });
