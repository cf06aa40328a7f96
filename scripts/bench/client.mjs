#!/usr/bin/env node
// Bench of numbers-api-contract/client (issue 4 targets), run by scripts/bench.mjs:
//  1. request overhead: the client's GET against raw fetch on the same local node:http server,
//     as a ratio measured in this one run (target <= 1.15x);
//  2. bundle size: src/client bundled by esbuild (openapi-fetch included), minified, gzipped,
//     no types (target <= 10 kB);
//  3. type-check time: wall time of `tsc --noEmit` on a consumer file that imports the types and
//     the client (target < 3 s).
// Prints `BENCH {json}` lines (see scripts/bench.mjs) and progress on stderr.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { consumerCompilerOptions } from '../consumer-tsconfig.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workDir = mkdtempSync(path.join(tmpdir(), 'numbers-api-bench-'));
const report = (row) => console.log(`BENCH ${JSON.stringify({ bench: 'client', ...row })}`);
const progress = (text) => process.stderr.write(`  client: ${text}\n`);

/** The client as users get it, minus types: one ESM file with openapi-fetch inlined. */
async function bundleClient({ minify }) {
  const result = await build({
    entryPoints: [path.join(repoRoot, 'src/client/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    minify,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** A body the service really answers GET /api/v1/account with: the first example in the description. */
function accountExample() {
  const document = JSON.parse(readFileSync(path.join(repoRoot, 'generated/openapi.json'), 'utf8'));
  const examples = document.paths['/api/v1/account'].get.responses['200'].content['application/json'].examples;
  const first = Object.values(examples)[0];
  const example = first.$ref ? document.components.examples[first.$ref.split('/').pop()] : first;
  return JSON.stringify(example.value);
}

async function measureOverhead(clientModule) {
  const body = accountExample();
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  const apiKey = 'sk_live_benchkey0123456789';
  const api = clientModule.createClient({ apiKey, baseUrl });

  const raw = async () => {
    const response = await fetch(`${baseUrl}/api/v1/account`, { headers: { Authorization: `Bearer ${apiKey}` } });
    if (!response.ok) throw new Error(`raw fetch got ${response.status}`);
    return response.json();
  };
  const viaClient = async () => (await api.GET('/api/v1/account')).data;

  const time = async (fn, n) => {
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i += 1) await fn();
    const cpu = process.cpuUsage(cpuStart);
    return { wall: Number(process.hrtime.bigint() - start) / 1e6, cpu: (cpu.user + cpu.system) / 1e3 };
  };
  // Warm both paths (JIT, keep-alive sockets), then alternate rounds so drift in machine load
  // hits both equally. Wall time is the figure a caller feels; CPU time (this process, which also
  // runs the server, the same work for both) is what the client itself adds, and does not grow
  // when other work shares the machine.
  await time(raw, 300);
  await time(viaClient, 300);
  const rounds = 12;
  const perRound = 250;
  const totals = { raw: { wall: 0, cpu: 0 }, client: { wall: 0, cpu: 0 } };
  const ratios = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ['raw', 'client'] : ['client', 'raw'];
    const times = {};
    for (const name of order) times[name] = await time(name === 'raw' ? raw : viaClient, perRound);
    for (const name of order) {
      totals[name].wall += times[name].wall;
      totals[name].cpu += times[name].cpu;
    }
    ratios.push(times.client.wall / times.raw.wall);
  }
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
  ratios.sort((a, b) => a - b);
  const requests = rounds * perRound;
  return {
    wallRatio: totals.client.wall / totals.raw.wall,
    cpuRatio: totals.client.cpu / totals.raw.cpu,
    median: ratios[Math.floor(ratios.length / 2)],
    rawMicros: (totals.raw.wall * 1000) / requests,
    clientMicros: (totals.client.wall * 1000) / requests,
    rawCpuMicros: (totals.raw.cpu * 1000) / requests,
    clientCpuMicros: (totals.client.cpu * 1000) / requests,
    requests,
  };
}

const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');

/**
 * Run the tsc CLI as a user would; a wrapper only reports the process's CPU time on exit, which
 * (unlike wall time) does not grow when other work shares the machine.
 */
async function runTsc(args) {
  const wrapper = `process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('CPU_MICROS ' + (u.user + u.system) + '\\n'); });
process.argv = [process.argv[0], ${JSON.stringify(tsc)}, ...${JSON.stringify(args)}];
await import(${JSON.stringify(pathToFileURL(tsc).href)});`;
  const start = process.hrtime.bigint();
  const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', wrapper], { maxBuffer: 16 * 1024 * 1024 }).catch((error) => {
    throw new Error(`tsc ${args.join(' ')} failed:\n${error.stdout ?? error.message}`);
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = Number(/CPU_MICROS (\d+)/.exec(stderr)?.[1] ?? NaN) / 1e6;
  return { wall, cpu };
}

const consumerOptions = consumerCompilerOptions(repoRoot);

/**
 * tsc --noEmit on a consumer file that imports the package's declarations (.d.ts, as an installed
 * package has them; emitted here from src/ into the work directory), and on an empty file with the
 * same options: the difference is what this package's types cost.
 */
async function measureTypecheck() {
  const declarations = path.join(workDir, 'types');
  await runTsc([
    ...['--declaration', '--emitDeclarationOnly', '--outDir', declarations, '--rootDir', repoRoot],
    ...['--target', 'ES2022', '--lib', 'ES2023', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--strict', '--skipLibCheck'],
    ...['--types', 'node', '--typeRoots', path.join(repoRoot, 'node_modules/@types')],
    ...['src/index.ts', 'src/client/index.ts', 'src/events/index.ts'].map((f) => path.join(repoRoot, f)),
  ]);
  const pkg = (entry) => path.join(declarations, 'src', entry);
  writeFileSync(
    path.join(workDir, 'consumer.ts'),
    `import type { Message, Call, AnyEvent, SendMessageRequest, paths } from '${pkg('index.js')}';
import { createClient } from '${pkg('client/index.js')}';
import { isEventOfType } from '${pkg('events/index.js')}';
const api = createClient({ apiKey: 'sk_live_x', baseUrl: 'mock' });
export async function send(body: SendMessageRequest): Promise<Message> { return (await api.POST('/api/v1/messages', { body })).data; }
export async function calls(): Promise<Call[]> { return (await api.GET('/api/v1/calls')).data; }
export function body(event: AnyEvent): string | undefined { return isEventOfType(event, 'message.received') ? event.data.body : undefined; }
export type Paths = keyof paths;
`,
  );
  writeFileSync(path.join(workDir, 'empty.ts'), 'export const nothing = 0;\n');
  const project = (file) => {
    const config = path.join(workDir, `tsconfig.${file}.json`);
    writeFileSync(config, JSON.stringify({ compilerOptions: consumerOptions, files: [file] }));
    return ['-p', config];
  };
  const consumer = await runTsc(project('consumer.ts'));
  const empty = await runTsc(project('empty.ts'));
  return { consumer, empty };
}

try {
  progress('bundling src/client with esbuild');
  const minified = await bundleClient({ minify: true });
  const gzipped = gzipSync(minified, { level: 9 }).length;
  report({ metric: 'client bundle, minified + gzip', value: Number((gzipped / 1024).toFixed(2)), unit: 'kB', target: '<= 10 kB', pass: gzipped <= 10 * 1024 });
  report({ metric: 'client bundle, minified', value: Number((Buffer.byteLength(minified) / 1024).toFixed(2)), unit: 'kB' });

  // The overhead is measured on the same bundle, so it is the code a user runs.
  const bundleFile = path.join(workDir, 'client.mjs');
  writeFileSync(bundleFile, minified);
  progress('measuring request overhead against raw fetch');
  const overhead = await measureOverhead(await import(pathToFileURL(bundleFile).href));
  report({ metric: 'request overhead vs raw fetch (GET, loopback), wall', value: Number(overhead.wallRatio.toFixed(3)), unit: 'x', target: '<= 1.15', pass: overhead.wallRatio <= 1.15 });
  report({ metric: '  same, CPU time', value: Number(overhead.cpuRatio.toFixed(3)), unit: 'x', target: '<= 1.15', pass: overhead.cpuRatio <= 1.15 });
  report({ metric: '  median of per-round wall ratios', value: Number(overhead.median.toFixed(3)), unit: 'x' });
  report({ metric: '  raw fetch per request, wall / CPU', value: `${overhead.rawMicros.toFixed(0)} / ${overhead.rawCpuMicros.toFixed(0)} µs` });
  report({ metric: '  client per request, wall / CPU', value: `${overhead.clientMicros.toFixed(0)} / ${overhead.clientCpuMicros.toFixed(0)} µs` });
  progress('type-checking a consumer file with tsc --noEmit');
  const { consumer, empty } = await measureTypecheck();
  report({ metric: 'tsc --noEmit on a consumer file, wall', value: Number(consumer.wall.toFixed(2)), unit: 's', target: '< 3 s', pass: consumer.wall < 3 });
  report({ metric: '  same, CPU time of the tsc process', value: Number(consumer.cpu.toFixed(2)), unit: 's' });
  report({ metric: '  empty file, same options (CPU)', value: Number(empty.cpu.toFixed(2)), unit: 's' });
  report({ metric: '  load average (1 min) / CPUs', value: `${loadavg()[0].toFixed(1)} / ${availableParallelism()}` });
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
