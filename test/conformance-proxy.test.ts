// `numbers-api proxy` (its old name `npm run conformance -- --proxy` is kept for a release): the validating proxy in front of a
// deployment (conformance/validating-proxy.ts), the mocks' pipeline with a forwarder. A conforming
// answer passes through untouched; a violating one is still forwarded, its verdicts rendered in
// `sl-violations` (Prism's words) and in the proxy's log (where, the rule, where it lives in the
// contract); a redirect is passed back, never followed; with --errors a violating exchange is
// answered with an error. The pipeline's door answers a browser's preflight and adds the browser
// headers, as the mocks' does.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDeployment, type FakeDeployment } from './helpers/conformance-fake-deployment.js';
import { TEST_KEY } from './helpers/conformance-harness.js';
import { freePort } from './helpers/mock-process.js';

const repoRoot = path.resolve(import.meta.dirname, '..');

async function waitForListening(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The proxy exited (${child.exitCode}): ${output()}`);
    try {
      await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(1000) });
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
let proxyOutput: () => string;

/** The proxy CLI in front of `upstream`, listening once it answers. */
async function startProxy(upstream: string, extra: string[] = []): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let text = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/numbers-api.ts', 'proxy', '--base-url', upstream, '--port', String(port), ...extra], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (text += String(d)));
  child.stderr?.on('data', (d) => (text += String(d)));
  await waitForListening(`${url}/api/v1/account`, child, () => text);
  return { child, url, output: () => text };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
  }
}

beforeAll(async () => {
  fake = await startFakeDeployment({ apiKey: TEST_KEY });
  const started = await startProxy(fake.url);
  proxy = started.child;
  proxyUrl = started.url;
  proxyOutput = started.output;
}, 90_000);

afterAll(async () => {
  await stop(proxy);
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
      const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as { location: string[]; severity: string; message: string }[];
      expect(violations).toContainEqual({ location: ['response', 'body', 'maxCallDurationSeconds'], severity: 'Error', message: 'Response body property maxCallDurationSeconds must be integer,null' });
      // The log renders the same verdict: where, the rule, what came, and where the rule lives in the contract.
      await expect.poll(proxyOutput).toContain('violation: response /maxCallDurationSeconds must be integer,null (got "ten minutes"; #/components/schemas/CallDurationSetting/type)');
    } finally {
      fake.breaks.delete('schema');
    }
  });

  it('judges a compressed answer decompressed, and passes it on so', async () => {
    fake.quirks.add('gzip');
    try {
      const response = await fetch(`${proxyUrl}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('sl-violations')).toBeNull();
      expect((await response.json()).limits).toBeDefined();
    } finally {
      fake.quirks.delete('gzip');
    }
  });

  it('passes a request that breaks the contract on, reported with its verdicts', async () => {
    const sent = fake.requests.length;
    const response = await fetch(`${proxyUrl}/api/v1/account`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ maxCallDurationSeconds: 'ten minutes' }),
    });
    expect(fake.requests.slice(sent).map((r) => r.operationId)).toEqual(['updateAccount']);
    const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as { location: string[] }[];
    expect(violations.some((violation) => violation.location.join('.') === 'request.body.maxCallDurationSeconds')).toBe(true);
    await expect.poll(proxyOutput).toContain('violation: request /maxCallDurationSeconds');
  });

  it("answers a browser's preflight itself, and gives every answer the browser headers, as the mocks do", async () => {
    const sent = fake.requests.length;
    const preflight = await fetch(`${proxyUrl}/api/v1/account`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(fake.requests.length).toBe(sent);
    const answer = await fetch(`${proxyUrl}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}`, origin: 'http://localhost:5173' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-expose-headers')).toBe('*');
  });

  it('names the upstream and the contract when it starts, and never the key', () => {
    expect(proxyOutput()).toContain(`Validating proxy: ${proxyUrl} -> ${fake.url}`);
    expect(proxyOutput()).not.toContain(TEST_KEY);
  });

  it('passes a redirect back instead of following it: the key goes to the configured origin only', async () => {
    const elsewhere: string[] = [];
    const other = http.createServer((req, res) => {
      elsewhere.push(String(req.headers.authorization));
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as { port: number }).port;
    const redirecting = http.createServer((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${otherPort}/api/v1/account` });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const started = await startProxy(`http://127.0.0.1:${(redirecting.address() as { port: number }).port}`);
    try {
      const response = await fetch(`${started.url}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}` }, redirect: 'manual' });
      expect(response.status).toBe(307);
      expect(elsewhere).toEqual([]);
    } finally {
      await stop(started.child);
      redirecting.close();
      other.close();
    }
  }, 90_000);

  it('with --errors, a request that breaks the contract is the documented 400, not sent; an answer that breaks it a 502 in the Error shape naming the verdict', async () => {
    const started = await startProxy(fake.url, ['--errors']);
    const sent = fake.requests.length;
    const refused = await fetch(`${started.url}/api/v1/account`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ maxCallDurationSeconds: 'ten minutes' }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { fieldErrors: Record<string, string[]> } }).error.fieldErrors.maxCallDurationSeconds).toBeDefined();
    expect(fake.requests.length).toBe(sent);
    fake.breaks.add('schema');
    try {
      const response = await fetch(`${started.url}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: string }).error).toContain('/maxCallDurationSeconds must be integer,null');
    } finally {
      fake.breaks.delete('schema');
      await stop(started.child);
    }
  }, 90_000);
});

// Issue 27, item 9: the proxy trusts nothing upstream. Prism forwarded the key on a redirect to the
// same host on another port, read a 1 GiB answer whole, and turned a JSON answer that does not
// parse into a 500 problem+json.
describe('the validating proxy in front of an upstream that misbehaves', () => {
  let upstream: import('node:http').Server;
  let elsewhere: import('node:http').Server;
  const elsewhereSaw: Array<string | undefined> = [];
  let streamed = 0;
  let guarded: ChildProcess;
  let guardedUrl: string;
  let guardedOutput = '';

  beforeAll(async () => {
    const { createServer: createHttpServer } = await import('node:http');
    elsewhere = createHttpServer((req, res) => {
      elsewhereSaw.push(req.headers.authorization);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewherePort = (elsewhere.address() as { port: number }).port;
    upstream = createHttpServer((req, res) => {
      if (req.url === '/api/v1/account') return res.writeHead(302, { Location: `http://127.0.0.1:${elsewherePort}/api/v1/account` }).end();
      if (req.url === '/api/v1/numbers') return res.writeHead(200, { 'Content-Type': 'application/json' }).end('[{"id": "pn_1", "number": "+1415');
      if (req.url?.startsWith('/api/v1/messages')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = Buffer.alloc(256 * 1024, 0x20);
        const pump = (): void => {
          while (!res.destroyed && streamed < 1024 * 1024 * 1024 && res.write(chunk)) streamed += chunk.length;
          if (!res.destroyed && streamed < 1024 * 1024 * 1024) res.once('drain', pump);
        };
        res.on('close', () => res.destroy());
        return pump();
      }
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"Not found"}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    const port = await freePort();
    guardedUrl = `http://127.0.0.1:${port}`;
    guarded = spawn(process.execPath, ['--import', 'tsx', 'bin/numbers-api.ts', 'proxy', '--base-url', upstreamUrl, '--port', String(port)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    guarded.stdout?.on('data', (d) => (guardedOutput += String(d)));
    guarded.stderr?.on('data', (d) => (guardedOutput += String(d)));
    await waitForListening(`${guardedUrl}/api/v1/usage`, guarded, () => guardedOutput);
  }, 90_000);

  afterAll(async () => {
    if (guarded && guarded.exitCode === null) {
      const exited = new Promise((r) => guarded.once('exit', r));
      guarded.kill('SIGINT');
      await exited;
    }
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await new Promise((resolve) => elsewhere?.close(resolve));
  });

  it('never follows a redirect: the key goes to no other port, and the 302 comes back as a violation', async () => {
    const response = await fetch(`${guardedUrl}/api/v1/account`, { headers: { authorization: `Bearer ${TEST_KEY}` }, redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('x-upstream-location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/account$/);
    expect(response.headers.get('sl-violations')).not.toBeNull();
    expect(elsewhereSaw).toEqual([]);
  });

  it('passes a JSON answer that does not parse on as it came, with a violation, not a 500', async () => {
    const response = await fetch(`${guardedUrl}/api/v1/numbers`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('[{"id": "pn_1", "number": "+1415');
    const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as { location: string[]; message: string }[];
    expect(violations).toEqual([{ location: ['response', 'body'], severity: 'Error', message: expect.stringMatching(/^Response body is not valid JSON/) }]);
  });

  it('cuts off an answer past 32 MB with a 502 in the Error shape, having read no more', async () => {
    const response = await fetch(`${guardedUrl}/api/v1/messages`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/larger than the 33554432 bytes the proxy passes on/) });
    expect(streamed).toBeLessThan(64 * 1024 * 1024);
  });
});
