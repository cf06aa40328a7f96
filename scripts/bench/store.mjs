#!/usr/bin/env node
// The stores side by side (issue 32; part of `npm run bench`, protocol in scripts/bench.mjs):
// throughput and p99 of GET /api/v1/account and POST /api/v1/messages (its first documented
// request example; writes rotate over 100 keys) with autocannon (10 connections) against
//
//   - the memory store (`npm start`'s default) and stock `prism mock -v silent`, as reference;
//   - the file store (`--state`: every write in the journal, flushed, before it is answered);
//   - the Valkey/Redis store (`--store`), one replica, with Redis's append-only file flushed every
//     second (appendfsync everysec, Redis's default) and on every write (always);
//   - three replicas behind nginx (round-robin), appendfsync everysec;
//
// and the cost of durability in each store as the ratio to the memory store. Redis and nginx are
// Debian's (redis-server, nginx), started here on free loopback ports and stopped by pid.
// STORE_BENCH_SECONDS (default 6) sets the length of each measurement; STORE_BENCH_ONLY (names,
// comma-separated: memory, prism, file, redis1, redis1always, redis3) measures only those.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchOutput, firstRequestExample, freePort, loadOpenApi, root, sleep, startProcess as start } from '../bench-support.mjs';

const openapi = loadOpenApi();
const SECONDS = Number(process.env.STORE_BENCH_SECONDS ?? 6);
const KEYS = Array.from({ length: 100 }, (_, i) => `Bearer sk_live_storebench${String(i).padStart(4, '0')}`);
const { emit, progress } = benchOutput('store');

const endpoints = [
  { name: 'GET /api/v1/account', method: 'GET', path: '/api/v1/account' },
  { name: 'POST /api/v1/messages', method: 'POST', path: '/api/v1/messages', body: JSON.stringify(firstRequestExample(openapi, '/api/v1/messages', 'post')) },
];

async function answers(port, proc) {
  for (let i = 0; i < 600; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/account`, { headers: { Authorization: KEYS[0] } });
      if (response.status < 500) return;
    } catch {}
    if (proc.child.exitCode !== null) throw new Error(`exited: ${proc.stderr()}`);
    await sleep(50);
  }
  throw new Error(`no answer on ${port}: ${proc.stderr()}`);
}

const tsx = (...args) => [process.execPath, ['--import', 'tsx', path.join(root, 'bin/numbers-api.ts'), 'mock', '--quiet', ...args]];

async function mock(...args) {
  const port = await freePort();
  const [command, argv] = tsx('--port', String(port), ...args);
  const proc = start(command, argv);
  await answers(port, proc);
  return { port, stop: () => proc.stop() };
}

async function redis(fsync) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-redis-'));
  const proc = start('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', fsync, '--dir', dir]);
  for (let i = 0; i < 100; i++) {
    const probe = start('redis-cli', ['-p', String(port), 'ping']);
    const code = await new Promise((resolve) => probe.child.once('exit', resolve));
    if (code === 0) break;
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}/0`, stop: () => proc.stop() };
}

async function nginx(ports) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  # nginx closes a client's connection after 1,000 requests by default; a request autocannon sends
  # as it closes is counted as an error, which is the load generator's, not the mock's.
  keepalive_requests 1000000;
  upstream numbers_api_mock {
${ports.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://numbers_api_mock; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $http_host; }
  }
}
`,
  );
  const proc = start('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid;`]);
  await answers(port, proc);
  return { port, stop: () => proc.stop() };
}

function load(port, endpoint, seconds) {
  let turn = 0;
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: `http://127.0.0.1:${port}${endpoint.path}`,
        method: endpoint.method,
        headers: { Authorization: KEYS[0], ...(endpoint.body ? { 'Content-Type': 'application/json' } : {}) },
        body: endpoint.body,
        connections: 10,
        duration: seconds,
        ...(endpoint.method === 'POST' ? { requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, Authorization: KEYS[turn++ % KEYS.length] } }) }] } : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
}

/** The setups measured, each started, warmed and measured on both endpoints, then stopped. */
const SETUPS = [
  { name: 'memory', label: 'memory store (default)', start: async () => mock() },
  {
    name: 'prism',
    label: 'stock prism mock -v silent',
    start: async () => {
      const port = await freePort();
      const proc = start(process.execPath, [path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', '-v', 'silent', '--port', String(port), 'generated/openapi.dereferenced.json']);
      await answers(port, proc);
      return { port, stop: () => proc.stop() };
    },
  },
  { name: 'file', label: 'file store (--state, journal)', start: async () => mock('--state', path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-state-')), 'state.json')) },
  {
    name: 'redis1',
    label: 'Redis store, 1 replica (appendfsync everysec)',
    start: async () => {
      const store = await redis('everysec');
      const one = await mock('--store', store.url);
      return { port: one.port, stop: async () => (await one.stop(), await store.stop()) };
    },
  },
  {
    name: 'redis1always',
    label: 'Redis store, 1 replica (appendfsync always)',
    start: async () => {
      const store = await redis('always');
      const one = await mock('--store', store.url);
      return { port: one.port, stop: async () => (await one.stop(), await store.stop()) };
    },
  },
  {
    name: 'redis3',
    label: 'Redis store, 3 replicas behind nginx (appendfsync everysec)',
    start: async () => {
      const store = await redis('everysec');
      const replicas = await Promise.all([0, 1, 2].map(() => mock('--store', store.url)));
      const lb = await nginx(replicas.map((replica) => replica.port));
      return {
        port: lb.port,
        stop: async () => {
          await lb.stop();
          for (const replica of replicas) await replica.stop();
          await store.stop();
        },
      };
    },
  },
];

const ONLY = process.env.STORE_BENCH_ONLY ? new Set(process.env.STORE_BENCH_ONLY.split(',')) : undefined;
const MEASURED = SETUPS.filter((setup) => !ONLY || ONLY.has(setup.name));

async function main() {
  const results = {};
  for (const setup of MEASURED) {
    const running = await setup.start();
    try {
      for (const endpoint of endpoints) await load(running.port, endpoint, 2);
      for (const endpoint of endpoints) {
        const result = await load(running.port, endpoint, SECONDS);
        const figures = { rps: Math.round(result.requests.average), p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts };
        (results[endpoint.name] ??= {})[setup.name] = figures;
        progress(`${setup.label} ${endpoint.name}: ${figures.rps} req/s, p99 ${figures.p99} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}`);
      }
    } finally {
      await running.stop();
    }
  }
  for (const endpoint of endpoints) {
    const r = results[endpoint.name];
    for (const setup of MEASURED) {
      const f = r[setup.name];
      emit({ metric: `${endpoint.name} ${setup.label}`, value: f.rps, unit: `req/s (p99 ${f.p99} ms)` });
      if (f.non2xx + f.errors > 0) emit({ metric: `${endpoint.name} ${setup.label}: non-2xx or errors`, value: f.non2xx + f.errors, target: '0', pass: false });
    }
    // A ratio of two setups, when both were measured.
    const ratio = (metric, of, to) => r[of] && r[to] && emit({ metric: `${endpoint.name} ${metric}`, value: Math.round((r[of].rps / r[to].rps) * 100) / 100, unit: 'x' });
    ratio('cost of durability: file store / memory store', 'file', 'memory');
    ratio('cost of durability: Redis appendfsync always / everysec (1 replica)', 'redis1always', 'redis1');
    ratio('Redis store, 1 replica / memory store', 'redis1', 'memory');
    ratio('Redis store, 3 replicas behind nginx / 1 replica', 'redis3', 'redis1');
    ratio('Redis store, 3 replicas behind nginx / memory store', 'redis3', 'memory');
    ratio('memory store / stock Prism', 'memory', 'prism');
    ratio('Redis store, 1 replica / stock Prism', 'redis1', 'prism');
  }
  const file = results['POST /api/v1/messages'].file?.rps;
  if (file !== undefined) emit({ metric: 'POST /api/v1/messages under --state (journal, every write on disk before answered)', value: file, unit: 'req/s', target: '>= 5000', pass: file >= 5000 });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
