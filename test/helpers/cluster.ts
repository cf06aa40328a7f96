// A mock a team hosts, started for real (issue 32): `redis-server` and `nginx` from Debian and
// several `numbers-api mock --store redis://...` processes, each on a free loopback port, each
// stopped by its pid when the test file ends. Redis runs as the hosting guide's recipe asks (append-only
// file on), in a directory of its own; nginx round-robins over the replicas with a configuration
// of its own in a temporary directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort, startCli, type CliProcess } from './mock-process.js';

export const REDIS_SERVER = '/usr/bin/redis-server';
export const NGINX = '/usr/sbin/nginx';

/** Resolves once something accepts connections on the loopback `port`. */
export async function listening(port: number, limitMs = 20_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() - started > limitMs) throw new Error(`nothing listens on 127.0.0.1:${port} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface Server {
  port: number;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function started(child: ChildProcess, port: number): Server {
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  return {
    port,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export interface RedisServer extends Server {
  url: string;
  dir: string;
  /** Starts it again on the same port and directory (what it wrote to its append-only file comes back). */
  restart(): Promise<RedisServer>;
}

/** `redis-server --port N --save '' --appendonly yes --dir <tmp>` on a free loopback port. */
export async function startRedis(options: { port?: number; dir?: string; args?: string[] } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'redis-'));
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir, ...(options.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = started(child, port);
  await listening(port);
  return { ...server, url: `redis://127.0.0.1:${port}/0`, dir, restart: () => startRedis({ port, dir, args: options.args }) };
}

/** One redis-server for the tests of the enclosing describe block (or file): started before them, stopped after. */
export function redisForTests(): () => RedisServer {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });
  return () => redis!;
}

/**
 * nginx in front of `ports`, round-robin, its configuration and pid file in a directory of its own;
 * with `prefix` (`/team/numbers`), the mock is served below that path only, as a gateway mounts it.
 */
export async function startNginx(ports: number[], prefix = ''): Promise<Server & { url: string }> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'nginx-'));
  writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(port, ports, dir, prefix));
  const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')};`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = started(child, port);
  await listening(port);
  return { ...server, url: `http://127.0.0.1:${port}` };
}

/** The load balancer of the hosting guide's recipe: round-robin, keep-alive to the replicas, long polls held. */
export function nginxConfig(port: number, replicas: number[], dir: string, prefix = ''): string {
  return `worker_processes 1;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  upstream numbers_api_mock {
${replicas.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location ${prefix}/ {
      proxy_pass http://numbers_api_mock${prefix ? '/' : ''};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_read_timeout 90s;
    }
  }
}
`;
}

/** One `numbers-api mock --store <url>` process on a free port. */
export async function startReplica(storeUrl: string, args: string[] = []): Promise<CliProcess & { port: number; url: string }> {
  const port = await freePort();
  const cli = startCli(['mock', '--port', String(port), '--quiet', '--store', storeUrl, ...args], { env: { NUMBERS_API_MOCK_VALIDATE: 'strict' } });
  await cli.waitForOutput(/Mock ready on/);
  return Object.assign(cli, { port, url: `http://127.0.0.1:${port}` });
}

export interface StoreProxy {
  port: number;
  url: string;
  /**
   * Arms a hold: once a process sends a command holding `marker` (its bytes pass on to the store),
   * what that connection sends next is kept back until `release`; resolves when the hold begins.
   */
  holdAfter(marker: string): Promise<void>;
  /** Sends on, in order, what the held connection sent meanwhile, and stops holding. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback between a mock process and its store, for a test that needs a request
 * stopped half-way through its trip to the store (an original still running), by a condition
 * rather than a timer: the process sends a command holding a marker, and what it sends next waits.
 */
export async function startStoreProxy(storePort: number): Promise<StoreProxy> {
  let armed: { marker: string; begin: () => void } | undefined;
  let held: { store: Socket; queue: Buffer[] } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const store = connect(storePort, '127.0.0.1');
    sockets.add(client).add(store);
    client.on('data', (chunk: Buffer) => {
      if (held?.store === store) {
        held.queue.push(chunk);
        return;
      }
      store.write(chunk);
      if (armed && chunk.includes(armed.marker)) {
        held = { store, queue: [] };
        const { begin } = armed;
        armed = undefined;
        begin();
      }
    });
    store.on('data', (chunk: Buffer) => client.write(chunk));
    const end = (): void => {
      client.destroy();
      store.destroy();
      sockets.delete(client);
      sockets.delete(store);
    };
    client.on('close', end).on('error', end);
    store.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    holdAfter: (marker) => new Promise<void>((begin) => (armed = { marker, begin })),
    release() {
      const was = held;
      held = undefined;
      for (const chunk of was?.queue ?? []) was!.store.write(chunk);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
