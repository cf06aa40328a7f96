// The contract as a validator, with ajv compiled from a bundled OpenAPI description: requests (for
// the in-process transport, which has no Prism, and for the mock's own control surface) and the
// answers the simulator composes (every one must validate; see `validateResponses`). Browser-safe.
import _Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import { pointerSegments, resolveRef, type JsonObject } from '../contract/json-pointer.js';
import type { SimContract } from './contract.js';
import type { SimRequest, SimResponse, Violation } from './types.js';

// CommonJS modules with a `default` export: under NodeNext the default import is the module object.
const Ajv2020 = ((_Ajv2020 as unknown as { default?: unknown }).default ?? _Ajv2020) as unknown as typeof _Ajv2020.default;
const addFormats = ((_addFormats as unknown as { default?: unknown }).default ?? _addFormats) as unknown as typeof _addFormats.default;

const COMPONENT = '#/components/schemas/';
/** The id each component schema is registered under in ajv (`<ID_PREFIX><name>`). */
export const ID_PREFIX = 'urn:numbers-api:schema:';

/** A schema with its `#/components/schemas/X` references turned into ajv ids (`<ID_PREFIX>X`). */
export function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!node || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node as JsonObject)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT) ? ID_PREFIX + value.slice(COMPONENT.length) : rewriteRefs(value);
  }
  return out;
}

function toViolations(where: string, errors: ErrorObject[] | null | undefined): Violation[] {
  return (errors ?? []).map((error) => {
    const path = pointerSegments(error.instancePath);
    const missing = error.keyword === 'required' ? String((error.params as JsonObject).missingProperty) : undefined;
    return { location: [where, ...path, ...(missing && path.length > 0 ? [missing] : [])], message: error.message ?? error.keyword };
  });
}

/** A query or header value as its schema's type wants it (everything arrives as a string). */
function coerce(schema: JsonObject | undefined, value: string): unknown {
  const types = [schema?.type].flat();
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * One way a value breaks a schema, as ajv reports it: the fields of ajv's `ErrorObject` this
 * package reads, written out so that the published declarations import nothing from ajv (bundled
 * into the msw entry, not a dependency of the package; issue 26).
 */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface ContractValidator {
  /** Every way `value` breaks `schema` (a node of the contract, its `$ref`s to components followed). */
  explain(schema: object, value: unknown): SchemaError[];
  /** What is wrong with the request against `operationId`'s parameters and JSON body. */
  request(operationId: string, request: SimRequest): Violation[];
  /** What is wrong with an answer against `operationId`'s documented status, headers and schema. */
  response(operationId: string, response: SimResponse): string[];
}

export function contractValidator(contract: SimContract): ContractValidator {
  const document = contract.document;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  for (const [name, schema] of Object.entries<JsonObject>(document.components?.schemas ?? {})) ajv.addSchema(rewriteRefs(schema) as JsonObject, ID_PREFIX + name);
  const cache = new Map<string, ValidateFunction | null>();
  const compiled = (key: string, schema: unknown): ValidateFunction | null => {
    if (!cache.has(key)) cache.set(key, schema === undefined ? null : ajv.compile(rewriteRefs(schema) as JsonObject));
    return cache.get(key)!;
  };

  const bySchema = new WeakMap<object, ValidateFunction>();
  return {
    explain(schema, value) {
      let validate = bySchema.get(schema);
      if (!validate) {
        validate = ajv.compile(rewriteRefs(schema) as JsonObject);
        bySchema.set(schema, validate);
      }
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
    request(operationId, request) {
      const operation = contract.operation(operationId);
      const violations: Violation[] = [];
      const parameters = [...(operation.parameters ?? [])].map((parameter: unknown) => resolveRef<JsonObject>(document, parameter));
      for (const parameter of parameters) {
        const where = parameter.in as string;
        if (where !== 'query' && where !== 'header') continue;
        const values = where === 'query' ? request.query.getAll(parameter.name) : [request.headers[String(parameter.name).toLowerCase()]].filter((v): v is string => v !== undefined);
        if (values.length === 0) {
          if (parameter.required) violations.push({ location: [where, parameter.name], message: `must have required ${where} parameter '${parameter.name}'` });
          continue;
        }
        const schema = resolveRef<JsonObject>(document, parameter.schema);
        const isArray = [schema?.type].flat().includes('array');
        // A parameter given more than once arrives as a list, which a scalar schema refuses by its
        // type, as Prism reads it (`?limit=2&limit=3`: "must be integer").
        const value = isArray ? values.map((v) => coerce(schema?.items, v)) : values.length > 1 ? values : coerce(schema, values[0]!);
        const validate = compiled(`${operationId}:${where}:${parameter.name}`, parameter.schema);
        if (validate && !validate(value)) violations.push(...toViolations(where, validate.errors).map((v) => ({ ...v, location: [where, parameter.name, ...v.location.slice(1)] })));
      }
      const requestBody = resolveRef<JsonObject | undefined>(document, operation.requestBody);
      // A multipart form is judged by the operation's `multipart/form-data` schema, its parts as
      // strings (a file part's bytes are not read: its schema is a string with a media type).
      const form = request.form ? requestBody?.content?.['multipart/form-data'] : undefined;
      const json = requestBody?.content?.['application/json'];
      if (form) {
        const parts = Object.fromEntries(Object.entries(request.form!).map(([name, part]) => [name, typeof part.value === 'string' ? part.value : (part.filename ?? '')]));
        const validate = compiled(`${operationId}:form`, form.schema);
        if (validate && !validate(parts)) violations.push(...toViolations('body', validate.errors));
      } else if (json) {
        if (request.body === undefined) {
          if (requestBody?.required) violations.push({ location: ['body'], message: 'must have a JSON body' });
        } else {
          const validate = compiled(`${operationId}:body`, json.schema);
          if (validate && !validate(request.body)) violations.push(...toViolations('body', validate.errors));
        }
      }
      return violations;
    },

    response(operationId, response) {
      const declared = resolveRef<JsonObject | undefined>(document, contract.operation(operationId).responses?.[String(response.status)]);
      if (!declared) return [`status ${response.status} is not documented for ${operationId}`];
      const problems: string[] = [];
      for (const [name, header] of Object.entries<JsonObject>(declared.headers ?? {})) {
        if (resolveRef<JsonObject>(document, header).required && response.headers?.[name] === undefined && response.headers?.[name.toLowerCase()] === undefined) {
          problems.push(`header ${name} is required on ${response.status}`);
        }
      }
      const schema = declared.content?.['application/json']?.schema;
      if (schema !== undefined) {
        const validate = compiled(`${operationId}:${response.status}:response`, schema)!;
        if (!validate(response.body)) problems.push(...(validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}`));
      }
      return problems;
    },
  };
}
