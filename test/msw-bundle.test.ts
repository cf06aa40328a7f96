// Browser-safe entries (issue 13): `numbers-api-contract/msw` and `numbers-api-contract/events`
// bundle with `esbuild --bundle --platform=browser`, and neither reaches a Node built-in, whether
// written `node:crypto` or `crypto`, in our code or in a dependency. (Before issue 13 the events
// entry failed: `Could not resolve "node:crypto"`, from verifySignature.)
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';

const BUILTINS = new Set(builtinModules.map((name) => name.replace(/^node:/, '')));

/** Bundles `entry` for the browser; resolves with the Node built-ins it imports (`what from where`). */
async function nodeBuiltinsReached(entry: { path: string } | { contents: string }): Promise<string[]> {
  const reached: string[] = [];
  const watch: Plugin = {
    name: 'node-builtins',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        const name = args.path.replace(/^node:/, '');
        if (args.path.startsWith('node:') || BUILTINS.has(name.split('/')[0]!)) {
          reached.push(`${args.path} from ${path.relative(repoRoot, args.importer)}`);
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
  await build({
    ...('path' in entry ? { entryPoints: [entry.path] } : { stdin: { contents: entry.contents, resolveDir: repoRoot, loader: 'ts' } }),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    plugins: [watch],
  });
  return reached;
}

describe('browser bundles of the MSW and events entries', () => {
  it('numbers-api-contract/events reaches no Node built-in', async () => {
    expect(await nodeBuiltinsReached({ path: path.join(repoRoot, 'src/events/index.ts') })).toEqual([]);
  });

  it('numbers-api-contract/msw (with msw itself) reaches no Node built-in', async () => {
    expect(await nodeBuiltinsReached({ path: path.join(repoRoot, 'src/msw/index.ts') })).toEqual([]);
  });

  it('the check sees a Node built-in, however it is written', async () => {
    const reached = await nodeBuiltinsReached({ contents: "import { createHmac } from 'node:crypto'; import fs from 'fs'; export { createHmac, fs };" });
    expect(reached.map((line) => line.split(' ')[0])).toEqual(['node:crypto', 'fs']);
  });
});
