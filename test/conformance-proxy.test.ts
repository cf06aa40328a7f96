// `numbers-api proxy` (= `npm run conformance -- --proxy`): Prism as a validating proxy in front of
// a deployment. A conforming answer passes through untouched; a violating one is still forwarded,
// with the violation reported in `sl-violations` (and in Prism's log).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDeployment, type FakeDeployment } from './helpers/conformance-fake-deployment.js';
import { TEST_KEY } from './helpers/conformance-harness.js';

const repoRoot = path.resolve(import.meta.dirname, '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForListening(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The proxy exited (${child.exitCode}): ${output()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`The proxy did not listen within 60 s: ${output()}`);
}

let fake: FakeDeployment;
let proxy: ChildProcess;
let proxyUrl: string;
let output = '';

beforeAll(async () => {
  fake = await startFakeDeployment({ apiKey: TEST_KEY });
  const port = await freePort();
  proxyUrl = `http://127.0.0.1:${port}`;
  proxy = spawn(process.execPath, ['--import', 'tsx', 'conformance/bin.ts', 'proxy', '--base-url', fake.url, '--port', String(port)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proxy.stdout?.on('data', (d) => (output += String(d)));
  proxy.stderr?.on('data', (d) => (output += String(d)));
  await waitForListening(`${proxyUrl}/api/v1/account`, proxy, () => output);
}, 90_000);

afterAll(async () => {
  if (proxy && proxy.exitCode === null) {
    const exited = new Promise((r) => proxy.once('exit', r));
    proxy.kill('SIGINT');
    await exited;
  }
  await fake.close();
});

describe('the validating proxy', () => {
  it('forwards a conforming exchange untouched', async () => {
    const response = await fetch(`${proxyUrl}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('sl-violations')).toBeNull();
    expect((await response.json()).limits).toBeDefined();
    expect(fake.requests.some((r) => r.operationId === 'getAccount' && r.authorization === `Bearer ${TEST_KEY}`)).toBe(true);
  });

  it('reports a response that breaks the contract as it flows', async () => {
    fake.breaks.add('schema');
    try {
      const response = await fetch(`${proxyUrl}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(response.status).toBe(200);
      const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as { location: string[]; message: string }[];
      expect(violations.some((v) => v.location.join('.').includes('maxCallDurationSeconds'))).toBe(true);
    } finally {
      fake.breaks.delete('schema');
    }
  });

  it('names the upstream and the contract when it starts, and never the key', () => {
    expect(output).toContain(`Validating proxy: ${proxyUrl} -> ${fake.url}`);
    expect(output).not.toContain(TEST_KEY);
  });
});
