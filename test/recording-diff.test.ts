// What the consumers rely on: `numbers-api recordings summarize <dir>` lists the operations,
// fields and carried values of a set of recordings, and `npm run diff -- <previous> --recordings
// <dir>` names the recordings a breaking change breaks ("breaks recording checkout-flow"), and the
// breaking changes no recording touches. The recording is made in-process (createHandlers, the
// per-key switch) from the frontend flow of test/fixtures/recording-frontend.ts.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../bin/numbers-api.js';
import { runDiffCli } from '../scripts/diff/cli.js';
import { createHandlers } from '../src/msw/index.js';
import { recordingText } from '../src/recording/to-arazzo.js';
import { checkoutFlow } from './fixtures/recording-frontend.js';
import { generatedDir, repoRoot, type JsonObject } from './helpers/contract.js';
import { client, newKey } from './helpers/stateful-mock.js';

const BASE = 'https://recording-diff.example.com';
const api = createHandlers({ baseUrl: BASE });
const server = setupServer(...api.handlers);
let dir: string;
let recordings: string;

/** A release in `name/` beside the recordings: generated/'s descriptions with `change` applied to the OpenAPI one. */
function release(name: string, change: (openapi: JsonObject) => void): string {
  const at = path.join(dir, name);
  mkdirSync(at);
  const openapi = JSON.parse(readFileSync(path.join(generatedDir, 'openapi.json'), 'utf8')) as JsonObject;
  change(openapi);
  writeFileSync(path.join(at, 'openapi.json'), JSON.stringify(openapi));
  for (const file of ['asyncapi.json', 'mock-control.json']) copyFileSync(path.join(generatedDir, file), path.join(at, file));
  return at;
}

function run(argv: string[], cli: 'diff' | 'numbers-api'): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  if (cli === 'diff') return Promise.resolve({ code: runDiffCli(argv, { cwd: repoRoot, out: (t) => (out += t), err: (t) => (err += t) }), out, err });
  return main(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t) }).then((code) => ({ code, out, err }));
}

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'recording-diff-'));
  recordings = path.join(dir, 'recordings');
  mkdirSync(recordings);
  const key = newKey('diff');
  api.control.startRecording(key, 'checkout-flow');
  await checkoutFlow(client(BASE, key));
  writeFileSync(path.join(recordings, 'checkout-flow.arazzo.json'), recordingText(api.control.stopRecording(key) as JsonObject));
});
afterAll(() => {
  server.close();
  api.control.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('numbers-api recordings summarize', () => {
  it('names the operations, fields and carried values the recordings depend on', async () => {
    const { code, out } = await run(['recordings', 'summarize', recordings], 'numbers-api');
    expect(code).toBe(0);
    expect(out).toContain('checkout-flow: 8 steps (2 mock only), replays at level never');
    expect(out).toMatch(/sendMessage -> 201 {2}\[checkout-flow\]\n {4}sends: body \/to, body \/fromNumberId, body \/body\n {4}reads: \/phoneNumberId/);
    expect(out).toContain('checkout-flow: listNumbers /0/id -> sendMessage body /fromNumberId');
    expect(out).toContain('checkout-flow: listBillingActivity /items/1/occurredAt -> listBillingActivity2 query starting_after');
    const json = JSON.parse((await run(['recordings', 'summarize', recordings, '--json'], 'numbers-api')).out);
    expect(json.operations.map((o: { operationId: string }) => o.operationId)).toContain('createCreditsCheckout');
  });

  it.each([
    [['recordings', 'summarize'], /summarize needs a directory/, 'numbers-api recordings summarize --help for the options'],
    [['recordings', 'summarize', '/nonexistent/dir'], /does not exist/, undefined],
    [['recordings', 'list', '.'], /unknown command "list"/, 'numbers-api recordings --help for the commands'],
    [['recordings', 'summarize', '.', '--bogus'], /Unknown option '--bogus'/, 'numbers-api recordings summarize --help for the options'],
  ])('%j is one line (then where to read more, for bad usage) and exit 2', async (argv, message, more) => {
    const { code, err } = await run(argv, 'numbers-api');
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err.trim().split('\n')).toEqual([expect.stringMatching(message), ...(more ? [`Run ${more}.`] : [])]);
  });

  it('a file that is not a recording is one line and exit 2', async () => {
    const bad = path.join(dir, 'bad.arazzo.json');
    writeFileSync(bad, '{"arazzo": "1.0.1", "workflows": []}');
    const { code, err } = await run(['recordings', 'summarize', bad], 'numbers-api');
    expect([code, err.trim().split('\n').length]).toEqual([2, 1]);
    expect(err).toMatch(/is not a recording/);
  });
});

/** An edit of the release that removes a required field of a schema. */
const withoutField = (schema: string, field: string) => (openapi: JsonObject) => {
  const node = openapi.components.schemas[schema];
  delete node.properties[field];
  node.required = node.required.filter((name: string) => name !== field);
};

describe('npm run diff -- <previous> --recordings <dir>', () => {
  it('a removed field the frontend reads breaks the recording, by name and step', async () => {
    const current = release('no-phone-number-id', withoutField('Message', 'phoneNumberId'));
    const { code, out } = await run(['generated', '--current', current, '--recordings', recordings], 'diff');
    expect(code).toBe(1);
    expect(out).toMatch(/breaks recording checkout-flow: step sendMessage reads \$response\.body#\/phoneNumberId/);
    expect(out).toContain('Recordings (1): breaks recording checkout-flow');
  });

  it('a breaking change no recording touches is reported as such', async () => {
    const current = release('no-period-days', withoutField('Usage', 'periodDays'));
    const { code, out } = await run(['generated', '--current', current, '--recordings', recordings], 'diff');
    expect(code).toBe(1);
    expect(out).toContain('Recordings (1): no change breaks any of them');
    expect(out).toMatch(/Breaking changes no recording touches \(\d+\):\n {2}- .*periodDays/);
    expect(out).not.toContain('breaks recording');
  });

  it('a bad recordings directory is one line and exit 2', async () => {
    const { code, err } = await run(['generated', '--recordings', path.join(dir, 'missing')], 'diff');
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
  });
});
