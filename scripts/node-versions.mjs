#!/usr/bin/env node
// The Node versions this repository supports: exactly those CI runs (issue 26). `engines` of both
// packages, README's Set-up and docs/guides/installing.md say the same; test/node-versions.test.ts holds them to it.
// The machine's Node runs as it is; another line comes from the npm registry's `node` package (the
// binary ships inside it: nothing is downloaded from elsewhere), through npx's cache.
//
//   node scripts/node-versions.mjs list       # 20 22 24
//   node scripts/node-versions.mjs bin 22     # the directory of a Node 22 binary, for PATH
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Each supported line and the oldest release of it that is supported (what `engines` states). */
export const NODE_VERSIONS = [
  // End of life since April 2026, still the machine's Node; 20.19 is the first with require(esm)
  // unflagged, which @redocly/cli 2 and vitest 4 need.
  { major: 20, minimum: '20.19.0' },
  // 22.12: require(esm) unflagged, as on 20.19.
  { major: 22, minimum: '22.12.0' },
  { major: 24, minimum: '24.0.0' },
];

/** `engines.node` of both packages: every supported line from its minimum, and no other. */
export const ENGINES_NODE = NODE_VERSIONS.map((v) => `^${v.minimum}`).join(' || ');

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/**
 * The directory of a `node` binary of line `major`: this process's own when it is of that line,
 * otherwise the registry's `node@<major>` (the newest of the line), installed into npx's cache on
 * first use.
 */
export function nodeBinDir(major) {
  if (Number(process.versions.node.split('.')[0]) === Number(major)) return path.dirname(process.execPath);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const out = execFileSync(npx, ['--yes', '--package', `node@${major}`, '--call', 'node -p process.execPath'], { env, encoding: 'utf8' });
  const binary = out.trim().split('\n').pop();
  return path.dirname(binary);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, major] = process.argv.slice(2);
  if (command === 'list') console.log(NODE_VERSIONS.map((v) => v.major).join(' '));
  else if (command === 'bin' && NODE_VERSIONS.some((v) => String(v.major) === major)) console.log(nodeBinDir(major));
  else {
    console.error(`Usage: node scripts/node-versions.mjs list | bin <${NODE_VERSIONS.map((v) => v.major).join('|')}>`);
    process.exitCode = 2;
  }
}
