// The reference's code samples, run: the curl, JavaScript (fetch) and Python samples of a few
// operations (public and keyed, query parameters, a JSON body, a body with an apostrophe), written
// by the docs build's snippet library for a mock's address, are run as a reader would (sh, node,
// python3) against the real stateful mock on a free port, through a recording proxy. Each must send
// exactly its example's request (method, path and query, the key read from NUMBERS_API_KEY, the JSON
// body), get a 2xx, and print the answer.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestUrl } from '../docs/build/browser/try-it/snippets.js';
import { referenceSamples } from '../docs/build/code-samples.mjs';
import { tryItCatalog } from '../docs/build/try-it-catalog.mjs';
import { loadDereferencedOpenApi } from './helpers/contract.js';
import { newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const catalog = tryItCatalog(loadDereferencedOpenApi());
/** A sign-up (no key), a read, a read with query parameters, a JSON body, a body with an apostrophe ("tomorrow's"). */
const OPERATIONS = ['signUp', 'getAccount', 'listMessages', 'sendMessage', 'createCall'];

/** Runs a command to its end, asynchronously: the mock and the proxy answer in this same process. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
  answer: string;
}

/** How each language's sample is run: the file it is written to and the command that runs it. */
const RUNNERS: Record<string, { file: string; command: (file: string) => [string, string[]] }> = {
  curl: { file: 'sample.sh', command: (file) => ['sh', [file]] },
  JavaScript: { file: 'sample.mjs', command: (file) => [process.execPath, [file]] },
  Python: { file: 'sample.py', command: (file) => ['python3', [file]] },
};

describe('code samples run against the mock', () => {
  let mock: StatefulMock;
  let proxy: Server;
  let proxyUrl = '';
  const recorded: Recorded[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docs-samples-'));

  beforeAll(async () => {
    mock = await startStatefulMock();
    // Records what each sample sends, and what the mock answers, on its way through.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
        const answer = await fetch(`${mock.url}${req.url}`, { method: req.method, headers, body: body || undefined });
        const text = await answer.text();
        recorded.push({ method: req.method!, url: req.url!, headers: req.headers, body, status: answer.status, answer: text });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases = OPERATIONS.flatMap((id) => Object.keys(RUNNERS).map((language) => [id, language] as const));
  it.each(cases)('%s in %s sends its example and prints the answer', async (id, language) => {
    const op = catalog.operations.find((o) => o.id === id)!;
    const samples = await referenceSamples(op, proxyUrl);
    const expected = { ...op.sample, method: op.method, url: requestUrl({ ...op.sample, op: { method: op.method, path: op.path! }, baseUrl: proxyUrl, prefer: null }), headers: Object.entries(op.sample.header) };
    const runner = RUNNERS[language]!;
    const file = path.join(dir, `${id}-${runner.file}`);
    writeFileSync(file, samples[language]);
    // Each run its own key: its own demo account (a call's number carries one call at a time).
    const key = newKey('samples');
    const before = recorded.length;
    const [command, args] = runner.command(file);
    const ran = await run(command, args, { ...process.env, NUMBERS_API_KEY: key });
    // (curl writes its progress meter to stderr when its output is not a terminal.)
    if (language !== 'curl') expect(ran.stderr, `${language} stderr`).toBe('');
    expect(ran.status, `${language} exit: ${ran.stderr}`).toBe(0);

    // Exactly the example's request.
    expect(recorded.length - before).toBe(1);
    const sent = recorded.at(-1)!;
    const url = new URL(expected.url);
    expect(sent.method).toBe(expected.method.toUpperCase());
    expect(sent.url).toBe(`${url.pathname}${url.search}`);
    expect(sent.headers.authorization).toBe(expected.withKey ? `Bearer ${key}` : undefined);
    for (const [name, value] of expected.headers) expect(sent.headers[name.toLowerCase()]).toBe(String(value));
    if (expected.body === undefined) expect(sent.body).toBe('');
    else {
      expect(sent.headers['content-type']).toBe('application/json');
      expect(JSON.parse(sent.body)).toEqual(expected.body);
    }

    // Answered 2xx, and the sample printed the answer (fetch logs the parsed object as console.log does).
    expect(sent.status, sent.answer).toBeGreaterThanOrEqual(200);
    expect(sent.status, sent.answer).toBeLessThan(300);
    if (language === 'JavaScript') expect(ran.stdout.trim()).toBe(inspect(JSON.parse(sent.answer)));
    else expect(JSON.parse(ran.stdout)).toEqual(JSON.parse(sent.answer));
  });
});
