// One step of a workflow as an HTTP exchange, for the players that send it with `fetch` (the
// suite's --workflows, the docs' "Run this workflow"): where each source description's operation
// lives (method, path, parameter locations, read once from the descriptions), the Fetch `Request`
// a runner's StepRequest makes, and the Answer read back from a `Response`. Browser-safe: no
// Node module, so the docs bundle it with the runner.
import { withoutPrototype } from '../contract/dict.js';
import { resolveRef, type JsonObject } from '../contract/json-pointer.js';
import type { Answer, RunnerOptions, StepRequest } from './arazzo-runner.js';

export interface OperationRoute {
  method: string;
  /** The path template, e.g. `/api/v1/numbers/{id}`. */
  path: string;
  /** Where each parameter goes, by name. */
  parameters: Array<{ name: string; in: string }>;
}

/** For each source description (by its Arazzo name): its operations, by operationId. */
export type OperationTable = Record<string, Record<string, OperationRoute>>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of each OpenAPI description given, by source name. */
export function operationTable(sources: Record<string, JsonObject>): OperationTable {
  const table: OperationTable = {};
  for (const [source, document] of Object.entries(sources)) {
    const operations: Record<string, OperationRoute> = (table[source] = {});
    for (const [path, item] of Object.entries((document.paths ?? {}) as JsonObject)) {
      const shared = ((item.parameters ?? []) as JsonObject[]).map((p) => resolveRef(document, p));
      for (const method of METHODS) {
        const operation = item[method] as JsonObject | undefined;
        if (!operation?.operationId) continue;
        const own = ((operation.parameters ?? []) as JsonObject[]).map((p) => resolveRef(document, p));
        const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own].map((p) => ({ name: String(p.name), in: String(p.in) }));
        operations[String(operation.operationId)] = { method, path, parameters };
      }
    }
  }
  return table;
}

/** Only the operations some of `workflows` name (what a docs page carries for its run). */
export function operationsUsed(table: OperationTable, steps: Array<{ source: string; operationId: string }>): OperationTable {
  const used: OperationTable = {};
  for (const { source, operationId } of steps) {
    const route = table[source]?.[operationId];
    if (route) (used[source] ??= {})[operationId] = route;
  }
  return used;
}

/** The runner's `operations` option from a table. */
export function runnerOperations(table: OperationTable): RunnerOptions['operations'] {
  return Object.fromEntries(Object.entries(table).map(([source, operations]) => [source, new Map(Object.entries(operations).map(([id, route]) => [id, { method: route.method, path: route.path }]))]));
}

/**
 * The URL of a request (a workflow's step, an MCP tool's call): the base URL's own path (if any)
 * before the operation's path, path parameters encoded, query parameters appended.
 */
export function stepUrl(baseUrl: string, route: Pick<OperationRoute, 'path' | 'parameters'>, values: Record<string, unknown>): URL {
  const path = route.path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(String(values[name] ?? '')));
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  url.hash = '';
  for (const parameter of route.parameters) {
    const value = values[parameter.name];
    if (parameter.in !== 'query' || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(parameter.name, typeof item === 'string' ? item : JSON.stringify(item));
  }
  return url;
}

/**
 * The Fetch request of one step: its URL, its header parameters, the step's own Authorization (or
 * none), and its JSON body. A control-surface step with no body still sends `{}` (the control
 * surface takes changes only as JSON, spec/mock-control.yaml).
 */
export function stepFetchRequest(baseUrl: string, route: OperationRoute, request: StepRequest, extraHeaders: Record<string, string> = {}): Request {
  const headers = new Headers({ accept: 'application/json', ...extraHeaders });
  if (request.authorization !== null) headers.set('authorization', request.authorization);
  for (const parameter of route.parameters) {
    const value = request.values[parameter.name];
    if (parameter.in === 'header' && value !== undefined) headers.set(parameter.name, String(value));
  }
  const write = route.method !== 'get' && route.method !== 'head';
  const body = request.body !== undefined ? JSON.stringify(request.body) : write && request.source === 'mockControl' ? '{}' : undefined;
  if (body !== undefined) headers.set('content-type', 'application/json');
  return new Request(stepUrl(baseUrl, route, request.values), { method: route.method.toUpperCase(), headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
}

/** An answer as the runner reads it: lower-case headers, the body parsed when it is JSON. */
export async function readAnswer(response: Response): Promise<Answer> {
  return answerOf(response, await response.text());
}

/** An answer from a response whose body text is already read (the MCP reads it up to a bound). */
export function answerOf(response: Response, text: string): Answer {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  let body: unknown = text === '' ? undefined : text;
  if (text !== '' && /\bjson\b/i.test(response.headers.get('content-type') ?? '')) {
    try {
      body = JSON.parse(text, withoutPrototype);
    } catch {
      // not JSON after all: kept as text
    }
  }
  return { status: response.status, headers, body };
}
