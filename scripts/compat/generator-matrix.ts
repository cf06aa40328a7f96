// Run every generator of ./generators.ts once on a bundled description and judge its output by
// the rules of ./generator-rules.ts. test/generators.test.ts holds the result to the table in
// docs/guides/tool-compatibility.md; run directly, this prints what it observed:
//
//   npx tsx scripts/compat/generator-matrix.ts [generated/openapi.json]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { CONSUMER_COMPILER_OPTIONS, type Generator, GENERATORS, installedVersion } from './generators.js';
import { judge, RULES, type Verdicts } from './generator-rules.js';
import type { JsonObject as Json } from '../../src/contract/json-pointer.js';


export interface MatrixRow {
  tool: string;
  version: string;
  verdicts: Verdicts;
}

/** Generate with every tool (one after the other: some share global state), then compile once. */
export async function runGeneratorMatrix(document: Json, generators: Generator[] = GENERATORS): Promise<MatrixRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'numbers-api-generators-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const failures = new Map<string, string>();
    for (const generator of generators) {
      try {
        // Each tool gets its own copy: some annotate the document they are given.
        await generator.generate(structuredClone(document), file, dir);
      } catch (error) {
        failures.set(generator.name, (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 200));
      }
    }
    const { options } = ts.convertCompilerOptionsFromJson(CONSUMER_COMPILER_OPTIONS, dir);
    const verdicts = judge(generators, document, dir, failures, options);
    return generators.map((g) => ({ tool: g.name, version: installedVersion(g.packageName), verdicts: verdicts.get(g.name)! }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per tool and rule: kept, or the failing cases. */
export function formatMatrix(rows: MatrixRow[]): string {
  return rows
    .flatMap((row) => [
      `${row.tool} ${row.version}`,
      ...RULES.map((rule) => {
        const { cases, failing } = row.verdicts[rule];
        return `  ${rule}: ${failing.length === 0 ? `kept (${cases})` : `lost ${failing.length}/${cases}: ${failing.join(', ')}`}`;
      }),
    ])
    .join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2] ?? 'generated/openapi.json';
  const started = Date.now();
  const rows = await runGeneratorMatrix(JSON.parse(readFileSync(file, 'utf8')));
  console.log(formatMatrix(rows));
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
