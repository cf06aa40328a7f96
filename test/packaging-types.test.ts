// Types that compile where people use them (issues 26 and 40): the MSW guide's set-up (its files, by
// the names their first lines give) and the types guide's client example, type-checked with tsc
// against the packed numbers-api-contract tarball in a matrix of consumer projects: ES module and
// CommonJS (what `npm init -y` makes, and most jest projects), `moduleResolution` nodenext and
// bundler, `skipLibCheck` on and off (tsc's default), vitest and jest (its globals from @types/jest,
// as ts-jest projects have them). A CommonJS project runs the handlers and the client:
// `require('numbers-api-contract/msw')` beside `require('msw/node')`. An ES module project runs the
// guide's vitest set-up, also for a test that imports `api` without using it. The matrix is exactly
// the settings docs/guides/types-and-client.md states as supported, and the two it states as not
// supported fail with the error it names.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyProject, installTarballs, packPackages } from '../scripts/packages.mjs';
import { repoRoot } from './helpers/contract.js';

const run = promisify(execFile);
const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
const compatModules = path.join(repoRoot, 'scripts/compat/node_modules');

const guide = readFileSync(path.join(repoRoot, 'docs/guides/mock-in-process.md'), 'utf8');
const typesGuide = readFileSync(path.join(repoRoot, 'docs/guides/types-and-client.md'), 'utf8');
/** The first ```ts block after `heading`. */
const blockAfter = (text: string, heading: string) => new RegExp(`${heading}\\n[\\s\\S]*?\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1];
/** The guide's ```ts block that names its file in its first line (`// test/setup-api-mock.ts: ...`). */
const guideFile = (file: string) => [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).find((code) => code.startsWith(`// ${file}`));
const mswSetup = guideFile('test/setup-api-mock.ts');
const vitestConfig = guideFile('vitest.config.ts');
const messagesTest = guideFile('test/messages.test.ts');
const clientExample = blockAfter(typesGuide, '# Types and client');
const VITEST_IMPORT = /^import \{[^}]*\} from 'vitest';\n/m;

type Cell = { format: 'esm' | 'cjs'; resolution: 'nodenext' | 'bundler'; skipLibCheck: boolean; runner: 'vitest' | 'jest'; module?: string };
const cells: Cell[] = (['esm', 'cjs'] as const).flatMap((format) =>
  (['nodenext', 'bundler'] as const).flatMap((resolution) =>
    [true, false].flatMap((skipLibCheck) => (['vitest', 'jest'] as const).map((runner) => ({ format, resolution, skipLibCheck, runner }))),
  ),
);
const name = (c: Cell) => `${c.format === 'esm' ? 'ES module' : 'CommonJS'}, ${c.resolution}, skipLibCheck ${c.skipLibCheck ? 'on' : 'off'}, ${c.runner}`;

let work: string;
let modules: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'numbers-api-consumer-types-'));
  const packed = (await packPackages(path.join(work, 'pack'))) as { name: string; tarball: string }[];
  const base = createEmptyProject(path.join(work, 'base'));
  await installTarballs(base, [packed.find((p) => p.name === 'numbers-api-contract')!.tarball]);
  modules = path.join(base, 'node_modules');
  // The consumer's own msw and test runner (the repository's copies: their dependencies resolve
  // from there), and jest's types (scripts/compat).
  for (const pkg of ['msw', 'vitest']) symlinkSync(path.join(repoRoot, 'node_modules', pkg), path.join(modules, pkg), 'dir');
  mkdirSync(path.join(modules, '@types'), { recursive: true });
  symlinkSync(path.join(compatModules, '@types/jest'), path.join(modules, '@types/jest'), 'dir');
  symlinkSync(path.join(repoRoot, 'node_modules/@types/node'), path.join(modules, '@types/node'), 'dir');
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The `module` setting of a cell: its own, or the one that goes with its resolution and format. */
const moduleOf = (cell: Cell) => cell.module ?? (cell.resolution === 'nodenext' ? 'nodenext' : cell.format === 'esm' ? 'esnext' : 'preserve');

/** The rows of the Markdown table under `heading` in the types guide, as cells of text. */
function guideTable(heading: RegExp): string[][] {
  const after = typesGuide.slice(typesGuide.search(heading));
  const table = /\n(\|[^\n]*\|\n\|[- |]+\|\n(?:\|[^\n]*\|\n)+)/.exec(after)?.[1] ?? '';
  return table.trim().split('\n').slice(2).map((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()));
}

/** A consumer project of `cell` holding `files`; resolves with tsc's diagnostics ('' when it compiles). */
async function compile(cell: Cell, files: Record<string, string>): Promise<string> {
  const dir = path.join(work, `${name(cell)}${cell.module ? `, module ${cell.module}` : ''}`.replace(/\W+/g, '-'));
  mkdirSync(dir, { recursive: true });
  symlinkSync(modules, path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, ...(cell.format === 'esm' ? { type: 'module' } : {}) }));
  const module = moduleOf(cell);
  const compilerOptions = {
    target: 'ES2022',
    lib: ['ES2023', 'DOM'],
    module,
    ...(cell.module ? {} : { moduleResolution: cell.resolution }),
    strict: true,
    noEmit: true,
    skipLibCheck: cell.skipLibCheck,
    types: cell.runner === 'jest' ? ['node', 'jest'] : ['node'],
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(files) }));
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout || 'tsc failed',
  );
}

describe('the MSW set-up and the client example compile in consumer projects', () => {
  it('the docs have the blocks', () => {
    expect(mswSetup).toMatch(/setupServer\(\.\.\.api\.handlers\)/);
    expect(mswSetup).toMatch(VITEST_IMPORT);
    expect(vitestConfig).toMatch(/setupFiles: \['\.\/test\/setup-api-mock\.ts'\]/);
    expect(messagesTest).toContain("from './setup-api-mock.js'");
    expect(clientExample).toContain("from 'numbers-api-contract/client'");
  });

  it.each(cells.map((c) => [name(c), c] as const))('%s', async (_name, cell) => {
    // Under jest the guide's set-up is the same without the vitest import (jest's globals); the
    // vitest config and test file are vitest's own.
    const setup = cell.runner === 'jest' ? mswSetup!.replace(VITEST_IMPORT, '') : mswSetup!;
    const vitestFiles: Record<string, string> = cell.runner === 'vitest' ? { 'vitest.config.ts': vitestConfig!, 'messages.test.ts': messagesTest! } : {};
    // Top-level await is ES module syntax: a CommonJS module under nodenext awaits in a function.
    const imports = clientExample!.split('\n').filter((line) => line.startsWith('import '));
    const body = clientExample!.split('\n').filter((line) => !line.startsWith('import ')).join('\n');
    const client = cell.format === 'cjs' && cell.resolution === 'nodenext' ? `${imports.join('\n')}\nexport async function example() {\n${body}}\n` : `${clientExample}\nexport {};\n`;
    expect(await compile(cell, { 'setup-api-mock.ts': setup, 'client-example.ts': client, ...vitestFiles })).toBe('');
  }, 120_000);
});

describe('the compiler settings the types guide states', () => {
  const code = (text: string) => /`([^`]+)`/.exec(text)?.[1];

  it('supported: exactly the module and moduleResolution of the matrix, for ES module and CommonJS projects', () => {
    const stated = guideTable(/These\s+`tsconfig\.json` settings compile it/).map(([project, module, resolution]) => `${/CommonJS/.test(project!) ? 'cjs' : 'esm'} ${code(module!)} ${code(resolution!)}`);
    const tested = [...new Set(cells.map((c) => `${c.format} ${moduleOf(c)} ${c.resolution}`))];
    expect(stated.sort()).toEqual(tested.sort());
  });

  // What the guide says does not work, tried as written: a CommonJS project with that `module`.
  const unsupported = guideTable(/Settings that do not work/).map(([setting, happens]) => ({ module: /^`module: (\w+)`/.exec(setting!)?.[1], error: /\((TS\d+)\)/.exec(happens!)?.[1] }));
  it('not supported: the guide names two settings, each with its TypeScript error', () => {
    expect(unsupported.map((u) => u.module)).toEqual(['commonjs', 'node16']);
    expect(unsupported.every((u) => u.error)).toBe(true);
  });
  it.each(unsupported.map((u) => [u.module!, u.error!]))('module %s in a CommonJS project fails with %s', async (module, error) => {
    const cell: Cell = { format: 'cjs', resolution: 'nodenext', skipLibCheck: true, runner: 'vitest', module };
    const imports = clientExample!.split('\n').filter((line) => line.startsWith('import ')).join('\n');
    const diagnostics = await compile(cell, { 'client-example.ts': `${imports}\nexport const used = [createClient, ApiError, isEventOfType, waitForEvent, verifySignature];\n` });
    expect(diagnostics).toContain(`error ${error}:`);
  }, 120_000);
});

describe('a CommonJS project runs the handlers and the client', () => {
  it("require('numbers-api-contract/msw') answers under require('msw/node')'s setupServer, one msw; require('numbers-api-contract/client') loads the ES module client", async () => {
    const dir = path.join(work, 'cjs-runtime');
    mkdirSync(dir);
    symlinkSync(modules, path.join(dir, 'node_modules'), 'dir');
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    writeFileSync(
      path.join(dir, 'handlers.js'),
      `const { setupServer } = require('msw/node');
const { createHandlers } = require('numbers-api-contract/msw');
const { createClient } = require('numbers-api-contract/client');
const api = createHandlers();
const server = setupServer(...api.handlers);
server.listen({ onUnhandledRequest: 'error' });
const client = createClient({ apiKey: 'sk_live_cjs_client', baseUrl: 'mock' });
Promise.all([fetch('http://127.0.0.1:4010/api/v1/account', { headers: { Authorization: 'Bearer sk_live_cjs' } }), client.GET('/api/v1/account')])
  .then(async ([answer, typed]) => console.log(JSON.stringify({ status: answer.status, keys: Object.keys(await answer.json()).includes('apiKeys'), client: typed.status })))
  .finally(() => { api.control.stop(); server.close(); });
`,
    );
    const { stdout } = await run(process.execPath, ['handlers.js'], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({ status: 200, keys: true, client: 200 });
  }, 60_000);
});

describe("the guide's vitest set-up runs in an ES module project", () => {
  // A test that imports `api` and never uses it: TypeScript (esbuild, under vitest) drops the
  // import. It reports who answered: MSW's in-process answer carries no `Date` header, while an
  // HTTP server's does (RFC 9110), so a mock someone runs on 127.0.0.1:4010 is told apart too.
  const unusedImport = `import { expect, it } from 'vitest';
import { createClient } from 'numbers-api-contract/client';
import { api } from './setup-api-mock.js';

it('reads the account', async () => {
  const client = createClient({ apiKey: 'sk_live_unused_import', baseUrl: 'mock', retry: false });
  let answeredBy: string;
  try {
    const { response } = await client.GET('/api/v1/account');
    answeredBy = response.headers.has('date') ? 'network' : 'in-process';
  } catch (error) {
    answeredBy = \`refused: \${String((error as { cause?: { code?: string } }).cause?.code ?? error)}\`;
  }
  console.log(\`answered by \${answeredBy}\`);
  expect(answeredBy).toBe('in-process');
});
`;

  /** The guide's files (and the unused import) in a fresh ES module project; vitest's output and exit code. */
  async function vitestIn(dir: string, config: string): Promise<{ code: number; out: string }> {
    mkdirSync(path.join(dir, 'test'), { recursive: true });
    symlinkSync(modules, path.join(dir, 'node_modules'), 'dir');
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(path.join(dir, 'vitest.config.ts'), config);
    writeFileSync(path.join(dir, 'test/setup-api-mock.ts'), mswSetup!);
    writeFileSync(path.join(dir, 'test/messages.test.ts'), messagesTest!);
    writeFileSync(path.join(dir, 'test/unused-import.test.ts'), unusedImport);
    // The enclosing vitest's variables would make this one think it is a worker of that run.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(VITEST|TEST$|NODE_OPTIONS$)/.test(key)));
    return run(process.execPath, [path.join(modules, 'vitest/vitest.mjs'), 'run', '--reporter=verbose', '--no-color'], { cwd: dir, env, timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, out: `${stdout}${stderr}` }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof error.code === 'number' ? error.code : 1, out: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
  }

  it('with the set-up in setupFiles, every test is answered in-process, the one that imports api unused too', async () => {
    const result = await vitestIn(path.join(work, 'vitest-setup-files'), vitestConfig!);
    expect(result.out).toMatch(/answered by in-process/);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toMatch(/Tests\s+3 passed/);
  }, 180_000);

  it('imported from the tests only (the set-up as the guide had it), the unused import leaves MSW unstarted and the request goes out', async () => {
    const result = await vitestIn(path.join(work, 'vitest-imported-only'), "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({});\n");
    expect(result.code).not.toBe(0);
    expect(result.out).toMatch(/answered by (refused: .*ECONNREFUSED|network)/);
    // The test that uses `api` still starts MSW for its own file.
    expect(result.out).toMatch(/Tests\s+1 failed \| 2 passed/);
  }, 180_000);
});
