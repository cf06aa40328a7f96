// The two published packages as users get them (issue 15): `npm pack` of the repository
// (numbers-api-contract: types, client, event helpers, bundled descriptions) and of the
// packages/numbers-api workspace (numbers-api: the command, with Prism, vitest and ajv), each
// installed with npm into an empty project, dependencies from npm's cache when it has them.
//
//   - "lean": numbers-api-contract alone, as a frontend that only imports installs it;
//   - "tools": numbers-api beside it (numbers-api depends on numbers-api-contract, which is not in
//     the registry yet, so both tarballs are given to the same `npm install`).
import { execFile, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createEmptyProject, installTarballs, listInstalled, npmEnv, packPackages } from '../scripts/packages.mjs';
import { consumerCompilerOptions } from '../scripts/consumer-tsconfig.mjs';
import { relativeLinks } from '../scripts/readme-links.mjs';
import { repoRoot } from './helpers/contract.js';
import { freePort } from './helpers/mock-process.js';
import { startFakeDeployment, type FakeDeployment } from './helpers/conformance-fake-deployment.js';
import { TEST_KEY } from './helpers/conformance-harness.js';
import { reportFiles } from '../conformance/reporters/files.js';
import { startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const run = promisify(execFile);
const CONTRACT = 'numbers-api-contract';
const TOOLS = 'numbers-api';
// The issue's goal for an import-only install: at most this much besides the package itself.
const LEAN_MAX_PACKAGES = 3;
const LEAN_MAX_BYTES = 2_000_000;

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  bin?: Record<string, string>;
  types?: string;
}

let work: string;
let packed: Record<string, { tarball: string; files: string[] }>;
let lean: string;
let tools: string;
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const guide = (name: string) => readFileSync(path.join(repoRoot, 'docs/guides', name), 'utf8');
/** The README and every guide, as a reader who follows its links has them (the tarballs carry them all). */
const docs = [readme, ...relativeLinks(readme).filter((file: string) => /^docs\/guides\/.*\.md$/.test(file)).map((file: string) => guide(path.basename(file)))];
const repoManifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;

const installedDir = (project: string, name: string) => path.join(project, 'node_modules', name);
const manifestOf = (project: string, name: string) => JSON.parse(readFileSync(path.join(installedDir(project, name), 'package.json'), 'utf8')) as Manifest;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'numbers-api-packages-'));
  packed = Object.fromEntries((await packPackages(path.join(work, 'pack'))).map((p: { name: string; tarball: string; files: string[] }) => [p.name, p]));
  lean = createEmptyProject(path.join(work, 'lean'));
  tools = createEmptyProject(path.join(work, 'tools'));
  await installTarballs(lean, [packed[CONTRACT]!.tarball]);
  await installTarballs(tools, [packed[CONTRACT]!.tarball, packed[TOOLS]!.tarball]);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The bare module specifiers (`from 'x'`, `import('x')`, `require('x')`) of every module and
 * declaration file of a tarball (.js, .cjs, .d.ts, .d.cts): a declaration that imports a package
 * the manifest does not declare fails to compile with skipLibCheck off (TS2307; issue 26).
 */
function bareImports(project: string, name: string, files: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files.filter((f) => /\.(c?js|d\.c?ts)$/.test(f))) {
    const text = readFileSync(path.join(installedDir(project, name), file), 'utf8');
    const statements = /^\s*(?:import|export|\})[^'"\n]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?<![`'"\w.$])require\(\s*['"]([^'"]+)['"]\s*\)/gm;
    for (const match of text.matchAll(statements)) {
      const specifier = (match[1] ?? match[2] ?? match[3] ?? match[4])!;
      if (specifier.startsWith('.') || specifier.startsWith('/')) continue;
      const pkg = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      if (!found.has(pkg)) found.set(pkg, file);
    }
  }
  return found;
}

describe.each([CONTRACT, TOOLS])('the %s tarball', (name) => {
  it('carries LICENSE, README.md, CHANGELOG.md and every file its README links to', () => {
    const files = packed[name]!.files;
    const installedReadme = readFileSync(path.join(installedDir(tools, name), 'README.md'), 'utf8');
    const links = relativeLinks(installedReadme);
    expect(links.length).toBeGreaterThan(0);
    for (const file of ['LICENSE', 'README.md', 'CHANGELOG.md', ...links]) expect(files, file).toContain(file);
    expect(readFileSync(path.join(installedDir(tools, name), 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    // One README for both packages, the repository's.
    expect(installedReadme).toBe(readme);
  });

  it('imports only Node built-ins and the packages its manifest declares, in its modules and its declarations', () => {
    const manifest = manifestOf(tools, name);
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const builtins = new Set(builtinModules);
    const undeclared = [...bareImports(tools, name, packed[name]!.files)]
      .filter(([pkg]) => !pkg.startsWith('node:') && !builtins.has(pkg) && !declared.has(pkg))
      .map(([pkg, file]) => `${pkg} (${file})`);
    expect(undeclared).toEqual([]);
  });

  it('every export target and bin is in the tarball; a bin has a node shebang', () => {
    const manifest = manifestOf(tools, name);
    const targets: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') targets.push(value.replace(/^\.\//, ''));
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(manifest.exports);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(packed[name]!.files, target).toContain(target);
    for (const [bin, target] of Object.entries(manifest.bin ?? {})) {
      expect(packed[name]!.files, `bin ${bin}`).toContain(target.replace(/^\.\//, ''));
      expect(readFileSync(path.join(installedDir(tools, name), target), 'utf8').startsWith('#!/usr/bin/env node'), `bin ${bin} has a node shebang`).toBe(true);
    }
  });
});

// The installing guide states what each install weighs; a fresh install must still agree (a
// dependency bump that changes it is a guide change too). Packages within 10%, size within 20%.
describe("the installing guide's installed sizes", () => {
  const table = /<!-- installed-size:start -->([\s\S]*?)<!-- installed-size:end -->/.exec(guide('installing.md'))?.[1] ?? '';
  // A cell is one figure, or one per Node line (`236 on Node 20 and 22, 275 on Node 24`): npm picks
  // each dependency's newest version whose `engines` the running Node meets, so an install without
  // a lockfile differs by line. The figure of the line running this test is the one held.
  const major = Number(process.versions.node.split('.')[0]);
  const figure = (cell: string) => {
    if (/^[\d.]+( MB)?$/.test(cell)) return Number.parseFloat(cell);
    for (const part of cell.split(/,\s*(?=[\d.]+(?: MB)? on Node)/)) {
      const m = /^([\d.]+)(?: MB)? on Node (.+)$/.exec(part.trim());
      if (m && m[2]!.split(/,\s*|\s+and\s+/).map(Number).includes(major)) return Number(m[1]);
    }
    return undefined;
  };
  const stated = (label: RegExp) => {
    const row = table.split('\n').find((line) => label.test(line));
    const cells = (row ?? '').split('|').slice(2, 4).map((cell) => cell.trim());
    const [packages, megabytes] = cells.map(figure);
    return packages !== undefined && megabytes !== undefined ? { packages, megabytes } : undefined;
  };
  const measured = (project: string) => {
    const installed = listInstalled(project) as { bytes: number }[];
    return { packages: installed.length, megabytes: installed.reduce((sum, p) => sum + p.bytes, 0) / 1e6 };
  };
  it.each([
    ['numbers-api-contract alone', /^\| `numbers-api-contract` alone \|/, () => lean],
    ['numbers-api with numbers-api-contract', /^\| `numbers-api` with `numbers-api-contract` \|/, () => tools],
  ])('%s: the packages and size the guide states are what an install brings', (_name, label, project) => {
    const claim = stated(label);
    expect(claim, `docs/guides/installing.md states it in the installed-size table, for Node ${major}`).toBeDefined();
    const actual = measured(project());
    expect(Math.abs(actual.packages - claim!.packages) / claim!.packages, `${actual.packages} packages installed`).toBeLessThanOrEqual(0.1);
    expect(Math.abs(actual.megabytes - claim!.megabytes) / claim!.megabytes, `${actual.megabytes.toFixed(1)} MB installed`).toBeLessThanOrEqual(0.2);
  });
});

describe('numbers-api-contract installed alone (types, client, event helpers)', () => {
  it(`installs at most ${LEAN_MAX_PACKAGES} packages and ${LEAN_MAX_BYTES / 1e6} MB besides itself: no mock, test runner or msw`, () => {
    const others = listInstalled(lean).filter((p: { name: string }) => p.name !== CONTRACT);
    const names = others.map((p: { name: string }) => p.name).sort();
    const bytes = others.reduce((sum: number, p: { bytes: number }) => sum + p.bytes, 0);
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(LEAN_MAX_PACKAGES);
    expect(bytes, names.join(', ')).toBeLessThanOrEqual(LEAN_MAX_BYTES);
    for (const heavy of ['@stoplight/prism-cli', 'vitest', 'ajv', 'msw']) expect(names).not.toContain(heavy);
  });

  it('declares msw as an optional peer only (for the msw entry), so it is never installed for it', () => {
    const manifest = manifestOf(lean, CONTRACT);
    expect(manifest.peerDependencies?.msw).toBeDefined();
    expect(manifest.peerDependenciesMeta?.msw?.optional).toBe(true);
    expect(manifest.dependencies?.msw).toBeUndefined();
    expect(existsSync(installedDir(lean, 'msw'))).toBe(false);
  });

  it('holds the entry points and the bundled descriptions, and none of the command, sources or tests', () => {
    const files = packed[CONTRACT]!.files;
    for (const file of [
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/client/index.js',
      'dist/src/client/index.d.ts',
      'dist/src/events/index.js',
      'dist/src/events/index.d.ts',
      'dist/generated/types/openapi.d.ts',
      'generated/openapi.json',
      'generated/openapi.yaml',
      'generated/openapi.dereferenced.json',
      'generated/asyncapi.json',
    ]) {
      expect(files, file).toContain(file);
    }
    const misplaced = files.filter(
      (f) => (/^(src|test|scripts|spec|docs)\//.test(f) && !/^docs\/guides\/[\w-]+\.md$/.test(f)) || /\.test\.(js|ts)$/.test(f) || /^dist\/(conformance|src\/(cli|mock|event-source))\b/.test(f),
    );
    expect(misplaced).toEqual([]);
    expect(manifestOf(lean, CONTRACT).bin).toBeUndefined();
  });

  it('declares its types entry and resolves it', () => {
    const manifest = manifestOf(lean, CONTRACT);
    expect(manifest.types).toBeDefined();
    expect(existsSync(path.join(installedDir(lean, CONTRACT), manifest.types!))).toBe(true);
  });

  it("type-checks a consumer and the types guide's own example (tsc, NodeNext)", async () => {
    const consumer = `
import type { Message, Call, AnyEvent, ErrorBody, SendMessageRequest, components, operations, paths, webhooks } from 'numbers-api-contract';
import { serverUrls } from 'numbers-api-contract';
import { ApiError, createClient, type NumbersApiClient } from 'numbers-api-contract/client';
import { isEventOfType, verifySignature, waitForEvent } from 'numbers-api-contract/events';
import openapi from 'numbers-api-contract/openapi.json' with { type: 'json' };
import asyncapi from 'numbers-api-contract/asyncapi.json' with { type: 'json' };

const api: NumbersApiClient = createClient({ apiKey: 'sk_live_consumer', baseUrl: serverUrls.mock });
export async function send(body: SendMessageRequest): Promise<Message> {
  const { data } = await api.POST('/api/v1/messages', { body });
  return data;
}
export async function next(): Promise<string | null> {
  const event: AnyEvent | null = await waitForEvent(api, { timeout: 30 });
  if (event && isEventOfType(event, 'message.received')) return event.data.body;
  return null;
}
export const shapes: [components['schemas']['Call'], Call, ErrorBody, keyof paths, keyof operations, keyof webhooks] | undefined = undefined;
export const ok: boolean = (await verifySignature('{}', 'secret', undefined)) || new ApiError({ status: 500, method: 'GET', url: '/' }).status === 500;
export const versions: string = openapi.openapi + asyncapi.asyncapi;
// The types are real, not any: a string where the call cap needs an integer does not compile.
// @ts-expect-error maxCallDurationSeconds is an integer or null
export const wrong: components['schemas']['CreateCallRequest'] = { to: '+14155550123', fromNumberId: 'pn_1', outboundInstruction: 'Hi', maxCallDurationSeconds: '600' };
// The client's types resolve through openapi-fetch's declarations (were they missing, skipLibCheck
// would quietly make them any, and this line would compile).
// @ts-expect-error the call body needs outboundInstruction
export const wrongCall = () => api.POST('/api/v1/calls', { body: { to: '+14155550123', fromNumberId: 'pn_1' } });
`;
    // The example of docs/guides/types-and-client.md, as a user would paste it.
    const example = /```ts\n([\s\S]*?)```/.exec(guide('types-and-client.md'))?.[1];
    expect(example).toContain("from 'numbers-api-contract/client'");
    writeFileSync(path.join(lean, 'consumer.ts'), consumer);
    writeFileSync(path.join(lean, 'readme-example.ts'), `${example}\nexport {};\n`);
    writeFileSync(
      path.join(lean, 'tsconfig.json'),
      JSON.stringify({
        // skipLibCheck as most projects have it; the two @ts-expect-error lines prove the package's types are real.
        compilerOptions: consumerCompilerOptions(repoRoot, { resolveJsonModule: true }),
        files: ['consumer.ts', 'readme-example.ts'],
      }),
    );
    const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: lean }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? 'tsc failed',
    );
    expect(result).toBe('');
  }, 120_000);

  it('imports every entry point from plain Node', async () => {
    const script = `
import * as root from 'numbers-api-contract';
import * as client from 'numbers-api-contract/client';
import * as events from 'numbers-api-contract/events';
import openapi from 'numbers-api-contract/openapi.json' with { type: 'json' };
import asyncapi from 'numbers-api-contract/asyncapi.json' with { type: 'json' };
import dereferenced from 'numbers-api-contract/openapi.dereferenced.json' with { type: 'json' };
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const yaml = readFileSync(fileURLToPath(import.meta.resolve('numbers-api-contract/openapi.yaml')), 'utf8');
const asyncYaml = readFileSync(fileURLToPath(import.meta.resolve('numbers-api-contract/asyncapi.yaml')), 'utf8');
const api = client.createClient({ apiKey: 'sk_live_consumer', baseUrl: 'mock' });
console.log(JSON.stringify({
  base: root.serverUrls.base,
  createClient: typeof client.createClient,
  apiError: new client.ApiError({ status: 400, method: 'GET', url: '/x', body: { error: 'Bad (ref_abc)', code: 'bad_request' } }).ref,
  mockUrl: api.baseUrl,
  guards: typeof events.isEventOfType,
  waitForEvent: typeof events.waitForEvent,
  signature: await events.verifySignature('{}', 'secret', 'nope'),
  openapi: openapi.openapi,
  asyncapi: asyncapi.asyncapi,
  dereferenced: dereferenced.openapi,
  yaml: yaml.startsWith('openapi: 3.1'),
  asyncYaml: asyncYaml.startsWith('asyncapi: 3'),
}));
`;
    writeFileSync(path.join(lean, 'consumer.mjs'), script);
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: lean });
    const servers = JSON.parse(readFileSync(path.join(repoRoot, 'generated/openapi.json'), 'utf8')).servers;
    expect(JSON.parse(stdout)).toEqual({
      base: servers[0].variables.base_url.default,
      createClient: 'function',
      apiError: 'ref_abc',
      mockUrl: servers.find((s: { url: string }) => s.url.startsWith('http://127.0.0.1')).url,
      guards: 'function',
      waitForEvent: 'function',
      signature: false,
      openapi: '3.1.0',
      asyncapi: '3.0.0',
      dereferenced: '3.1.0',
      yaml: true,
      asyncYaml: true,
    });
  });
});

// The MSW guide's install line (docs/guides/mock-in-process.md), run as written in a project that
// keeps the contract's tarball in vendor/ (until the package is published; issue 26).
describe("the MSW guide's install line, run as written", () => {
  const guide = readFileSync(path.join(repoRoot, 'docs/guides/mock-in-process.md'), 'utf8');
  const line = /^```sh\n(npm install [^\n]*)\n```$/m.exec(guide)?.[1];

  it('installs the tarball from vendor/ and msw 2, and names them as a checkout has them', async () => {
    expect(line).toBe(`npm install --save-dev ./vendor/${path.basename(packed[CONTRACT]!.tarball)} msw@^2`);
    const project = createEmptyProject(path.join(work, 'msw-guide'));
    mkdirSync(path.join(project, 'vendor'));
    copyFileSync(packed[CONTRACT]!.tarball, path.join(project, 'vendor', path.basename(packed[CONTRACT]!.tarball)));
    await run('sh', ['-c', line!], { cwd: project, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as Manifest;
    expect(manifest.devDependencies?.[CONTRACT]).toBe(`file:vendor/${path.basename(packed[CONTRACT]!.tarball)}`);
    expect(manifest.devDependencies?.msw).toMatch(/^\^2\./);
    expect(manifestOf(project, 'msw').version).toMatch(/^2\./);
    expect(existsSync(path.join(installedDir(project, CONTRACT), 'dist/src/msw/index.cjs'))).toBe(true);
  }, 180_000);
});

describe('numbers-api-contract/msw, with msw as the consumer\'s own', () => {
  it('serves the stateful mock in-process under setupServer, from one self-contained module (no ajv installed)', async () => {
    const consumer = createEmptyProject(path.join(work, 'msw-consumer'));
    await installTarballs(consumer, [packed[CONTRACT]!.tarball]);
    // The consumer's own msw (the repository's copy; its dependencies resolve from there).
    symlinkSync(path.join(repoRoot, 'node_modules', 'msw'), path.join(consumer, 'node_modules', 'msw'), 'dir');
    expect(existsSync(installedDir(consumer, 'ajv'))).toBe(false);
    const script = `
import { setupServer } from 'msw/node';
import { createHandlers } from 'numbers-api-contract/msw';
const { handlers, control } = createHandlers();
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: 'error' });
const base = 'http://127.0.0.1:4010';
const headers = { Authorization: 'Bearer sk_live_packaged', 'Content-Type': 'application/json' };
const account = await fetch(base + '/api/v1/account', { headers });
const sent = await fetch(base + '/api/v1/messages', { method: 'POST', headers, body: JSON.stringify({ to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'From the packaged handlers' }) });
const message = await sent.json();
const listed = await (await fetch(base + '/api/v1/messages', { headers })).json();
const invalid = await fetch(base + '/api/v1/account', { method: 'PATCH', headers, body: JSON.stringify({ maxCallDurationSeconds: 5 }) });
console.log(JSON.stringify({ account: account.status, sent: sent.status, first: listed[0].id === message.id, invalid: invalid.status, fields: Object.keys((await invalid.json()).error.fieldErrors) }));
control.stop?.();
server.close();
`;
    writeFileSync(path.join(consumer, 'handlers.mjs'), script);
    const { stdout } = await run(process.execPath, ['handlers.mjs'], { cwd: consumer });
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ account: 200, sent: 201, first: true, invalid: 400, fields: ['maxCallDurationSeconds'] });
  }, 120_000);
});

describe('numbers-api installed beside it (the command)', () => {
  const bin = () => path.join(tools, 'node_modules', '.bin', 'numbers-api');

  it('has the version of the contract, depends on it, and pins the Prism, vitest and ajv the repository tests with', () => {
    const manifest = manifestOf(tools, TOOLS);
    expect(manifest.version).toBe(repoManifest.version);
    expect(manifest.dependencies?.[CONTRACT]).toBe(`^${repoManifest.version}`);
    for (const pinned of ['@stoplight/prism-cli', 'vitest', 'ajv', 'ajv-formats', '@modelcontextprotocol/sdk', 'jsonpath-rfc9535']) {
      expect(manifest.dependencies?.[pinned], pinned).toBe(repoManifest.devDependencies?.[pinned]);
    }
  });

  it('holds the command, the Prism child and the conformance suite, and no copy of the contract', () => {
    const files = packed[TOOLS]!.files;
    for (const file of ['bin/numbers-api.js', 'dist/bin/numbers-api.js', 'dist/src/mock/prism-child.js', 'dist/conformance/cli.js', 'dist/conformance/suite/vitest.config.js']) {
      expect(files, file).toContain(file);
    }
    expect(files.filter((f) => f.endsWith('.conformance.js')).length).toBeGreaterThan(0);
    // The contract is read from the numbers-api-contract dependency, the one the types come from.
    expect(files.filter((f) => /^(dist\/)?generated\//.test(f))).toEqual([]);
  });

  // Every `npx numbers-api ...` command the README and the guides it links show, with --help.
  const commands = [...new Set(docs.flatMap((text) => [...text.matchAll(/npx numbers-api((?: [a-z][a-z-]*\b(?!:))*)/g)].map((m) => m[1]!.trim())))];
  it.each(commands.map((c) => [c || '(no command)', c]))("the docs' `npx numbers-api %s` runs (--help)", async (_label, command) => {
    const { stdout } = await run(bin(), [...(command ? command.split(' ') : []), '--help'], { cwd: tools });
    expect(stdout).toMatch(/Usage/);
  });

  it('serves the installed contract: the mock answers the client of numbers-api-contract, and the conformance suite passes on it', async () => {
    const document = JSON.parse(readFileSync(path.join(repoRoot, 'generated/openapi.json'), 'utf8'));
    const examples = document.paths['/api/v1/account'].get.responses['200'].content['application/json'].examples;
    const first = Object.values(examples)[0] as { $ref?: string; value?: unknown };
    const expected = first.$ref ? document.components.examples[first.$ref.split('/').pop()!].value : first.value;

    const port = await freePort();
    // The example server: what it answers is the installed contract's example, byte for byte.
    const mock = spawn(bin(), ['mock', '--port', String(port), '--quiet', '--stateless'], { cwd: tools, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    mock.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    mock.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const check = () => /Mock ready on/.test(output) && resolve();
        mock.stdout!.on('data', check);
        mock.stderr!.on('data', check);
        mock.once('exit', (code) => reject(new Error(`the mock exited (${code}):\n${output}`)));
      });
      expect(output).toContain(path.join('node_modules', CONTRACT, 'generated'));

      const script = `
import { createClient } from 'numbers-api-contract/client';
const api = createClient({ apiKey: 'sk_live_consumer', baseUrl: 'http://127.0.0.1:${port}' });
const { status, data } = await api.GET('/api/v1/account');
console.log(JSON.stringify({ status, data }));
`;
      writeFileSync(path.join(tools, 'client.mjs'), script);
      const { stdout } = await run(process.execPath, ['client.mjs'], { cwd: tools });
      expect(JSON.parse(stdout)).toEqual({ status: 200, data: expected });

      const conformance = await run(bin(), ['conformance', '--base-url', `http://127.0.0.1:${port}`, '--any-key-valid', '-t', 'getAccount', '--report-dir', path.join(work, 'report')], {
        cwd: tools,
        env: { ...process.env, NUMBERS_API_KEY: 'sk_live_consumer' },
      }).then(
        (r) => ({ code: 0, out: r.stdout }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code, out: `${error.stdout}\n${error.stderr}` }),
      );
      expect(conformance.code, conformance.out).toBe(0);
      expect(conformance.out).toMatch(/PASS\s+getAccount/);
    } finally {
      mock.kill('SIGTERM');
    }
  }, 120_000);
});

// The conformance guide's CI jobs (conformance/README.md, "On a schedule in CI"), read from the
// guide and run as written: its set-up lines in one shell, from a copy of this repository beside a
// project that holds only its package.json (no vendor/), then the jobs' shell lines in a clone of
// that project (its package.json and lockfile, as a CI checkout has them), the secrets as the
// environment the job gives them, against the mock; then against a deployment that breaks a rule.
describe("the conformance guide's CI jobs, run as written", () => {
  const guide = readFileSync(path.join(repoRoot, 'conformance', 'README.md'), 'utf8');
  const jobs = [...guide.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => parseYaml(m[1]!) as Record<string, any>);
  const github = jobs.find((j) => j.jobs)?.jobs.conformance as { steps: { run?: string; uses?: string; if?: string; env?: Record<string, string>; with?: Record<string, string> }[] } | undefined;
  const gitlab = jobs.find((j) => j.conformance?.script)?.conformance as { script: string[]; artifacts: { when: string; paths: string[]; reports: { junit: string } } } | undefined;
  const secrets = (env: Record<string, string> = {}) =>
    Object.fromEntries(Object.entries(env).map(([name, value]) => [name, /^\$\{\{ secrets\.(\w+) \}\}$/.exec(value)?.[1] ?? '']));
  const runStep = () => github!.steps.find((s) => s.run?.includes('numbers-api conformance'))!;

  it('GitHub Actions and GitLab CI run the same lines, read the base URL and key from secrets, and keep the three reports, the HTML one included, whatever the outcome', () => {
    expect(github && gitlab, 'conformance/README.md has both jobs').toBeTruthy();
    const lines = github!.steps.filter((s) => s.run).map((s) => s.run!.trim());
    expect(gitlab!.script).toEqual(lines);
    expect(secrets(runStep().env)).toEqual({ NUMBERS_API_BASE_URL: 'NUMBERS_API_BASE_URL', NUMBERS_API_KEY: 'NUMBERS_API_KEY' });
    const upload = github!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(upload.if).toBe('always()');
    const kept = String(upload.with?.path).trim().split('\n');
    expect(kept).toEqual(gitlab!.artifacts.paths);
    expect(gitlab!.artifacts.when).toBe('always');
    expect(kept).toContain(gitlab!.artifacts.reports.junit);
    // Every file the run writes to its --report-dir, as the suite names them (the HTML is the one the guide says to open).
    const reportDir = /--report-dir (\S+)/.exec(runStep().run!)?.[1];
    expect(reportDir, 'the run line names its --report-dir').toBeDefined();
    expect([...kept].sort()).toEqual(Object.values(reportFiles(reportDir!)).sort());
  });

  // The set-up lines before the jobs: make the project's vendor/, pack into it from the clone, install from there, commit.
  const setupLines = (/## On a schedule in CI[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(guide)?.[1] ?? '').trim().split('\n');

  it('sets up from tarballs kept in the project: vendor/ made first, packed there as this test packs, installed from there, committed', () => {
    const pack = setupLines.findIndex((line) => line.startsWith('npm pack '));
    const destination = /^npm pack --workspaces --include-workspace-root --pack-destination (\S+\/vendor)$/.exec(setupLines[pack] ?? '')?.[1];
    expect(destination, setupLines.join('\n')).toBeDefined();
    // npm pack does not make its destination (ENOENT): a line before it does.
    expect(setupLines.slice(0, pack)).toContain(`mkdir -p ${destination}`);
    expect(setupLines).toContain(`npm install --save-dev ${[CONTRACT, TOOLS].map((name) => `./vendor/${path.basename(packed[name]!.tarball)}`).join(' ')}`);
    expect(setupLines).toContain('git add vendor package.json package-lock.json');
  });

  describe('their lines in a fresh checkout of a project with numbers-api', () => {
    let project: string;
    let mock: StatefulMock;
    let broken: FakeDeployment;
    const runLines = async (baseUrl: string, apiKey: string) => {
      const env = { ...npmEnv(), ...Object.fromEntries(Object.values(secrets(runStep().env)).map((name) => [name, name === 'NUMBERS_API_BASE_URL' ? baseUrl : apiKey])) };
      const results: { line: string; code: number; out: string }[] = [];
      for (const line of gitlab!.script) {
        // As a CI runner does: each line in a shell, the job failing at the first non-zero exit.
        const result = await run('sh', ['-c', line], { cwd: project, env, maxBuffer: 64 * 1024 * 1024 }).then(
          (r) => ({ line, code: 0, out: r.stdout + r.stderr }),
          (error: { code?: number; stdout?: string; stderr?: string }) => ({ line, code: error.code ?? 1, out: `${error.stdout}\n${error.stderr}` }),
        );
        results.push(result);
        if (result.code !== 0) break;
      }
      return results;
    };

    beforeAll(async () => {
      // The guide's set-up as written, from nothing: a copy of this repository (the files git holds,
      // as this work tree has them, and its node_modules, as `npm ci` made them) beside a new
      // project, a git repository with only its package.json and no vendor/; the guide's lines in
      // one shell from the copy, stopping at the first that fails; then a clone of the project, as
      // a CI runner checks it out.
      const ci = path.join(work, 'ci');
      const clone = path.join(ci, 'numbers-api-contract');
      const { stdout: listed } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
      for (const file of listed.split('\0').filter((f) => f && existsSync(path.join(repoRoot, f)))) {
        mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
        copyFileSync(path.join(repoRoot, file), path.join(clone, file));
      }
      symlinkSync(path.join(repoRoot, 'node_modules'), path.join(clone, 'node_modules'));
      const destination = /--pack-destination (\S+)\/vendor$/m.exec(setupLines.join('\n'))?.[1] ?? '';
      const source = createEmptyProject(path.resolve(clone, destination));
      // The guide's `git commit` needs a name and an address, as a person's git has them.
      const env = { ...npmEnv(), GIT_AUTHOR_NAME: 'ci', GIT_AUTHOR_EMAIL: 'ci@example.org', GIT_COMMITTER_NAME: 'ci', GIT_COMMITTER_EMAIL: 'ci@example.org' };
      const git = (args: string[], cwd: string) => run('git', args, { cwd, env });
      await git(['init', '-q'], source);
      expect(existsSync(path.join(source, 'vendor'))).toBe(false);
      await run('sh', ['-e', '-c', setupLines.join('\n')], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 });
      // Committed: the tarballs the guide's lines packed into vendor/, and the manifest and lockfile naming them.
      const { stdout: committed } = await git(['ls-tree', '-r', '--name-only', 'HEAD'], source);
      expect(committed.trim().split('\n').sort()).toEqual(['package-lock.json', 'package.json', ...[CONTRACT, TOOLS].map((name) => `vendor/${path.basename(packed[name]!.tarball)}`)].sort());
      project = path.join(work, 'ci-checkout');
      await git(['clone', '-q', source, project], work);
      mock = await startStatefulMock();
      broken = await startFakeDeployment({ apiKey: TEST_KEY });
      broken.breaks.add('usage-days');
    }, 300_000);
    afterAll(async () => {
      await mock?.close();
      await broken?.close();
      // What this describe made (a copy of the repository, two installed projects), removed here rather than all at once at the end.
      await Promise.all(['ci', 'ci-checkout'].map((dir) => rm(path.join(work, dir), { recursive: true, force: true })));
    });

    it('the checkout names the tarballs inside it, never a path outside (file:vendor/...)', () => {
      const manifest = readFileSync(path.join(project, 'package.json'), 'utf8');
      const lockfile = readFileSync(path.join(project, 'package-lock.json'), 'utf8');
      expect(JSON.parse(manifest).devDependencies).toEqual(Object.fromEntries([CONTRACT, TOOLS].map((name) => [name, `file:vendor/${path.basename(packed[name]!.tarball)}`])));
      expect(`${manifest}${lockfile}`).not.toMatch(/file:\.\.|"resolved": "\//);
      expect(existsSync(path.join(project, 'node_modules')), 'a checkout has no node_modules').toBe(false);
    });

    it('install, then pass against the mock (advisories do not fail it), the reports where the artifacts are kept', async () => {
      const results = await runLines(mock.url, 'sk_live_ci_scheduled');
      expect(results.map((r) => [r.line, r.code]), results.map((r) => r.out).join('\n')).toEqual(gitlab!.script.map((line) => [line, 0]));
      const last = results.at(-1)!.out;
      expect(last).toMatch(/Scenarios: \d+ passed, 0 failed, [1-9]\d* advisory/);
      for (const file of gitlab!.artifacts.paths) expect(existsSync(path.join(project, file)), file).toBe(true);
      expect(readFileSync(path.join(project, gitlab!.artifacts.reports.junit), 'utf8')).toMatch(/<testsuite name="auth-required \(part 5\.1\)"/);
      expect(readFileSync(path.join(project, reportFiles(/--report-dir (\S+)/.exec(runStep().run!)![1]!).html), 'utf8')).toMatch(/^<!doctype html>[\s\S]*<h2 id="coverage">/);
    }, 300_000);

    it('a failed check fails the job (exit 1), and the reports are still there to keep', async () => {
      rmSync(path.join(project, 'conformance-report'), { recursive: true, force: true });
      const results = await runLines(broken.url, TEST_KEY);
      expect(results.at(-1)!.code, results.at(-1)!.out).toBe(1);
      expect(results.at(-1)!.out).toMatch(/FAIL \[usage-days-fallback, part 4\.3\]/);
      for (const file of gitlab!.artifacts.paths) expect(existsSync(path.join(project, file)), file).toBe(true);
    }, 300_000);
  });
});
