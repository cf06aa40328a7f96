// The Node versions README and the installing guide name are exactly those CI runs (issue 26): one
// list (scripts/node-versions.mjs) that `engines` of both packages, README's Set-up, the guide's
// "Node versions" and .ci/run follow,
// and a binary of each line that this machine can get from the npm registry.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES_NODE, NODE_VERSIONS, nodeBinDir } from '../scripts/node-versions.mjs';
import { repoRoot } from './helpers/contract.js';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const versions = NODE_VERSIONS as { major: number; minimum: string }[];
/** How README writes a line: its oldest supported release when that is not the line's first. */
const named = ({ major, minimum }: { major: number; minimum: string }) => (minimum === `${major}.0.0` ? `${major}` : `${minimum.replace(/\.0$/, '')}+`);

describe('supported Node versions', () => {
  it.each(['package.json', 'packages/numbers-api/package.json'])('%s: engines.node is every supported line and no other', (file) => {
    expect(JSON.parse(read(file)).engines.node).toBe(ENGINES_NODE);
    expect(ENGINES_NODE).toBe(versions.map((v) => `^${v.minimum}`).join(' || '));
  });

  /** The section of `text` under the heading `heading`, up to the next heading of its level. */
  const section = (text: string, heading: string) => {
    const start = text.indexOf(`\n${heading}\n`);
    expect(start, heading).toBeGreaterThanOrEqual(0);
    const end = text.indexOf('\n## ', start + heading.length + 1);
    return text.slice(start, end < 0 ? undefined : end);
  };
  const list = versions.map(named);
  const sentence = `${list.slice(0, -1).join(', ')} or ${list.at(-1)}`;
  const unclaimed = (text: string) => [...new Set([...text.matchAll(/\bNode (\d+)/g)].map((m) => Number(m[1])))].filter((major) => !versions.some((v) => v.major === major));

  it.each([
    ['README.md', '## Set-up', `On a fresh clone, with Node ${sentence}`],
    ['docs/guides/installing.md', '## A clone', `On a fresh clone, with Node ${sentence}`],
    ['docs/guides/installing.md', '## Node versions', `Supported: Node ${list.slice(0, -1).join(', ')} and ${list.at(-1)}`],
  ])("%s, %s, names exactly those lines, and the engines range", (file, heading, claim) => {
    const text = section(read(file), heading);
    expect(text).toContain(claim);
    if (heading !== '## A clone') expect(text).toContain(`\`${ENGINES_NODE}\``);
    // No other line claimed anywhere in the section.
    expect(unclaimed(text)).toEqual([]);
  });

  it('.ci/run runs npm test on every line of the list, each first on PATH', () => {
    const ci = read('.ci/run');
    expect(ci).toMatch(/for major in \$\(node scripts\/node-versions\.mjs list\); do/);
    expect(ci).toMatch(/bin="\$\(node scripts\/node-versions\.mjs bin "\$major"\)"/);
    expect(ci).toMatch(/PATH="\$bin:\$PATH" npm test\n/);
    const listed = execFileSync(process.execPath, [path.join(repoRoot, 'scripts/node-versions.mjs'), 'list'], { encoding: 'utf8' }).trim();
    expect(listed).toBe(versions.map((v) => v.major).join(' '));
  });

  it.each(versions.map((v) => [v.major, v] as const))('a Node %s binary comes from the npm registry (or is this one), at or above the supported minimum', (major, { minimum }) => {
    const binary = path.join(nodeBinDir(major), 'node');
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
    expect(Number(version.split('.')[0])).toBe(major);
    const parts = (v: string) => v.split('.').map(Number);
    const [a, b] = [parts(version), parts(minimum)];
    expect(a[1]! > b[1]! || (a[1] === b[1] && a[2]! >= b[2]!), `${version} >= ${minimum}`).toBe(true);
  }, 300_000);
});
