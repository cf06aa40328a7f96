// The recipe of docs/guides/hosting.md, run as written (issue 32): its shell block, with free
// ports and a directory of its own, starts Redis, three mocks on it and nginx in front; requests
// through the balancer read their writes whichever mock answers, the store runs as the recipe
// says (append-only, every write flushed), and the whole process group is stopped by its pid.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { listening } from './helpers/cluster.js';
import { repoRoot } from './helpers/contract.js';
import { freePort } from './helpers/mock-process.js';
import { client, newKey } from './helpers/stateful-mock.js';

const guide = readFileSync(path.join(repoRoot, 'docs/guides/hosting.md'), 'utf8');
const recipe = /<!-- team-mock-recipe -->\n```bash\n([\s\S]*?)\n```/.exec(guide)?.[1];

describe("the hosting guide's recipe for a mock a team hosts", () => {
  it('is there', () => {
    expect(recipe).toMatch(/redis-server .*--appendonly yes/);
    expect(recipe).toMatch(/npx numbers-api mock --port/);
    expect(recipe).toMatch(/nginx -p/);
  });

  it('starts Redis, three mocks and nginx; writes through the balancer are read back from every mock', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'team-mock-'));
    // `npx numbers-api` is the clone's command here (as in test/docs-commands.test.ts).
    const shims = path.join(dir, 'bin');
    mkdirSync(shims);
    const tsx = pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;
    writeFileSync(path.join(shims, 'numbers-api'), `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${path.join(repoRoot, 'bin/numbers-api.ts')}" "$@"\n`, { mode: 0o755 });
    writeFileSync(path.join(dir, 'recipe.sh'), recipe!.replaceAll('npx numbers-api', 'numbers-api'));
    const ports = { redis: await freePort(), mocks: [await freePort(), await freePort(), await freePort()], lb: await freePort() };
    const child = spawn('bash', [path.join(dir, 'recipe.sh')], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${shims}:${process.env.PATH}`, DIR: path.join(dir, 'state'), REDIS_PORT: String(ports.redis), MOCK_PORTS: ports.mocks.join(' '), LB_PORT: String(ports.lb) },
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      for (const port of [...ports.mocks, ports.lb]) await listening(port, 60_000);
      const lb = `http://127.0.0.1:${ports.lb}`;
      // Every mock answers before the balancer's round-robin is relied on.
      for (const port of ports.mocks) for (let i = 0; i < 100 && (await fetch(`http://127.0.0.1:${port}/__mock/about`).catch(() => undefined))?.status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
      const call = client(lb, newKey('recipe'));
      const sent = await call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'recipe' });
      expect(sent.status, output).toBe(201);
      for (let i = 0; i < 6; i++) expect((await call('GET', '/api/v1/messages')).body[0].id).toBe(sent.body.id);
      for (const port of ports.mocks) expect((await client(`http://127.0.0.1:${port}`, null)('GET', '/__mock/clock')).status).toBe(200);
      const store = new Redis(`redis://127.0.0.1:${ports.redis}/0`);
      try {
        expect(await store.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
        expect(await store.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
        expect(await store.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
      } finally {
        store.disconnect();
      }
      // A store set up as the recipe says keeps the whole promise: no mock warns about it.
      expect(output).not.toMatch(/numbers-api mock: --store/);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }, 120_000);
});
