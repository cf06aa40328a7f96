// One MCP tool per operation, generated from a bundled description at start (never hand-listed):
// the name is the operationId; the description the summary, the method and path, the parts of
// the interface specification it cites (`x-source`) and the operation's description; the input
// schema its parameters (by name) and its JSON request body (under `body`, as the contract gives
// it: a union stays a `oneOf` of its branches); the output schema its documented answers, each
// status with its body (an error status is a tool error carrying the contract's `Error`, so it is
// no part of the output schema, which a client holds every successful result to).
import { effectsOf, type Effects } from '../contract/effects.js';
import { listOperations, resolveRef, type JsonObject } from '../contract/operations.js';
import { schemaCollector, withDefs } from './tool-schema.js';

export type SourceName = 'numbersApi' | 'mockControl';

export interface ToolParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
}

/** What the MCP `tools/list` shows of a tool. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
}

export interface OperationTool {
  kind: 'operation';
  source: SourceName;
  operationId: string;
  method: string;
  path: string;
  parameters: ToolParameter[];
  /** The request body, when the operation takes a JSON one. */
  body?: { required: boolean };
  /** Header names each documented status answers with (`Retry-After` on a 429), lower case. */
  headersByStatus: Record<string, string[]>;
  /** What it does to the world (`x-effects`): the policy and the annotations read it. */
  effects: Effects;
  definition: ToolDefinition;
}

const JSON_MEDIA = 'application/json';

function jsonSchemaOf(content: unknown): unknown {
  const media = (content as JsonObject | undefined)?.[JSON_MEDIA];
  return media ? (media.schema ?? {}) : undefined;
}

/** The contract's description of an operation, for a reader that sees only the tool. */
function operationDescription(operation: JsonObject, method: string, path: string, effects: Effects): string {
  const source = operation['x-source'] ? String(operation['x-source']) : undefined;
  const cites = source ? `; interface specification ${source.includes(',') ? 'parts' : 'part'} ${source}` : '';
  const head = `${String(operation.summary ?? operation.operationId).replace(/\.$/, '')}. ${method.toUpperCase()} ${path}${cites}.`;
  const header = effects.idempotencyKey; // always sent (part 7.2, service.ts): a retry never repeats the effect
  const keyed = header && `This tool always sends an \`${header}\`: yours, or one made from the arguments (the same arguments on this server and target make the same key), returned as \`idempotencyKey\`. Calling it again with the same arguments replays the first answer (200) instead of doing it twice; to do it twice on purpose, pass a new \`${header}\`.`;
  return [head, String(operation.description ?? '').trim(), keyed].filter(Boolean).join('\n\n');
}

function inputSchemaOf(document: JsonObject, entry: { operation: JsonObject; pathItem: JsonObject }, parameters: Array<ToolParameter & { schema: JsonObject }>): { schema: JsonObject; body?: { required: boolean } } {
  const collector = schemaCollector(document);
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    properties[parameter.name] = collector.convert(parameter.schema);
    if (parameter.required) required.push(parameter.name);
  }
  let body: { required: boolean } | undefined;
  const requestBody = entry.operation.requestBody ? resolveRef(document, entry.operation.requestBody) : undefined;
  const bodySchema = jsonSchemaOf(requestBody?.content);
  if (bodySchema !== undefined) {
    body = { required: requestBody!.required === true };
    const converted = collector.convert(bodySchema);
    properties.body = requestBody!.description && !converted.description ? { ...converted, description: String(requestBody!.description).trim() } : converted;
    if (body.required) required.push('body');
  }
  return {
    schema: withDefs({ type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false }, collector),
    ...(body ? { body } : {}),
  };
}

/** Statuses grouped by the body schema they answer with, in status order. */
function groupStatuses(responses: Array<[string, JsonObject]>): Array<{ statuses: number[]; schema: unknown }> {
  const groups = new Map<string, { statuses: number[]; schema: unknown }>();
  for (const [status, response] of responses) {
    const schema = jsonSchemaOf(response.content);
    const key = JSON.stringify(schema ?? null);
    const group = groups.get(key) ?? { statuses: [], schema };
    group.statuses.push(Number(status));
    groups.set(key, group);
  }
  return [...groups.values()];
}

function outputSchemaOf(document: JsonObject, operation: JsonObject, effects: Effects): JsonObject {
  const collector = schemaCollector(document, { descriptions: false });
  const successes = Object.entries((operation.responses ?? {}) as JsonObject)
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([status, response]) => [status, resolveRef(document, response)] as [string, JsonObject])
    .sort(([a], [b]) => Number(a) - Number(b));
  const branches = groupStatuses(successes).map(({ statuses, schema }) => ({
    properties: { status: { enum: statuses }, ...(schema !== undefined ? { body: collector.convert(schema) } : {}) },
    required: schema !== undefined ? ['status', 'body'] : ['status'],
  }));
  const status = { type: 'integer', description: 'The HTTP status of the answer (a documented 2xx; any other comes back as a tool error carrying the contract\'s Error).' };
  const only = branches.length === 1 ? branches[0]! : undefined;
  const root: JsonObject = {
    type: 'object',
    properties: {
      ...(only ? { ...only.properties, status: { ...status, ...only.properties.status } } : { status, body: { description: 'The answer body.' } }),
      headers: { type: 'object', description: 'Response headers the contract documents for this status.', additionalProperties: { type: 'string' } },
      ...(effects.idempotencyKey ? { idempotencyKey: { type: 'string', description: `The ${effects.idempotencyKey} sent: pass it again to retry without repeating.` } } : {}),
    },
    required: only ? only.required : ['status'],
    ...(branches.length > 1 ? { oneOf: branches } : {}),
  };
  return withDefs(root, collector);
}

/** The MCP hints, from `x-effects` alone (spec/EXTENSIONS.md): part 7.4 makes no write idempotent but one with a key. */
export function annotationsOf(title: string, effects: Effects): JsonObject {
  return {
    title,
    readOnlyHint: !effects.changesState,
    ...(effects.changesState ? { destructiveHint: effects.deletes, idempotentHint: effects.idempotencyKey !== undefined } : {}),
    openWorldHint: effects.reachesPerson,
  };
}

/** Every operation of `document` as a tool, in document order. */
export function operationTools(document: JsonObject, source: SourceName): OperationTool[] {
  return listOperations(document).map((entry) => {
    const operationId = String(entry.operation.operationId);
    const parameters = [...((entry.pathItem.parameters ?? []) as unknown[]), ...((entry.operation.parameters ?? []) as unknown[])]
      .map((raw) => resolveRef(document, raw))
      .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
      .map((p) => ({
        name: String(p.name),
        in: p.in as ToolParameter['in'],
        required: p.in === 'path' || p.required === true,
        schema: p.description && !resolveRef(document, p.schema ?? {}).description ? { ...(p.schema ?? {}), description: String(p.description).trim() } : (p.schema ?? {}),
      }));
    const input = inputSchemaOf(document, entry, parameters);
    const effects = effectsOf(entry.operation);
    const headersByStatus = Object.fromEntries(
      Object.entries((entry.operation.responses ?? {}) as JsonObject).map(([status, response]) => [status, Object.keys(resolveRef(document, response).headers ?? {}).map((h) => h.toLowerCase())]),
    );
    return {
      kind: 'operation' as const,
      source,
      operationId,
      method: entry.method,
      path: entry.path,
      parameters: parameters.map(({ name, in: location, required }) => ({ name, in: location, required })),
      ...(input.body ? { body: input.body } : {}),
      headersByStatus,
      effects,
      definition: {
        name: operationId,
        title: String(entry.operation.summary ?? operationId),
        description: operationDescription(entry.operation, entry.method, entry.path, effects),
        inputSchema: input.schema,
        outputSchema: outputSchemaOf(document, entry.operation, effects),
        annotations: annotationsOf(String(entry.operation.summary ?? operationId), effects),
      },
    };
  });
}
