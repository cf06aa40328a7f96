// The contract as the code generators API consumers run read it (issue 15): openapi-typescript
// with its default options, @hey-api/openapi-ts (its TypeScript plugin) and typed-openapi each
// generate once from generated/openapi.json, then one tsc run type-checks what they wrote with a
// fixture per generator:
//   - every documented message send (the request examples of POST /api/v1/messages) compiles;
//   - `to` with `groupId`, and `fromNumber` with `fromNumberId`, do not (part 4.5), in every
//     generator that can express it (all three can, with the forms spec/ uses);
//   - a number where `to` needs a string does not, so the type is not `any`.
// It also fails on any generated name with a numeric suffix (a generator renaming a clash), on an
// object that a default openapi-typescript run closes (`Record<string, never>`) while the schema
// means it open, and on boolean subschemas (which typed-openapi crashes on, hey-api drops and
// Redoc cannot render).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { generateFile, mapOpenApiEndpoints } from 'typed-openapi';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRef, loadAsyncApi, loadOpenApi, repoRoot, type JsonObject } from './helpers/contract.js';

const run = promisify(execFile);
const document = loadOpenApi();

/** How each generator's SendMessageRequest type is named in what it wrote. */
const GENERATORS = {
  'openapi-typescript': { file: 'openapi-typescript.ts', import: `import type { components } from './openapi-typescript';`, type: `components['schemas']['SendMessageRequest']` },
  '@hey-api/openapi-ts': { file: 'hey-api/types.gen.ts', import: `import type { SendMessageRequest } from './hey-api/types.gen';`, type: 'SendMessageRequest' },
  'typed-openapi': { file: 'typed-openapi.ts', import: `import type { Schemas } from './typed-openapi';`, type: 'Schemas.SendMessageRequest' },
} as const;
type Generator = keyof typeof GENERATORS;
const names = Object.keys(GENERATORS) as Generator[];

let out: string;
const failures: Partial<Record<Generator, string>> = {};
let diagnostics: string[] = [];

async function generate(generator: Generator): Promise<void> {
  // Each generator gets its own copy of the bundle (some annotate what they are given).
  const input = structuredClone(document);
  if (generator === 'openapi-typescript') {
    writeFileSync(path.join(out, GENERATORS[generator].file), astToString(await openapiTS(input as OpenAPI3, { silent: true })));
  } else if (generator === '@hey-api/openapi-ts') {
    await createClient({ input, output: path.join(out, 'hey-api'), plugins: ['@hey-api/typescript'], logs: { level: 'silent' } });
  } else {
    writeFileSync(path.join(out, GENERATORS[generator].file), generateFile({ ...mapOpenApiEndpoints(input as Parameters<typeof mapOpenApiEndpoints>[0]), runtime: 'none' }));
  }
}

/** The documented request bodies of POST /api/v1/messages. */
function documentedSends(): JsonObject[] {
  const media = followRef(document, document.paths['/api/v1/messages'].post.requestBody).content['application/json'];
  return Object.values<JsonObject>(media.examples).map((example) => followRef(document, example).value);
}

const fixtureFile = (generator: Generator) => `fixture-${generator.replace(/\W/g, '')}.ts`;

function fixture(generator: Generator): string {
  const { import: importLine, type } = GENERATORS[generator];
  const sends = documentedSends();
  const toNumber = sends.find((s) => s.to && s.fromNumberId)!;
  const group = sends.find((s) => s.groupId)!;
  const fromNumber = sends.find((s) => s.fromNumber)!.fromNumber;
  const literal = (value: unknown) => JSON.stringify(value);
  return [
    importLine,
    `type Send = ${type};`,
    ...sends.map((body, i) => `export const documented${i}: Send = ${literal(body)};`),
    '// @ts-expect-error `to` with `groupId` (part 4.5)',
    `export const toAndGroup: Send = ${literal({ ...toNumber, groupId: group.groupId })};`,
    '// @ts-expect-error `fromNumber` with `fromNumberId` (part 4.5)',
    `export const twoSenders: Send = ${literal({ ...toNumber, fromNumber })};`,
    '// @ts-expect-error `to` must be a string: the type is not any',
    `export const notAny: Send = ${literal({ ...toNumber, to: 14155550123 })};`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), 'numbers-api-generators-'));
  for (const generator of names) {
    try {
      await generate(generator);
    } catch (error) {
      failures[generator] = error instanceof Error ? error.message : String(error);
    }
  }
  const fixtures = names.filter((g) => !failures[g]).map((g) => {
    writeFileSync(path.join(out, fixtureFile(g)), fixture(g));
    return fixtureFile(g);
  });
  writeFileSync(
    path.join(out, 'tsconfig.json'),
    JSON.stringify({
      // hey-api writes extensionless imports, as a bundler-resolved project has them.
      compilerOptions: { target: 'ES2022', lib: ['ES2022', 'DOM'], module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: true, types: [] },
      files: fixtures,
    }),
  );
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  diagnostics = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: out, maxBuffer: 16 * 1024 * 1024 }).then(
    () => [],
    (error: { stdout?: string }) => (error.stdout ?? 'tsc failed').split('\n').filter((line) => /error TS/.test(line)),
  );
}, 120_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Files a generator wrote (hey-api writes a directory). */
function writtenBy(generator: Generator): string[] {
  if (generator !== '@hey-api/openapi-ts') return [path.join(out, GENERATORS[generator].file)];
  return readdirSync(path.join(out, 'hey-api')).map((f) => path.join(out, 'hey-api', f));
}

/** The generator whose output or fixture a tsc diagnostic is about. */
function ownedBy(line: string): Generator | undefined {
  return names.find((g) => line.startsWith(fixtureFile(g)) || writtenBy(g).some((f) => line.startsWith(path.relative(out, f))));
}

/** Every exported declaration name of a file, namespace members included (typed-openapi's `Schemas.X`). */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (statements: ts.NodeArray<ts.Statement>) => {
    for (const statement of statements) {
      const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) continue;
      if (ts.isModuleDeclaration(statement) && statement.body && ts.isModuleBlock(statement.body)) visit(statement.body.statements);
      else if (ts.isVariableStatement(statement)) statement.declarationList.declarations.forEach((d) => ts.isIdentifier(d.name) && found.push(d.name.text));
      else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) found.push((statement.name as ts.Identifier).text);
    }
  };
  visit(source.statements);
  return found;
}

describe.each(names)('%s', (generator) => {
  it('generates from the bundle without failing', () => {
    expect(failures[generator]).toBeUndefined();
  });

  it('writes code that compiles, where every documented send compiles and `to` with `groupId` does not', () => {
    expect(failures[generator]).toBeUndefined();
    expect(diagnostics.filter((line) => ownedBy(line) === generator)).toEqual([]);
  });

  it('names nothing with a numeric suffix (no renamed clash)', () => {
    expect(failures[generator]).toBeUndefined();
    const components = new Set(Object.keys(document.components.schemas));
    // A name ending in digits is a generator's way out of a clash, unless the contract itself named it so (E164).
    const suffixed = writtenBy(generator).flatMap(exportedNames).filter((name) => /\d$/.test(name) && !components.has(name));
    expect(suffixed).toEqual([]);
  });
});

it('tsc reports nothing outside the generated files and fixtures', () => {
  expect(diagnostics.filter((line) => !ownedBy(line))).toEqual([]);
});

describe('what generators are given', () => {
  const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
  const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
  const SCHEMA_SINGLES = ['items', 'not', 'contains', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems'];

  /** Every schema object of a document's components (inline subschemas included), with its pointer. */
  function schemasOf(doc: JsonObject): [string, unknown][] {
    const found: [string, unknown][] = [];
    const visit = (node: unknown, pointer: string) => {
      found.push([pointer, node]);
      if (!node || typeof node !== 'object') return;
      const schema = node as JsonObject;
      for (const key of SCHEMA_MAPS) for (const [name, sub] of Object.entries<unknown>(schema[key] ?? {})) visit(sub, `${pointer}/${key}/${name}`);
      for (const key of SCHEMA_LISTS) (schema[key] ?? []).forEach((sub: unknown, i: number) => visit(sub, `${pointer}/${key}/${i}`));
      for (const key of [...SCHEMA_SINGLES, 'additionalProperties']) if (key in schema) visit(schema[key], `${pointer}/${key}`);
    };
    for (const [name, schema] of Object.entries<unknown>(doc.components?.schemas ?? {})) visit(schema, `#/components/schemas/${name}`);
    return found;
  }

  it.each([
    ['openapi.json', document],
    ['asyncapi.json', loadAsyncApi()],
  ])('%s has no boolean subschema (additionalProperties: true/false aside)', (_name, doc) => {
    const booleans = schemasOf(doc as JsonObject)
      .filter(([pointer, node]) => typeof node === 'boolean' && !pointer.endsWith('/additionalProperties'))
      .map(([pointer]) => pointer);
    expect(booleans).toEqual([]);
  });

  it('every object without listed properties says whether it is open (additionalProperties) or empty (maxProperties: 0)', () => {
    const unsaid = schemasOf(document)
      .filter(([, node]) => {
        const s = node as JsonObject;
        return s && typeof s === 'object' && s.type === 'object' && !s.properties && !s.patternProperties && !('additionalProperties' in s) && s.maxProperties !== 0;
      })
      .map(([pointer]) => pointer);
    expect(unsaid).toEqual([]);
  });

  it('openapi-typescript (defaults) closes only the objects the contract says are empty', () => {
    expect(failures['openapi-typescript']).toBeUndefined();
    const empty = schemasOf(document).filter(([, node]) => (node as JsonObject)?.maxProperties === 0).length;
    const closed = readFileSync(path.join(out, GENERATORS['openapi-typescript'].file), 'utf8')
      .split('\n')
      .filter((line) => line.includes('Record<string, never>') && !line.startsWith('export type $defs'));
    expect(closed.length, closed.join('\n')).toBe(empty);
  });
});
