// README.md stays current: its example-name table is the one the contract gives today, and every
// npm script a user can run is listed with what it does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readmePath, renderReadme } from '../scripts/readme-examples.js';

const readme = readFileSync(readmePath, 'utf8');
const scripts = Object.keys(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts);

describe('README.md', () => {
  it('lists the example names of the current contract (run `npm run readme` after a spec change)', () => {
    expect(readme).toBe(renderReadme(readme));
  });

  it('names the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  // `prepare` and `prepack` are npm's hooks, not commands a user runs.
  it.each(scripts.filter((name) => !['prepare', 'prepack'].includes(name)))('documents `npm %s`', (name) => {
    const spelled = ['start', 'test'].includes(name) ? `\`npm ${name}\`` : `npm run ${name}`;
    expect(readme).toContain(spelled);
  });
});
