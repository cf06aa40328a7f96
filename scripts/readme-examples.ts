// Keeps README.md's table of mock example names current: the block between the two markers is
// generated from the bundled description by the mock's own listing (src/mock/example-names.ts),
// never written by hand. `npm run readme` rewrites it; test/readme.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOpenApi } from '../src/contract/generated-files.js';
import { listExampleNames, type OperationExamples } from '../src/mock/example-names.js';

export const START = '<!-- example-names:start (npm run readme) -->';
export const END = '<!-- example-names:end -->';
export const readmePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');

const code = (name: string): string => `\`${name}\``;

function row(operation: OperationExamples): string {
  const success = operation.responses.find((response) => response.status === operation.defaultStatus);
  const others = operation.responses
    .filter((response) => response !== success)
    .map((response) => `${response.status}: ${response.names.map(code).join(', ')}`);
  return `| \`${operation.method} ${operation.path}\` | ${success ? success.names.map(code).join(', ') : ''} | ${others.join('; ')} |`;
}

/** The generated block, markers included. */
export function exampleNamesBlock(): string {
  const lines = [
    START,
    '| Operation | Success examples (`Prefer: example=<name>`) | Other statuses (`Prefer: code=<status>, example=<name>`) |',
    '| --- | --- | --- |',
    ...listExampleNames(loadOpenApi()).map(row),
    END,
  ];
  return lines.join('\n');
}

/** README.md with its block replaced by the current one. */
export function renderReadme(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} ... ${END} block`);
  return readme.slice(0, start) + exampleNamesBlock() + readme.slice(end + END.length);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(readmePath, renderReadme(readFileSync(readmePath, 'utf8')));
  console.log('README.md: example names regenerated');
}
