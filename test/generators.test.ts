// The contract as the code generators API consumers run read it (issue 18): every generator of
// scripts/compat/generators.ts runs once on generated/openapi.json, one `tsc --strict` program
// judges what it wrote by the rules of scripts/compat/generator-rules.ts, and each tool must keep
// exactly what the table in docs/guides/tool-compatibility.md says it keeps: a rule a tool loses
// is an expected failure the table names with its reason, so the page cannot go stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Generator, GENERATORS, installedVersion } from '../scripts/compat/generators.js';
import { type MatrixRow, runGeneratorMatrix } from '../scripts/compat/generator-matrix.js';
import { type Rule } from '../scripts/compat/generator-rules.js';
import { matches, readTable } from '../scripts/compat/table.js';
import { loadAsyncApi, loadOpenApi, type JsonObject } from './helpers/contract.js';

const document = loadOpenApi();

/** The table's columns, and the rules each one holds. */
const COLUMNS: Record<string, Rule[]> = {
  'Runs and compiles': ['generates', 'compiles'],
  'Request examples': ['examples'],
  'Exactly one': ['exactlyOne'],
  'Unions narrow': ['narrowing'],
  Literals: ['enumLiterals'],
  Open: ['enumOpen'],
  Typed: ['typed'],
  Names: ['names'],
};

const table = readTable('Code generators');
let rows: MatrixRow[];

beforeAll(async () => {
  rows = await runGeneratorMatrix(document);
}, 240_000);

it('the table lists every generator once, at its installed version, with one column per rule', () => {
  expect(table.rows.map((r) => r.tool)).toEqual(GENERATORS.map((g) => g.name));
  expect(table.rows.map((r) => r.version)).toEqual(GENERATORS.map((g) => installedVersion(g.packageName)));
  expect(table.headers).toEqual(['Tool', 'Version', ...Object.keys(COLUMNS)]);
});

describe.each(GENERATORS.map((g) => g.name))('%s', (tool) => {
  it.each(Object.entries(COLUMNS))('%s: as the compatibility table says', (column, rules) => {
    const row = rows.find((r) => r.tool === tool)!;
    const expected = table.rows.find((r) => r.tool === tool)!.cells[column]!;
    const lost = rules.flatMap((rule) => row.verdicts[rule].failing);
    // A rule with no case at all would pass vacuously.
    expect(rules.reduce((n, rule) => n + row.verdicts[rule].cases, 0)).toBeGreaterThan(0);
    expect(matches(expected, lost), `table: "${expected.text}"\nobserved lost: ${JSON.stringify(lost)}`).toBe(true);
  });
});

it('the six exactly-one violations and every request example are probed, for every tool', () => {
  for (const row of rows) {
    expect(row.verdicts.exactlyOne.cases, row.tool).toBe(6);
    expect(row.verdicts.examples.cases, row.tool).toBeGreaterThanOrEqual(30);
  }
});

describe('each rule fails on output that breaks it', () => {
  // This package's own types keep every rule; each row breaks one, in the contract or in what
  // the generator wrote, and the matrix must then report exactly that case lost.
  const own = GENERATORS[0]!;
  const withOutput = (edit: (text: string) => string, name = own.name): Generator => ({
    ...own,
    name,
    async generate(doc, file, dir) {
      await own.generate(doc, file, dir);
      const out = path.join(dir, own.slug, 'index.ts');
      writeFileSync(out, edit(readFileSync(out, 'utf8')));
    },
  });
  const failing: Generator = { ...own, async generate() { throw new Error('the tool failed'); } };
  const cases: [Rule, string, (doc: JsonObject) => void, Generator][] = [
    ['generates', 'the tool failed', () => {}, failing],
    ['compiles', '', () => {}, withOutput((t) => `${t}\nexport const broken: number = 'text';\n`)],
    ['examples', 'sendMessage.oneToOneSms', (d) => {
      d.components.schemas.SendMessageContent.required = ['priority'];
      d.components.schemas.SendMessageContent.properties.priority = { type: 'string' };
    }, own],
    ['exactlyOne', 'toAndGroupId', (d) => (d.components.schemas.SendToGroup.allOf[1].properties.to = { $ref: '#/components/schemas/E164' }), own],
    // One member with an open `type` stays in every narrowed union: the others lose their payload.
    ['narrowing', 'call.status_changed', (d) => {
      const type = d.components.schemas.MessageReceivedEvent.allOf[1].properties.type;
      delete type.const;
      delete type.enum;
    }, own],
    // Without `registrationId` on SignedIn, the open outcome keeps the union from narrowing (part 4.1).
    ['narrowing', 'VerifyResponse', (d) => delete d.components.schemas.SignedIn.properties.registrationId, own],
    ['enumLiterals', 'ErrorCode', () => {}, withOutput((t) => t.replace('"tendlc_validation_failed" | ', ''))],
    ['enumOpen', 'ErrorCode', () => {}, withOutput((t) => t.replace(/(ErrorCode: [^;]*?) \| \(string & \{\}\);/, '$1;'))],
    ['typed', 'MessageReceivedData.messageId', () => {}, withOutput((t) => t.replace(/messageId: string;/g, 'messageId: unknown;'))],
    ['names', 'SendMessageRequestOneOfTwo', () => {}, withOutput((t) => `${t}\nexport type SendMessageRequestOneOfTwo = string;\n`)],
  ];
  it.each(cases)('%s: reports %s', async (rule, id, edit, generator) => {
    const doc = structuredClone(document);
    edit(doc);
    const [row] = await runGeneratorMatrix(doc, [generator]);
    expect(row!.verdicts[rule].failing.length).toBeGreaterThan(0);
    if (id) expect(row!.verdicts[rule].failing.some((f) => f.includes(id)), JSON.stringify(row!.verdicts[rule].failing)).toBe(true);
  }, 60_000);
});

describe('what generators are given', () => {
  const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
  const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
  const SCHEMA_SINGLES = ['items', 'not', 'contains', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems'];

  /** The pointers of the schemas of a document's components (inline subschemas included) that `where` holds for. */
  function schemasWhere(doc: JsonObject, where: (schema: JsonObject, pointer: string) => unknown): string[] {
    const found: string[] = [];
    const visit = (node: unknown, pointer: string) => {
      if (where(node as JsonObject, pointer)) found.push(pointer);
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
  ])('%s has no boolean subschema (additionalProperties: true/false aside): typed-openapi crashes on one, hey-api drops it, Redoc cannot render it', (_name, doc) => {
    const booleans = schemasWhere(doc as JsonObject, (node, pointer) => typeof node === 'boolean' && !pointer.endsWith('/additionalProperties'));
    expect(booleans).toEqual([]);
  });

  it('every object without listed properties or branches says whether it is open (additionalProperties) or empty (maxProperties: 0)', () => {
    const unsaid = schemasWhere(document, (s) => {
      const composed = s && typeof s === 'object' && ['allOf', 'anyOf', 'oneOf'].some((k) => k in s);
      return s && typeof s === 'object' && s.type === 'object' && !composed && !s.properties && !s.patternProperties && !('additionalProperties' in s) && s.maxProperties !== 0;
    });
    expect(unsaid).toEqual([]);
  });

  it('no union has fields beside it: renderers draw only the branches, some generators read only one of the two', () => {
    const beside = schemasWhere(document, (s) => s && typeof s === 'object' && (s.oneOf || s.anyOf) && s.properties);
    expect(beside).toEqual([]);
  });
});
