#!/usr/bin/env node
// `npm run guides`: rewrite the generated regions of docs/guides/*.md from the contract (see
// docs/build/guides.mjs), so that the Markdown reads right on GitHub and in the tarballs.
// `--check` changes nothing and exits 1 naming each guide whose regions are stale.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadContract, operationLinker, repoRoot } from '../docs/build/contract.mjs';
import { refreshGuideSource } from '../docs/build/guides.mjs';

export const guidesDir = path.join(repoRoot, 'docs/guides');

/** Each guide's file name, its committed source and its source with fresh regions. */
export function guideSources() {
  const contract = loadContract();
  const context = { ...contract, linkOperation: operationLinker(contract.openapi) };
  return readdirSync(guidesDir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((file) => {
      const source = readFileSync(path.join(guidesDir, file), 'utf8');
      return { file, source, fresh: refreshGuideSource(source, context, file) };
    });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const { file, source, fresh } of guideSources()) {
    if (fresh === source) continue;
    stale.push(file);
    if (!check) writeFileSync(path.join(guidesDir, file), fresh);
  }
  if (check && stale.length) {
    console.error(`guides: stale generated regions in ${stale.join(', ')}; run npm run guides`);
    process.exit(1);
  }
  console.log(stale.length ? `guides: ${check ? 'stale' : 'rewrote'} ${stale.join(', ')}` : 'guides: every generated region is current');
}
