// Every "part N" citation of the repository can be followed (issue 20): the code, the tests, the
// contract, the scripts and the guides cite the interface specification by part and section
// ("part 4.5", "parts 3 and 7.2"); each cited part has its page (docs/guides/part-N.md, in the
// contract's own words) and each cited section an anchor on it. A citation of a part or section
// the specification does not have fails, naming the file and line.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorOf, citedNumbers, guideOf, interfaceParts } from '../docs/build/parts.mjs';
import { loadOpenApi, repoRoot } from './helpers/contract.js';

const SCANNED = /^(bin|src|conformance|spec|scripts|docs\/build|docs\/guides|test)\/|^(README|CHANGELOG)\.md$/;
const SKIPPED = /^test\/fixtures\/|^generated\//;

const files = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((file) => SCANNED.test(file) && !SKIPPED.test(file) && /\.(ts|mjs|js|md|yaml|json)$/.test(file));

interface Citation {
  number: string;
  where: string;
}

const citations: Citation[] = files.flatMap((file) =>
  readFileSync(path.join(repoRoot, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => citedNumbers(line).map((number) => ({ number, where: `${file}:${i + 1}` }))),
);

const pages = new Map<string, string>();
const pageOf = (number: string): string => {
  const guide = guideOf(number);
  if (!pages.has(guide)) {
    try {
      pages.set(guide, readFileSync(path.join(repoRoot, 'docs/guides', guide), 'utf8'));
    } catch {
      pages.set(guide, '');
    }
  }
  return pages.get(guide)!;
};

describe('every citation of the interface specification can be followed', () => {
  it('finds the citations of the whole repository (several hundred)', () => {
    expect(citations.length).toBeGreaterThan(500);
    expect(new Set(citations.map((c) => c.where.split(':')[0])).size).toBeGreaterThan(100);
  });

  it('each part and section cited is one the specification has (x-interface-specification)', () => {
    const known = new Set(interfaceParts(loadOpenApi()).flatMap((part: { number: string; sections?: Array<{ number: string }> }) => [part.number, ...(part.sections ?? []).map((s) => s.number)]));
    const unknown = citations.filter((c) => !known.has(c.number)).map((c) => `${c.where}: part ${c.number}`);
    expect(unknown).toEqual([]);
  });

  it('each lands on an anchor of its part’s page', () => {
    const unreachable = citations.filter((c) => !pageOf(c.number).includes(`id="${anchorOf(c.number)}"`)).map((c) => `${c.where}: part ${c.number} (${guideOf(c.number)}#${anchorOf(c.number)})`);
    expect(unreachable).toEqual([]);
  });

  it('a citation of a section the specification lacks would fail', () => {
    // Built at run time, so this file's own scan does not read the made-up section as a citation.
    const line = ['as part', '4.9 says, and parts 3 and 7.2'].join(' ');
    expect(citedNumbers(line)).toEqual(['4.9', '3', '7.2']);
    expect(pageOf('4.9').includes(`id="${anchorOf('4.9')}"`)).toBe(false);
    expect(citedNumbers('(part 4.5, 503)')).toEqual(['4.5']);
  });
});
