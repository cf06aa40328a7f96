// A sign-up recorded with `--record` (part 3): its four keyless requests leave the `no-key`
// recording once verify-number answers with the key, and open that key's recording, whose later
// steps carry the key from that answer (`Bearer {$steps.verifyPhoneNumber.outputs.apiKey}`), so
// the recorded sign-up replays whole on a fresh mock. Another sign-up going on at the same time
// (values of its own) stays in `no-key`, and the `no-key` file goes once nothing of its own is left.
// What the service takes once (`x-unique`: the email, the holder's number) is a fresh value per
// run, so the recording replays again and again on one mock, by the suite and by Respect; a
// recording that sent them as literals (as recordings did before) fails its second replay saying
// that the address already has an account.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayCli } from '../conformance/replay.js';
import { replayRecording } from '../src/recording/replay.js';
import { generatedDir, type JsonObject } from './helpers/contract.js';
import { runRespectCommand, workflowResults } from './helpers/respect.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const document = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
const controlDocument = JSON.parse(readFileSync(path.join(generatedDir, 'mock-control.json'), 'utf8')) as JsonObject;
const signupCode = String(((document['x-test-values'] ?? []) as JsonObject[]).find((t) => t.name === 'signupCode')!.value);

let dir: string;
const read = (name: string): JsonObject => JSON.parse(readFileSync(path.join(dir, `${name}.arazzo.json`), 'utf8')) as JsonObject;
const steps = (recording: JsonObject): JsonObject[] => (recording.workflows as JsonObject[])[0]!.steps as JsonObject[];
let files: string[];
let keys: { ada: string; grace: string };

/** The mock the sign-ups are recorded on; it keeps running, as the recordings name its descriptions at its address. */
let recorded: StatefulMock;

/** The recordings' files once the mock has written what the sign-ups did (it writes shortly after each change). */
async function settled(): Promise<string[]> {
  const done = (): boolean => {
    try {
      return readdirSync(dir).filter((f) => f.endsWith('.arazzo.json')).length === 2 && steps(read('recording-2')).length === 5 && steps(read('recording-3')).length === 4;
    } catch {
      return false; // not written yet
    }
  };
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 50))) if (Date.now() - started > 20_000) throw new Error(`the recordings in ${dir} were not written within 20 s`);
  return readdirSync(dir).sort();
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'recording-signup-'));
  recorded = await startStatefulMock({ recordDir: dir });
  const anonymous = client(recorded.url, null);
  const finish = async (verificationId: string, phoneNumber: string): Promise<string> => {
    const verified = await anonymous('POST', '/api/v1/auth/verify', { verificationId, code: signupCode });
    await anonymous('POST', '/api/v1/auth/register-number', { registrationId: verified.body.registrationId, phoneNumber });
    const done = await anonymous('POST', '/api/v1/auth/verify-number', { registrationId: verified.body.registrationId, code: signupCode });
    expect(done.status).toBe(200);
    return done.body.apiKey as string;
  };
  // Grace begins signing up; the no-key recording is written; Ada signs up whole and reads her
  // numbers; then Grace finishes.
  const grace = await anonymous('POST', '/api/v1/auth/signup', { email: 'grace@example.com' });
  while (!readdirSync(dir).includes('no-key.arazzo.json')) await new Promise((resolve) => setTimeout(resolve, 50));
  const ada = await anonymous('POST', '/api/v1/auth/signup', { email: 'ada@example.com' });
  const adaKey = await finish(ada.body.verificationId, '+14155550123');
  expect((await client(recorded.url, adaKey)('GET', '/api/v1/numbers')).status).toBe(200);
  keys = { ada: adaKey, grace: await finish(grace.body.verificationId, '+14155550124') };
  files = await settled();
}, 30_000);
afterAll(async () => {
  await recorded?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a sign-up recorded with --record', () => {
  it("joins each sign-up's keyless requests to the key it produced, by the values they carried; no-key goes once empty", () => {
    expect(files).toEqual(['recording-2.arazzo.json', 'recording-3.arazzo.json']);
    const ada = steps(read('recording-2'));
    expect(ada.map((s) => s.stepId)).toEqual(['signUp', 'verifyEmail', 'registerNumber', 'verifyPhoneNumber', 'listNumbers']);
    expect(ada[0]!.requestBody.payload.email).toBe('recording-{$faker.string.uuid()}@example.com');
    expect(ada[2]!.requestBody.payload.phoneNumber).toBe('+1{$faker.number.integer({min:600,max:989})}5550{$faker.number.integer({min:100,max:199})}');
    expect(ada[3]!.outputs).toMatchObject({ apiKey: '$response.body#/apiKey' });
    expect(ada[4]!.parameters).toContainEqual({ name: 'Authorization', in: 'header', value: 'Bearer {$steps.verifyPhoneNumber.outputs.apiKey}' });
    expect(ada[2]!.requestBody.payload.registrationId).toBe('$steps.verifyEmail.outputs.registrationId');
    const grace = steps(read('recording-3'));
    expect(grace.map((s) => s.stepId)).toEqual(['signUp', 'verifyEmail', 'registerNumber', 'verifyPhoneNumber']);
    expect(grace[0]!.requestBody.payload.email).toBe('recording-{$faker.string.uuid()}@example.com');
    // No key input (the key is the sign-up's own), and no key written.
    expect(Object.keys((read('recording-2').workflows as JsonObject[])[0]!.inputs?.properties ?? {})).toEqual(['signupCode']);
    for (const name of files) expect(readFileSync(path.join(dir, name), 'utf8')).not.toMatch(new RegExp(`${keys.ada}|${keys.grace}|sk_live_\\w|ada@|grace@|555012[34]`));
  });

  it('replays whole on a fresh mock (its own sign-up, its own key)', async () => {
    const fresh = await startStatefulMock();
    try {
      const result = await replayRecording({ recording: read('recording-2'), document, controlDocument, baseUrl: fresh.url, apiKey: newKey('unused'), isMock: true });
      expect(result.steps.map((s) => `${s.stepId} ${s.outcome}${s.notes?.length ? `: ${s.notes.join('; ')}` : ''}`)).toEqual([
        'signUp passed',
        'verifyEmail passed',
        'registerNumber passed',
        'verifyPhoneNumber passed',
        'listNumbers passed',
      ]);
    } finally {
      await fresh.close();
    }
  });

  it("replays again and again on the mock it was made on: the suite's replay twice, then Respect, each a new sign-up", async () => {
    for (const run of [1, 2]) {
      const replayed = await replayCli(['--replay', path.join(dir, 'recording-2.arazzo.json'), '--base-url', recorded.url]);
      expect(replayed.code, `replay ${run}: ${replayed.out}${replayed.err}`).toBe(0);
    }
    const respect = await runRespectCommand(`npx redocly respect ${path.join(dir, 'recording-2.arazzo.json')} -S numbersApi=${recorded.url} -S mockControl=${recorded.url}`, { json: true });
    expect(respect.code, respect.output.slice(-3000)).toBe(0);
    expect(workflowResults(respect.report!).map((w) => w.status)).toEqual(['success']);
  }, 120_000);

  it('a recording that sent the email as a literal fails its second replay saying the address already has an account', async () => {
    const old = read('recording-2');
    steps(old)[0]!.requestBody.payload.email = 'ada@example.com';
    const file = path.join(dir, 'literal.json');
    writeFileSync(file, JSON.stringify(old));
    const mock = await startStatefulMock();
    try {
      expect((await replayCli(['--replay', file, '--base-url', mock.url])).code).toBe(0);
      const again = await replayCli(['--replay', file, '--base-url', mock.url]);
      expect(again.code).toBe(1);
      expect(again.out).toMatch(/fail {2}step verifyEmail: .*nothing at \/registrationId; step signUp sent body \/email "ada@example\.com" as recorded, and an earlier run may have taken it: an address that already has an account signs in .*; a fresh value per run avoids it/);
    } finally {
      await mock.close();
    }
  }, 60_000);
});

/** `numbers-api conformance --replay ...` as the command runs it, with a key of its own and a report folder in the test's. */
async function replayCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runReplayCli([...argv, '--api-key', newKey('replay'), '--report-dir', mkdtempSync(path.join(dir, 'report-'))], (t) => void (out += t), (t) => void (err += t), {});
  return { code, out, err };
}
