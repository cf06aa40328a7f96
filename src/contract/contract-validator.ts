// The contract as a validator: the one ajv set-up of the package (the mock's gate, its
// composed-answer check, the conformance suite, the validating proxy and the tests all judge with
// it). The description is registered once, whole, under its own id, so any schema of it is
// compiled by its JSON pointer, once, and its `$ref`s resolve as written. Every break comes out as
// a Verdict (verdict.ts): ajv's keyword, params and instance path, with what the contract adds
// (where the rule lives, the component, the union branch judged, the part cited, documented or
// inferred, expected and actual). Browser-safe (the in-process mock bundles it).
import _Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import { documentedOnly } from './documented-only.js';
import { childPointer, escapePointerSegment, pointerOf as pointerOfSegments, pointerSegments, resolveRef, type JsonNode, type JsonObject } from './json-pointer.js';
import { listOperations } from './operations.js';
import { judgedBranch } from './union-branch.js';
import { actualOf, isUnionKeyword, ruleVerdict, type UnionBranch, type Verdict, type VerdictPlace } from './verdict.js';

// CommonJS modules with a `default` export: under NodeNext the default import is the module object.
const Ajv2020 = ((_Ajv2020 as unknown as { default?: unknown }).default ?? _Ajv2020) as unknown as typeof _Ajv2020.default;
const addFormats = ((_addFormats as unknown as { default?: unknown }).default ?? _addFormats) as unknown as typeof _addFormats.default;

/** The ids the description (as written, and its documented-only view) is registered under. */
const AS_WRITTEN = 'urn:numbers-api:contract';
const DOCUMENTED = 'urn:numbers-api:contract-documented';

/** A break of a self-contained schema, as ajv reports it. */
export interface SchemaBreak {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A compiled self-contained schema: whether a value holds, and the breaks of the last one that did not. */
export interface SchemaCheck {
  (value: unknown): boolean;
  errors?: SchemaBreak[] | null;
}

/** What jsonSchemaAjv gives: no ajv type, so none reaches a consumer's declarations. */
export interface SchemaCompiler {
  /** Compiles a schema (throws when `strict` and the schema is malformed or has an unknown keyword). */
  compile(schema: object): SchemaCheck;
  errorsText(errors?: SchemaBreak[] | null): string;
}

/**
 * An ajv for self-contained JSON Schema 2020-12 documents that are not the contract itself but
 * derived from it (the MCP tools' input schemas, a client's configuration file), formats checked;
 * `strict` refuses unknown keywords and malformed schemas, as a strict client does. Set up here so
 * the package has one ajv set-up.
 */
export function jsonSchemaAjv(options: { strict?: boolean } = {}): SchemaCompiler {
  const ajv = options.strict
    ? new Ajv2020({ strictSchema: true, strictTypes: false, strictRequired: false, strictTuples: false, validateSchema: true, allErrors: true })
    : new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv as unknown as SchemaCompiler;
}

/** What of a request the validator judges (a SimRequest is one). */
export interface JudgedRequest {
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body; undefined when none came. */
  body: unknown;
  /** The parts of a `multipart/form-data` body. */
  form?: Record<string, { value: string | Uint8Array; filename?: string }>;
}

/** What of an answer the validator judges. */
export interface JudgedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Where a judged value stands in the exchange, for the verdicts about it. */
export interface Place {
  of: Verdict['of'];
  in: VerdictPlace;
  parameter?: string;
  part?: string;
}

export interface ContractValidator {
  readonly document: JsonObject;
  /** What is wrong with a request against `operationId`'s parameters and body (query and header parameters; path parameters are the route's). */
  request(operationId: string, request: JudgedRequest): Verdict[];
  /** What is wrong with an answer against `operationId`'s documented statuses, required headers and JSON schema. */
  response(operationId: string, response: JudgedResponse): Verdict[];
  /**
   * What is wrong with `value` against the schema at `pointer` (`#/components/schemas/Error`,
   * `#/paths/~1api~1v1~1account/get/responses/200/content/application~1json/schema`). An answer's
   * (`of: 'response'`) verdicts are also judged against the documented-only view for their severity.
   */
  value(pointer: string, value: unknown, place?: Place): Verdict[];
  /** Whether `value` is valid against a schema of the description (a node of it, or its pointer); no verdict is made. */
  accepts(schema: object | string, value: unknown): boolean;
  /**
   * What is wrong with `value` against a schema of the caller's own whose `$ref`s name the
   * contract's (`#/components/schemas/Message`): the `--state` file's (src/store/state-schema.ts).
   * Compiled once per schema object.
   */
  outside(schema: object, value: unknown, place?: Place): Verdict[];
}

/** A JSON pointer as the fragment of a `$ref` to the registered description. */
function refTo(id: string, pointer: string): string {
  return `${id}#${pointerSegments(pointer)
    .map((segment) => `/${encodeURIComponent(escapePointerSegment(segment))}`)
    .join('')}`;
}

/** A schema of the caller's with its local `$ref`s pointed at the registered description. */
function rebased(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebased);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${AS_WRITTEN}${value}` : rebased(value)]));
}

/** A query or header value as its schema's type wants it (everything arrives as a string). */
function coerce(schema: JsonObject | undefined, value: string): unknown {
  const types = [schema?.type].flat();
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** A node and where it is, `$ref`s followed. */
function located(document: JsonObject, node: unknown, pointer: string): { node: JsonObject | undefined; pointer: string } {
  let current = node as JsonObject | undefined;
  let at = pointer;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string' && current.$ref.startsWith('#') && !seen.has(current.$ref)) {
    seen.add(current.$ref);
    at = current.$ref;
    current = resolveRef<JsonObject | undefined>(document, { $ref: current.$ref });
  }
  return { node: current, pointer: at };
}

interface ParameterPlan {
  name: string;
  in: 'query' | 'header';
  required: boolean;
  schema: JsonObject | undefined;
  /** Where the parameter object is, and its schema. */
  pointer: string;
  schemaPointer: string;
  isArray: boolean;
}

interface OperationPlan {
  pointer: string;
  part: string | undefined;
  parameters: ParameterPlan[];
  body?: { required: boolean; pointer: string; json?: string; form?: string };
  responses: JsonObject;
}

/** A key telling two judgements' breaks apart by what they are about, not by where the rule is written. */
function breakKey(error: ErrorObject): string {
  const keyword = isUnionKeyword(error.keyword) ? 'union' : error.keyword;
  const params = error.params as JsonObject;
  return `${error.instancePath}|${keyword}|${String(params.missingProperty ?? params.additionalProperty ?? '')}`;
}

export function contractValidator(document: JsonObject): ContractValidator {
  // strict: false because OpenAPI schemas carry `example`, `x-*` and other annotations; verbose
  // keeps each break's schema, parent schema and data, from which a verdict says where and what.
  // strictNumbers: JSON.parse reads `1e400` as Infinity, which no JSON answer or state file can
  // carry (it is written `null`): a number is a finite one, on every request, answer and state.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, verbose: true, strictNumbers: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: AS_WRITTEN });
  let documentedView: JsonObject | undefined;
  const outsiders = new WeakMap<object, ValidateFunction>();
  const compiled = new Map<string, ValidateFunction>();
  const compile = (id: string, pointer: string): ValidateFunction => {
    const key = `${id}${pointer}`;
    let validate = compiled.get(key);
    if (!validate) {
      if (id === DOCUMENTED && !documentedView) {
        documentedView = documentedOnly(document);
        ajv.addSchema({ ...documentedView, $id: DOCUMENTED });
      }
      validate = ajv.compile({ $ref: refTo(id, pointer) });
      compiled.set(key, validate);
    }
    return validate;
  };

  // Where each node of the description is, built the first time a break needs it.
  let pointers: WeakMap<object, string> | undefined;
  const pointerOf = (node: unknown): string | undefined => {
    if (!pointers) {
      const map = new WeakMap<object, string>();
      const walk = (value: unknown, pointer: string): void => {
        if (value === null || typeof value !== 'object' || map.has(value)) return;
        map.set(value, pointer);
        if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${pointer}/${i}`));
        else for (const [key, item] of Object.entries(value)) walk(item, childPointer(pointer, key));
      };
      walk(document, '#');
      pointers = map;
    }
    return node !== null && typeof node === 'object' ? pointers.get(node) : undefined;
  };

  // Whether a place of the description sits under an `x-inferred` marker (a marker covers what is written under it).
  const inferredAt = new Map<string, boolean>();
  const underMarker = (pointer: string): boolean => {
    let known = inferredAt.get(pointer);
    if (known === undefined) {
      let node: JsonNode = document;
      known = pointerSegments(pointer).some((segment) => {
        node = node?.[segment];
        return node?.['x-inferred'] === true;
      });
      inferredAt.set(pointer, known);
    }
    return known;
  };

  /** A required parameter or header that did not come, at the place of the contract that requires it. */
  const missing = (place: Place, name: string, pointer: string): Verdict =>
    ruleVerdict({ ...place, keyword: 'required', params: { missingProperty: name }, field: [name], schema: { pointer }, severity: underMarker(pointer) ? 'inferred' : 'documented', expected: true });

  const plans = new Map<string, OperationPlan>();
  const byId = new Map(listOperations(document).map((entry) => [String(entry.operation.operationId), entry]));
  const planOf = (operationId: string): OperationPlan => {
    let plan = plans.get(operationId);
    if (plan) return plan;
    const entry = byId.get(operationId);
    if (!entry) throw new Error(`The contract has no operation ${operationId}`);
    const parameters: ParameterPlan[] = [];
    const raw: Array<[unknown, string]> = [
      ...(entry.pathItem.parameters ?? []).map((p: unknown, i: number): [unknown, string] => [p, pointerOfSegments([entry.section, entry.path, 'parameters', i])]),
      ...(entry.operation.parameters ?? []).map((p: unknown, i: number): [unknown, string] => [p, childPointer(entry.pointer, 'parameters', i)]),
    ];
    for (const [node, at] of raw) {
      const { node: parameter, pointer } = located(document, node, at);
      if (!parameter || (parameter.in !== 'query' && parameter.in !== 'header')) continue;
      const schema = located(document, parameter.schema, childPointer(pointer, 'schema'));
      parameters.push({
        name: String(parameter.name),
        in: parameter.in,
        required: parameter.required === true,
        schema: schema.node,
        pointer,
        schemaPointer: childPointer(pointer, 'schema'),
        isArray: [schema.node?.type].flat().includes('array'),
      });
    }
    const body = located(document, entry.operation.requestBody, childPointer(entry.pointer, 'requestBody'));
    const content = body.node?.content ?? {};
    plan = {
      pointer: entry.pointer,
      part: typeof entry.operation['x-source'] === 'string' ? entry.operation['x-source'] : undefined,
      parameters,
      responses: entry.operation.responses ?? {},
      ...(body.node
        ? {
            body: {
              required: body.node.required === true,
              pointer: body.pointer,
              ...(content['application/json'] ? { json: childPointer(body.pointer, 'content', 'application/json', 'schema') } : {}),
              ...(content['multipart/form-data'] ? { form: childPointer(body.pointer, 'content', 'multipart/form-data', 'schema') } : {}),
            },
          }
        : {}),
    };
    plans.set(operationId, plan);
    return plan;
  };

  /** One ajv break as a verdict (its union branch and severity are settled by `verdictsOf`). */
  function verdictOf(error: ErrorObject, place: Place, fieldPrefix: readonly string[]): Verdict {
    const params = error.params as JsonObject;
    const named = error.keyword === 'required' || error.keyword === 'dependentRequired' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : undefined;
    const schemaPointer = pointerOf(error.parentSchema);
    const segments = schemaPointer ? pointerSegments(schemaPointer) : [];
    const component = segments[0] === 'components' && segments[1] === 'schemas' ? segments[2] : undefined;
    const errorMessage = (error.parentSchema as JsonObject | undefined)?.['x-error-message'];
    return {
      of: place.of,
      in: place.in,
      ...(place.parameter !== undefined ? { parameter: place.parameter } : {}),
      keyword: error.keyword,
      params,
      instancePath: error.instancePath,
      field: [...fieldPrefix, ...pointerSegments(error.instancePath), ...(named !== undefined ? [String(named)] : [])],
      ...(schemaPointer ? { schema: { pointer: schemaPointer, ...(component ? { component } : {}) } } : {}),
      judged: true,
      ...(place.part ? { part: place.part } : {}),
      severity: schemaPointer && underMarker(schemaPointer) ? 'inferred' : 'documented',
      expected: error.schema,
      actual: actualOf(error.data),
      ...(typeof errorMessage === 'string' ? { errorMessage } : {}),
      ...(error.message ? { ajvMessage: error.message } : {}),
    };
  }

  /**
   * The verdicts of a failed judgement, in ajv's order. A union's break comes right after the
   * breaks of its branches, branch by branch: each branch is judged alone (compiled once) to know
   * how many are its own, and the branch the value means is marked judged.
   */
  function verdictsOf(errors: readonly ErrorObject[], place: Place, fieldPrefix: readonly string[] = []): Verdict[] {
    const verdicts = errors.map((error) => verdictOf(error, place, fieldPrefix));
    // Each verdict's unions, innermost first.
    const ways: Array<Array<{ branch: UnionBranch; judged: boolean }>> = verdicts.map(() => []);
    errors.forEach((error, k) => {
      // A union outside the description (a caller's own schema) is not told apart by branch.
      const holder = isUnionKeyword(error.keyword) ? pointerOf(error.parentSchema) : undefined;
      if (holder === undefined) return;
      const union = childPointer(holder, error.keyword);
      const branches = (error.parentSchema as JsonObject)[error.keyword] as unknown[];
      const counts = branches.map((_, i) => {
        const validate = compile(AS_WRITTEN, `${union}/${i}`);
        return validate(error.data) ? 0 : (validate.errors?.length ?? 0);
      });
      const judged = judgedBranch(document, branches, error.data, counts);
      const choice = (index: number): UnionBranch => {
        const title = resolveRef<JsonObject | undefined>(document, branches[index])?.title;
        return { keyword: error.keyword as UnionBranch['keyword'], pointer: union, index, ...(typeof title === 'string' ? { title } : {}) };
      };
      let at = k - counts.reduce((sum, n) => sum + n, 0);
      counts.forEach((n, index) => {
        for (let i = 0; i < n && at >= 0; i++, at++) ways[at]!.push({ branch: choice(index), judged: index === judged });
      });
      ways[k]!.push({ branch: choice(judged), judged: true });
    });
    return verdicts.map((verdict, i) => {
      const way = ways[i]!;
      if (way.length === 0) return verdict;
      return { ...verdict, branch: way[way.length - 1]!.branch, judged: way.every((step) => step.judged) };
    });
  }

  /** An answer's verdicts, each `inferred` unless the documented-only view sees the same break. */
  function withSeverity(verdicts: Verdict[], errors: readonly ErrorObject[], pointer: string, value: unknown, place: Place): Verdict[] {
    const relaxed = compile(DOCUMENTED, pointer);
    if (relaxed(value)) return verdicts.map((verdict) => ({ ...verdict, severity: 'inferred' }));
    const seen = new Set((relaxed.errors ?? []).map(breakKey));
    const matched = new Set<string>();
    const out = verdicts.map((verdict, i) => {
      const key = breakKey(errors[i]!);
      if (verdict.severity === 'documented' && seen.has(key)) {
        matched.add(key);
        return verdict;
      }
      return { ...verdict, severity: 'inferred' as const };
    });
    // A documented break the strict judgement words otherwise: reported as the documented view gives it.
    for (const error of relaxed.errors ?? []) if (!matched.has(breakKey(error))) out.push({ ...verdictOf(error, place, []), severity: 'documented' });
    return out;
  }

  function judge(pointer: string, value: unknown, place: Place, fieldPrefix: readonly string[] = []): Verdict[] {
    const validate = compile(AS_WRITTEN, pointer);
    if (validate(value)) return [];
    const errors = [...(validate.errors ?? [])];
    const verdicts = verdictsOf(errors, place, fieldPrefix);
    return place.of === 'response' ? withSeverity(verdicts, errors, pointer, value, place) : verdicts;
  }

  return {
    document,

    request(operationId, request) {
      const plan = planOf(operationId);
      const verdicts: Verdict[] = [];
      for (const parameter of plan.parameters) {
        const values = parameter.in === 'query' ? request.query.getAll(parameter.name) : [request.headers[parameter.name.toLowerCase()]].filter((v): v is string => v !== undefined);
        const place: Place = { of: 'request', in: parameter.in, parameter: parameter.name, ...(plan.part ? { part: plan.part } : {}) };
        if (values.length === 0) {
          if (parameter.required) verdicts.push(missing(place, parameter.name, parameter.pointer));
          continue;
        }
        // A parameter given more than once arrives as a list, which a scalar schema refuses by its
        // type, as Prism reads it (`?limit=2&limit=3`: "must be integer").
        const value = parameter.isArray ? values.map((v) => coerce(parameter.schema?.items, v)) : values.length > 1 ? values : coerce(parameter.schema, values[0]!);
        if (parameter.schema === undefined) continue;
        const validate = compile(AS_WRITTEN, parameter.schemaPointer);
        if (!validate(value)) verdicts.push(...verdictsOf([...(validate.errors ?? [])], place, [parameter.name]));
      }
      const body = plan.body;
      if (!body) return verdicts;
      const place: Place = { of: 'request', in: 'body', ...(plan.part ? { part: plan.part } : {}) };
      // A multipart form is judged by the operation's `multipart/form-data` schema, its parts as
      // strings (a file part's bytes are not read: its schema is a string with a media type).
      if (request.form && body.form) {
        const parts = Object.fromEntries(Object.entries(request.form).map(([name, part]) => [name, typeof part.value === 'string' ? part.value : (part.filename ?? '')]));
        verdicts.push(...judge(body.form, parts, place));
      } else if (body.json) {
        if (request.body === undefined) {
          if (body.required) verdicts.push(ruleVerdict({ ...place, keyword: 'bodyRequired', schema: { pointer: body.pointer }, expected: true }));
        } else verdicts.push(...judge(body.json, request.body, place));
      }
      return verdicts;
    },

    response(operationId, response) {
      const plan = planOf(operationId);
      const part = plan.part ? { part: plan.part } : {};
      const at = childPointer(plan.pointer, 'responses', String(response.status));
      const { node: declared, pointer } = located(document, plan.responses[String(response.status)], at);
      if (!declared) {
        const documented = Object.keys(plan.responses);
        return [ruleVerdict({ of: 'response', in: 'status', keyword: 'status', params: { status: response.status, documented }, schema: { pointer: childPointer(plan.pointer, 'responses') }, ...part, expected: documented, actual: actualOf(response.status) })];
      }
      const verdicts: Verdict[] = [];
      for (const [name, raw] of Object.entries<unknown>(declared.headers ?? {})) {
        const header = located(document, raw, childPointer(pointer, 'headers', name));
        if (header.node?.required !== true || response.headers?.[name] !== undefined || response.headers?.[name.toLowerCase()] !== undefined) continue;
        verdicts.push(missing({ of: 'response', in: 'header', parameter: name, ...part }, name, header.pointer));
      }
      if (declared.content?.['application/json']?.schema !== undefined) {
        verdicts.push(...judge(childPointer(pointer, 'content', 'application/json', 'schema'), response.body, { of: 'response', in: 'body', ...part }));
      }
      return verdicts;
    },

    value: (pointer, value, place = { of: 'request', in: 'body' }) => judge(pointer, value, place),

    outside(schema, value, place = { of: 'request', in: 'body' }) {
      let validate = outsiders.get(schema);
      if (!validate) {
        validate = ajv.compile(rebased(schema) as object);
        outsiders.set(schema, validate);
      }
      return validate(value) ? [] : verdictsOf([...(validate.errors ?? [])], place);
    },

    accepts(schema, value) {
      const pointer = typeof schema === 'string' ? schema : pointerOf(schema);
      if (pointer === undefined) throw new Error('accepts: the schema is not a node of the contract');
      return compile(AS_WRITTEN, pointer)(value) === true;
    },
  };
}
