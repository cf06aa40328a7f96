#!/usr/bin/env node
// `prepack` of packages/numbers-api: copy the repository's README.md, LICENSE and CHANGELOG.md,
// and every file the README links to, into the package directory given, so that its tarball
// carries the same documents as numbers-api-contract's (one README describes both packages). The
// copies are gitignored there; the repository root holds the only source of each.
//
// Usage: node scripts/copy-package-docs.mjs <package-dir>

import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relativeLinks } from './readme-links.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The repository-relative files every published package carries. */
export function packageDocs() {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  return [...new Set(['README.md', 'LICENSE', 'CHANGELOG.md', ...relativeLinks(readme)])];
}

export function copyPackageDocs(destination) {
  const copied = [];
  for (const file of packageDocs()) {
    const target = path.join(destination, file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(path.join(repoRoot, file), target);
    copied.push(file);
  }
  return copied;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2];
  if (!destination) {
    process.stderr.write('Usage: node scripts/copy-package-docs.mjs <package-dir>\n');
    process.exit(2);
  }
  const copied = copyPackageDocs(path.resolve(destination));
  process.stdout.write(`copied ${copied.join(', ')} into ${destination}\n`);
}
