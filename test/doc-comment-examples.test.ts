// Every example in a doc comment of src/ (a ```ts block in a /** */ comment: what an editor shows
// on hover) compiles under `strict` as a user would paste it (issue 26), importing the package by
// its published names. Each block is its own module; one tsc program checks them all.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';
import { writeSourceConsumerProject } from '../scripts/consumer-tsconfig.mjs';

const run = promisify(execFile);
const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
const work = mkdtempSync(path.join(tmpdir(), 'doc-comment-examples-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Example = { where: string; code: string };

/** The ```ts blocks of the /** *\/ comments of `text`, their leading ` * ` removed. */
function examplesIn(file: string, text: string): Example[] {
  const found: Example[] = [];
  for (const comment of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    const body = comment[1]!.replace(/^[ \t]*\* ?/gm, '');
    for (const block of body.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, comment.index).split('\n').length;
      found.push({ where: `${file}:${line}`, code: block[1]! });
    }
  }
  return found;
}

const sources = (readdirSync(path.join(repoRoot, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
const examples = sources.flatMap((file) => examplesIn(`src/${file}`, readFileSync(path.join(repoRoot, 'src', file), 'utf8')));

/** tsc on each example as its own module, the package's entries mapped to src/; diagnostics per example ('' when it compiles). */
async function compile(list: Example[]): Promise<string[]> {
  const dir = mkdtempSync(path.join(work, 'run-'));
  const files = list.map((example, i) => {
    const file = `example-${i}.mts`;
    writeFileSync(path.join(dir, file), `${example.code}\nexport {};\n`);
    return file;
  });
  writeSourceConsumerProject(dir, repoRoot, { files });
  const out = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout || 'tsc failed',
  );
  // Only what is reported in the examples themselves (the package's own sources are checked by `npx tsc`).
  return files.map((file) => out.split('\n').filter((line) => line.startsWith(file)).join('\n'));
}

describe('doc-comment examples of src/', () => {
  it('there are some, on the entry points people call first', () => {
    const where = examples.map((e) => e.where.split(':')[0]);
    for (const file of ['src/client/index.ts', 'src/client/api-error.ts', 'src/events/verify-signature.ts']) expect(where).toContain(file);
  });

  // verifySignature's former example (process.env.X is string | undefined under strict), in the
  // same program: the check it shows failing is the one the examples pass.
  const former = `import { verifySignature } from 'numbers-api-contract/events';
declare const rawBody: string;
declare const req: { headers: Record<string, string | string[] | undefined> };
if (!(await verifySignature(rawBody, process.env.FANOUT_SECRET, req.headers['x-service-signature']))) throw new Error('bad signature');
`;
  let diagnostics: Promise<string[]> | undefined;
  const compiled = () => (diagnostics ??= compile([...examples, { where: 'former', code: former }]));

  it('each compiles under strict, as pasted', async () => {
    const found = await compiled();
    expect(examples.map((e, i) => [e.where, found[i]]).filter(([, d]) => d !== '')).toEqual([]);
  }, 120_000);

  it("would fail on verifySignature's former example (process.env.X is string | undefined under strict)", async () => {
    const found = await compiled();
    expect(found[examples.length]).toMatch(/TS2345: Argument of type 'string \| undefined' is not assignable to parameter of type 'string'/);
  }, 120_000);
});
