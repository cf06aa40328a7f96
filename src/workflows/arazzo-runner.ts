// Plays one Arazzo 1.0.1 workflow of the contract (generated/workflows.arazzo.json) step by step,
// the one runner of this package (the MCP server's workflow tools use it; so should every other
// player of workflows), so that a job of part 3 runs in one call and each step is seen: runtime expressions
// carry the values the service issues from step to step, criteria decide each step's outcome
// (arazzo-condition.ts), `onSuccess`/`onFailure` actions move between steps, a step may run
// another workflow. Every request goes through the caller's `call`, which is where the policy
// decides what may be sent; a step on the mock's control surface (the `mockControl` source) runs
// only against the mock and is left out on a deployment, as the workflows' own description says.
import { childPointer, valueAt, type JsonObject } from '../contract/json-pointer.js';
import { ExpressionSyntaxError, parseRuntimeExpression, parseValue, type Criterion, type RuntimeExpression } from '../contract/runtime-expression.js';
import { criterionHolds, embedExpressions, type Evaluate } from './arazzo-condition.js';
import type { Exchange } from '../request/index.js';

/** An answer as the caller received it: its status, headers (names in lower case) and body (JSON parsed, else the text; undefined when empty). */
export type Answer = Pick<Exchange, 'status' | 'headers' | 'body'>;

/** What the runner asks of the caller: send one step's request, or say why it may not be sent. */
export interface StepRequest {
  source: string;
  operationId: string;
  /** Parameter values by name (path, query and header parameters other than Authorization). */
  values: Record<string, unknown>;
  body?: unknown;
  /** The step's `Authorization` header, or null when the step sends none. */
  authorization: string | null;
  /** The step that sends it, and its workflow (for a player that shows or records each step). */
  stepId?: string;
  workflowId?: string;
}

export type StepCall = (request: StepRequest) => Promise<Answer | { refused: string }>;

export interface StepRecord {
  stepId: string;
  description?: string;
  /** `sendMessage (POST /api/v1/messages)`, or the workflow a step runs. */
  runs: string;
  outcome: 'passed' | 'failed' | 'skipped' | 'refused';
  /** The request as sent (no Authorization). */
  request?: { values?: Record<string, unknown>; body?: unknown };
  status?: number;
  /** The answer body, cut to a preview when long. */
  response?: unknown;
  /** The criteria that did not hold, or why the step was skipped or refused. */
  notes?: string[];
  /** The steps of the workflow this step ran. */
  steps?: StepRecord[];
}

export interface WorkflowRun {
  workflowId: string;
  passed: boolean;
  outputs: Record<string, unknown>;
  steps: StepRecord[];
}

export interface RunnerOptions {
  arazzo: JsonObject;
  /** For each source description: its operations' method and path, by operationId. */
  operations: Record<string, Map<string, { method: string; path: string }>>;
  call: StepCall;
  /** Whether the target is the mock (else `mockControl` steps are left out). */
  isMock: boolean;
  /** Inputs every workflow gets when it declares them (the key, which no agent sees). */
  hiddenInputs: Record<string, unknown>;
  /** Aborts the run between steps and cancels the request in flight. */
  signal?: AbortSignal;
}

/** A step visited more often than this ends the run (a loop that never settles). */
export const MAX_VISITS_PER_STEP = 50;
const PREVIEW_CHARS = 2000;

function preview(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || text.length <= PREVIEW_CHARS) return value;
  return `${text.slice(0, PREVIEW_CHARS)}… (${text.length - PREVIEW_CHARS} more characters)`;
}

/** The workflow ids a workflow runs, itself first, then each it reaches through its steps. */
export function workflowsReached(arazzo: JsonObject, workflowId: string, seen = new Set<string>()): string[] {
  if (seen.has(workflowId)) return [];
  seen.add(workflowId);
  const workflow = ((arazzo.workflows ?? []) as JsonObject[]).find((w) => w.workflowId === workflowId);
  return [workflowId, ...((workflow?.steps ?? []) as JsonObject[]).flatMap((step) => (step.workflowId ? workflowsReached(arazzo, String(step.workflowId), seen) : []))];
}

/** The `(source, operationId)` of a step that names an operation. */
export function stepOperation(step: JsonObject): { source: string; operationId: string } | undefined {
  if (typeof step.operationId !== 'string') return undefined;
  try {
    const named = parseRuntimeExpression(step.operationId);
    return named.root === '$sourceDescriptions' ? { source: named.source, operationId: named.name } : undefined;
  } catch {
    return undefined; // not `$sourceDescriptions.<source>.<operationId>`: the step names no operation
  }
}

interface Scope {
  inputs: Record<string, unknown>;
  steps: Record<string, Record<string, unknown>>;
  /** The last answer, for `$statusCode` and `$response`, and the request it answered, for `$request`. */
  answer?: Answer;
  request?: { values: Record<string, unknown>; body?: unknown };
  /** A sub-workflow's outputs, for `$outputs` in the step that ran it. */
  outputs?: Record<string, unknown>;
}

function evaluator(scope: Scope, workflows: Record<string, Record<string, unknown>>, arazzo: JsonObject): Evaluate {
  const at = (record: unknown, names: string[], pointer = ''): unknown => valueAt(record, `${childPointer('#', ...names)}${pointer}`);
  return (e) => {
    if (e.root === '$statusCode') return scope.answer?.status;
    if (e.root === '$response') return e.part === 'body' ? valueAt(scope.answer?.body, `#${e.pointer ?? ''}`) : e.part === 'header' ? at(scope.answer?.headers, [e.name.toLowerCase()]) : undefined;
    if (e.root === '$request') return e.part === 'body' ? valueAt(scope.request?.body, `#${e.pointer ?? ''}`) : Object.entries(scope.request?.values ?? {}).find(([name]) => name.toLowerCase() === e.name.toLowerCase())?.[1];
    if (e.root === '$faker') return fake(e);
    if (e.root === '$inputs' || e.root === '$outputs') return at(e.root === '$inputs' ? scope.inputs : scope.outputs, [e.name], e.pointer);
    if (e.root === '$steps') return at(scope.steps, [e.stepId, e.name], e.pointer);
    if (e.root === '$workflows' && e.part === 'outputs') return at(workflows, [e.workflowId, e.name], e.pointer);
    return e.root === '$components' ? at(arazzo.components, [e.part, e.name]) : undefined;
  };
}

/** A fresh value of a `$faker` generator, new at each evaluation (as Respect makes them). */
function fake(e: Extract<RuntimeExpression, { root: '$faker' }>): string | number {
  if (e.name === 'string.uuid') return crypto.randomUUID();
  const min = Math.ceil(Number(e.args?.min ?? 0));
  const max = Math.floor(Number(e.args?.max ?? min + 1000));
  return min + Math.floor(Math.random() * (Math.max(max, min) - min + 1));
}

/** A value of the workflow document with its runtime expressions replaced: a whole expression by its value, `{$…}` inside text by its text. */
function resolveValue(value: unknown, evaluate: Evaluate): unknown {
  if (typeof value === 'string') {
    const parsed = parseValue(value);
    return 'expression' in parsed ? evaluate(parsed.expression) : embedExpressions(value, evaluate, false);
  }
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, evaluate));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, evaluate)]));
  return value;
}

/** A step the grammar cannot read (a hand-edited recording) fails, saying what and where, instead of ending the run. */
function unreadable(stepId: string, error: unknown): StepRecord {
  if (!(error instanceof ExpressionSyntaxError)) throw error;
  return { stepId, runs: '', outcome: 'failed', notes: [error.message] };
}

export class WorkflowRunner {
  private readonly results: Record<string, Record<string, unknown>> = {};

  constructor(private readonly options: RunnerOptions) {}

  private workflow(workflowId: string): JsonObject {
    const found = ((this.options.arazzo.workflows ?? []) as JsonObject[]).find((w) => w.workflowId === workflowId);
    if (!found) throw new Error(`no workflow ${workflowId}`);
    return found;
  }

  /** Runs a workflow with the inputs given (its defaults and the hidden inputs fill the rest). */
  async run(workflowId: string, given: Record<string, unknown>): Promise<WorkflowRun> {
    const workflow = this.workflow(workflowId);
    const declared = Object.entries((workflow.inputs?.properties ?? {}) as JsonObject);
    const defaults = Object.fromEntries(declared.filter(([, schema]) => schema && 'default' in schema).map(([name, schema]) => [name, schema.default]));
    const hidden = Object.fromEntries(Object.entries(this.options.hiddenInputs).filter(([name]) => declared.some(([input]) => input === name)));
    const scope: Scope = { inputs: { ...defaults, ...given, ...hidden }, steps: {} };
    // Reads the scope as it is when an expression is evaluated: one for the whole run.
    const evaluate = evaluator(scope, this.results, this.options.arazzo);
    const steps = (workflow.steps ?? []) as JsonObject[];
    const records: StepRecord[] = [];
    const visits = new Map<string, number>();
    let passed = true;
    for (let index = 0; index < steps.length; ) {
      const step = steps[index]!;
      const stepId = String(step.stepId);
      const count = (visits.get(stepId) ?? 0) + 1;
      visits.set(stepId, count);
      const stop = this.options.signal?.aborted ? 'the run was cancelled' : count > MAX_VISITS_PER_STEP ? `visited more than ${MAX_VISITS_PER_STEP} times: the loop does not settle` : undefined;
      if (stop) {
        records.push({ stepId, runs: '', outcome: 'failed', notes: [stop] });
        passed = false;
        break;
      }
      const record = await this.runStep(step, scope, evaluate, workflowId).catch((error: unknown) => unreadable(stepId, error));
      records.push(record);
      const next = await this.nextStep(steps, index, record, count, evaluate, records);
      if (typeof next !== 'number') {
        passed = next === 'passed';
        break;
      }
      index = next;
    }
    const outputs = passed ? (resolveValue(workflow.outputs ?? {}, evaluate) as Record<string, unknown>) : {};
    if (passed) this.results[workflowId] = outputs;
    return { workflowId, passed, outputs, steps: records };
  }

  /** Where a run goes after a step (its `onSuccess` or `onFailure` action): the index of the next step, or the run's end. */
  private async nextStep(steps: JsonObject[], index: number, record: StepRecord, count: number, evaluate: Evaluate, records: StepRecord[]): Promise<number | 'passed' | 'failed'> {
    if (record.outcome === 'skipped') return index + 1;
    if (record.outcome === 'refused') return 'failed';
    const step = steps[index]!;
    const actions = ((record.outcome === 'passed' ? step.onSuccess : step.onFailure) ?? []) as JsonObject[];
    const action = actions.find((a) => ((a.criteria ?? []) as Criterion[]).every((c) => criterionHolds(c, evaluate)));
    const target = action?.stepId ? steps.findIndex((s) => s.stepId === action.stepId) : -1;
    if (record.outcome === 'passed') {
      if (action?.type === 'end') return 'passed';
      if (action?.type !== 'goto') return index + 1;
      if (!action.workflowId) return target >= 0 ? target : steps.length;
      const child = await this.run(String(action.workflowId), {});
      records.push({ stepId: `${step.stepId} → ${action.workflowId}`, runs: `workflow ${action.workflowId}`, outcome: child.passed ? 'passed' : 'failed', steps: child.steps });
      return child.passed ? 'passed' : 'failed';
    }
    // A failed step: retry it (waiting at most a minute), go elsewhere, or end the run failed.
    if (action?.type === 'retry' && count <= Number(action.retryLimit ?? 1)) {
      const waitMs = Math.min(Number(action.retryAfter ?? 0) * 1000, 60_000);
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      return index;
    }
    return action?.type === 'goto' && target >= 0 ? target : 'failed';
  }

  private async runStep(step: JsonObject, scope: Scope, evaluate: Evaluate, workflowId: string): Promise<StepRecord> {
    const stepId = String(step.stepId);
    const described = step.description ? { description: String(step.description) } : {};
    if (step.workflowId) {
      const given = Object.fromEntries(((step.parameters ?? []) as JsonObject[]).map((p) => [String(p.name), resolveValue(p.value, evaluate)]));
      const child = await this.run(String(step.workflowId), given);
      const record: StepRecord = { stepId, ...described, runs: `workflow ${step.workflowId}`, outcome: child.passed ? 'passed' : 'failed', steps: child.steps };
      if (child.passed) {
        scope.outputs = child.outputs;
        scope.steps[stepId] = resolveValue(step.outputs ?? {}, evaluate) as Record<string, unknown>;
        scope.outputs = undefined;
      }
      return record;
    }
    const target = stepOperation(step);
    if (!target) return { stepId, ...described, runs: String(step.operationId ?? ''), outcome: 'failed', notes: ['the step names no operation this runner reads ($sourceDescriptions.<source>.<operationId>)'] };
    const operation = this.options.operations[target.source]?.get(target.operationId);
    const runs = operation ? `${target.operationId} (${operation.method.toUpperCase()} ${operation.path})` : target.operationId;
    if (target.source === 'mockControl' && !this.options.isMock) {
      return { stepId, ...described, runs, outcome: 'skipped', notes: ['mock only: left out on a deployment'] };
    }
    // Parameters: a reference to a reusable parameter (the key) is that parameter.
    const parameters = ((step.parameters ?? []) as JsonObject[]).map((p) => {
      if (!p.reference) return p;
      const referenced = evaluate(parseRuntimeExpression(String(p.reference))) as JsonObject | undefined;
      return { ...referenced, ...(p.value !== undefined ? { value: p.value } : {}) };
    });
    let authorization: string | null = null;
    const values: Record<string, unknown> = {};
    for (const parameter of parameters) {
      const value = resolveValue(parameter.value, evaluate);
      if (parameter.in === 'header' && String(parameter.name).toLowerCase() === 'authorization') authorization = String(value);
      else values[String(parameter.name)] = value;
    }
    const body = step.requestBody ? resolveValue((step.requestBody as JsonObject).payload, evaluate) : undefined;
    const request = { ...(Object.keys(values).length > 0 ? { values } : {}), ...(body !== undefined ? { body } : {}) };
    const answer = await this.options.call({ source: target.source, operationId: target.operationId, values, ...(body !== undefined ? { body } : {}), authorization, stepId, workflowId });
    if ('refused' in answer) return { stepId, ...described, runs, outcome: 'refused', request, notes: [answer.refused] };
    scope.answer = answer;
    scope.request = { values, ...(body !== undefined ? { body } : {}) };
    const failed = ((step.successCriteria ?? []) as Criterion[]).filter((criterion) => !criterionHolds(criterion, evaluate)).map((c) => `not met: ${c.condition}${c.context ? ` (of ${c.context})` : ''}`);
    if (failed.length === 0) scope.steps[stepId] = resolveValue(step.outputs ?? {}, evaluate) as Record<string, unknown>;
    return { stepId, ...described, runs, outcome: failed.length === 0 ? 'passed' : 'failed', request, status: answer.status, response: preview(answer.body), ...(failed.length > 0 ? { notes: failed } : {}) };
  }
}
