// README.md stays a README (issue 40): what the package is, the two set-up commands, the four uses
// each with a link to its guide, the command table, where things are; under 12 KB, as the READMEs
// of Prism, MSW, openapi-fetch or Redocly CLI are. The manual is in the guides it links, and every
// npm script a user can run is documented there or in the README itself.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeLinks } from '../scripts/readme-links.mjs';
import { repoRoot } from './helpers/contract.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const scripts = Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>);
const linked: string[] = relativeLinks(readme);
const manifest = (dir: string) => JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')) as { description: string; exports: Record<string, unknown> };

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

// What npm shows of each package before anything else: it says what the package holds today.
describe('the package descriptions', () => {
  // Each command of `numbers-api --help`, and the words its package's description names it by.
  const COMMANDS: Record<string, RegExp> = {
    mock: /\bstateful mock\b/,
    events: /\bevent source\b/,
    listen: /\blistening agent\b/,
    conformance: /\bconformance suite\b/,
    proxy: /\bvalidating proxy\b/,
    recordings: /\brecorder\b/,
    mcp: /\bMCP server\b/,
  };
  const help = execFileSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'bin/numbers-api.ts'), '--help'], { cwd: repoRoot, encoding: 'utf8' });
  const commands = [...new Set([...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!))];

  it('numbers-api: names every command of numbers-api --help, and is no longer "a Prism mock"', () => {
    expect(commands.length).toBeGreaterThan(5);
    const { description } = manifest('packages/numbers-api');
    for (const command of commands) {
      expect(COMMANDS[command], `a phrase for ${command}`).toBeDefined();
      expect(description, command).toMatch(COMMANDS[command]!);
    }
    expect(description).not.toMatch(/a Prism mock/);
  });

  // Each entry point of numbers-api-contract's exports, and the words its description names it by.
  const ENTRIES: Array<[RegExp, RegExp]> = [
    [/^\.$/, /\bTypeScript types\b/],
    [/^\.\/client$/, /\btyped client\b/],
    [/^\.\/events$/, /\bevent helpers\b/],
    [/^\.\/msw$/, /\bMSW handlers\b/],
    [/^\.\/(openapi|asyncapi)(\.dereferenced)?\.(json|yaml)$/, /\bOpenAPI 3\.1 and AsyncAPI 3\.0 descriptions\b/],
    [/^\.\/package\.json$/, /./],
  ];

  it('numbers-api-contract: names what each of its entry points holds, and where the tools are', () => {
    const { description, exports } = manifest('.');
    for (const entry of Object.keys(exports)) {
      const words = ENTRIES.find(([pattern]) => pattern.test(entry))?.[1];
      expect(words, `a phrase for ${entry}`).toBeDefined();
      expect(description, entry).toMatch(words!);
    }
    expect(description).toMatch(/\bare the numbers-api package\b/);
  });
});
