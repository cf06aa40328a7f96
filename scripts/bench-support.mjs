// What the bench scripts of scripts/bench/ share (kept outside that folder: scripts/bench.mjs runs
// every file there as a bench): the result protocol of scripts/bench.mjs, the bundled description
// and its request examples, a free loopback port, a server started in a process group of its own,
// one request, a process's CPU time and the bare node:http server the ratios are taken against.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveRef } from '../src/contract/json-pointer.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `emit(row)` prints one `BENCH {json}` result line of bench `name`; `progress(text)` goes to stderr. */
export function benchOutput(name) {
  return {
    emit: (row) => process.stdout.write(`BENCH ${JSON.stringify({ bench: name, ...row })}\n`),
    progress: (text) => process.stderr.write(`${text}\n`),
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** generated/openapi.json, parsed. */
export function loadOpenApi() {
  return JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
}

/** Follows local `$ref`s of `openapi` until a non-reference node (the package's one helper; benches run under tsx). */
export const followRef = resolveRef;

/** The first documented JSON request example of `method pathKey`. */
export function firstRequestExample(openapi, pathKey, method) {
  const media = followRef(openapi, followRef(openapi, followRef(openapi, openapi.paths[pathKey])[method].requestBody)).content['application/json'];
  return followRef(openapi, Object.values(media.examples)[0]).value;
}

/** A loopback port nobody listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a process in its own group; `stop` ends the whole group (npm, tsx, node, Prism).
 * `stdout: 'pipe'`: its output a pipe the caller reads (as a log collector would), else dropped.
 */
export function startProcess(command, args, env = {}, { stdout = 'ignore' } = {}) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'pipe'], detached: true });
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

/** One request with `authorization`; resolves with status, headers, content type and body, or rejects on a connection error. */
export function request(port, endpoint, authorization) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: endpoint.method, path: endpoint.path, agent: false, headers: { Authorization: authorization, ...(endpoint.body ? { 'Content-Type': 'application/json' } : {}) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, type: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(endpoint.body);
  });
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU milliseconds (user + system) a process (or the sum of several) has used so far: the kernel's counters, as process.cpuUsage reads them in that process. */
export function cpuMs(pid) {
  if (Array.isArray(pid)) return pid.reduce((sum, one) => sum + cpuMs(one), 0);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * Starts, in a process of its own, a bare node:http server on `port` answering each endpoint
 * (`'<METHOD> <path>'`) with `answers[endpoint]` ({ status, type, body }: the mock's answers): the
 * ceiling the ratios compare with.
 */
export function startBareServer(port, answers) {
  const code = `
    const http = require('node:http');
    const answers = JSON.parse(process.env.ANSWERS);
    http.createServer((req, res) => {
      const a = answers[req.method + ' ' + req.url.split('?')[0]];
      req.resume();
      req.on('end', () => { res.writeHead(a.status, { 'content-type': a.type }); res.end(a.body); });
    }).listen(Number(process.argv[1]), '127.0.0.1');`;
  return startProcess(process.execPath, ['-e', code, String(port)], { ANSWERS: JSON.stringify(answers) });
}
