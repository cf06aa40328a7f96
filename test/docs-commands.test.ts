// Every command and code block of README.md and the guides is run here, as a reader would run it
// from a clone (docs/guides/installing.md, "What works today"): `npx numbers-api` is the clone's command
// (the launcher `npm ci` links into node_modules/.bin, which runs bin/numbers-api.ts, what
// `npm start` and `npm run events` run; checked against package.json),
// against a stateful mock this test starts on a free port (the only change to what the docs say
// is that port, for 127.0.0.1:4010 and for a handler's 127.0.0.1:3000). A shell line that fails,
// or a request answered 4xx/5xx, fails the test; so does a line no rule below runs or exempts
// (each exemption says why, and an exemption that matches no line any more fails too).
// TypeScript blocks are type-checked in test/docs-site.test.ts; those that end by themselves are
// run here against the same mock.
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';
import { freePort } from './helpers/mock-process.js';
import { startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const sources = [
  ['README.md', readFileSync(path.join(repoRoot, 'README.md'), 'utf8')],
  ...readdirSync(path.join(repoRoot, 'docs/guides'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => [`docs/guides/${f}`, readFileSync(path.join(repoRoot, 'docs/guides', f), 'utf8')]),
] as const;
const blocks = (lang: string) =>
  sources.flatMap(([file, text]) => [...text.matchAll(new RegExp(`^( *)\`\`\`${lang}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm'))].map((m) => ({ file, code: m[2]!.replace(new RegExp(`^${m[1]}`, 'gm'), '') })));

/** Each shell command of the docs: continuation lines joined, comments and blank lines dropped. */
const commands = blocks('sh').flatMap(({ file, code }) =>
  code
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s{2,}#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => ({ file, line })),
);

/** Lines not run here, and why. */
const EXEMPT: Array<[RegExp, string]> = [
  [/^npm ci && npm (start|test)$/, 'the set-up itself: CI runs exactly `npm ci`, then `npm test` (.ci/run), in which every other line runs'],
  [/api\.example\.com/, "a deployment's address; the same command against the mock runs in test/conformance-readme.test.ts"],
  [/^NUMBERS_API_BASE_URL=http:\/\/127\.0\.0\.1:4010 .*npm run conformance$/, 'a full conformance run against `npm start`: test/conformance-readme.test.ts runs this very line'],
  [/^NUMBERS_API_KEY=\S+ npx numbers-api conformance --base-url http:\/\/127\.0\.0\.1:4010$/, 'the same full run against the mock as the line above, installed: test/conformance-readme.test.ts (from the clone) and test/packaging.test.ts (installed) run it'],
  [/^npm install --save-dev \.\/vendor\/numbers-api-contract-[\d.]+\.tgz /, "installs tarballs from a project's vendor/ (until the packages are published): test/packaging.test.ts runs it as written (and the conformance guide's set-up lines)"],
  [/^npx msw init public\/ --save$/, "writes into the reader's app; the worker script it copies is the one the docs site serves (test/browser/try-it.test.ts)"],
  [/<id>|<port>/, "a placeholder the reader fills in from the previous step's answer (the ping runs in test/webhooks.test.ts, targets in test/listen.test.ts)"],
  [/listen\b.*--forward-to/, 'runs until Ctrl-C: test/listen.test.ts runs the agent against the mock with these options'],
  [/ &$/, "a background process of the walkthrough (mock, handler, agent); each runs alone here or in test/listen.test.ts"],
  [/^export NUMBERS_API_KEY=/, 'sets the key for the lines after it (they run here with one)'],
  [/^npx redocly respect generated\/workflows\.arazzo\.yaml /, 'plays every workflow and resets the mock it runs on: test/workflows-respect.test.ts runs this very line against a mock of its own'],
  [/^NUMBERS_API_KEY=\S+ npx numbers-api conformance --replay /, 'needs a recording the reader made: test/recording-replay-cli.test.ts runs conformance --replay against the mock and against deployments'],
  [/^npx redocly respect recordings\//, 'needs a recording the reader made: test/recording-http.test.ts runs Respect on a recording against the mock'],
  [/^npx @redocly\/cli respect recordings\//, 'needs a recording the reader made: test/recording-http.test.ts runs this very line, and the replay beside it, from a folder outside the clone'],
  [/^npx numbers-api recordings summarize /, 'needs recordings the reader made: test/recording-diff.test.ts runs numbers-api recordings summarize on a recorded flow'],
  [/^npm run diff -- v1\.0\.0 --recordings /, 'needs recordings the reader made: test/recording-diff.test.ts runs npm run diff --recordings on a recorded flow'],
  [/^npx numbers-api mcp\b/, 'an MCP server talks to its client until the client closes it: test/mcp-readme.test.ts runs each of these lines with the MCP SDK\'s client'],
];

/** The `npm` scripts the docs use, as the clone's command: checked against package.json below. */
const NPM_SCRIPTS: Array<[RegExp, string]> = [
  [/^npm start(?: --)?/, 'numbers-api mock'],
  [/^npm run events --/, 'numbers-api events'],
];

let mock: StatefulMock;
let work: string;
let receiver: Server;
let receiverPort = 0;
/** Where `npm ci` links the clone's commands, `numbers-api` among them (test/cli-help.test.ts). */
const cloneBin = path.join(repoRoot, 'node_modules/.bin');
const received: string[] = [];
const tsxLoader = pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;

beforeAll(async () => {
  mock = await startStatefulMock();
  work = mkdtempSync(path.join(os.tmpdir(), 'docs-commands-'));
  // Files the docs' commands name, from the docs: the seed of the mock guide, an example event.
  const seed = blocks('json').find((b) => b.file.endsWith('mock.md'))!.code;
  writeFileSync(path.join(work, 'my-seed.json'), seed);
  const asyncapi = JSON.parse(readFileSync(path.join(repoRoot, 'generated/asyncapi.json'), 'utf8'));
  const example = Object.values(asyncapi.components.messages as Record<string, { examples?: { payload: unknown }[] }>).flatMap((m) => m.examples ?? [])[0]!.payload;
  writeFileSync(path.join(work, 'my-event.json'), JSON.stringify(example));
  // A local handler where the docs send events (127.0.0.1:3000, localhost:3000, [::1]:3000).
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.url ?? '');
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '::', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  await mock?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The line as run here: the clone's command, the test's ports. */
function adapt(line: string, port: number): string {
  let out = line;
  for (const [pattern, replacement] of NPM_SCRIPTS) out = out.replace(pattern, replacement);
  return out
    .replace(/\bnpx numbers-api\b/g, 'numbers-api')
    .replaceAll('127.0.0.1:4010', `127.0.0.1:${port}`)
    .replace(/(127\.0\.0\.1|localhost|\[::1\]):3000\b/g, `$1:${receiverPort}`)
    .replace(/sk_live_\.\.\./g, 'sk_live_docs_reader');
}

function shell(command: string, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile('sh', ['-c', command], { cwd: work, env: { ...process.env, PATH: `${cloneBin}:${process.env.PATH}`, NUMBERS_API_KEY: 'sk_live_docs_reader', ...env }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

/** A command that serves until stopped: started, ready within 60 s, asked `GET path`, then stopped by its own pid. */
async function serves(command: string, asked: string, headers: Record<string, string> = {}): Promise<unknown> {
  const port = await freePort();
  const child = spawn('sh', ['-c', `exec ${command}`], { cwd: work, env: { ...process.env, PATH: `${cloneBin}:${process.env.PATH}`, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${out}`)), 60_000);
      const check = () => {
        if (/Mock ready on/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('exit', (code) => reject(new Error(`exited (${code}) before it was ready:\n${out}`)));
    });
    const answer = await fetch(`http://127.0.0.1:${port}${asked}`, { headers });
    expect(answer.status, out).toBe(200);
    return await answer.json();
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }
}

describe('the shell lines of README and the guides, run', () => {
  it('the npm scripts they use are the command this test runs for them (package.json)', () => {
    const scripts = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.start).toMatch(/bin\/numbers-api\.ts mock$/);
    expect(scripts.events).toMatch(/bin\/numbers-api\.ts events$/);
  });

  it('every line is run below or exempted with a reason, and every exemption still matches a line', () => {
    const unhandled = commands.filter(({ line }) => !EXEMPT.some(([p]) => p.test(line)) && !runnable(line));
    expect(unhandled.map((c) => `${c.file}: ${c.line}`)).toEqual([]);
    for (const [pattern, reason] of EXEMPT) expect(commands.some(({ line }) => pattern.test(line)), `${pattern} (${reason})`).toBe(true);
  });

  const runnable = (line: string) => /^curl /.test(line) || /^(npm start|npx numbers-api mock|npm run events -- |npx numbers-api events )/.test(line);
  const toRun = commands.filter(({ line }) => !EXEMPT.some(([p]) => p.test(line)) && runnable(line));

  it.each(toRun.map((c) => [`${c.file}: ${c.line}`, c.line]))('%s', async (_name, line) => {
    const command = adapt(line, Number(new URL(mock.url).port));
    if (/^numbers-api mock(?!.*--list-)/.test(command) && !/--help/.test(command)) {
      if (/--stateless/.test(command)) {
        // The example server: the documented example, for any well-formed key.
        expect(await serves(command, '/api/v1/account', { authorization: 'Bearer sk_live_docs_reader' })).toHaveProperty('apiKeys');
        return;
      }
      const about = (await serves(command, '/__mock/about')) as { keys: string };
      expect(about.keys).toBe(/--strict-keys/.test(command) ? 'strict' : 'any');
      return;
    }
    if (command.startsWith('curl ')) {
      // The answer's status too: a documented request the mock refuses is a failing step.
      const result = await shell(`${command} -s -w '\\n%{http_code}'`);
      expect(result.code, result.out).toBe(0);
      expect(Number(result.out.slice(-3)), result.out).toBeLessThan(400);
      return;
    }
    const before = received.length;
    const result = await shell(command);
    expect(result.code, result.out).toBe(0);
    if (/ send /.test(command)) expect(received.length).toBeGreaterThan(before);
  }, 90_000);
});

describe('the TypeScript blocks that end by themselves, run against the mock', () => {
  // Blocks that serve, loop or set up a test runner are type-checked only (docs-site.test.ts).
  const endless = /\.listen\(|for \(;;\)|setupServer|from 'vitest'|setupWorker|msw-storybook-addon/;
  const runnableBlocks = blocks('ts').filter(({ code }) => !endless.test(code) && /from 'numbers-api-contract\/client'/.test(code));

  it('there are some', () => {
    expect(runnableBlocks.length).toBeGreaterThan(2);
  });

  it.each(runnableBlocks.map((b, i) => [`${b.file} #${i}`, b.code]))('%s', async (_name, code) => {
    const result = await runBlock(code);
    expect(result.code, result.out).toBe(0);
    expect(result.out).not.toMatch(/ApiError|Error:/);
  }, 90_000);
});

describe("getting-a-key's typed example, from sign-up to a first send", () => {
  const example = blocks('ts').find(({ file, code }) => file.endsWith('getting-a-key.md') && code.startsWith('// first-send.ts'))?.code;

  it('sends, again on a second run (that one signs in: the email has an account)', async () => {
    expect(example).toMatch(/typeof verified\.registrationId === 'string'/);
    for (const run of [1, 2]) {
      const result = await runBlock(example!.replace('you@example.com', 'first-send@example.com').replace("'+14155550123'", "'+14155550161'"));
      expect(result.code, `run ${run}: ${result.out}`).toBe(0);
      expect(result.out, `run ${run}`).toMatch(/^sent msg_\w+ from \+\d+$/m);
    }
  }, 90_000);

  it("needs its wallet step: without it, a new account's first send is the 402 the guide names (part 3)", async () => {
    const withoutWallet = example!.replace(/^await fetch\(`\$\{api\.baseUrl\}\/__mock\/wallet`[\s\S]*?^\}\);\n/m, '');
    expect(withoutWallet).not.toBe(example);
    const result = await runBlock(withoutWallet.replace('you@example.com', 'empty-wallet@example.com').replace("'+14155550123'", "'+14155550162'"));
    expect(result.code).not.toBe(0);
    expect(result.out).toMatch(/failed with 402 insufficient_credit/);
  }, 90_000);
});

/** A TypeScript block of the docs, run with tsx against this test's mock (named the way the docs name a deployment). */
async function runBlock(code: string): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(path.join(work, 'ts-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', paths: { 'numbers-api-contract/client': [path.join(repoRoot, 'src/client/index.ts')], 'numbers-api-contract/events': [path.join(repoRoot, 'src/events/index.ts')] } } }),
  );
  // 'mock' is http://127.0.0.1:4010; here the mock is on a free port.
  writeFileSync(path.join(dir, 'block.mts'), `${code.replaceAll("baseUrl: 'mock'", 'baseUrl: process.env.NUMBERS_API_BASE_URL!')}\nexport {};\n`);
  return new Promise((resolve) =>
    execFile(process.execPath, ['--import', tsxLoader, 'block.mts'], { cwd: dir, env: { ...process.env, NUMBERS_API_BASE_URL: mock.url, NUMBERS_API_LEGACY_BASE_URL: mock.url, NUMBERS_API_KEY: 'sk_live_docs_reader' }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}
