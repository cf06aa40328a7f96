// The numbers-api command's tarball leaves dist/generated out (packages/numbers-api/package.json):
// the command reads the contract from the numbers-api-contract dependency at run time. So no module
// the command compiles may import a value from generated/ (a type-only import is erased). Stop 42's
// CI failed on exactly this: the listening agent imported the events entry's `isEvent`, whose
// generated constants were missing from the installed command (ERR_MODULE_NOT_FOUND), and only the
// slow consumer matrix saw it. This check sees it in `npm test`, in a second, with esbuild's graph.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';

const packageDir = path.join(repoRoot, 'packages/numbers-api');

/** The entry files of the command's build: its tsconfig's `include` (a file, or a folder's every .ts). */
function commandEntries(): string[] {
  const text = readFileSync(path.join(packageDir, 'tsconfig.build.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '');
  const config = JSON.parse(text) as { include: string[] };
  const files: string[] = [];
  for (const pattern of config.include) {
    const absolute = path.resolve(packageDir, pattern);
    if (!absolute.includes('*')) {
      files.push(absolute);
      continue;
    }
    expect(absolute, 'an include this check reads').toMatch(/\/\*\*\/\*\.ts$/);
    const dir = absolute.slice(0, -'/**/*.ts'.length);
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.split(path.sep).includes('fixtures')) files.push(path.join(dir, file));
    }
  }
  return files;
}

/** Every value import of a generated/ module from the command's modules, as `what from where`. */
async function generatedValuesReached(entries: string[]): Promise<string[]> {
  const result = await build({
    entryPoints: entries,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    outdir: '/nonexistent',
    metafile: true,
    logLevel: 'silent',
  });
  const reached: string[] = [];
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (imported.path.startsWith('generated/') || imported.path.includes('/generated/')) reached.push(`${imported.path} from ${file}`);
    }
  }
  return [...new Set(reached)].sort();
}

describe('the numbers-api command imports no generated value (its tarball has none)', () => {
  it('no module of the command reaches generated/ at run time', async () => {
    const entries = commandEntries();
    expect(entries.some((file) => file.endsWith(path.join('bin', 'numbers-api.ts')))).toBe(true);
    expect(await generatedValuesReached(entries)).toEqual([]);
  });

  it('the check sees such an import (the events entry reaches generated/types/constants)', async () => {
    expect(await generatedValuesReached([path.join(repoRoot, 'src/events/guards.ts')])).toEqual([
      'generated/types/constants.ts from src/events/guards.ts',
    ]);
  });
});
