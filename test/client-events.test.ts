// numbers-api-contract/events: narrowing by `type` (part 6, unknown types pass as the envelope),
// the long-poll wait (408 is "no event yet", part 7), and fan-out signatures (parts 5.9 and 6).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError, createClient } from '../src/client/index.js';
import {
  documentedEventTypes,
  isCallStatusChangedEvent,
  isEvent,
  isEventOfType,
  isKnownEvent,
  isMessageReceivedEvent,
  isMessageStatusChangedEvent,
  isWebhookPingEvent,
  verifySignature,
  waitForEvent,
} from '../src/events/index.js';
import { readGenerated } from './helpers/client-description.js';
import { useScriptedServer } from './helpers/client-server.js';

const { eventExamples } = readGenerated();
const example = (type: string) => {
  const found = eventExamples.find((e) => e.value.type === type);
  if (!found) throw new Error(`the description has no example event of type ${type}`);
  return structuredClone(found.value);
};

describe('event guards', () => {
  it('the description has an example of every documented type and of an unknown one', () => {
    for (const type of documentedEventTypes) expect(() => example(type)).not.toThrow();
    expect(eventExamples.some((e) => !(documentedEventTypes as readonly string[]).includes(e.value.type))).toBe(true);
  });

  it('every example event has the envelope; exactly the documented ones are known', () => {
    for (const { name, value } of eventExamples) {
      expect(isEvent(value), name).toBe(true);
      expect(isKnownEvent(value as never), name).toBe((documentedEventTypes as readonly string[]).includes(value.type));
    }
  });

  it('each guard accepts its own type only', () => {
    const guards = {
      'message.received': isMessageReceivedEvent,
      'message.status_changed': isMessageStatusChangedEvent,
      'call.status_changed': isCallStatusChangedEvent,
      'webhook.ping': isWebhookPingEvent,
    } as const;
    expect(Object.keys(guards).sort()).toEqual([...documentedEventTypes].sort());
    for (const type of documentedEventTypes) {
      const event = example(type);
      for (const [guardType, guard] of Object.entries(guards)) expect(guard(event as never), `${guardType} on ${type}`).toBe(guardType === type);
      expect(isEventOfType(event as never, type)).toBe(true);
    }
  });

  it('narrows by type, and an unknown future type passes through as the envelope', () => {
    const seen: string[] = [];
    for (const { value } of eventExamples) {
      if (!isEvent(value)) throw new Error('not an event');
      if (isEventOfType(value, 'message.received')) seen.push(`message from ${value.data.from}`);
      else if (isEventOfType(value, 'call.status_changed')) seen.push(`call ${value.data.status.state}`);
      else if (!isKnownEvent(value)) seen.push(`unknown ${value.type} v${value.version}`);
    }
    expect(seen.some((s) => s.startsWith('message from +'))).toBe(true);
    expect(seen.some((s) => /^call (Queued|Ringing|In-Progress|Terminated)$/.test(s))).toBe(true);
    expect(seen.some((s) => s.startsWith('unknown ') && s.endsWith(' v1'))).toBe(true);
  });

  it('rejects values without the envelope', () => {
    const event = example('message.received');
    expect(isEvent(null)).toBe(false);
    expect(isEvent('event')).toBe(false);
    expect(isEvent([event])).toBe(false);
    for (const field of ['id', 'object', 'type', 'version', 'createdAt', 'relatedObject', 'data']) {
      const { [field]: _removed, ...rest } = event;
      expect(isEvent(rest), `without ${field}`).toBe(false);
    }
    expect(isEvent({ ...event, type: 42 })).toBe(false);
    expect(isEvent({ ...event, data: null })).toBe(false);
  });
});

describe('waitForEvent', () => {
  const server = useScriptedServer();
  const client = () => createClient({ apiKey: 'sk_live_wait', baseUrl: server.url });

  it('returns the event that arrived, posting timeout and filters', async () => {
    const event = example('message.received');
    server.script({ status: 200, json: event });
    const received = await waitForEvent(client(), { timeout: 30, filters: { groupId: 'grp_1' } });
    expect(received).toEqual(event);
    expect(server.requests[0]?.method).toBe('POST');
    expect(server.requests[0]?.path).toBe('/api/v1/events/wait');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ timeout: 30, filters: { groupId: 'grp_1' } });
  });

  it('returns null on 408: no event yet is not a failure', async () => {
    server.script({ status: 408, json: { error: 'No event arrived within 30 seconds' } });
    await expect(waitForEvent(client(), { timeout: 30 })).resolves.toBeNull();
    expect(server.requests).toHaveLength(1);
  });

  it('past its window and grace it resolves null once, as a 408 would (a browser re-sending the 408 holds it no longer)', async () => {
    // The answer comes long after the window: what a page sees when Chromium re-sends a 408.
    server.script({ status: 408, json: { error: 'late' }, delayMs: 10_000 });
    const started = Date.now();
    await expect(waitForEvent(client(), { timeout: 1 }, { graceMs: 500 })).resolves.toBeNull();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(9000);
    expect(server.requests).toHaveLength(1);
  });

  it("the caller's own abort still throws, whatever the window", async () => {
    server.script({ status: 408, json: { error: 'late' }, delayMs: 10_000 });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    await expect(waitForEvent(client(), { timeout: 30 }, { signal: abort.signal })).rejects.toThrow();
  });

  it('throws ApiError on 503 (stream not configured) and does not retry the POST', async () => {
    server.script({ status: 503, json: { error: 'The event stream is not configured' } }, { status: 200, json: example('message.received') });
    const error = await waitForEvent(client(), { timeout: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });
});

describe('verifySignature', () => {
  const secret = 'fanout-secret-4f9a';
  const rawBody = JSON.stringify(example('message.received'));
  const sign = (body: string | Buffer, key = secret) => createHmac('sha256', key).update(body).digest('hex');

  it('accepts the HMAC-SHA256 hex digest of the raw body, as a string or bytes, in either case', async () => {
    expect(await verifySignature(rawBody, secret, sign(rawBody))).toBe(true);
    expect(await verifySignature(Buffer.from(rawBody), secret, sign(rawBody))).toBe(true);
    expect(await verifySignature(new TextEncoder().encode(rawBody), secret, sign(rawBody).toUpperCase())).toBe(true);
    expect(await verifySignature(rawBody, secret, [sign(rawBody)])).toBe(true);
  });

  it('refuses a signature of another body or another secret', async () => {
    expect(await verifySignature(`${rawBody} `, secret, sign(rawBody))).toBe(false);
    expect(await verifySignature(rawBody, 'another-secret', sign(rawBody))).toBe(false);
    const flipped = sign(rawBody).replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(await verifySignature(rawBody, secret, flipped)).toBe(false);
  });

  it('gives false for a missing header', async () => {
    expect(await verifySignature(rawBody, secret, undefined)).toBe(false);
    expect(await verifySignature(rawBody, secret, null)).toBe(false);
    expect(await verifySignature(rawBody, secret, '')).toBe(false);
    expect(await verifySignature(rawBody, secret, [])).toBe(false);
  });

  it('gives false for a malformed header, never throwing', async () => {
    const good = sign(rawBody);
    for (const header of [`sha256=${good}`, good.slice(0, 63), `${good}0`, 'z'.repeat(64), good.slice(0, 32), 'not a signature', [good, good]]) {
      expect(await verifySignature(rawBody, secret, header), String(header)).toBe(false);
    }
  });

  it('gives false for bad inputs of the wrong type instead of throwing', async () => {
    const good = sign(rawBody);
    const loose = verifySignature as (...args: unknown[]) => Promise<boolean>;
    expect(await loose(undefined, secret, good)).toBe(false);
    expect(await loose({ json: true }, secret, good)).toBe(false);
    expect(await loose(rawBody, undefined, good)).toBe(false);
    expect(await loose(rawBody, '', sign(rawBody, ''))).toBe(false);
    expect(await loose(rawBody, secret, 42)).toBe(false);
    expect(await loose(rawBody, secret, { toString: () => good })).toBe(false);
  });
});
