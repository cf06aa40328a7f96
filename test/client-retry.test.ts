// Which requests the client tries again, how long it waits, and what it sends each time (part 7:
// GETs are safe; POST /api/v1/calls is idempotent with its Idempotency-Key; other writes never).
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createClient, RETRY_DEFAULTS } from '../src/client/index.js';
import { idempotencyKeyHeaders } from '../generated/types/constants.js';
import { recordingSleep, useScriptedServer } from './helpers/client-server.js';
import { listOperations, loadOpenApi } from './helpers/contract.js';

const apiKey = 'sk_live_retrytestkey0123456789';
const callBody = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'Confirm the delivery window.' };
const call = { id: 'call_01', status: { state: 'Queued', label: 'Queued' } };
const messageBody = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'Hello' };

const server = useScriptedServer();
let clock: ReturnType<typeof recordingSleep>;
const client = (retry: Record<string, unknown> = {}) => createClient({ apiKey, baseUrl: server.url, retry: { sleep: clock.sleep, ...retry } });

beforeEach(() => {
  clock = recordingSleep();
});

describe('GET (part 7.1: safe to retry)', () => {
  it('waits the Retry-After of a 429, in seconds, then retries', async () => {
    server.script({ status: 429, json: { error: 'Too many requests', code: 'rate_limited' }, headers: { 'Retry-After': '2' } }, { status: 200, json: [] });
    const { data, response } = await client().GET('/api/v1/calls');
    expect(response.status).toBe(200);
    expect(data).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(clock.waits).toEqual([2000]);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
    server.script({ status: 429, json: { error: 'Too many requests' }, headers: { 'Retry-After': inFiveSeconds } }, { status: 200, json: [] });
    await client().GET('/api/v1/calls');
    expect(clock.waits).toHaveLength(1);
    expect(clock.waits[0]).toBeGreaterThan(3000);
    expect(clock.waits[0]).toBeLessThanOrEqual(5000);
  });

  it('backs off exponentially on 502 and 503 without Retry-After', async () => {
    server.script({ status: 502, text: 'Bad gateway' }, { status: 503, json: { error: 'Unavailable' } }, { status: 200, json: [] });
    const { data } = await client().GET('/api/v1/messages');
    expect(data).toEqual([]);
    expect(server.requests).toHaveLength(3);
    expect(clock.waits).toEqual([RETRY_DEFAULTS.baseDelayMs, RETRY_DEFAULTS.baseDelayMs * 2]);
  });

  it('is bounded: after maxAttempts the last answer surfaces as ApiError', async () => {
    server.script(...Array.from({ length: 10 }, () => ({ status: 503, json: { error: 'The event stream is not configured' } })));
    const error = await client({ maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300 }).GET('/api/v1/numbers').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect(server.requests).toHaveLength(4);
    expect(clock.waits).toEqual([100, 200, 300]);
  });

  it('retries a dropped connection (network error) and succeeds', async () => {
    server.script({ drop: true }, { status: 200, json: [] });
    const { data } = await client().GET('/api/v1/calls');
    expect(data).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up on network errors after maxAttempts, as ApiError with status 0', async () => {
    server.script({ drop: true }, { drop: true }, { drop: true }, { drop: true });
    const error = await client().GET('/api/v1/calls').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(0);
    expect((error as ApiError).message).toMatch(/GET \/api\/v1\/calls failed: no response/);
    expect(server.requests).toHaveLength(RETRY_DEFAULTS.maxAttempts);
  });

  it('does not retry other statuses (400, 401, 404, 500)', async () => {
    for (const status of [400, 401, 404, 500]) {
      server.requests.length = 0;
      server.script({ status, json: { error: `status ${status}` } });
      const error = await client().GET('/api/v1/account').catch((e: unknown) => e);
      expect((error as ApiError).status).toBe(status);
      expect(server.requests).toHaveLength(1);
    }
    expect(clock.waits).toEqual([]);
  });

  it('hands a Retry-After longer than maxRetryAfterMs back to the caller instead of waiting', async () => {
    server.script({ status: 429, json: { error: 'Lookup limit', code: 'rate_limited' }, headers: { 'Retry-After': '3600' } });
    const error = await client().GET('/api/v1/lookup', { params: { query: { number: '+14155550123' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).retryAfterSeconds).toBe(3600);
    expect((error as ApiError).code).toBe('rate_limited');
    expect(server.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('an aborted request rejects with the abort, not ApiError, and stops retrying', async () => {
    const already = client().GET('/api/v1/calls', { signal: AbortSignal.abort() });
    await expect(already).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(0);

    // Aborted while waiting to retry: no further attempt.
    const controller = new AbortController();
    server.script({ status: 503, json: { error: 'Unavailable' } }, { status: 200, json: [] });
    const api = createClient({
      apiKey,
      baseUrl: server.url,
      retry: {
        sleep: async () => {
          controller.abort();
          throw controller.signal.reason;
        },
      },
    });
    const error = await api.GET('/api/v1/calls', { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(1);
  });

  it('retry: false turns retrying off', async () => {
    server.script({ status: 503, json: { error: 'Unavailable' } }, { status: 200, json: [] });
    const api = createClient({ apiKey, baseUrl: server.url, retry: false });
    await expect(api.GET('/api/v1/calls')).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('POST /api/v1/calls (part 7.2: idempotent with the same key)', () => {
  it('is the one operation the contract gives an idempotency key (x-effects), and the client keys exactly those', () => {
    const keyed = listOperations(loadOpenApi()).filter((o) => o.operation['x-effects'].idempotencyKey).map((o) => [`${o.method.toUpperCase()} ${o.path}`, o.operation['x-effects'].idempotencyKey]);
    expect(Object.entries(idempotencyKeyHeaders)).toEqual(keyed);
    expect(keyed).toEqual([['POST /api/v1/calls', 'Idempotency-Key']]);
  });

  it('always sends an Idempotency-Key, a fresh UUID per call when the caller gives none', async () => {
    server.script({ status: 201, json: call }, { status: 201, json: call });
    const api = client();
    await api.POST('/api/v1/calls', { body: callBody });
    await api.POST('/api/v1/calls', { body: callBody });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('keeps the key the caller gives', async () => {
    server.script({ status: 201, json: call });
    await client().POST('/api/v1/calls', { body: callBody, params: { header: { 'Idempotency-Key': 'order-4471-reminder' } } });
    expect(server.requests[0]?.headers['idempotency-key']).toBe('order-4471-reminder');
  });

  it('retries 409 (original still running) with the same key and body, then returns the replayed call (200)', async () => {
    server.script(
      { status: 409, json: { error: 'A request with this Idempotency-Key is still being processed. Retry with the same key.' } },
      { status: 409, json: { error: 'A request with this Idempotency-Key is still being processed. Retry with the same key.' } },
      { status: 200, json: call },
    );
    const { data, response, status } = await client().POST('/api/v1/calls', { body: callBody });
    expect(status).toBe(200);
    expect(response.status).toBe(200);
    expect(data).toEqual(call);
    expect(server.requests).toHaveLength(3);
    const keys = new Set(server.requests.map((r) => r.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toBeTruthy();
    for (const request of server.requests) expect(JSON.parse(request.body)).toEqual(callBody);
  });

  it('retries a dropped connection with the same key (the replay returns the original call)', async () => {
    server.script({ drop: true }, { status: 503, json: { error: 'Unavailable' } }, { status: 200, json: call });
    const { data } = await client().POST('/api/v1/calls', { body: callBody, params: { header: { 'Idempotency-Key': 'k-1' } } });
    expect(data).toEqual(call);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1', 'k-1']);
  });

  it('does not retry a 400 or 402 (the request itself is wrong or unpaid)', async () => {
    server.script({ status: 402, json: { error: 'Insufficient credit' } });
    await expect(client().POST('/api/v1/calls', { body: callBody })).rejects.toMatchObject({ status: 402 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('other writes (part 7.4: never retried)', () => {
  it('a message send is not retried after a 500', async () => {
    server.script({ status: 500, json: { error: 'Internal error' } }, { status: 201, json: {} });
    const error = await client().POST('/api/v1/messages', { body: messageBody }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
    expect(server.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('a message send is not retried after 429, 502, 503 or a dropped connection either', async () => {
    const steps = [
      { status: 429, json: { error: 'Slow down', code: 'rate_limited' }, headers: { 'Retry-After': '1' } },
      { status: 502, json: { error: 'Bad gateway' } },
      { status: 503, json: { error: 'Unavailable' } },
      { drop: true as const },
    ];
    for (const step of steps) {
      server.requests.length = 0;
      server.script(step, { status: 201, json: {} });
      await expect(client().POST('/api/v1/messages', { body: messageBody })).rejects.toBeInstanceOf(ApiError);
      expect(server.requests).toHaveLength(1);
    }
    expect(clock.waits).toEqual([]);
  });

  it('a message send carries no Idempotency-Key (the service would not honour it)', async () => {
    server.script({ status: 201, json: {} });
    await client().POST('/api/v1/messages', { body: messageBody });
    expect(server.requests[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('number provisioning and account updates are not retried after 503', async () => {
    server.script({ status: 503, json: { error: 'No WhatsApp number available', code: 'whatsapp_unavailable' } }, { status: 201, json: {} });
    await expect(client().POST('/api/v1/numbers', { body: { whatsapp: true } })).rejects.toMatchObject({ status: 503, code: 'whatsapp_unavailable' });
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    server.script({ status: 503, json: { error: 'Unavailable' } }, { status: 200, json: {} });
    await expect(client().PATCH('/api/v1/account', { body: { maxCallDurationSeconds: 600 } })).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });
});
