// Nothing answers outside the contract (issue 21): what a request gets whatever its operation, on
// the stateful mock and on the example server (`--stateless`: the same pipeline, real Prism
// answering, issue 28) alike.
// Every refusal is a documented status in the one `Error` shape of part 7: an empty path id, a
// path or method the contract lacks, a `Prefer` naming an undocumented status or example (the
// Error names what can be named), protocol errors Node raises (an unknown method, a malformed
// chunked body, a 100 KB header). `OPTIONS` says what the path allows; CORS is for a bearer-token
// API: any origin, never credentials, and a browser's request is answered `Connection: close`.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simContract } from '../src/simulator/contract.js';
import { preferableAnswers } from '../src/serve/named-answers.js';
import { loadOpenApi } from './helpers/contract.js';
import { startTestMock, VALID_KEY } from './helpers/mock-server.js';
import { startStatefulMock } from './helpers/stateful-mock.js';

const contract = simContract(loadOpenApi());

interface Raw {
  status: number;
  headers: string;
  body: string;
  /** Every byte that came back. */
  text: string;
}

/**
 * Bytes straight onto a socket (what fetch will not send), and the answer as text; pieces are sent
 * 100 ms apart. `keepOpen`: the socket is not half-closed after them (as a client waiting for its
 * answer does), and what came until the server closed it, or in `keepOpen` ms, is the answer.
 */
function raw(url: string, request: string | Buffer | Array<string | Buffer>, keepOpen?: number): Promise<Raw> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body: rest.join('\r\n\r\n'), text });
    };
    const timer = keepOpen === undefined ? undefined : setTimeout(done, keepOpen);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (error) => (keepOpen === undefined ? reject(error) : done()));
    socket.on('close', done);
    const pieces = Array.isArray(request) ? request : [request];
    pieces.forEach((piece, i) => setTimeout(() => (keepOpen === undefined && i === pieces.length - 1 ? socket.end(piece) : socket.write(piece)), i * 100));
  });
}

function expectErrorShape(body: unknown): void {
  expect(body).toEqual({ error: expect.any(String) });
}

const servers = [
  ['the stateful mock', () => startStatefulMock()],
  ['the example server (--stateless)', () => startTestMock()],
] as const;

describe.each(servers)('%s', (_name, start) => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const mock = await start();
    url = mock.url;
    close = () => mock.close();
  });
  afterAll(async () => {
    await close?.();
  });

  it('an empty path id is the 404 Error, never Prism’s 422 problem', async () => {
    const response = await fetch(`${url}/api/v1/billing/invoices/`, { headers: { Authorization: VALID_KEY } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expectErrorShape(await response.json());
  });

  it('a method the contract lacks on a path it has is the 404 Error, never a 405 problem', async () => {
    const response = await fetch(`${url}/api/v1/account`, { method: 'PUT', headers: { Authorization: VALID_KEY } });
    expect(response.status).toBe(404);
    expectErrorShape(await response.json());
  });

  it('OPTIONS (not a preflight) says what the path allows; on an unknown path it is the 404 Error', async () => {
    const known = await fetch(`${url}/api/v1/account`, { method: 'OPTIONS' });
    expect(known.status).toBe(204);
    expect(known.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'OPTIONS', 'PATCH']);
    const unknown = await fetch(`${url}/api/v1/nothing`, { method: 'OPTIONS' });
    expect(unknown.status).toBe(404);
    expectErrorShape(await unknown.json());
  });

  it('Prefer naming an undocumented example or status is a 404 Error naming what can be named', async () => {
    for (const prefer of ['example=nope', 'code=418']) {
      const response = await fetch(`${url}/api/v1/account`, { headers: { Authorization: VALID_KEY, Prefer: prefer } });
      expect(response.status, prefer).toBe(404);
      const body = (await response.json()) as { error: string };
      expectErrorShape(body);
      expect(body.error).toContain(preferableAnswers(contract, 'getAccount'));
    }
    expect(preferableAnswers(contract, 'getAccount')).toMatch(/200 \(freeAccount, paidAccount\)/);
  });

  it('the key, and a body that cannot be read, are answered by the one pipeline alike (the documented 401, part 7\'s 400 sentence)', async () => {
    for (const [authorization, example] of [[undefined, 'missingApiKey'], ['Bearer pk_test_abc', 'invalidApiKey']] as const) {
      const response = await fetch(`${url}/api/v1/account`, { headers: authorization ? { Authorization: authorization } : {} });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(contract.example('getAccount', 401, example));
    }
    const malformed = await fetch(`${url}/api/v1/account`, { method: 'PATCH', headers: { Authorization: VALID_KEY, 'Content-Type': 'application/json' }, body: '{"maxCallDurationSeconds":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toMatch(/^The request body is not valid JSON: /);
  });

  it('protocol errors get the documented 400 with an Error body, where Node gave a bare 400 or 431', async () => {
    const { port } = new URL(url);
    const answers = {
      'an unknown method': await raw(url, `FROBNICATE /api/v1/account HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
      'a malformed chunk size': await raw(url, `POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`),
      'a 100 KB Authorization header': await raw(url, `GET /api/v1/account HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer sk_live_${'a'.repeat(100_000)}\r\n\r\n`),
    };
    for (const [what, answer] of Object.entries(answers)) {
      expect(answer.status, what).toBe(400);
      expect(answer.headers, what).toContain('content-type: application/json');
      expectErrorShape(JSON.parse(answer.body));
    }
  });

  it('a chunked body declaring more than the mock reads is answered 400 at once, not held until Node’s request timeout (issue 39)', async () => {
    const { port } = new URL(url);
    const head = `POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${VALID_KEY}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n`;
    const sixMegabytes = 6 * 1024 * 1024;
    const cases = {
      // The largest size Node's parser takes (2^64 - 1): before, no answer until the request timed out.
      'a chunk of FFFFFFFFFFFFFFFF': `${head}FFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n`,
      'a chunk past 10 MB, after headers sent alone': [head, 'a00001\r\n{"to":'],
      'two chunks of 6 MB': Buffer.concat([Buffer.from(`${head}${sixMegabytes.toString(16)}\r\n`), Buffer.alloc(sixMegabytes, 32), Buffer.from(`\r\n${sixMegabytes.toString(16)}\r\n`)]),
    };
    for (const [what, request] of Object.entries(cases)) {
      const started = Date.now();
      const answer = await raw(url, request, 3000);
      expect(answer.status, what).toBe(400);
      expect(answer.headers, what).toContain('content-type: application/json');
      expect(JSON.parse(answer.body), what).toEqual({ error: 'The request body is larger than the 10 MB the service reads.' });
      expect(Date.now() - started, what).toBeLessThan(2500);
    }
  });

  it('a client still sending a body declared past the bound reads the 400 once it is done: the connection lingers, never resets (issue 39)', async () => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Not reading until it has sent what it meant to: an answer that came meanwhile waits in the
    // system's buffer, which a reset would throw away (what a busy client, undici, lost).
    socket.pause();
    const errors: Error[] = [];
    socket.on('error', (error) => errors.push(error));
    socket.write(`POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${VALID_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`);
    const piece = Buffer.alloc(256 * 1024, 32);
    for (let i = 0; i < 8; i++) {
      await new Promise<void>((resolve) => setTimeout(resolve, 50));
      if (!socket.write(piece)) await new Promise<void>((resolve) => socket.once('drain', () => resolve()));
    }
    const text = await new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
      socket.once('end', () => resolve(got));
      socket.once('close', () => resolve(got));
      socket.resume();
    });
    socket.destroy();
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('larger than the 10 MB the service reads');
    // (A reset connection never drains: broken, this waits out its time.)
  }, 15_000);

  it('chunked bodies the mock reads are read as before (extensions, trailers, leading zeros, pipelined after a body holding CR LF CR LF and a large hex line, sent in pieces), and the sizes after them still followed', async () => {
    const { port } = new URL(url);
    const host = `Host: 127.0.0.1:${port}\r\nAuthorization: ${VALID_KEY}\r\nContent-Type: application/json`;
    const tricky = JSON.stringify({ maxCallDurationSeconds: '\r\n\r\nFFFFFFFFFFFFFFFF\r\n' });
    const body = '{"maxCallDurationSeconds":600}';
    const request =
      `PATCH /api/v1/account HTTP/1.1\r\n${host}\r\nContent-Length: ${Buffer.byteLength(tricky)}\r\n\r\n${tricky}` +
      `\r\nPATCH /api/v1/account HTTP/1.1\r\n${host}\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${'0'.repeat(40)}${(5).toString(16)};note=first\r\n${body.slice(0, 5)}\r\n${(body.length - 5).toString(16)}\r\n${body.slice(5)}\r\n0\r\nX-Trailer: FFFFFFFFFFFFFFFF\r\n\r\n` +
      `GET /api/v1/account HTTP/1.1\r\n${host}\r\n\r\n` +
      // Still followed after all that: a chunk past the bound is refused at once.
      `POST /api/v1/messages HTTP/1.1\r\n${host}\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n{}`;
    // In pieces cut inside a header block's CR LF CR LF, inside a chunk-size line and inside a chunk.
    const chunked = request.indexOf('Transfer-Encoding: chunked\r\n\r\n') + 'Transfer-Encoding: chunked\r\n\r'.length;
    const cuts = [chunked, chunked + 20, request.indexOf(body.slice(5)) + 3, request.length];
    const pieces = cuts.map((cut, i) => request.slice(cuts[i - 1] ?? 0, cut));
    // Not half-closed: the example server's answers come from Prism, after a half-close would have ended the requests.
    const answer = await raw(url, pieces, 3000);
    expect([...answer.text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]))).toEqual([400, 200, 200, 400]);
    expect(answer.text.match(/larger than the 10 MB/g)).toHaveLength(1);
    expect(answer.text.trimEnd()).toMatch(/larger than the 10 MB the service reads\."\}$/);
  });

  it('CORS for a bearer-token API: any origin, no credentials, the preflight names the methods and the asked-for headers', async () => {
    const preflight = await fetch(`${url}/api/v1/messages`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,prefer,idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization,content-type,prefer,idempotency-key');
    const control = await fetch(`${url}/__mock/reset`, { method: 'OPTIONS', headers: { Origin: 'http://127.0.0.1:3000', 'Access-Control-Request-Method': 'POST' } });
    expect(control.headers.get('access-control-allow-origin')).toBe('*');
    for (const origin of ['http://localhost:5173', 'https://evil.example']) {
      // As a browser sends it: Sec-Fetch-Site is on every browser request, never on Node's fetch.
      const answer = await fetch(`${url}/api/v1/account`, { headers: { Origin: origin, Authorization: VALID_KEY, 'Sec-Fetch-Site': 'cross-site' } });
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      // A browser's request is not kept alive (a reused connection makes Chromium re-send a 408).
      expect(answer.headers.get('connection')).toBe('close');
      await answer.arrayBuffer();
    }
    const node = await fetch(`${url}/api/v1/account`, { headers: { Authorization: VALID_KEY, Origin: 'http://localhost:5173' } });
    expect(node.headers.get('connection')).not.toBe('close');
    await node.arrayBuffer();
  });
});
