// ApiError (part 7: status first, then `error`, `code`, and the `ref_` reference of bad_request),
// the bearer key (part 5: sent on every request, never shown), and choosing the base address.
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createClient, serverUrls } from '../src/client/index.js';
import { readGenerated } from './helpers/client-description.js';
import { useScriptedServer } from './helpers/client-server.js';

const apiKey = 'sk_live_n3verShowMe0123456789abcdef';
const server = useScriptedServer();
const client = () => createClient({ apiKey, baseUrl: server.url, retry: false });


describe('ApiError', () => {
  it('carries status, error, code and the ref_ reference of a bad_request', async () => {
    server.script({ status: 400, json: { error: 'Something went wrong (ref_9XkQ2mLp7Z).', code: 'bad_request' } });
    const error = (await client().GET('/api/v1/account').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error.status).toBe(400);
    expect(error.error).toBe('Something went wrong (ref_9XkQ2mLp7Z).');
    expect(error.code).toBe('bad_request');
    expect(error.ref).toBe('ref_9XkQ2mLp7Z');
    expect(error.method).toBe('GET');
    expect(error.url).toBe(`${server.url}/api/v1/account`);
    expect(error.message).toContain('400 bad_request: Something went wrong (ref_9XkQ2mLp7Z).');
  });

  it('keeps an object error (validation fieldErrors) as the object, with no code or ref', async () => {
    const body = { error: { fieldErrors: { maxCallDurationSeconds: ['Must be between 60 and 3600 seconds'] } } };
    server.script({ status: 400, json: body });
    const error = (await client()
      .PATCH('/api/v1/account', { body: { maxCallDurationSeconds: 30 } })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(400);
    expect(error.error).toEqual(body.error);
    expect(error.code).toBeUndefined();
    expect(error.ref).toBeUndefined();
    expect(error.body).toEqual(body);
  });

  it('reads a code without a ref (403 unsupported_region) and Retry-After on a 429', async () => {
    server.script({ status: 403, json: { error: 'This number can only call US numbers.', code: 'unsupported_region' } });
    const forbidden = (await client().GET('/api/v1/calls').catch((e: unknown) => e)) as ApiError;
    expect([forbidden.status, forbidden.code, forbidden.ref]).toEqual([403, 'unsupported_region', undefined]);

    server.script({ status: 429, json: { error: 'Slow down', code: 'rate_limited' }, headers: { 'Retry-After': '7' } });
    const limited = (await client().POST('/api/v1/messages', { body: { to: '+14155550123', fromNumberId: 'pn_1', body: 'x' } }).catch((e: unknown) => e)) as ApiError;
    expect([limited.status, limited.code, limited.retryAfterSeconds]).toEqual([429, 'rate_limited', 7]);
  });

  it('turns a non-JSON error page into a text error', async () => {
    server.script({ status: 502, text: '<html>Bad Gateway</html>' });
    const error = (await client().GET('/api/v1/lookup', { params: { query: { number: '+14155550123' } } }).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(502);
    expect(error.error).toBe('<html>Bad Gateway</html>');
    expect(error.code).toBeUndefined();
  });

  it('every documented error example of the description yields its error and code', async () => {
    // Derived from the bundled description: each example under an error response of any operation.
    const examples = readGenerated().errorExamples;
    expect(examples.length).toBeGreaterThan(10);
    for (const { status, value } of examples) {
      server.script({ status, json: value });
      const error = (await client().GET('/api/v1/account').catch((e: unknown) => e)) as ApiError;
      expect(error.status).toBe(status);
      expect(error.error).toEqual(value.error);
      expect(error.code).toBe(value.code);
    }
  });
});

describe('the API key', () => {
  const consoleMethods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const spies: ReturnType<typeof vi.spyOn>[] = [];
  beforeEach(() => {
    for (const method of consoleMethods) spies.push(vi.spyOn(console, method).mockImplementation(() => {}));
  });
  afterEach(() => {
    for (const spy of spies.splice(0)) spy.mockRestore();
  });

  /** Every way an error is commonly shown or shipped to a log. */
  const renderings = (error: unknown) => [
    String(error),
    (error as Error).message,
    (error as Error).stack ?? '',
    JSON.stringify(error),
    inspect(error, { depth: Infinity, showHidden: true }),
    JSON.stringify((error as ApiError).body ?? null),
  ];

  it('is sent as a bearer token on every request', async () => {
    await client().GET('/api/v1/account');
    await client().POST('/api/v1/calls', { body: { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi' } });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${apiKey}`, `Bearer ${apiKey}`]);
  });

  it('is not sent when the client is made without one (sign-up operations)', async () => {
    await createClient({ apiKey: null, baseUrl: server.url }).POST('/api/v1/auth/signup', { body: { email: 'a@example.com' } });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('never appears in an error, even when the server echoes it back', async () => {
    server.script({ status: 401, json: { error: `Invalid API key ${apiKey}`, echoed: { authorization: `Bearer ${apiKey}` } } });
    const error = await client().GET('/api/v1/account').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    for (const text of renderings(error)) expect(text).not.toContain(apiKey);
    expect((error as ApiError).error).toBe('Invalid API key sk_live_…cdef');
  });

  it('never appears in a network error', async () => {
    server.script({ drop: true });
    const error = await client().GET('/api/v1/account').catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(0);
    for (const text of renderings(error)) expect(text).not.toContain(apiKey);
  });

  it('is never logged: the client writes nothing to the console', async () => {
    server.script({ status: 500, json: { error: 'boom' } });
    await client().GET('/api/v1/account').catch(() => {});
    await client().GET('/api/v1/calls');
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('is not reachable from the client object', () => {
    const api = client();
    expect(JSON.stringify(api)).not.toContain(apiKey);
    expect(inspect(api, { depth: Infinity, showHidden: true })).not.toContain(apiKey);
  });
});

describe('createClient options', () => {
  it('needs a base URL: without one it says what to pass, and never falls back to a placeholder address', () => {
    const { servers } = readGenerated();
    expect(serverUrls.base).toBe(servers.base);
    expect(serverUrls.legacy).toBe(servers.legacy);
    expect(serverUrls.mock).toBe(servers.mock);
    const noBaseUrl = /^createClient needs a baseUrl: your deployment's address \(an http\(s\) URL\), or 'mock' for this package's local mock \(http:\/\/127\.0\.0\.1:4010\)/;
    expect(() => createClient({ apiKey } as never)).toThrow(noBaseUrl);
    expect(() => createClient({ apiKey, baseUrl: '' })).toThrow(noBaseUrl);
    // The description's {base_url} and {legacy_base_url} are placeholders (example.com): naming them is refused.
    for (const name of ['base', 'legacy'] as const) {
      expect(() => createClient({ apiKey, baseUrl: name })).toThrow(new RegExp(`^baseUrl '${name}' names a server whose address the contract does not give \\(its ${servers[name].replace(/[.]/g, '\\.')} is a placeholder`));
    }
    expect(createClient({ apiKey, baseUrl: 'mock' }).baseUrl).toBe(servers.mock);
    expect(createClient({ apiKey, baseUrl: 'http://127.0.0.1:9/' }).baseUrl).toBe('http://127.0.0.1:9');
  });

  it('sends requests to a base URL with a path prefix', async () => {
    const api = createClient({ apiKey, baseUrl: `${server.url}/prefix/` });
    server.script({ status: 201, json: {} });
    await api.POST('/api/v1/calls', { body: { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi' } });
    expect(server.requests[0]?.path).toBe('/prefix/api/v1/calls');
    expect(server.requests[0]?.headers['idempotency-key']).toBeTruthy();
  });

  it('refuses bad options with a clear message', () => {
    expect(() => createClient({ apiKey, baseUrl: 'not a url' })).toThrow(/baseUrl must be 'mock' or an http\(s\) URL, got "not a url"/);
    expect(() => createClient({ apiKey, baseUrl: 'ftp://example.com' })).toThrow(/baseUrl must use http: or https:/);
    expect(() => createClient({ apiKey: '', baseUrl: 'mock' })).toThrow(/apiKey must be a non-empty string/);
    expect(() => createClient({ apiKey, baseUrl: 'mock', retry: { maxAttempts: 0 } })).toThrow(/retry.maxAttempts must be an integer of at least 1/);
    expect(() => createClient({ apiKey, baseUrl: 'mock', retry: { baseDelayMs: -1 } })).toThrow(/retry.baseDelayMs must be a non-negative number/);
  });

  it('uses the fetch it is given', async () => {
    const seen: string[] = [];
    const api = createClient({
      apiKey,
      baseUrl: 'mock',
      fetch: async (request) => {
        seen.push(`${request.method} ${request.url}`);
        return new Response(JSON.stringify([]), { status: 200, headers: { 'Content-Type': 'application/json' } });
      },
    });
    const { data } = await api.GET('/api/v1/messages', { params: { query: { groupId: 'grp_1' } } });
    expect(data).toEqual([]);
    expect(seen).toEqual([`GET ${serverUrls.mock}/api/v1/messages?groupId=grp_1`]);
  });

  it('hands the given fetch a real Request, with key, Idempotency-Key and the same body on every retry', async () => {
    const sent: { isRequest: boolean; authorization: string | null; key: string | null; body: string }[] = [];
    const statuses = [409, 503, 201];
    const api = createClient({
      apiKey,
      baseUrl: 'mock',
      retry: { sleep: async () => {} },
      fetch: async (request) => {
        sent.push({
          isRequest: request instanceof Request,
          authorization: request.headers.get('Authorization'),
          key: request.headers.get('Idempotency-Key'),
          body: await request.text(),
        });
        const status = statuses.shift() ?? 500;
        return new Response(JSON.stringify(status === 201 ? { id: 'call_1' } : { error: 'busy' }), { status, headers: { 'Content-Type': 'application/json' } });
      },
    });
    const body = { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi' };
    const { status } = await api.POST('/api/v1/calls', { body });
    expect(status).toBe(201);
    expect(sent).toHaveLength(3);
    for (const request of sent) {
      expect(request.isRequest).toBe(true);
      expect(request.authorization).toBe(`Bearer ${apiKey}`);
      expect(request.key).toBe(sent[0]?.key);
      expect(JSON.parse(request.body)).toEqual(body);
    }
    expect(sent[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
  });
});
