// Prism stays the reference for the stateful mock's gate (issue 20): one corpus of valid and
// invalid requests, built from the bundle for every operation (documented examples; each body
// property of the wrong type, out of its enum, missing when required; an unknown property; each
// query parameter of the wrong type, out of its enum, repeated, missing when required), goes to the
// real Prism (`prism mock`'s server, prism-child.ts, on the dereferenced bundle) and to the
// pipeline's ajv gate. Both must give the same verdict: accepted or refused, and, rendered in
// Prism's words (src/contract/prism-wording.ts, a rendering of the gate's structured verdicts),
// the same violations as the real Prism's `sl-violations`, place and message, word for word.
// Prism's own validator in-process (src/mock/prism-gate.ts, the bench's other option) is held to
// it too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedPath } from '../src/contract/generated-files.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { prismViolation } from '../src/contract/prism-wording.js';
import { prismGate } from '../src/mock/prism-gate.js';
import { startPrismPool, type PrismPool } from '../src/mock/prism-workers.js';
import { ajvGate, type Gate } from '../src/serve/gate.js';
import { readBody } from '../src/serve/request-body.js';
import type { SimRequest, Verdict as ContractVerdict } from '../src/simulator/types.js';
import { followRef, listOperations, loadOpenApi, type JsonObject, type OperationEntry } from './helpers/contract.js';
import { documentedRequest, VALID_KEY, type CorpusRequest } from './helpers/mock-server.js';

const document = loadOpenApi();
const validator = contractValidator(document);

/** A value of another JSON type than `schema` allows (or undefined when every type is allowed). */
function wrongTyped(schema: JsonObject): unknown {
  const types = [followRef(document, schema)?.type].flat().filter(Boolean) as string[];
  if (types.length === 0) return undefined;
  if (!types.includes('boolean')) return true;
  if (!types.includes('string')) return 'not-a-value-of-this-type';
  return 12345;
}

/** Every property schema of a body schema, through `allOf`/`oneOf`/`anyOf` branches. */
function bodyProperties(schema: JsonObject, found = new Map<string, JsonObject>()): Map<string, JsonObject> {
  const node = followRef(document, schema);
  if (!node || typeof node !== 'object') return found;
  for (const branch of [...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])]) bodyProperties(branch, found);
  for (const [name, property] of Object.entries<JsonObject>(node.properties ?? {})) if (!found.has(name)) found.set(name, property);
  return found;
}

const enumOf = (schema: JsonObject): unknown[] | undefined => followRef(document, schema)?.enum;

function corpusFor(entry: OperationEntry): CorpusRequest[] {
  const operationId = String(entry.operation.operationId);
  const requests: CorpusRequest[] = [];
  const base = documentedRequest(document, entry, VALID_KEY);
  const add = (name: string, change: Partial<CorpusRequest>) =>
    requests.push({ name: `${operationId}: ${name}`, operationId, method: base.method, url: base.url, headers: { ...base.headers }, body: base.body, ...change });
  add('the documented request', {});

  // Every named example of the JSON request body.
  const media = followRef(document, entry.operation.requestBody ?? null)?.content?.['application/json'];
  for (const [name, example] of Object.entries<JsonObject>(media?.examples ?? {})) add(`example ${name}`, { body: JSON.stringify(followRef(document, example).value) });

  if (media && base.json && typeof base.json === 'object' && !Array.isArray(base.json)) {
    const json = base.json as JsonObject;
    add('an empty object', { body: '{}' });
    add('an array instead of an object', { body: '[]' });
    add('an unknown property', { body: JSON.stringify({ ...json, zzUnknownField: 1 }) });
    for (const [property, schema] of bodyProperties(media.schema)) {
      const wrong = wrongTyped(schema);
      if (wrong !== undefined) add(`body ${property} of the wrong type`, { body: JSON.stringify({ ...json, [property]: wrong }) });
      if (enumOf(schema)) add(`body ${property} out of its enum`, { body: JSON.stringify({ ...json, [property]: 'zz-not-in-enum' }) });
      if (property in json) {
        const { [property]: _left, ...rest } = json;
        add(`body without ${property}`, { body: JSON.stringify(rest) });
      }
    }
  }

  // Query parameters: wrong type, out of enum, repeated, and a required one missing.
  const [path, query = ''] = base.url.split('?');
  const parameters = [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])].map((p: JsonObject) => followRef(document, p));
  for (const parameter of parameters.filter((p) => p.in === 'query')) {
    const withValue = (value: string, repeat = false) => {
      const params = new URLSearchParams(query);
      params.set(parameter.name, value);
      if (repeat) params.append(parameter.name, value);
      return `${path}?${params}`;
    };
    const schema = followRef(document, parameter.schema ?? {});
    const types = [schema.type].flat();
    if (types.includes('integer') || types.includes('number')) add(`query ${parameter.name} not a number`, { url: withValue('ten') });
    if (schema.enum) add(`query ${parameter.name} out of its enum`, { url: withValue('zz-not-in-enum') });
    if (schema.format === 'date-time') add(`query ${parameter.name} not a date-time`, { url: withValue('yesterday') });
    if (schema.pattern) add(`query ${parameter.name} not matching its pattern`, { url: withValue('12') });
    add(`query ${parameter.name} repeated`, { url: withValue(String(schema.examples?.[0] ?? schema.default ?? schema.enum?.[0] ?? 'x'), true) });
    if (parameter.required) {
      const params = new URLSearchParams(query);
      params.delete(parameter.name);
      add(`query ${parameter.name} missing`, { url: `${path}${params.size > 0 ? `?${params}` : ''}` });
    }
  }
  // Header parameters sent empty (Prism counts them as not sent).
  for (const parameter of parameters.filter((p) => p.in === 'header')) add(`header ${parameter.name} empty`, { headers: { ...base.headers, [parameter.name]: '' } });
  return requests;
}

const corpus = listOperations(document)
  .filter((entry) => !entry.path.startsWith('/__mock'))
  .flatMap(corpusFor);

/** Violations as Prism words and places them, each once, in one order (the order of ajv's errors is not a verdict). */
function worded(violations: ReadonlyArray<{ location: readonly string[]; message: string }>): string[] {
  return [...new Set(violations.map((v) => `${v.location.join('/')}: ${v.message}`))].sort();
}

/** The request as the HTTP transport hands it to the pipeline. */
async function asSimRequest(request: CorpusRequest): Promise<SimRequest> {
  const [pathname, query = ''] = request.url.split('?');
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  const sim: SimRequest = { method: request.method, pathname: pathname!, query: new URLSearchParams(query), headers, body: undefined, violations: [] };
  await readBody(sim, new TextEncoder().encode(request.body ?? ''), headers['content-type']);
  return sim;
}

interface Verdict {
  refused: boolean;
  violations: string[];
}

async function gateVerdict(gate: Gate, request: CorpusRequest): Promise<Verdict> {
  const verdicts: ContractVerdict[] = gate.check(request.operationId, await asSimRequest(request));
  return { refused: verdicts.length > 0, violations: worded(verdicts.map(prismViolation)) };
}

let prism: PrismPool;
let prismPort: number;
let inProcessPrism: Gate;
beforeAll(async () => {
  prism = startPrismPool({ document: generatedPath('openapi.dereferenced.json'), logLevel: 'silent', validateResponse: false }, 1);
  prismPort = (await prism.ready).prismPort;
  inProcessPrism = (await prismGate(generatedPath('openapi.dereferenced.json')))(validator);
});
afterAll(async () => {
  await prism?.stop();
});

/** The real Prism's verdict: its status says accepted or refused, its `sl-violations` header what failed. */
async function prismVerdict(request: CorpusRequest): Promise<Verdict & { status: number }> {
  const response = await fetch(`http://127.0.0.1:${prismPort}${request.url}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  // Where the operation documents no 400/422, Prism answers its own 422 problem, the violations in its body.
  const problem = response.headers.get('content-type')?.startsWith('application/problem+json') ? (JSON.parse(text) as { validation?: unknown[] }) : undefined;
  const header = response.headers.get('sl-violations');
  const reported = (problem?.validation ?? (header ? JSON.parse(header) : [])) as Array<{ location: string[]; severity: string; message: string }>;
  // The header places a request's violations under `request` (beside `response`); the problem body does not.
  const ofRequest = problem ? reported : reported.filter((v) => v.location[0] === 'request').map((v) => ({ ...v, location: v.location.slice(1) }));
  const errors = ofRequest.filter((v) => v.severity === 'Error');
  return { status: response.status, refused: response.status === 400 || response.status === 422, violations: worded(errors) };
}

describe('the ajv gate gives the real Prism’s verdict on every request of the corpus', () => {
  it('the corpus covers every operation, and breaks every JSON body and every query parameter', () => {
    const names = new Set(corpus.map((request) => request.name));
    for (const entry of listOperations(document)) {
      const operationId = String(entry.operation.operationId);
      expect(names).toContain(`${operationId}: the documented request`);
      if (followRef(document, entry.operation.requestBody ?? null)?.content?.['application/json']) expect(names).toContain(`${operationId}: an empty object`);
      for (const parameter of (entry.operation.parameters ?? []).map((p: JsonObject) => followRef(document, p)).filter((p: JsonObject) => p.in === 'query')) {
        expect(names).toContain(`${operationId}: query ${parameter.name} repeated`);
      }
    }
  });

  const ajv = ajvGate(validator);
  it.each(corpus.map((request) => [request.name, request] as const))('%s', async (_name, request) => {
    const reference = await prismVerdict(request);
    // Prism refuses what its validator refuses, with 400/422; a security or routing verdict is not the gate's.
    expect([200, 201, 400, 422], `Prism answered ${reference.status}`).toContain(reference.status);
    const fromAjv = await gateVerdict(ajv, request);
    expect(fromAjv).toEqual({ refused: reference.refused, violations: reference.violations });
    expect(await gateVerdict(inProcessPrism, request)).toEqual(fromAjv);
  });
});

describe('the comparison can fail', () => {
  it('a gate that accepts everything disagrees with Prism on a refused request', async () => {
    const refused = corpus.find((request) => request.name.endsWith('an empty object') && request.operationId === 'sendMessage')!;
    const reference = await prismVerdict(refused);
    expect(reference.refused).toBe(true);
    const lenient: Gate = { check: () => [] };
    expect(await gateVerdict(lenient, refused)).not.toEqual({ refused: reference.refused, violations: reference.violations });
  });
});
