#!/usr/bin/env node
// `npm run guides`: rewrite the generated regions of docs/guides/*.md, and of the other Markdown
// files that have some (conformance/README.md's rule table), from the contract and the code (see
// docs/build/guides.mjs), so that the Markdown reads right on GitHub and in the tarballs.
// `--check` changes nothing and exits 1 naming each file whose regions are stale.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadContract, operationLinker, repoRoot } from '../docs/build/contract.mjs';
import { refreshGuideSource } from '../docs/build/guides.mjs';

export const guidesDir = path.join(repoRoot, 'docs/guides');

/** Each guide's file name, its committed source and its source with fresh regions. */
export function guideSources() {
  return regionSources(readdirSync(guidesDir).filter((f) => f.endsWith('.md')).sort(), guidesDir);
}

/** Markdown files outside docs/guides/ with generated regions, by path from the repository root. */
export const OTHER_REGION_FILES = ['conformance/README.md'];

export function otherRegionSources() {
  return regionSources(OTHER_REGION_FILES, repoRoot);
}

/** @param {string[]} files @param {string} dir */
function regionSources(files, dir) {
  const contract = loadContract();
  const context = { ...contract, linkOperation: operationLinker(contract.openapi) };
  return files.map((file) => {
    const source = readFileSync(path.join(dir, file), 'utf8');
    return { file, path: path.join(dir, file), source, fresh: refreshGuideSource(source, context, file) };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const { file, path: where, source, fresh } of [...guideSources(), ...otherRegionSources()]) {
    if (fresh === source) continue;
    stale.push(file);
    if (!check) writeFileSync(where, fresh);
  }
  if (check && stale.length) {
    console.error(`guides: stale generated regions in ${stale.join(', ')}; run npm run guides`);
    process.exit(1);
  }
  console.log(stale.length ? `guides: ${check ? 'stale' : 'rewrote'} ${stale.join(', ')}` : 'guides: every generated region is current');
}
