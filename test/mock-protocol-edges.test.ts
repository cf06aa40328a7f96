// No request ends the process, and the edges of HTTP get a documented status in the `Error` shape
// (issue 27, items 3 and 10), on the stateful mock and on the example server (`--stateless`):
// a path with an escape that does not decode (Prism's path parsing threw `URIError` on `%FF` and its
// process died, taking the mock with it), a repeated `days` (Prism's undocumented 422), HTTP/1.1 or
// HTTP/1.0 without `Host`, an `Expect` other than 100-continue, `CONNECT`, headers that come too
// slowly (408, not a 400 after a minute), a body declared over the 10 MB limit (refused at once,
// not read until Node's timeout), and a request pipelined before a malformed one (answered first).
// After each, the mock still answers.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prismProcessesOf } from './helpers/mock-process.js';
import { startTestMock, VALID_KEY } from './helpers/mock-server.js';
import { startStatefulMock } from './helpers/stateful-mock.js';

interface Raw {
  /** Every answer on the connection, in order. */
  answers: Array<{ status: number; head: string; body: string }>;
}

/** Bytes straight onto a socket, and every answer that comes back before the server closes it. */
function raw(url: string, request: string | Buffer, options: { keepOpen?: boolean } = {}): Promise<Raw> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => resolve({ answers: parseAnswers(Buffer.concat(chunks)) }));
    if (options.keepOpen) socket.write(request);
    else socket.end(request);
  });
}

/** The answers in the bytes of a connection (Content-Length counts bytes, not characters). */
function parseAnswers(bytes: Buffer): Raw['answers'] {
  const answers: Raw['answers'] = [];
  let rest = bytes;
  while (rest.subarray(0, 5).toString('latin1') === 'HTTP/') {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.subarray(0, headEnd).toString('latin1').toLowerCase();
    const length = Number(/content-length: (\d+)/.exec(head)?.[1] ?? 0);
    const body = rest.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    answers.push({ status: Number(/^http\/1\.[01] (\d{3})/.exec(head)?.[1]), head, body });
    rest = rest.subarray(headEnd + 4 + length);
  }
  return answers;
}

function expectError(answer: { status: number; head: string; body: string } | undefined, status: number): void {
  expect(answer?.status).toBe(status);
  expect(answer?.head).toContain('content-type: application/json');
  expect(JSON.parse(answer!.body)).toEqual({ error: expect.any(String) });
}

const servers = [
  ['the stateful mock', () => startStatefulMock({ timeouts: { headersMs: 500, checkIntervalMs: 100 } })],
  ['the example server (--stateless)', () => startTestMock({ stateless: true, prismWorkers: 1, timeouts: { headersMs: 500, checkIntervalMs: 100 } })],
] as const;

describe.each(servers)('%s', (_name, start) => {
  let url: string;
  let close: () => Promise<void>;
  let host: string;
  beforeAll(async () => {
    const mock = await start();
    url = mock.url;
    host = new URL(url).host;
    close = () => mock.close();
  });
  afterAll(async () => {
    await close?.();
  });

  async function stillAnswers(): Promise<void> {
    const answer = await fetch(`${url}/api/v1/account`, { headers: { Authorization: VALID_KEY } });
    expect(answer.status).toBe(200);
    await answer.arrayBuffer();
  }

  it.each(['%FF', '%zz', '%C0%AF', '%E0%A4%A'])('a path id with the escape %s is the documented 404, and the mock lives on', async (escape) => {
    const answer = await fetch(`${url}/api/v1/numbers/${escape}/10dlc`, { headers: { Authorization: VALID_KEY } });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ error: expect.any(String) });
    await stillAnswers();
  });

  it('a repeated days falls back to 30 (part 4.3), never an undocumented 422', async () => {
    const answer = await fetch(`${url}/api/v1/usage?days=7&days=30`, { headers: { Authorization: VALID_KEY } });
    expect(answer.status).toBe(200);
    expect((await answer.json()).periodDays).toBe(30);
  });

  it('HTTP/1.1 without Host is the 400 Error; HTTP/1.0 without Host is answered', async () => {
    const eleven = await raw(url, `GET /api/v1/account HTTP/1.1\r\nAuthorization: ${VALID_KEY}\r\n\r\n`);
    expectError(eleven.answers[0], 400);
    const ten = await raw(url, `GET /api/v1/account HTTP/1.0\r\nAuthorization: ${VALID_KEY}\r\n\r\n`, { keepOpen: true });
    expect(ten.answers[0]?.status).toBe(200);
  });

  it('an Expect other than 100-continue is the 400 Error (not a bare 417)', async () => {
    const { answers } = await raw(url, `POST /api/v1/messages HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${VALID_KEY}\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    expectError(answers[0], 400);
  });

  it('CONNECT is the 400 Error (not silence)', async () => {
    const { answers } = await raw(url, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`, { keepOpen: true });
    expectError(answers[0], 400);
  });

  it('headers that come too slowly are the 408 Error', async () => {
    // The mock was started with a 500 ms headers timeout; the request line comes and nothing after.
    const { answers } = await raw(url, `GET /api/v1/account HTTP/1.1\r\nHost: ${host}\r\n`, { keepOpen: true });
    expectError(answers[0], 408);
  });

  it('a body declared over the 10 MB limit is refused at once, before it is sent', async () => {
    const { answers } = await raw(url, `POST /api/v1/messages HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${VALID_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n{"to":`, {
      keepOpen: true,
    });
    expectError(answers[0], 400);
    expect(JSON.parse(answers[0]!.body).error).toBe('The request body is larger than the 10 MB the service reads.');
    expect(answers[0]!.head).toContain('connection: close');
    await stillAnswers();
  });

  it('a request pipelined before a malformed one gets its answer, then the 400', async () => {
    const { answers } = await raw(url, `GET /api/v1/account HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${VALID_KEY}\r\n\r\nGARBAGE GARBAGE\r\n\r\n`, { keepOpen: true });
    expect(answers.map((answer) => answer.status)).toEqual([200, 400]);
    expectError(answers[1], 400);
  });
});

describe('the example server (--stateless) when a Prism process dies', () => {
  it('answers the request it was serving with 503 in the Error shape, replaces it, and answers the next', async () => {
    const warnings: string[] = [];
    const mock = await startTestMock({ stateless: true, prismWorkers: 1, warn: (line) => warnings.push(line) });
    try {
      const [prism] = prismProcessesOf(process.pid);
      expect(prism).toBeDefined();
      // Stopped, it takes the request and never answers; killed then, the request is cut off.
      process.kill(prism!, 'SIGSTOP');
      const pending = fetch(`${mock.url}/api/v1/account`, { headers: { Authorization: VALID_KEY } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(prism!, 'SIGKILL');
      const cut = await pending;
      expect(cut.status).toBe(503);
      expect(await cut.json()).toEqual({ error: expect.stringMatching(/Prism process/) });
      const next = await fetch(`${mock.url}/api/v1/account`, { headers: { Authorization: VALID_KEY } });
      expect(next.status).toBe(200);
      expect(warnings).toEqual(['A Prism process stopped (SIGKILL); starting another.']);
    } finally {
      await mock.close();
    }
  });
});
