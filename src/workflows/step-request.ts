// Where each source description's operation lives (method, path, parameter locations, read once
// from the descriptions), for the players of workflows that send a runner's StepRequest as the
// package's one outgoing request (src/request/: `paramsOf` puts each value where its parameter
// goes): the suite's --workflows, the docs' "Run this workflow". Browser-safe: no Node module, so
// the docs bundle it with the runner.
import { listOperations, resolveRef, type JsonObject } from '../contract/operations.js';
import type { RunnerOptions } from './arazzo-runner.js';

export interface OperationRoute {
  method: string;
  /** The path template, e.g. `/api/v1/numbers/{id}`. */
  path: string;
  /** Where each parameter goes, by name. */
  parameters: Array<{ name: string; in: string }>;
}

/** For each source description (by its Arazzo name): its operations, by operationId. */
export type OperationTable = Record<string, Record<string, OperationRoute>>;

/** Every operation of each OpenAPI description given, by source name. */
export function operationTable(sources: Record<string, JsonObject>): OperationTable {
  const table: OperationTable = {};
  for (const [source, document] of Object.entries(sources)) {
    const operations: Record<string, OperationRoute> = (table[source] = {});
    const parametersOf = (item: JsonObject): JsonObject[] => ((item.parameters ?? []) as JsonObject[]).map((p) => resolveRef(document, p));
    for (const { method, path, operation, pathItem } of listOperations(document)) {
      if (!operation.operationId) continue;
      const own = parametersOf(operation);
      const parameters = [...parametersOf(pathItem).filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own].map((p) => ({ name: String(p.name), in: String(p.in) }));
      operations[String(operation.operationId)] = { method, path, parameters };
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
