// The package's one outgoing request (src/request/, issue 37). Outgoing HTTP used to be written
// four times beside openapi-fetch (the runner's steps, the MCP send, conformance's client, the
// listen agent's poll), with three rules for joining a base URL and a path: the listen agent
// dropped a base URL's path, so a deployment mounted below a prefix got its waits at the root.
// Now every door sends through one module, and this file holds it there:
// - no second request builder appears in src/ or conformance/ (only the places that must send
//   something else, each listed with why);
// - a base URL's path is kept, through the listen agent, the suite's probe and the module itself,
//   against the real mock behind a real nginx that serves it below a prefix only;
// - the key and the control token go where they belong, a redirect is an answer, an answer past
//   the bound is a clear error having read no more, and no message names a secret.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDescription } from '../conformance/description.js';
import { probeDeployment } from '../conformance/probe.js';
import { startListenAgent } from '../src/listen/agent.js';
import { createRequester, NoAnswer } from '../src/request/index.js';
import { startNginx, type Server as Child } from './helpers/cluster.js';
import { repoRoot } from './helpers/contract.js';
import { endlessAnswer } from './helpers/raw-http.js';
import { startTarget, type Target } from './helpers/event-source-target.js';
import { newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

/** What builds and sends an HTTP request by itself, in code (comments taken out first). */
const BUILDERS: Array<[string, RegExp]> = [
  ['fetch(', /(?<![\w.])fetch\(|\b(?:globalThis|window|self)\.fetch\(/],
  ['new Request(', /\bnew Request\(/],
  ['http.request(', /\b(?:https?|transport|undici)\.(?:request|get)\(|\bhttps?\s*\)\.(?:request|get)\(/],
  ["a client of openapi-fetch's own", /^import (?!type\b)[^\n]*from 'openapi-fetch'/m],
  ['XMLHttpRequest', /\bXMLHttpRequest\b/],
];

/** The files that may, and why: everything else sends through src/request/. */
const ELSEWHERE: Record<string, string> = {
  'src/request/index.ts': 'the one outgoing request: openapi-fetch, and the global fetch it sends with',
  'src/request/pending-request.ts': 'the one outgoing request: the Fetch Request a caller-supplied fetch receives',
  'src/delivery/deliver.ts': "an event's raw body POSTed to a local fan-out target (part 6): no request of the API, its address pinned to loopback at the DNS lookup, which fetch cannot do",
  'src/mock/prism-responder.ts': "the mock hands a request it received to its Prism child, over a kept-alive loopback connection: the client's request, not one of ours",
  'conformance/validating-proxy.ts': "the validating proxy forwards a client's own request as it came",
};

function builders(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
  return BUILDERS.filter(([, pattern]) => pattern.test(code)).map(([name]) => name);
}

function sources(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.parentPath.includes(`${path.sep}fixtures`))
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

describe('one request builder', () => {
  it.each([
    ['a fetch', 'const answer = await fetch(url, { method: "POST" });', ['fetch(']],
    ['the global fetch', 'return globalThis.fetch(request.url, init);', ['fetch(']],
    ['a Request', 'await send(new Request(url));', ['new Request(']],
    ['node:http', "const sent = https.request(url, { method: 'POST' });", ['http.request(']],
    ['node:http chosen inline', "(url.protocol === 'https:' ? https : http).request(url, options);", ['http.request(']],
    ['a second openapi-fetch client', "import createClient from 'openapi-fetch';", ["a client of openapi-fetch's own"]],
    ['its types only', "import type { Middleware } from 'openapi-fetch';", []],
    ['a method that is no request', 'validator.request(operationId, request); tools.prefetch(x);', []],
    ['a comment', '// fetch(url) is what this replaced\n/* new Request(url) */', []],
  ])('the scan finds %s', (_name, given, want) => {
    expect(builders(given)).toEqual(want);
  });

  it('appears nowhere in src/ or conformance/ but the module and the places listed with their reason', () => {
    const found = Object.fromEntries(
      ['src', 'conformance']
        .flatMap(sources)
        .map((file) => [file, builders(readFileSync(path.join(repoRoot, file), 'utf8'))] as const)
        .filter(([, names]) => names.length > 0),
    );
    // Exactly the list: a new builder fails, and so does an entry whose reason no longer holds.
    expect(Object.keys(found).sort()).toEqual(Object.keys(ELSEWHERE).sort());
  });
});

describe("a base URL's path is kept (the mock below /team/numbers, behind nginx)", () => {
  const PREFIX = '/team/numbers';
  let mock: StatefulMock;
  let nginx: Child & { url: string };
  let hooks: Target;
  beforeAll(async () => {
    mock = await startStatefulMock();
    nginx = await startNginx([Number(new URL(mock.url).port)], PREFIX);
    hooks = await startTarget([]);
  }, 60_000);
  afterAll(async () => {
    await hooks?.close();
    await nginx?.stop();
    await mock?.close();
  });

  it('nginx serves the mock below the prefix only', async () => {
    const key = newKey('prefix');
    const requests = createRequester({ baseUrl: nginx.url, apiKey: key });
    // nginx's own refusal (no location there), not the mock's account.
    expect((await requests.send({ method: 'GET', path: '/api/v1/account' })).status).toBeGreaterThanOrEqual(400);
    const below = createRequester({ baseUrl: `${nginx.url}${PREFIX}/`, apiKey: key });
    const account = await below.send({ method: 'GET', path: '/api/v1/account' });
    expect(account.status).toBe(200);
    expect(account.request).toMatchObject({ url: `${nginx.url}${PREFIX}/api/v1/account`, target: '/api/v1/account' });
  });

  it('the listen agent waits below it, and forwards the events of messages sent there', async () => {
    const key = newKey('prefix');
    const lines: string[] = [];
    const agent = startListenAgent({ baseUrl: new URL(`${nginx.url}${PREFIX}`), apiKey: key, targets: [new URL(hooks.url)], filters: { type: 'message.status_changed' }, waitSeconds: 5, log: (line) => lines.push(line) });
    try {
      await agent.polling;
      const requests = createRequester({ baseUrl: `${nginx.url}${PREFIX}`, apiKey: key });
      // The stream is presence-based (part 6): a send before the wait reached the mock is missed, so send until one arrives.
      let forwarded: unknown;
      for (let attempt = 0; attempt < 10 && forwarded === undefined; attempt++) {
        // The demo seed's PAYG SMS line (the contract's twoNumbers example).
        const sent = await requests.send({ method: 'POST', path: '/api/v1/messages', body: { to: '+14155550999', fromNumberId: 'pn_8f3kq2m9x7', body: 'Your table is ready.' } });
        expect(sent.status, sent.text).toBe(201);
        const deadline = Date.now() + 2000;
        while (forwarded === undefined && Date.now() < deadline) {
          forwarded = hooks.received.map((request) => JSON.parse(request.rawBody.toString())).find((event) => event.data?.messageId === (sent.body as { id: string }).id);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      expect(forwarded, lines.join('\n')).toMatchObject({ type: 'message.status_changed' });
      expect(lines.join('\n')).not.toMatch(/events\/wait answered 40[34]/);
    } finally {
      await agent.stop();
    }
  }, 60_000);

  it("the suite's probe finds the API below it", async () => {
    await expect(probeDeployment(loadDescription(), `${nginx.url}${PREFIX}`, newKey('prefix'), 10_000)).resolves.toBeUndefined();
    await expect(probeDeployment(loadDescription(), nginx.url, newKey('prefix'), 10_000)).rejects.toThrow(/does not look like this API/);
  });
});

describe('what goes out, and what comes back', () => {
  interface Seen {
    url: string;
    headers: IncomingHttpHeaders;
  }
  const seen: Seen[] = [];
  let answer: (url: string, res: ServerResponse) => void = (_url, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url!, headers: req.headers });
      req.resume();
      req.on('end', () => answer(req.url!, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const KEY = 'sk_live_outgoing0123456789SECRET';
  const TOKEN = 'control-token-0123456789';

  it.each([
    ['the key by default', {}, `Bearer ${KEY}`],
    ["a step's own Authorization", { header: { authorization: 'Bearer sk_live_other' } }, 'Bearer sk_live_other'],
    ['none when the request says null', { header: { authorization: null } }, undefined],
  ])('sends %s', async (_name, params, want) => {
    seen.length = 0;
    await createRequester({ baseUrl: base, apiKey: KEY, controlToken: TOKEN }).send({ method: 'GET', path: '/api/v1/numbers/{id}', params: { ...params, path: { id: 'pn 1/2' }, query: { days: 45 } } });
    expect(seen[0]!.url).toBe('/base/api/v1/numbers/pn%201%2F2?days=45');
    expect(seen[0]!.headers.authorization).toBe(want);
    expect(seen[0]!.headers['x-mock-control-token']).toBeUndefined();
  });

  it('sends the control token to the control surface only, and `{}` as a change that has no body', async () => {
    seen.length = 0;
    const sent = await createRequester({ baseUrl: base, apiKey: KEY, controlToken: TOKEN }).send({ method: 'POST', path: '/__mock/reset' });
    expect(seen[0]!.headers['x-mock-control-token']).toBe(TOKEN);
    expect(sent.request).toEqual({ method: 'POST', url: `${base}/__mock/reset`, target: '/__mock/reset', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: {} });
  });

  it('returns a redirect as the answer: the key goes nowhere else', async () => {
    seen.length = 0;
    answer = (url, res) => (url.startsWith('/base') ? res.writeHead(302, { Location: `http://localhost:${new URL(base).port}/elsewhere` }).end() : res.writeHead(200).end());
    const sent = await createRequester({ baseUrl: base, apiKey: KEY }).send({ method: 'GET', path: '/api/v1/account' });
    expect(sent.status).toBe(302);
    expect(seen.map((s) => s.url)).toEqual(['/base/api/v1/account']);
  });

  it('reads an answer up to the bound; past it, a clear error, having read no more', async () => {
    let written = () => 0;
    answer = (_url, res) => {
      written = endlessAnswer(res);
    };
    const error = await createRequester({ baseUrl: base, apiKey: KEY, maxAnswerBytes: 1024 * 1024 })
      .send({ method: 'GET', path: `/api/v1/lookup`, params: { query: { key: KEY } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoAnswer);
    expect(error).toMatchObject({ kind: 'too-large', status: 200 });
    expect((error as Error).message).toBe(`the answer to GET /api/v1/lookup?key=sk_live_…CRET from ${new URL(base).origin} is larger than 1048576 bytes; it was not read`);
    expect(written()).toBeLessThan(16 * 1024 * 1024);
  });

  it('says why there is no answer, naming no secret', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await createRequester({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY }).send({ method: 'GET', path: `/api/v1/numbers/{id}`, params: { path: { id: KEY } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
    expect((error as Error).message).toMatch(new RegExp(`^GET /api/v1/numbers/sk_live_…CRET to http://127\\.0\\.0\\.1:${port} failed \\(ECONNREFUSED: `));
    expect((error as Error).message).not.toContain(KEY);
  });
});
