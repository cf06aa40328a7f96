// `numbers-api events send` against real local handlers, by the local fan-out rules of part 6:
// 2xx delivered; any other status, a connection error or a timeout gets exactly one retry; then
// the event is dropped (exit 1). Signatures are checked with the package's own verifySignature.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEventsCli } from '../src/event-source/cli.js';
import { listEventExamples } from '../src/event-source/event-examples.js';
import { verifySignature } from '../src/events/verify-signature.js';
import { loadAsyncApi } from './helpers/contract.js';
import { captureIo, startTarget, type Answer, type Target } from './helpers/event-source-target.js';

const examples = listEventExamples();
const sms = examples.find((example) => example.name === 'messageReceivedSms')!;

let targets: Target[] = [];
afterEach(async () => {
  await Promise.all(targets.map((target) => target.close()));
  targets = [];
});

async function target(answers: Answer[], fallback?: Answer): Promise<Target> {
  const started = await startTarget(answers, fallback);
  targets.push(started);
  return started;
}

async function send(args: string[]) {
  const io = captureIo();
  const code = await runEventsCli(['send', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** A handler answering `answers` (then `fallback`), and `events send` of the SMS example to it with `more` flags. */
async function sendSms(answers: Answer[], fallback?: Answer, ...more: string[]) {
  const handler = await target(answers, fallback);
  return { handler, result: await send([handler.url, 'messageReceivedSms', ...more]) };
}

describe('delivery and the one retry (part 6, rule 3)', () => {
  it('2xx: delivered on the first attempt, as JSON, exit 0', async () => {
    const { handler, result } = await sendSms([204]);
    expect(result.code).toBe(0);
    expect(handler.received).toHaveLength(1);
    const [request] = handler.received;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks/numbers');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.rawBody.toString('utf8'))).toEqual(sms.event);
    // No authentication header unless asked for.
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.headers['x-service-signature']).toBeUndefined();
    expect(result.out).toContain('messageReceivedSms (message.received): delivered');
  });

  it('500 then 2xx: delivered on the retry, exit 0', async () => {
    const { handler, result } = await sendSms([500, 200]);
    expect(result.code).toBe(0);
    expect(handler.received).toHaveLength(2);
    expect(handler.received[1]!.rawBody.equals(handler.received[0]!.rawBody)).toBe(true);
    expect(result.out).toContain('attempt 1 failed, HTTP 500');
    expect(result.out).toContain('on the retry');
  });

  it('a non-2xx that is not an error (302, 404) is retried as well', async () => {
    const { handler, result } = await sendSms([302, 404]);
    expect(result.code).toBe(1);
    expect(handler.received).toHaveLength(2);
  });

  it('always 500: exactly two attempts, then logged and dropped, exit 1', async () => {
    const { handler, result } = await sendSms([], 500);
    expect(result.code).toBe(1);
    expect(handler.received).toHaveLength(2);
    expect(result.err).toContain('messageReceivedSms (message.received): dropped after 2 attempts');
    expect(result.err).toContain('HTTP 500');
    expect(result.out).toContain('0 of 1 event(s) delivered, 1 dropped.');
  });

  it('never answers: each attempt times out after --timeout, one retry, then dropped', async () => {
    const { handler, result } = await sendSms([], 'hang', '--timeout', '0.3');
    expect(result.code).toBe(1);
    expect(handler.received).toHaveLength(2);
    // The retry starts only after the first attempt gave up.
    expect(handler.received[1]!.at - handler.received[0]!.at).toBeGreaterThanOrEqual(250);
    expect(result.out).toContain('no answer within 0.3 s');
    expect(result.err).toContain('dropped after 2 attempts');
  });

  it('hangs once, then answers: delivered on the retry', async () => {
    const { handler, result } = await sendSms(['hang', 202], undefined, '--timeout', '0.3');
    expect(result.code).toBe(0);
    expect(handler.received).toHaveLength(2);
  });

  it('connection refused: retried once, dropped, exit 1 (no hang)', async () => {
    const handler = await target([]);
    await handler.close();
    targets = [];
    const result = await send([handler.url, 'messageReceivedSms']);
    expect(result.code).toBe(1);
    expect(result.out).toContain('ECONNREFUSED');
    expect(result.err).toContain('dropped after 2 attempts');
  });

  it('several events go out at once, not one after another (rule 4)', async () => {
    const handler = await target([], { status: 200, afterMs: 400 });
    const result = await send([handler.url, 'call.status_changed', '--timeout', '5']);
    // Each event id once (callTerminatedCanceledSignedAndBearer repeats callTerminatedCanceled).
    const calls = examples.filter((example, index) => example.type === 'call.status_changed' && examples.findIndex((other) => other.event.id === example.event.id) === index);
    expect(result.code).toBe(0);
    expect(handler.received).toHaveLength(calls.length);
    // All arrived before the first answer (400 ms) was given.
    const spread = Math.max(...handler.received.map((r) => r.at)) - Math.min(...handler.received.map((r) => r.at));
    expect(spread).toBeLessThan(400);
    expect(handler.received.map((r) => JSON.parse(r.rawBody.toString()).id).sort()).toEqual(calls.map((c) => c.event.id).sort());
  });
});

describe('authentication of the delivery (parts 5.9 and 6)', () => {
  it('--secret: HMAC-SHA256 hex of the raw body in X-Service-Signature, verified by verifySignature', async () => {
    const handler = await target([200]);
    expect((await send([handler.url, 'messageReceivedSms', '--secret', 'whsec_local_1'])).code).toBe(0);
    const [request] = handler.received;
    const signature = request!.headers['x-service-signature'];
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifySignature(request!.rawBody, 'whsec_local_1', signature)).toBe(true);
    expect(await verifySignature(request!.rawBody, 'another-secret', signature)).toBe(false);
    expect(await verifySignature(Buffer.concat([request!.rawBody, Buffer.from(' ')]), 'whsec_local_1', signature)).toBe(false);
  });

  it('--signature-header renames the header', async () => {
    const handler = await target([200]);
    expect((await send([handler.url, 'messageReceivedSms', '--secret', 's3', '--signature-header', 'X-Acme-Signature'])).code).toBe(0);
    const [request] = handler.received;
    expect(request!.headers['x-service-signature']).toBeUndefined();
    expect(await verifySignature(request!.rawBody, 's3', request!.headers['x-acme-signature'])).toBe(true);
  });

  it('--bearer sends Authorization: Bearer, and combines with --secret', async () => {
    const handler = await target([200, 200]);
    expect((await send([handler.url, 'messageReceivedSms', '--bearer', 'tok_123'])).code).toBe(0);
    expect(handler.received[0]!.headers.authorization).toBe('Bearer tok_123');
    expect(handler.received[0]!.headers['x-service-signature']).toBeUndefined();
    expect((await send([handler.url, 'messageReceivedSms', '--bearer', 'tok_123', '--secret', 'both'])).code).toBe(0);
    expect(handler.received[1]!.headers.authorization).toBe('Bearer tok_123');
    expect(await verifySignature(handler.received[1]!.rawBody, 'both', handler.received[1]!.headers['x-service-signature'])).toBe(true);
  });

  it('sends exactly the headers of the documented local fan-out example (signed, with a bearer token)', async () => {
    // The AsyncAPI example states its secret and token in its summary; its headers are the oracle.
    const message = loadAsyncApi().components.messages.localFanOutEvent;
    const documented = message.examples.find((example: { name: string }) => example.name === 'callTerminatedCanceledSignedAndBearer');
    const handler = await target([200]);
    const result = await send([handler.url, documented.name, '--secret', 'local-dev-secret', '--bearer', 'local-dev-token-4f9a']);
    expect(result.code).toBe(0);
    const [request] = handler.received;
    for (const [header, value] of Object.entries<string>(documented.headers)) expect(request!.headers[header.toLowerCase()]).toBe(value);
    expect(JSON.parse(request!.rawBody.toString())).toEqual(documented.payload);
  });
});

describe('choosing what to send', () => {
  it('an event type sends every example of that type; --all sends every example; each event id once', async () => {
    const handler = await target([], 200);
    expect((await send([handler.url, 'message.received'])).code).toBe(0);
    const ids = (list: typeof examples) => new Set(list.map((example) => example.event.id));
    const received = ids(examples.filter((example) => example.type === 'message.received'));
    const sentIds = () => handler.received.map((request) => JSON.parse(request.rawBody.toString()).id);
    // messageReceivedMmsUnsigned shows messageReceivedMms's event without a signature: sent once.
    expect(sentIds()).toHaveLength(received.size);
    expect(new Set(sentIds())).toEqual(received);
    expect((await send([handler.url, '--all'])).code).toBe(0);
    expect(handler.received).toHaveLength(received.size + ids(examples).size);
    expect(new Set(sentIds().slice(received.size)).size).toBe(ids(examples).size);
  });

  it('--file sends the user’s own event, or each event of an array', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'events-'));
    const one = path.join(dir, 'one.json');
    const many = path.join(dir, 'many.json');
    const custom = { id: 'evt_custom_1', object: 'event', type: 'message.received', version: 1, createdAt: '2026-11-21T12:00:00Z', relatedObject: null, data: { body: 'hi' } };
    writeFileSync(one, `${JSON.stringify(custom, null, 2)}\n`);
    writeFileSync(many, JSON.stringify([custom, { ...custom, id: 'evt_custom_2' }]));
    const handler = await target([], 200);
    expect((await send([handler.url, '--file', one, '--secret', 'k'])).code).toBe(0);
    expect(JSON.parse(handler.received[0]!.rawBody.toString())).toEqual(custom);
    expect(await verifySignature(handler.received[0]!.rawBody, 'k', handler.received[0]!.headers['x-service-signature'])).toBe(true);
    expect((await send([handler.url, '--file', many])).code).toBe(0);
    expect(handler.received.slice(1).map((r) => JSON.parse(r.rawBody.toString()).id).sort()).toEqual(['evt_custom_1', 'evt_custom_2']);
  });

  it('events list names every example event from the description', async () => {
    const io = captureIo();
    expect(await runEventsCli(['list'], io)).toBe(0);
    for (const example of examples) expect(io.out()).toContain(example.name);
    // Both descriptions contribute: OpenAPI webhook examples and AsyncAPI-only ones.
    expect(new Set(examples.map((example) => example.source.split(' ')[0]))).toEqual(new Set(['openapi', 'asyncapi']));
  });
});

describe('bad usage: a clear message and exit 2, nothing sent', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'events-bad-'));
  const notJson = path.join(dir, 'not.json');
  writeFileSync(notJson, '{ "id": ');

  it.each([
    [['URL'], 'Say which events to send'],
    [['URL', 'noSuchExample'], 'No example event is named or typed "noSuchExample"'],
    [['URL', 'messageReceivedSms', '--timeout', '0'], '--timeout is seconds, a number above 0'],
    [['URL', 'messageReceivedSms', '--timeout', 'soon'], '--timeout is seconds, a number above 0'],
    [['URL', 'messageReceivedSms', '--signature-header', 'X-Sig'], 'needs --secret'],
    [['URL', 'messageReceivedSms', '--secret', 'x', '--signature-header', 'Bad Header'], 'not a valid HTTP header name'],
    [['URL', 'messageReceivedSms', '--secret', ''], '--secret must not be empty'],
    [['URL', 'messageReceivedSms', '--bearer', 'two words'], '--bearer must be one token'],
    [['URL', 'messageReceivedSms', '--retries', '3'], "Unknown option '--retries'"],
    [['URL', '--file', notJson], 'is not JSON'],
    [['URL', '--file', path.join(dir, 'missing.json')], 'Cannot read --file'],
    [['URL', 'messageReceivedSms', '--all'], '--all sends every example'],
    [[], 'A target URL is needed'],
  ])('%j', async (args, message) => {
    const handler = await target([], 200);
    const result = await send(args.map((arg) => (arg === 'URL' ? handler.url : arg)));
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(handler.received).toHaveLength(0);
  });

  it('an unknown subcommand exits 2', async () => {
    const io = captureIo();
    expect(await runEventsCli(['push'], io)).toBe(2);
    expect(io.err()).toContain('unknown command "push" (send, list)');
  });
});
