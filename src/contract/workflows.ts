// The contract's workflows (generated/workflows.arazzo.json, Arazzo 1.0.1) held to the
// descriptions they name: every step's operation exists in its source, every parameter is one the
// operation declares (and every required one is given, the key where the operation needs one,
// part 5.1), every request body field is in the request schema with literal values it accepts,
// and every value a step reads from an answer (`$response.body#/...` in a criterion or an output)
// is a field that answer's schema declares, for the statuses the step expects. Values carried
// between steps (`$steps.<id>.outputs.<name>`, `$inputs.<name>`, a child workflow's `$outputs`)
// must be defined where they are read. A renamed or removed field in the OpenAPI description
// makes the workflow that uses it fail here, by name and place. Pure and browser-safe: the
// sources are passed in, already parsed.
import { childPointer, pointerSegments, resolveRef, type JsonObject } from './json-pointer.js';
import { listOperations, needsApiKey } from './operations.js';
import { jsonType } from './verdict.js';
import { criterionExpressions, criterionType, ExpressionSyntaxError, expressionsIn, formatExpression, parseRuntimeExpression, statusesCompared, type Criterion, type RuntimeExpression } from './runtime-expression.js';

export interface WorkflowProblem {
  workflowId: string;
  stepId?: string;
  /** JSON pointer of the offending node in the Arazzo document. */
  where: string;
  message: string;
}

/** An operation of a source description, found by a step's `operationId`. */
export interface ResolvedOperation {
  source: string;
  operationId: string;
  method: string;
  path: string;
  operation: JsonObject;
  pathItem: JsonObject;
  document: JsonObject;
}

/** What `read` returns, or the words of the grammar's failure (a problem to report, not a crash). */
function readable<T>(read: () => T): T | string {
  try {
    return read();
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return error.message;
    throw error;
  }
}

/** Whether a payload value is (or embeds, or means to be) a runtime expression, so only the runner knows its value. */
function isExpression(value: unknown): boolean {
  const found = typeof value === 'string' ? readable(() => expressionsIn(value)) : [];
  return typeof found === 'string' || found.length > 0;
}

/** Finds `$sourceDescriptions.<source>.<operationId>` in the sources. */
export function resolveStepOperation(sources: Record<string, JsonObject>, operationId: string): ResolvedOperation | string {
  const named = readable(() => parseRuntimeExpression(operationId));
  if (typeof named === 'string') return `operationId ${named}`;
  if (named.root !== '$sourceDescriptions') return `operationId "${operationId}" must name its source: $sourceDescriptions.<source>.<operationId>`;
  return findOperation(sources, named.source, named.name) ?? `operationId "${operationId}": ${sources[named.source] ? `${named.source} has no operation ${named.name}` : `names the source "${named.source}", which is not a source description`}`;
}

/** Each description's operations by id, listed once (a recording turned into Arazzo looks one up per step). */
const operationsById = new WeakMap<JsonObject, Map<unknown, ReturnType<typeof listOperations>[number]>>();

/** The operation `operationId` of the source description `source`, if it has one. */
export function findOperation(sources: Record<string, JsonObject>, source: string, operationId: string): ResolvedOperation | undefined {
  const document = sources[source];
  let byId = document && operationsById.get(document);
  if (document && !byId) {
    byId = new Map();
    for (const entry of listOperations(document)) if (!byId.has(entry.operation.operationId)) byId.set(entry.operation.operationId, entry);
    operationsById.set(document, byId);
  }
  const found = byId?.get(operationId);
  return found && { source, operationId, method: found.method, path: found.path, operation: found.operation, pathItem: found.pathItem, document };
}

/** A schema and every alternative it is made of (`allOf`, `oneOf`, `anyOf`, `if`/`then`/`else`), `$ref`s followed. */
function alternatives(document: JsonObject, schema: unknown, seen = new Set<unknown>()): JsonObject[] {
  const node = resolveRef(document, schema);
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const out: JsonObject[] = [node];
  for (const key of ['allOf', 'oneOf', 'anyOf']) for (const member of (node[key] as unknown[]) ?? []) out.push(...alternatives(document, member, seen));
  for (const key of ['then', 'else']) if (node[key]) out.push(...alternatives(document, node[key], seen));
  return out;
}

/** The subschemas a pointer segment leads to from `schema`: a declared property, an array item, a declared map. */
function childSchemas(document: JsonObject, schema: unknown, segment: string): unknown[] {
  const out: unknown[] = [];
  for (const node of alternatives(document, schema)) {
    if (/^\d+$/.test(segment)) {
      if (Array.isArray(node.prefixItems) && node.prefixItems[Number(segment)]) out.push(node.prefixItems[Number(segment)]);
      if (node.items && typeof node.items === 'object') out.push(node.items);
    }
    if (node.properties && Object.hasOwn(node.properties, segment)) out.push(node.properties[segment]);
    for (const [pattern, sub] of Object.entries((node.patternProperties ?? {}) as JsonObject)) if (new RegExp(pattern).test(segment)) out.push(sub);
    // A map whose values have a schema of their own (`fieldErrors`): any key is a declared entry.
    if (node.additionalProperties && typeof node.additionalProperties === 'object') out.push(node.additionalProperties);
  }
  return out;
}

/** The subschemas (as written, `$ref`s and their siblings unresolved) that `pointer` (`/a/0/b`) leads to from `schema`. */
export function schemasAt(document: JsonObject, schema: unknown, pointer: string): unknown[] {
  let current: unknown[] = [schema];
  for (const segment of pointerSegments(pointer)) current = current.flatMap((node) => childSchemas(document, node, segment));
  return current;
}

/** Whether a literal value fits a schema's `type`, `enum` and `const` (in at least one alternative that says). */
function literalFits(document: JsonObject, schema: unknown, value: unknown): boolean {
  const nodes = alternatives(document, schema).filter((n) => 'type' in n || 'enum' in n || 'const' in n);
  if (nodes.length === 0) return true;
  const actual = jsonType(value);
  return nodes.some(
    (n) =>
      (!('type' in n) || [n.type].flat().some((t) => t === actual || (t === 'number' && actual === 'integer'))) &&
      (!('enum' in n) || (n.enum as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))) &&
      (!('const' in n) || JSON.stringify(n.const) === JSON.stringify(value)),
  );
}

/** Required fields `keys` leaves out: the schema's own and its `allOf`'s; of a `oneOf`/`anyOf`, the branch missing least. */
function missingRequired(document: JsonObject, schema: unknown, keys: Set<string>): string[] {
  const node = resolveRef(document, schema);
  if (!node || typeof node !== 'object') return [];
  const missing = ((node.required ?? []) as string[]).filter((k) => !keys.has(k));
  for (const member of (node.allOf ?? []) as unknown[]) missing.push(...missingRequired(document, member, keys));
  for (const key of ['oneOf', 'anyOf']) {
    const options = ((node[key] ?? []) as unknown[]).map((member) => missingRequired(document, member, keys));
    if (options.length > 0 && !options.some((o) => o.length === 0)) missing.push(...options.sort((a, b) => a.length - b.length)[0]!);
  }
  return [...new Set(missing)];
}

/** Problems of a request payload against a request schema: unknown fields, missing required ones, literals it refuses. */
function payloadProblems(document: JsonObject, schema: unknown, payload: unknown, at: string): string[] {
  if (isExpression(payload)) return [];
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const problems: string[] = [];
    const keys = new Set(Object.keys(payload));
    for (const [key, value] of Object.entries(payload)) {
      const children = childSchemas(document, schema, key);
      if (children.length === 0) {
        problems.push(`sends \`${at}${key}\`, which the request schema does not declare`);
        continue;
      }
      if (!children.some((child) => payloadProblems(document, child, value, `${at}${key}.`).length === 0)) {
        problems.push(...payloadProblems(document, children[0], value, `${at}${key}.`));
      }
    }
    for (const key of missingRequired(document, schema, keys)) problems.push(`leaves out \`${at}${key}\`, which the request schema requires`);
    return problems;
  }
  if (Array.isArray(payload)) {
    return payload.flatMap((item, i) => {
      const children = childSchemas(document, schema, String(i));
      return children.length === 0 ? [`sends \`${at}${i}\`, which the request schema does not declare`] : payloadProblems(document, children[0], item, `${at}${i}.`);
    });
  }
  return literalFits(document, schema, payload) ? [] : [`sends ${JSON.stringify(payload)} as \`${at.replace(/\.$/, '')}\`, which its schema refuses`];
}

/** The statuses a step expects: those its criteria compare `$statusCode` with, else the operation's 2xx. */
function expectedStatuses(step: JsonObject, operation: JsonObject): string[] {
  const named = new Set<string>();
  for (const criterion of (step.successCriteria ?? []) as Criterion[]) {
    const statuses = criterionType(criterion) === 'simple' ? readable(() => statusesCompared(criterion.condition)) : [];
    if (typeof statuses !== 'string') for (const status of statuses) named.add(String(status));
  }
  return named.size > 0 ? [...named] : Object.keys(operation.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
}

function responseSchemas(op: ResolvedOperation, status: string): unknown[] {
  const response = resolveRef(op.document, op.operation.responses?.[status]);
  return Object.values((response?.content ?? {}) as JsonObject).map((media) => (media as JsonObject).schema).filter(Boolean);
}

function declaredParameters(op: ResolvedOperation): JsonObject[] {
  return [...((op.pathItem.parameters ?? []) as unknown[]), ...((op.operation.parameters ?? []) as unknown[])].map((p) => resolveRef(op.document, p));
}

interface Context {
  arazzo: JsonObject;
  sources: Record<string, JsonObject>;
  problems: WorkflowProblem[];
}

/** A step parameter with `reference: $components.parameters.<name>` replaced by that component (its `value` overriding). */
function resolveParameter(arazzo: JsonObject, parameter: JsonObject): JsonObject | string {
  if (typeof parameter.reference !== 'string') return parameter;
  const named = readable(() => parseRuntimeExpression(parameter.reference));
  if (typeof named === 'string') return `refers to ${named}`;
  const target = named.root === '$components' && named.part === 'parameters' ? arazzo.components?.parameters?.[named.name] : undefined;
  if (!target) return `refers to ${parameter.reference}, which components.parameters does not define`;
  return { ...target, ...('value' in parameter ? { value: parameter.value } : {}) };
}

function workflowInputs(arazzo: JsonObject, workflow: JsonObject): JsonObject {
  return resolveRef(arazzo, workflow.inputs) ?? {};
}

/** Checks one runtime expression where it is read: what it names exists there. */
function checkExpression(ctx: Context, e: RuntimeExpression, scope: { workflow: JsonObject; stepIndex: number; op?: ResolvedOperation; step?: JsonObject; child?: JsonObject }): string | undefined {
  const { workflow, stepIndex, op, step, child } = scope;
  const steps = (workflow.steps ?? []) as JsonObject[];
  const text = formatExpression(e);
  if (e.root === '$inputs') return Object.hasOwn(workflowInputs(ctx.arazzo, workflow).properties ?? {}, e.name) ? undefined : `reads ${text}, which the workflow's inputs do not declare`;
  if (e.root === '$steps') {
    const index = steps.findIndex((s) => s.stepId === e.stepId);
    if (index < 0) return `reads ${text}: the workflow has no step ${e.stepId}`;
    if (index >= stepIndex) return `reads ${text} before step ${e.stepId} has run`;
    return Object.hasOwn(steps[index]!.outputs ?? {}, e.name) ? undefined : `reads ${text}, which step ${e.stepId} does not output`;
  }
  if (e.root === '$outputs') {
    if (!child) return `reads ${text} outside a step that runs a workflow`;
    return Object.hasOwn(child.outputs ?? {}, e.name) ? undefined : `reads ${text}, which workflow ${child.workflowId} does not output`;
  }
  if (e.root === '$workflows') {
    const target = ((ctx.arazzo.workflows ?? []) as JsonObject[]).find((w) => w.workflowId === e.workflowId);
    const names = e.part === 'inputs' ? workflowInputs(ctx.arazzo, target ?? {}).properties : target?.outputs;
    return Object.hasOwn(names ?? {}, e.name) ? undefined : `reads ${text}, which ${target ? `workflow ${e.workflowId} does not ${e.part === 'inputs' ? 'take' : 'output'}` : 'names no workflow of the document'}`;
  }
  if (e.root === '$components') return Object.hasOwn(ctx.arazzo.components?.[e.part] ?? {}, e.name) ? undefined : `reads ${text}, which components.${e.part} does not define`;
  if (e.root === '$sourceDescriptions') return ctx.sources[e.source] ? undefined : `reads ${text}, which names no source description`;
  if (e.root !== '$response') return undefined;
  if (!op || !step) return `reads ${text} outside an operation step`;
  const statuses = expectedStatuses(step, op.operation);
  if (e.part === 'header') {
    const declared = statuses.some((status) => Object.keys(resolveRef(op.document, op.operation.responses?.[status])?.headers ?? {}).some((h) => h.toLowerCase() === e.name.toLowerCase()));
    return declared ? undefined : `reads ${text}, a header the answer of ${op.operationId} does not declare`;
  }
  if (e.part !== 'body') return `reads ${text}, which an answer does not have`;
  if (!e.pointer || e.pointer === '/') return undefined;
  const declared = statuses.some((status) => responseSchemas(op, status).some((schema) => schemasAt(op.document, schema, e.pointer!).length > 0));
  return declared ? undefined : `reads ${text}, a field the ${statuses.join('/')} answer of ${op.operationId} does not declare`;
}

function checkStep(ctx: Context, workflow: JsonObject, wi: number, step: JsonObject, si: number): void {
  const at = `#/workflows/${wi}/steps/${si}`;
  const report = (where: string, message: string): void => {
    ctx.problems.push({ workflowId: String(workflow.workflowId), stepId: String(step.stepId), where, message });
  };
  const workflows = (ctx.arazzo.workflows ?? []) as JsonObject[];
  let op: ResolvedOperation | undefined;
  let child: JsonObject | undefined;
  if (typeof step.operationId === 'string') {
    const resolved = resolveStepOperation(ctx.sources, step.operationId);
    if (typeof resolved === 'string') return report(`${at}/operationId`, resolved);
    op = resolved;
  } else if (typeof step.workflowId === 'string') {
    child = workflows.find((w) => w.workflowId === step.workflowId);
    if (!child) return report(`${at}/workflowId`, `runs workflow ${step.workflowId}, which the document does not define`);
  } else {
    return report(at, 'names neither an operationId nor a workflowId (operationPath is not used in this contract)');
  }

  const parameters = ((step.parameters ?? []) as JsonObject[]).map((p) => resolveParameter(ctx.arazzo, p));
  parameters.forEach((parameter, pi) => {
    const where = `${at}/parameters/${pi}`;
    if (typeof parameter === 'string') return report(where, parameter);
    if (child) {
      if (!Object.hasOwn(workflowInputs(ctx.arazzo, child).properties ?? {}, String(parameter.name))) report(where, `passes ${parameter.name}, which workflow ${child.workflowId} has no input for`);
      return;
    }
    const declared = declaredParameters(op!).find((p) => p.in === parameter.in && String(p.name).toLowerCase() === String(parameter.name).toLowerCase());
    if (parameter.in === 'header' && String(parameter.name).toLowerCase() === 'authorization') {
      if (!needsApiKey(op!.document, op!.operation)) report(where, `sends Authorization to ${op!.operationId}, which takes no key (part 5.1)`);
    } else if (!declared) {
      report(where, `sends the ${parameter.in} parameter ${parameter.name}, which ${op!.operationId} does not declare`);
    } else if (!isExpression(parameter.value) && declared.schema && !literalFits(op!.document, declared.schema, parameter.value)) {
      report(where, `sends ${JSON.stringify(parameter.value)} as ${parameter.name}, which its schema refuses`);
    }
  });
  const given = parameters.filter((p): p is JsonObject => typeof p !== 'string');
  if (op) {
    for (const required of declaredParameters(op).filter((p) => p.required || p.in === 'path')) {
      if (!given.some((g) => g.in === required.in && String(g.name).toLowerCase() === String(required.name).toLowerCase())) {
        report(`${at}/parameters`, `leaves out the ${required.in} parameter ${required.name}, which ${op.operationId} requires`);
      }
    }
    if (needsApiKey(op.document, op.operation) && !given.some((g) => g.in === 'header' && String(g.name).toLowerCase() === 'authorization')) {
      report(`${at}/parameters`, `sends no Authorization header to ${op.operationId}, which needs a key (part 5.1)`);
    }
    const body = step.requestBody as JsonObject | undefined;
    if (body) {
      const content = resolveRef(op.document, op.operation.requestBody)?.content as JsonObject | undefined;
      const media = content?.[String(body.contentType ?? 'application/json')] as JsonObject | undefined;
      if (!content) report(`${at}/requestBody`, `sends a body to ${op.operationId}, which takes none`);
      else if (!media) report(`${at}/requestBody/contentType`, `sends ${body.contentType}, which ${op.operationId} does not accept`);
      else for (const message of payloadProblems(op.document, media.schema, body.payload, '')) report(`${at}/requestBody/payload`, message);
    }
  }

  const scope = { workflow, stepIndex: si, op, step, child };
  const read = (expressions: () => RuntimeExpression[], where: string): void => {
    const found = readable(expressions);
    if (typeof found === 'string') return report(where, found);
    for (const expression of found) {
      const problem = checkExpression(ctx, expression, scope);
      if (problem) report(where, problem);
    }
  };
  given.forEach((parameter, pi) => read(() => expressionsIn(parameter.value), `${at}/parameters/${pi}/value`));
  read(() => expressionsIn((step.requestBody as JsonObject | undefined)?.payload), `${at}/requestBody/payload`);
  ((step.successCriteria ?? []) as Criterion[]).forEach((criterion, ci) => read(() => criterionExpressions(criterion), `${at}/successCriteria/${ci}`));
  for (const [name, value] of Object.entries((step.outputs ?? {}) as JsonObject)) read(() => expressionsIn(value), childPointer(`${at}/outputs`, name));
  for (const kind of ['onSuccess', 'onFailure']) {
    ((step[kind] ?? []) as JsonObject[]).forEach((action, ai) => {
      if (action.stepId !== undefined && !((workflow.steps ?? []) as JsonObject[]).some((s) => s.stepId === action.stepId)) {
        report(`${at}/${kind}/${ai}`, `goes to step ${action.stepId}, which the workflow does not have`);
      }
      if (action.workflowId !== undefined && !workflows.some((w) => w.workflowId === action.workflowId)) {
        report(`${at}/${kind}/${ai}`, `goes to workflow ${action.workflowId}, which the document does not define`);
      }
      ((action.criteria ?? []) as Criterion[]).forEach((criterion, ci) => read(() => criterionExpressions(criterion), `${at}/${kind}/${ai}/criteria/${ci}`));
    });
  }
}

/**
 * Every problem of the workflows against their sources (`sources` by source description name:
 * the parsed OpenAPI documents, with their `#/components` `$ref`s). An empty list means every
 * operation, parameter, body field and value read is one the descriptions define.
 */
export function checkWorkflows(arazzo: JsonObject, sources: Record<string, JsonObject>): WorkflowProblem[] {
  const ctx: Context = { arazzo, sources, problems: [] };
  const names = ((arazzo.sourceDescriptions ?? []) as JsonObject[]).map((s) => String(s.name));
  for (const name of names) {
    if (!sources[name]) ctx.problems.push({ workflowId: '', where: '#/sourceDescriptions', message: `source ${name} was not given to the check` });
  }
  const workflows = (arazzo.workflows ?? []) as JsonObject[];
  // Redocly's `outputs-defined` rule (which `redocly respect` runs first) keys step outputs by
  // stepId across the whole document, so two steps with outputs must not share an id.
  const outputSteps = new Map<string, string>();
  workflows.forEach((workflow, wi) => {
    const seen = new Set<string>();
    ((workflow.steps ?? []) as JsonObject[]).forEach((step, si) => {
      const id = String(step.stepId);
      if (seen.has(id)) ctx.problems.push({ workflowId: String(workflow.workflowId), stepId: id, where: `#/workflows/${wi}/steps/${si}`, message: 'repeats a stepId of its workflow' });
      seen.add(id);
      if (step.outputs) {
        const other = outputSteps.get(id);
        if (other && other !== workflow.workflowId) {
          ctx.problems.push({ workflowId: String(workflow.workflowId), stepId: id, where: `#/workflows/${wi}/steps/${si}`, message: `has outputs under the stepId of a step of ${other} with outputs (Redocly reads step outputs document-wide)` });
        }
        outputSteps.set(id, String(workflow.workflowId));
      }
      checkStep(ctx, workflow, wi, step, si);
    });
    for (const [name, value] of Object.entries((workflow.outputs ?? {}) as JsonObject)) {
      const found = readable(() => expressionsIn(value));
      for (const problem of typeof found === 'string' ? [found] : found.map((expression) => checkExpression(ctx, expression, { workflow, stepIndex: Infinity }))) {
        if (problem) ctx.problems.push({ workflowId: String(workflow.workflowId), where: childPointer(`#/workflows/${wi}/outputs`, name), message: problem });
      }
    }
  });
  return ctx.problems;
}

/** A problem as one line: `workflowId/stepId: message (at pointer)`. */
export function formatWorkflowProblem(problem: WorkflowProblem): string {
  return `${problem.workflowId}${problem.stepId ? `/${problem.stepId}` : ''}: ${problem.message} (at ${problem.where})`;
}
