// A recording holds no key anywhere (issue 39): a frontend that writes its key (and another
// account's) where the header is not (inside a message's text, a webhook URL's query, a nested
// body field, a property name, a query string, a path, an `Idempotency-Key`) gets recordings in
// which the key is the input it replays with (`{$inputs.apiKey}` inside the text) and any other
// key is masked (part 5.3's preview), through every door that gives a recording out: the files of
// `--record`, `/__mock/recording` over HTTP, MSW's `recordings()` and its per-key switch (the
// docs' Record toggle). Each check greps what was written for the full keys and for any string of
// the key's form; the recording still replays, sending the replayer's key where the frontend sent its own.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../src/msw/index.js';
import { replayRecording } from '../src/recording/replay.js';
import { recordingToArazzo } from '../src/recording/to-arazzo.js';
import { generatedDir, type JsonObject } from './helpers/contract.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const document = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
const controlDocument = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;

type Call = ReturnType<typeof client>;

/** The frontend that writes keys where it should not: the account's `key`, and `other`'s (another account's). */
async function leakyFlow(call: Call, key: string, other: string): Promise<void> {
  const line = (await call('GET', '/api/v1/numbers')).body[0];
  await call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: line.id, body: `Your key is ${key}; ${other} is a friend's.` });
  await call('POST', '/api/v1/webhooks', { url: `https://hooks.example.org/in?token=${key}&from=app`, eventTypes: ['message.received'] });
  await call('POST', '/api/v1/events/wait', { timeout: 1, filters: { type: 'message.received', note: [`key=${key}`] } });
  await call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: line.id, body: 'named', [other]: 1 });
  await call('GET', `/api/v1/messages?groupId=${encodeURIComponent(key)}&note=${encodeURIComponent(other)}`);
  await call('PATCH', `/api/v1/numbers/${encodeURIComponent(key)}`, { label: 'x' });
  await call('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: line.id, outboundInstruction: 'Say hello.' }, { 'Idempotency-Key': `retry-${key}` });
}
const FLOW_STEPS = 8;

/** Fails with where it is when `text` holds a full key or any string of the key's form. */
function expectNoKey(text: string, keys: string[]): void {
  for (const key of keys) expect(text.includes(key), `a full key in: ${text.slice(Math.max(0, text.indexOf(key) - 80), text.indexOf(key) + 80)}`).toBe(false);
  expect(text.match(/sk_live_[A-Za-z0-9_-]+/g) ?? []).toEqual([]);
}

/** The recording file once the mock has written the whole flow (it writes shortly after each change). */
async function written(file: string): Promise<string> {
  for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((resolve) => setTimeout(resolve, 50))) {
    try {
      const text = readFileSync(file, 'utf8');
      if (steps(JSON.parse(text)).length === FLOW_STEPS) return text;
    } catch {
      // not written yet
    }
  }
  throw new Error(`${file} was not written whole within 20 s`);
}

const steps = (recording: JsonObject): JsonObject[] => (recording.workflows as JsonObject[])[0]!.steps as JsonObject[];

/** Where the frontend sent its own key, the recording sends the replayer's: the input, inside the text. */
function expectKeyAsInput(recording: JsonObject): void {
  const [, message, webhook, wait, named, list, patch] = steps(recording);
  expect(message!.requestBody.payload.body).toMatch(/^Your key is \{\$inputs\.apiKey\}; sk_live_…\w{4} is a friend's\.$/);
  expect(webhook!.requestBody.payload.url).toBe('https://hooks.example.org/in?token={$inputs.apiKey}&from=app');
  expect(wait!.requestBody.payload.filters.note).toEqual(['key={$inputs.apiKey}']);
  expect(Object.keys(named!.requestBody.payload)).toContainEqual(expect.stringMatching(/^sk_live_…\w{4}$/));
  expect(list!.parameters.find((p: JsonObject) => p.name === 'groupId').value).toBe('$inputs.apiKey');
  expect(patch!.parameters.find((p: JsonObject) => p.name === 'id').value).toBe('$inputs.apiKey');
}

describe('--record <dir> and /__mock/recording over HTTP', () => {
  let dir: string;
  let mock: StatefulMock;
  const keys = [newKey('leaky'), newKey('friend'), newKey('switched')];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'recording-keys-'));
    mock = await startStatefulMock({ recordDir: dir });
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes files that hold no key, the account\'s own sent as the input inside each text', async () => {
    await leakyFlow(client(mock.url, keys[0]!), keys[0]!, keys[1]!);
    const text = await written(path.join(dir, 'recording-1.arazzo.json'));
    expect(readdirSync(dir)).toEqual(['recording-1.arazzo.json']);
    expectNoKey(text, keys);
    expectKeyAsInput(JSON.parse(text));
  });

  it('answers GET and DELETE /__mock/recording with no key in them', async () => {
    const key = keys[2]!;
    const call = client(mock.url, key);
    expect((await call('PUT', '/__mock/recording', { name: 'switched' })).status).toBe(200);
    await leakyFlow(call, key, keys[0]!);
    const so = await call('GET', '/__mock/recording');
    const stopped = await call('DELETE', '/__mock/recording', undefined, { 'Content-Type': 'application/json' });
    expect([so.status, stopped.status]).toEqual([200, 200]);
    for (const answer of [so, stopped]) expectNoKey(JSON.stringify(answer.body), keys);
    expectKeyAsInput(stopped.body);
  });
});

describe('MSW: createHandlers({ record }) and the per-key switch (the docs\' Record toggle)', () => {
  const recordAll = createHandlers({ record: true, baseUrl: 'https://all.example.com' });
  const switched = createHandlers({ baseUrl: 'https://switched.example.com' });
  const server = setupServer(...recordAll.handlers, ...switched.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => {
    server.close();
    recordAll.control.stop();
    switched.control.stop();
  });
  const keys = [newKey('msw_leaky'), newKey('msw_friend')];

  it('recordings() hold no key; the recording replays with the replayer\'s key where the frontend sent its own', async () => {
    await leakyFlow(client('https://all.example.com', keys[0]!), keys[0]!, keys[1]!);
    const [recorded] = recordAll.recordings();
    const text = `${JSON.stringify(recorded!.document, null, 2)}\n`;
    expectNoKey(text, keys);
    expectKeyAsInput(recorded!.document);
    const replayKey = newKey('msw_replay');
    const result = await replayRecording({ recording: recorded!.document, document, controlDocument, baseUrl: 'https://all.example.com', apiKey: replayKey, isMock: true });
    expect(result.steps.filter((s) => s.outcome !== 'passed').map((s) => `${s.stepId}: ${s.notes?.join('; ')}`)).toEqual([]);
    const hooks = (await client('https://all.example.com', replayKey)('GET', '/api/v1/webhooks')).body as Array<{ url: string }>;
    expect(hooks.map((hook) => hook.url)).toContain(`https://hooks.example.org/in?token=${replayKey}&from=app`);
  });

  it('control.stopRecording (what the Record toggle downloads) holds no key', async () => {
    const key = keys[1]!;
    switched.control.startRecording(key, 'try-it-1');
    await leakyFlow(client('https://switched.example.com', key), key, keys[0]!);
    const document = switched.control.stopRecording(key) as JsonObject;
    expectNoKey(`${JSON.stringify(document, null, 2)}\n`, keys);
    expectKeyAsInput(document);
  });
});

describe('a key a recorded sign-up got, sent inside a text', () => {
  it('is the verify step\'s output inside it, never the key', () => {
    const key = newKey('signed_up');
    const recording = {
      name: 'signed-up',
      leftOut: 0,
      bytes: 0,
      exchanges: [
        { source: 'numbersApi' as const, operationId: 'verifyPhoneNumber', method: 'POST', params: {}, query: [], headers: {}, body: { registrationId: 'reg_0001', code: '000000' }, contentType: 'application/json', status: 200, responseText: JSON.stringify({ apiKey: key }) },
        { source: 'numbersApi' as const, operationId: 'createWebhookSubscription', method: 'POST', params: {}, query: [], headers: {}, body: { url: `https://hooks.example.org/in?token=${key}`, eventTypes: ['message.received'] }, contentType: 'application/json', key, status: 201, responseText: '{}' },
      ],
    };
    const written = recordingToArazzo(recording, { document, controlDocument });
    expectNoKey(JSON.stringify(written), [key]);
    expect(steps(written)[1]!.requestBody.payload.url).toBe('https://hooks.example.org/in?token={$steps.verifyPhoneNumber.outputs.apiKey}');
  });
});
