// Recording in-process: `createHandlers({ record })` under msw/node's setupServer, as a frontend's
// vitest suite runs it. The flow of test/fixtures/recording-frontend.ts gives the same workflow
// as over HTTP (the pipeline's one recorder), it replays through the same handlers with the
// package's runner, and the per-key switch (`control.startRecording`) records only that key. A
// call placed and retried with one `Idempotency-Key` (part 7.2) records a key that is fresh at each
// run, so the recording replays again and again on one account.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, MockControlError } from '../src/msw/index.js';
import { replayRecording } from '../src/recording/replay.js';
import { checkoutFlow } from './fixtures/recording-frontend.js';
import { generatedDir, type JsonObject } from './helpers/contract.js';
import { client, MSW_BASE, newKey } from './helpers/stateful-mock.js';

const document = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
const controlDocument = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;

const recordingApi = createHandlers({ record: true, baseUrl: MSW_BASE });
const switchApi = createHandlers({ baseUrl: 'https://switch.example.com' });
const server = setupServer(...recordingApi.handlers, ...switchApi.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => {
  server.close();
  recordingApi.control.stop();
  switchApi.control.stop();
});

describe('createHandlers({ record })', () => {
  let recorded: Array<{ name: string; document: JsonObject }>;
  beforeAll(async () => {
    await checkoutFlow(client(MSW_BASE, newKey('msw-rec')));
    recorded = recordingApi.recordings();
  });

  it('records the account as one workflow, carried values and all, with no key', () => {
    expect(recorded.map((r) => r.name)).toEqual(['recording-1']);
    const steps = (recorded[0]!.document.workflows as JsonObject[])[0]!.steps as JsonObject[];
    expect(steps.map((s) => s.stepId)).toEqual(['listNumbers', 'sendMessage', 'mockAdvanceClock', 'waitForEvent', 'createCreditsCheckout', 'mockCompleteCheckout', 'listBillingActivity', 'listBillingActivity2']);
    expect(steps[1]!.requestBody.payload.fromNumberId).toBe('$steps.listNumbers.outputs.id');
    expect(JSON.stringify(recorded[0]!.document)).not.toMatch(/sk_live_\w/);
  });

  it('replays through the same handlers with the package runner', async () => {
    const result = await replayRecording({ recording: recorded[0]!.document, document, controlDocument, baseUrl: MSW_BASE, apiKey: newKey('msw-replay'), isMock: true });
    expect(result.steps.filter((s) => s.outcome !== 'passed').map((s) => `${s.stepId}: ${s.notes?.join('; ')}`)).toEqual([]);
    expect(result.passed).toBe(true);
  });
});

describe('the per-key switch (control.startRecording)', () => {
  it('records only the key switched on, and gives its recording when stopped', async () => {
    const [recordedKey, otherKey] = [newKey('on'), newKey('off')];
    expect(switchApi.control.startRecording(recordedKey, 'numbers-page')).toEqual({ recording: 'numbers-page', steps: 0 });
    await client('https://switch.example.com', recordedKey)('GET', '/api/v1/numbers');
    await client('https://switch.example.com', otherKey)('GET', '/api/v1/account');
    const stopped = switchApi.control.stopRecording(recordedKey) as JsonObject;
    expect((stopped.workflows as JsonObject[]).map((w) => [w.workflowId, (w.steps as JsonObject[]).map((s) => s.stepId)])).toEqual([['numbers-page', ['listNumbers']]]);
    expect(switchApi.recordings()).toEqual([]);
    expect(() => switchApi.control.recording(recordedKey)).toThrow(MockControlError);
    expect(() => switchApi.control.startRecording(otherKey, 'no spaces allowed')).toThrow(/400/);
  });
});

describe('a call retried with its Idempotency-Key (part 7.2)', () => {
  it('records a key that is fresh at each run, carried to the retry, so it replays twice on one account; a documented test value stays', async () => {
    const base = 'https://switch.example.com';
    const key = newKey('calls');
    const call = client(base, key);
    switchApi.control.startRecording(key, 'call-retry');
    const line = (await call('GET', '/api/v1/numbers')).body[0];
    const place = (idempotencyKey: string) => call('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: line.id, outboundInstruction: 'Say hello.' }, { 'Idempotency-Key': idempotencyKey });
    expect([(await place('retry-me-1')).status, (await place('retry-me-1')).status, (await place('test-original-still-running')).status]).toEqual([201, 200, 409]);
    const recording = switchApi.control.stopRecording(key) as JsonObject;
    const steps = (recording.workflows as JsonObject[])[0]!.steps as JsonObject[];
    const sentKey = (step: JsonObject) => (step.parameters as JsonObject[]).find((p) => p.name === 'Idempotency-Key')?.value;
    expect(steps.slice(1).map(sentKey)).toEqual(['$faker.string.uuid()', '$steps.createCall.outputs.IdempotencyKey', 'test-original-still-running']);
    expect(steps[1]!.outputs).toEqual({ IdempotencyKey: '$request.header.Idempotency-Key' });
    expect(JSON.stringify(recording)).not.toContain('retry-me-1');
    // The same key each time: one account, whose calls of the first run the second does not meet.
    const replayKey = newKey('call-replays');
    for (const run of [1, 2]) {
      const result = await replayRecording({ recording, document, controlDocument, baseUrl: base, apiKey: replayKey, isMock: true });
      expect(result.steps.map((s) => `${run} ${s.stepId} ${s.outcome}${s.notes?.length ? `: ${s.notes.join('; ')}` : ''}`)).toEqual(steps.map((s) => `${run} ${s.stepId} passed`));
    }
  });
});
