// The rules of the contract a generator's output must keep (issue 18), as TypeScript a consumer
// would write against it, checked under `strict` by one compiler run for every tool:
//
//   examples     every documented JSON request example of every operation compiles (part 4);
//   exactlyOne   the six exactly-one violations of a message send do not compile (part 4.5);
//   narrowing    a documented event narrows by `type` to its own payload (part 6), and the two
//                outcomes of verify by `registrationId` (part 4.1);
//   enumLiterals the documented values of every value list are literal members of the type
//                (not collapsed into `string`, which loses them from completion);
//   enumOpen     a value list the contract keeps open (part 6, part 7: "not shown") accepts an
//                undocumented value;
//   typed        no `unknown` or `any` where the contract gives a type (each component schema and
//                each of its properties);
//   names        no generated name with a numeric suffix (a renamed clash or a numbered branch:
//                `Foo2`, orval's `…OneOfSix`);
//   generates / compiles  the tool runs, and what it wrote compiles.
//
// Every case is derived from the bundled description (examples, value lists, schemas); only the
// six violations and the narrowing probes are written here, each citing its part.
import path from 'node:path';
import ts from 'typescript';
import { resolveRef } from '../../src/contract/json-pointer.js';
import { type Generator, writtenBy } from './generators.js';
import type { JsonObject as Json } from '../../src/contract/json-pointer.js';


export const RULES = ['generates', 'compiles', 'examples', 'exactlyOne', 'narrowing', 'enumLiterals', 'enumOpen', 'typed', 'names'] as const;
export type Rule = (typeof RULES)[number];

/** One probe of a rule: lines of a fixture, and how to read the compiler's verdict on them. */
interface Case {
  rule: Rule;
  id: string;
  /** `compiles`: no diagnostic on its lines; `rejected`: its `@ts-expect-error` is used; `type`: its alias passes `check`. */
  kind: 'compiles' | 'rejected' | 'type';
  first: number;
  last: number;
  check?: (type: ts.Type, checker: ts.TypeChecker) => boolean;
}

/** A node with its local `$ref`s followed (the repository's one helper). */
const resolve = (doc: Json, node: Json | undefined): Json | undefined => resolveRef<Json | undefined>(doc, node);

/** `anyOf`/`oneOf` of `const`s, or `enum`, with or without one plain `type: string` branch (open). */
export function valueList(doc: Json, schema: Json | undefined): { values: string[]; open: boolean } | undefined {
  const s = resolve(doc, schema);
  if (!s) return undefined;
  if (Array.isArray(s.enum) && s.enum.every((v: unknown) => typeof v === 'string')) return { values: s.enum, open: false };
  for (const key of ['anyOf', 'oneOf']) {
    const branches: Json[] | undefined = s[key];
    if (!Array.isArray(branches)) continue;
    const values: string[] = [];
    let open = false;
    for (const branch of branches) {
      const b = resolve(doc, branch)!;
      if (typeof b.const === 'string') values.push(b.const);
      else if (Array.isArray(b.enum) && b.enum.every((v: unknown) => typeof v === 'string')) values.push(...b.enum);
      else if (b.type === 'string' && !b.pattern && !b.format && !('const' in b) && !b.enum) open = true;
      else return undefined;
    }
    if (values.length > 0) return { values, open };
  }
  return undefined;
}

/** Properties of a schema, merged through `allOf` (a property typed by any part is typed). */
function propertiesOf(doc: Json, schema: Json, depth = 0): Map<string, Json[]> {
  const found = new Map<string, Json[]>();
  const s = resolve(doc, schema);
  if (!s || depth > 10) return found;
  for (const [name, property] of Object.entries<Json>(s.properties ?? {})) found.set(name, [...(found.get(name) ?? []), property]);
  for (const part of s.allOf ?? []) for (const [name, list] of propertiesOf(doc, part, depth + 1)) found.set(name, [...(found.get(name) ?? []), ...list]);
  return found;
}

/** Whether a schema says what type its values have (so `unknown`/`any` would lose it). */
function isTyped(doc: Json, schema: Json | undefined): boolean {
  const s = resolve(doc, schema);
  if (!s || typeof s !== 'object') return false;
  return ['type', 'const', 'enum', 'properties', 'items'].some((k) => k in s) || ['allOf', 'anyOf', 'oneOf'].some((k) => (s[k] ?? []).some((b: Json) => isTyped(doc, b)));
}

const typeIsLoose = (type: ts.Type) => (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;

/** The string literal members of a type (after TypeScript's own reduction). */
function literalsOf(type: ts.Type): Set<string> {
  const members = type.isUnion() ? type.types : [type];
  return new Set(members.filter((t) => t.isStringLiteral()).map((t) => (t as ts.StringLiteralType).value));
}

/** The documented JSON request bodies of every operation, by `operationId` and example name. */
function requestExamples(doc: Json): { operationId: string; example: string; schema: string; value: unknown }[] {
  const found = [];
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      const media = resolve(doc, operation?.requestBody)?.content?.['application/json'];
      if (!media?.schema?.$ref) continue;
      const schema = media.schema.$ref.split('/').pop();
      for (const [example, ref] of Object.entries<Json>(media.examples ?? {})) found.push({ operationId: operation.operationId, example, schema, value: resolve(doc, ref)!.value });
    }
  }
  return found;
}

/**
 * The event union a consumer narrows: the documented events, discriminated by `type` (part 6).
 * (`AnyEvent` cannot narrow in TypeScript: its open member, `UnknownEvent`, has `type: string`,
 * which every literal matches.)
 */
export const EVENT_UNION = 'KnownEvent';

export interface Fixture {
  file: string;
  text: string;
  cases: Case[];
}

/** The fixture of one generator: every case of every rule, as TypeScript against its output. */
export function buildFixture(generator: Generator, doc: Json, dir: string): Fixture {
  const lines: string[] = [...generator.imports.split('\n'), ''];
  const cases: Case[] = [];
  const T = (name: string, side?: 'input' | 'output') => generator.schema(name, side);
  const add = (rule: Rule, id: string, kind: Case['kind'], text: string[], check?: Case['check']) => {
    cases.push({ rule, id, kind, first: lines.length, last: lines.length + text.length - 1, check });
    lines.push(...text);
  };
  const json = (v: unknown) => JSON.stringify(v);
  let n = 0;
  const name = () => `c${(n += 1)}`;

  // examples (part 4): each documented request body, typed as the operation's body schema.
  for (const { operationId, example, schema, value } of requestExamples(doc)) {
    add('examples', `${operationId}.${example}`, 'compiles', [`export const ${name()}: ${T(schema)} = ${json(value)};`]);
  }

  // exactlyOne (part 4.5): built from the documented sends, so each differs from a valid one by one rule.
  const sends = requestExamples(doc).filter((e) => e.operationId === 'sendMessage').map((e) => e.value as Json);
  const toNumber = sends.find((s) => s.to && s.fromNumberId)!;
  const { fromNumberId: _id, ...toWithoutSender } = toNumber;
  const groupId = sends.find((s) => s.groupId)!.groupId;
  const fromNumber = sends.find((s) => s.fromNumber)!.fromNumber;
  const violations: [string, Json][] = [
    ['toAndGroupId', { ...toNumber, groupId }],
    ['fromNumberAndFromNumberId', { ...toNumber, fromNumber }],
    ['toWithoutSender', toWithoutSender],
    ['neitherToNorGroupId', { fromNumberId: toNumber.fromNumberId, body: toNumber.body ?? 'Hi' }],
    ['toWithNullGroupId', { ...toNumber, groupId: null }],
    ['toAsNumber', { ...toNumber, to: 14155550123 }],
  ];
  for (const [id, body] of violations) add('exactlyOne', id, 'rejected', [`// @ts-expect-error ${id} (part 4.5)`, `export const ${name()}: ${T('SendMessageRequest')} = ${json(body)};`]);

  // narrowing (part 6): inside `if (e.type === ...)`, the payload of that type, typed.
  const union = T(EVENT_UNION, 'output');
  // Each probe reads a field of that type's payload as its type, and (so that `any` does not
  // pass) fails to read it as another.
  const probes: [string, string, string][] = [
    ['message.received', 'const v: string = e.data.messageId;', 'const w: number = e.data.messageId;'],
    ['call.status_changed', 'const v: string = e.data.status.state;', 'const w: number = e.data.status.state;'],
    ['webhook.ping', 'const v: null = e.relatedObject;', 'const w: string = e.relatedObject;'],
    ['message.status_changed', "const v: 'message.status_changed' = e.type;", "const w: 'webhook.ping' = e.type;"],
  ];
  for (const [type, probe, wrong] of probes) {
    add('narrowing', type, 'compiles', [
      `export function ${name()}(e: ${union}) { if (e.type === ${json(type)}) { ${probe}`,
      `// @ts-expect-error the narrowed payload is typed, not any`,
      `${wrong} return [v, w]; } return undefined; }`,
    ]);
  }
  add('narrowing', 'notAny', 'rejected', [`// @ts-expect-error without narrowing, data is not one type's payload`, `export function ${name()}(e: ${union}) { const v: string = e.data.messageId; return v; }`]);

  // narrowing (part 4.1: "if `registrationId` is present the flow is unfinished"): the verify
  // outcome narrows by that field's value, as docs/guides/getting-a-key.md tests it, to the key.
  add('narrowing', 'VerifyResponse', 'compiles', [
    `export function ${name()}(v: ${T('VerifyResponse', 'output')}) { if (typeof v.registrationId === 'string') { const id: string = v.registrationId; return id; } const key: string = v.apiKey;`,
    `// @ts-expect-error the narrowed key is typed, not any`,
    `const w: number = v.apiKey; return [key, w]; }`,
  ]);

  // enumLiterals / enumOpen: every value list of the contract, as a component or as a property.
  const lists: { id: string; expr: string; values: string[]; open: boolean }[] = [];
  for (const [schemaName, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    const own = valueList(doc, schema);
    if (own) lists.push({ id: schemaName, expr: T(schemaName, 'output'), ...own });
    for (const [property, definitions] of propertiesOf(doc, schema)) {
      const inline = definitions.map((d) => (d.$ref ? undefined : valueList(doc, d))).find(Boolean);
      if (inline) lists.push({ id: `${schemaName}.${property}`, expr: `Exclude<(${T(schemaName, 'output')})[${json(property)}], null | undefined>`, ...inline });
    }
  }
  for (const list of lists) {
    const alias = name();
    add('enumLiterals', list.id, 'type', [`export type ${alias} = ${list.expr};`], (type) => {
      const literals = literalsOf(type);
      return list.values.every((v) => literals.has(v));
    });
    if (list.open) add('enumOpen', list.id, 'compiles', [`export const ${name()}: ${list.expr} = 'an_undocumented_value';`]);
  }

  // typed: each component schema and each of its properties that the contract types.
  for (const [schemaName, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    if (!isTyped(doc, schema)) continue;
    const alias = name();
    add('typed', schemaName, 'type', [`export type ${alias} = ${T(schemaName, 'output')};`], (type) => !typeIsLoose(type));
    for (const [property, definitions] of propertiesOf(doc, schema)) {
      if (!definitions.some((d) => isTyped(doc, d))) continue;
      add('typed', `${schemaName}.${property}`, 'type', [`export type ${name()} = ${T(schemaName, 'output')};`], (type, checker) => {
        const members = type.isUnion() ? type.types : [type];
        const holders = members.map((m) => checker.getPropertyOfType(checker.getApparentType(m), property)).filter((p): p is ts.Symbol => Boolean(p));
        return holders.length > 0 && holders.every((p) => !typeIsLoose(checker.getTypeOfSymbol(p)));
      });
    }
  }

  const file = path.join(dir, `fixture-${generator.slug}.ts`);
  return { file, text: `${lines.join('\n')}\n`, cases };
}

const SPELLED = 'One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve|Thirteen|Fourteen|Fifteen|Sixteen|Seventeen|Eighteen|Nineteen|Twenty';
/** A generated name that numbers something: `Foo2`, `…OneOfSix`, but not a status-code type (`SendMessage201`). */
const NUMBERED = new RegExp(`(?:[^0-9][0-9]{1,2}|(?:${SPELLED}))$`);

/** Every exported declaration name of a file, namespace members included (typed-openapi's `Schemas.X`). */
export function exportedNames(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (statements: ts.NodeArray<ts.Statement>, exportedScope: boolean) => {
    for (const statement of statements) {
      const exported = exportedScope || (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword));
      if (!exported) continue;
      if (ts.isModuleDeclaration(statement) && statement.body && ts.isModuleBlock(statement.body)) visit(statement.body.statements, false);
      else if (ts.isVariableStatement(statement)) statement.declarationList.declarations.forEach((d) => ts.isIdentifier(d.name) && found.push(d.name.text));
      else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) found.push((statement.name as ts.Identifier).text);
    }
  };
  visit(source.statements, false);
  return found;
}

/** Names a generator numbered, the contract's own component names (`E164`) aside. */
export function numberedNames(names: string[], doc: Json): string[] {
  const components = new Set(Object.keys(doc.components?.schemas ?? {}));
  return [...new Set(names.filter((n) => NUMBERED.test(n) && !components.has(n)))].sort();
}

export type Verdicts = Record<Rule, { cases: number; failing: string[] }>;

/**
 * Compile every generator's output with its fixture in one program, and read each case's verdict.
 * `failures` holds the generators that did not run (every rule fails for them).
 */
export function judge(generators: Generator[], doc: Json, dir: string, failures: Map<string, string>, compilerOptions: ts.CompilerOptions): Map<string, Verdicts> {
  const fixtures = new Map<string, Fixture>();
  for (const g of generators) if (!failures.has(g.name)) fixtures.set(g.name, buildFixture(g, doc, dir));
  const files = [...fixtures.values()].map((f) => f.file);
  const host = ts.createCompilerHost(compilerOptions);
  const readFile = host.readFile.bind(host);
  const texts = new Map([...fixtures.values()].map((f) => [path.resolve(f.file), f.text]));
  host.readFile = (f) => texts.get(path.resolve(f)) ?? readFile(f);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => texts.has(path.resolve(f)) || fileExists(f);
  const program = ts.createProgram(files, compilerOptions, host);
  const checker = program.getTypeChecker();
  const diagnostics = ts.getPreEmitDiagnostics(program);

  const verdicts = new Map<string, Verdicts>();
  for (const g of generators) {
    const v = Object.fromEntries(RULES.map((r) => [r, { cases: 0, failing: [] as string[] }])) as Verdicts;
    verdicts.set(g.name, v);
    v.generates.cases = 1;
    if (failures.has(g.name)) {
      v.generates.failing.push(failures.get(g.name)!);
      continue;
    }
    const fixture = fixtures.get(g.name)!;
    const own = new Set(writtenBy(g, dir).map((f) => path.resolve(f)));
    const inOutput = diagnostics.filter((d) => d.file && own.has(path.resolve(d.file.fileName)));
    v.compiles.cases = 1;
    if (inOutput.length > 0) v.compiles.failing.push(ts.flattenDiagnosticMessageText(inOutput[0].messageText, ' ').slice(0, 200));
    const inFixture = diagnostics.filter((d) => d.file && path.resolve(d.file.fileName) === path.resolve(fixture.file));
    const source = program.getSourceFile(fixture.file)!;
    const lineOf = (d: ts.Diagnostic) => source.getLineAndCharacterOfPosition(d.start ?? 0).line;
    for (const c of fixture.cases) {
      v[c.rule].cases += 1;
      const errors = inFixture.filter((d) => lineOf(d) >= c.first && lineOf(d) <= c.last);
      let ok: boolean;
      if (c.kind === 'compiles') ok = errors.length === 0;
      else if (c.kind === 'rejected') ok = !errors.some((d) => d.code === 2578); // unused @ts-expect-error: it compiled
      else {
        const statement = source.statements.find((s) => ts.isTypeAliasDeclaration(s) && source.getLineAndCharacterOfPosition(s.getStart()).line === c.first) as ts.TypeAliasDeclaration;
        ok = errors.length === 0 && c.check!(checker.getTypeAtLocation(statement.name), checker);
      }
      if (!ok) v[c.rule].failing.push(c.id);
    }
    const names = writtenBy(g, dir).flatMap((f) => exportedNames(f, ts.sys.readFile(f) ?? ''));
    v.names.cases = 1;
    v.names.failing.push(...numberedNames(names, doc));
  }
  return verdicts;
}
