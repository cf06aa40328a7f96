// README.md stays a README (issue 40): what the package is, the two set-up commands, the four uses
// each with a link to its guide, the command table, where things are; under 12 KB, as the READMEs
// of Prism, MSW, openapi-fetch or Redocly CLI are. The manual is in the guides it links, and every
// npm script a user can run is documented there or in the README itself.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeLinks } from '../scripts/readme-links.mjs';
import { repoRoot } from './helpers/contract.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const scripts = Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>);
const linked: string[] = relativeLinks(readme);

describe('README.md', () => {
  it('is a README, not the manual: under 12 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(12 * 1024);
  });

  it('names the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it.each([
    ['the mock', 'docs/guides/mock.md'],
    ['conformance', 'conformance/README.md'],
    ['the docs', 'docs/guides/docs-site.md'],
    ['types and client', 'docs/guides/types-and-client.md'],
  ])('links the guide of %s (%s), a file that exists', (_use, guide) => {
    expect(linked).toContain(guide);
    expect(existsSync(path.join(repoRoot, guide)), guide).toBe(true);
  });

  it('links only files that exist', () => {
    for (const file of linked) expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
  });

  // `prepare` and `prepack` are npm's hooks, not commands a user runs.
  const guides = linked.filter((file) => file.endsWith('.md')).map((file) => [file, readFileSync(path.join(repoRoot, file), 'utf8')] as const);
  it.each(scripts.filter((name) => !['prepare', 'prepack'].includes(name)))('documents `npm %s`, in its command table or a guide it links', (name) => {
    const spelled = ['start', 'test'].includes(name) ? `\`npm ${name}\`` : `npm run ${name}`;
    const where = [['README.md', readme] as const, ...guides].filter(([, text]) => text.includes(spelled)).map(([file]) => file);
    expect(where, spelled).not.toEqual([]);
  });
});
