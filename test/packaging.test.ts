// The package as a user gets it: `npm pack` (which builds dist/ through `prepare`), the tarball
// unpacked into an empty project's node_modules, and every entry point imported from ESM
// TypeScript (type-checked with tsc) and from plain Node.
//
// Offline and fast: instead of `npm install`, the tarball is unpacked in place and only the
// packages it declares in `dependencies` are linked from this repository's node_modules. Anything
// the package needs but does not declare is therefore missing, as it would be for a user.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let project: string;
let installed: string;
let packedFiles: string[];
let manifest: {
  name: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
  types?: string;
};

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'numbers-api-consumer-'));
  const packDir = path.join(project, 'pack');
  mkdirSync(packDir);
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', packDir], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  // npm prints the prepare/build output before the JSON report.
  const report = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[];
  packedFiles = report[0]!.files.map((f) => f.path);

  installed = path.join(project, 'node_modules', 'numbers-api-contract');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', path.join(packDir, report[0]!.filename), '-C', installed, '--strip-components=1']);
  manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    const target = path.join(project, 'node_modules', dependency);
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(path.join(repoRoot, 'node_modules', dependency), target, 'dir');
  }
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
}, 240_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the packed package', () => {
  it('contains the built entry points, the bundled descriptions and no sources or tests', () => {
    for (const file of [
      'package.json',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/client/index.js',
      'dist/src/client/index.d.ts',
      'dist/src/events/index.js',
      'dist/src/events/index.d.ts',
      'dist/generated/types/openapi.d.ts',
      'generated/openapi.json',
      'generated/openapi.yaml',
      'generated/asyncapi.json',
    ]) {
      expect(packedFiles, file).toContain(file);
    }
    expect(packedFiles.filter((f) => /^(src|test|scripts|spec)\//.test(f) || /\.test\.(js|ts)$/.test(f))).toEqual([]);
  });

  it('every export target and the bin are in the tarball', () => {
    const targets: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') targets.push(value.replace(/^\.\//, ''));
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(manifest.exports);
    expect(targets.length).toBeGreaterThanOrEqual(10);
    for (const target of targets) expect(existsSync(path.join(installed, target)), target).toBe(true);
    for (const [name, target] of Object.entries(manifest.bin ?? {})) {
      expect(existsSync(path.join(installed, target)), `bin ${name} -> ${target}`).toBe(true);
      expect(readFileSync(path.join(installed, target), 'utf8').startsWith('#!/usr/bin/env node'), `bin ${name} has a node shebang`).toBe(true);
    }
  });

  it('imports from ESM TypeScript and type-checks (tsc, NodeNext)', async () => {
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
    writeFileSync(path.join(project, 'consumer.ts'), consumer);
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          resolveJsonModule: true,
          noEmit: true,
          // As most projects do; the two @ts-expect-error lines prove the package's types are real.
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(repoRoot, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: project }).then(
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
    writeFileSync(path.join(project, 'consumer.mjs'), script);
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: project });
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

  it('declares its types entry and resolves it', () => {
    expect(manifest.types).toBeDefined();
    expect(existsSync(path.join(installed, manifest.types!))).toBe(true);
  });
});
