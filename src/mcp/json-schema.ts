// One ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1 and of MCP's tool schemas, formats
// checked) for what the MCP server itself validates: the arguments of a tool called through the
// compact `call` tool, which no client checks against a schema it never listed, and the mock's
// announcement. Each schema is compiled once.
import { jsonSchemaAjv, type SchemaBreak, type SchemaCheck } from '../contract/contract-validator.js';
import type { JsonObject } from '../contract/json-pointer.js';

const ajv = jsonSchemaAjv();
const compiled = new WeakMap<object, SchemaCheck>();

/** The validator of a self-contained schema (a tool's `inputSchema`), compiled on first use. */
export function validatorOf(schema: JsonObject): SchemaCheck {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** ajv's errors as short lines (`/body/to must match pattern ...`), for a tool error. */
export function errorLines(errors: SchemaBreak[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '(the arguments)'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''}`);
}
