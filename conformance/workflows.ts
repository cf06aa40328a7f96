// `numbers-api conformance --workflows`: the contract's Arazzo workflows (generated/workflows.arazzo.json)
// replayed against a deployment by the package's one runner (src/workflows/arazzo-runner.ts), under
// the suite's own safety:
// - a workflow runs only where the run's level allows its `x-conformance` level (`contract` at
//   every level, `writes` at --level writes, `never` nowhere: listed as not run, with its reason);
// - every step passes the policy before it is sent (policy.ts): an operation never sent is refused
//   at any level, a write (anything but a read or a POST that only reads) at --level contract, a
//   call without an Idempotency-Key always; a workflow's declared sends are taken from the run's
//   --max-sends budget (sends.ts) all at once before its first step, or it is not run;
// - steps on the mock's control surface (the workflows say which run only on the mock) are left
//   out on a deployment; they run only on a target that announces itself as this package's mock
//   (GET /__mock/about, announcement.ts), and only those the workflows name (moving its clock);
// - every request goes through the suite's one HTTP client (http.ts, on the package's one outgoing
//   request: 429s waited out within the retry budget, the key redacted from everything it reports).
// A failing step becomes a finding that names the workflow and the step, the criteria that did not
// hold, and each value the step carried with where it came from ("from step X's Y"). Each workflow
// is a scenario of the suite's one report (workflowScenario): console, JSON, JUnit and HTML.
import path from 'node:path';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import type { JsonObject } from '../src/contract/json-pointer.js';
import { harmOf } from '../src/contract/effects.js';
import { expressionsSent, expressionWords } from '../src/workflows/expression-words.js';
import { operationTable } from '../src/workflows/step-request.js';
import { NoAnswer, paramsOf } from '../src/request/index.js';
import { WorkflowRunner, stepOperation, type Answer, type StepRecord, type StepRequest } from '../src/workflows/arazzo-runner.js';
import { UsageError } from '../src/cli/usage-error.js';
import type { ConformanceConfig, Level } from './config.js';
import { listOperations, type Json, type Operation } from './description.js';
import type { ExchangeRecord, Finding, ScenarioOutcome, Verdict } from './findings.js';
import { ConformanceHttp, describeRequest, NoResponse, RateLimited, suiteRedactor, type Exchange, type RequestSpec } from './http.js';
import { writeReports } from './reporters/files.js';
import { buildReport, formatSummary } from './reporters/report.js';
import { answerCode, answerExcerpt, sentRequest } from './scenario.js';
import type { NotSent } from './plan.js';
import { SendBudget } from './sends.js';

/** Which workflow levels each run level replays. */
const LEVELS_RUN: Record<Level, readonly string[]> = { contract: ['contract'], writes: ['contract', 'writes'] };

export interface WorkflowPlanEntry {
  workflowId: string;
  summary: string;
  /** The workflow's `x-conformance` level. */
  level: string;
  /** How many of its requests create or change something (`x-conformance.sends`). */
  sends: number;
  run: boolean;
  /** Why it is not run, when it is not. */
  notRun?: string;
  /** Its steps, in order, and the workflows it runs. */
  steps: string[];
}

/** Every workflow, and whether a run at `level` replays it. */
export function planWorkflows(arazzo: JsonObject, level: Level): WorkflowPlanEntry[] {
  return ((arazzo.workflows ?? []) as JsonObject[]).map((workflow) => {
    const conformance = (workflow['x-conformance'] ?? {}) as JsonObject;
    const own = String(conformance.level ?? 'never');
    const run = LEVELS_RUN[level].includes(own);
    const notRun =
      own === 'never' ? `never on a deployment: ${conformance.reason ?? 'x-conformance never'}` : !run ? `needs --level ${own} (${conformance.reason ?? ''})`.replace(/ \(\)$/, '') : undefined;
    return {
      workflowId: String(workflow.workflowId),
      summary: String(workflow.summary ?? ''),
      level: own,
      sends: Number(conformance.sends ?? 0),
      run,
      ...(notRun ? { notRun } : {}),
      steps: ((workflow.steps ?? []) as JsonObject[]).map((s) => String(s.stepId)),
    };
  });
}

export interface WorkflowOutcome {
  workflowId: string;
  level: string;
  verdict: Verdict;
  /** Why it was not run (not-applicable) or skipped. */
  reason?: string;
  steps: StepRecord[];
  findings: Finding[];
  /** The requests that created or changed something. */
  sends: Array<{ operationId: string; request: string; status?: number }>;
  /** Every answer of the service (not the mock's control surface), for the coverage matrix. */
  exchanges: ExchangeRecord[];
  durationMs?: number;
}

export interface WorkflowsReport {
  level: Level;
  maxSends?: number;
  sendsSpent: number;
  workflows: WorkflowOutcome[];
  totals: Record<Verdict, number>;
}

/** The part a step cites (`Part 4.5: ...`, `Parts 3 and 6 ...`), for its finding. */
function partOf(description: unknown): string | undefined {
  return /\bParts? ([\d.]+)/.exec(String(description ?? ''))?.[1];
}

/** The values a failing step sent by runtime expression, each with where it came from. */
function carriedLines(workflow: JsonObject, step: JsonObject, record: StepRecord): string[] {
  const steps = (workflow.steps ?? []) as JsonObject[];
  const sentValue = (at: string): unknown => {
    const [root, ...rest] = at.split('.');
    if (root === 'body') return rest.reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as JsonObject)[key] : undefined), record.request?.body);
    return record.request?.values?.[at];
  };
  return expressionsSent(step).map(({ at, expression }) => `${at} = ${JSON.stringify(sentValue(at))}, ${expressionWords(expression, steps)}`);
}

/** A finding's request: as sent, with its curl data and answer (http.ts's exchange), else as the step describes it. */
function requestFields(sent: Exchange | string | undefined, op: Operation | undefined, record: StepRecord): Pick<Finding, 'request' | 'sent' | 'answer'> {
  if (typeof sent === 'string') return { request: sent };
  if (sent) return { request: describeRequest(sent), sent: sentRequest(sent), answer: answerExcerpt(sent) };
  return op ? { request: describeRequest({ method: op.method, target: op.path, auth: 'valid', requestBody: record.request?.body }) } : {};
}

/** The findings of a run: one per failing or refused step (a sub-workflow's steps under their own workflow). */
function findingsOf(arazzo: JsonObject, workflowId: string, records: StepRecord[], operations: Map<string, Operation>, requests: Map<string, Exchange | string>): Finding[] {
  const workflow = ((arazzo.workflows ?? []) as JsonObject[]).find((w) => w.workflowId === workflowId)!;
  return records.flatMap((record): Finding[] => {
    const step = ((workflow.steps ?? []) as JsonObject[]).find((s) => s.stepId === record.stepId.split(' → ')[0]);
    if (record.steps && step?.workflowId) return findingsOf(arazzo, String(step.workflowId), record.steps, operations, requests);
    if (record.outcome === 'passed' || record.outcome === 'skipped' || !step) return [];
    const target = stepOperation(step);
    const op = target ? operations.get(target.operationId) : undefined;
    const carried = carriedLines(workflow, step, record);
    const part = partOf(step.description);
    return [
      {
        check: 'workflow-step',
        ...(part ? { part } : {}),
        verdict: record.outcome === 'refused' ? 'skip' : 'fail',
        reason: `workflow ${workflowId}, step ${record.stepId} (${record.runs}): ${(record.notes ?? []).join('; ')}${carried.length > 0 ? `. It carried ${carried.join('; ')}` : ''}`,
        operationId: target?.operationId ?? String(step.operationId ?? ''),
        ...requestFields(requests.get(`${workflowId}/${record.stepId}`), op, record),
        ...(record.status !== undefined ? { status: record.status } : {}),
        ...(record.outcome === 'failed' ? { expected: ((step.successCriteria ?? []) as JsonObject[]).map((c) => String(c.condition)), actual: { status: record.status, ...(record.notes ? { notMet: record.notes } : {}) } } : {}),
      },
    ];
  });
}

export interface WorkflowRunOptions {
  config: Pick<ConformanceConfig, 'baseUrl' | 'apiKey' | 'level' | 'to' | 'concurrency' | 'timeoutMs' | 'retryBudgetMs' | 'maxSends' | 'mockControlToken'>;
  document: Json;
  arazzo?: JsonObject;
  /** Only these workflows (by id), of those the level allows. */
  only?: string[];
  /** The target announced itself as this package's mock: its control steps run (else they are left out). */
  isMock?: boolean;
}

/** Replays the workflows the run's level allows, one after another; lists the rest as not run. */
export async function runWorkflows(options: WorkflowRunOptions): Promise<WorkflowsReport> {
  const { config, document } = options;
  const arazzo = options.arazzo ?? readGeneratedJson('workflows.arazzo.json');
  const operations = new Map(listOperations(document).map((op) => [op.operationId, op]));
  const http = new ConformanceHttp({ ...config, concurrency: 1 });
  const controlTable = operationTable({ mockControl: readGeneratedJson('mock-control.json') });
  const budget = new SendBudget(config.level === 'writes' ? config.maxSends : 0);
  const outcomes: WorkflowOutcome[] = [];
  for (const entry of planWorkflows(arazzo, config.level)) {
    if (options.only && !options.only.includes(entry.workflowId)) continue;
    if (!entry.run) {
      outcomes.push({ workflowId: entry.workflowId, level: entry.level, verdict: 'not-applicable', reason: entry.notRun, steps: [], findings: [], sends: [], exchanges: [] });
      continue;
    }
    if (entry.sends > 0 && !budget.take(entry.sends)) {
      outcomes.push({ workflowId: entry.workflowId, level: entry.level, verdict: 'skip', reason: `its ${entry.sends} sends do not fit in what is left of --max-sends ${config.maxSends} (${budget.spent} spent); not sent in part`, steps: [], findings: [], sends: [], exchanges: [] });
      continue;
    }
    const started = Date.now();
    const sends: WorkflowOutcome['sends'] = [];
    const exchanges: ExchangeRecord[] = [];
    const requests = new Map<string, Exchange | string>();
    let writesLeft = entry.sends;
    const call = async (step: StepRequest): Promise<Answer | { refused: string }> => {
      if (step.source === 'mockControl') {
        const route = controlTable.mockControl?.[step.operationId];
        // The runner leaves these out unless the target is the mock; a reset is never sent (it would start the whole mock over).
        if (!options.isMock || !route || step.operationId === 'mockReset') return { refused: `${step.operationId} is the mock's, and not sent here` };
        requests.set(`${step.workflowId}/${step.stepId}`, `${route.method.toUpperCase()} ${route.path} (mock only)`);
        // The control token goes with it (the suite's requester holds it).
        return http.requests.send({ method: route.method, path: route.path, params: paramsOf(route.parameters, step.values, step.authorization), body: step.body }).catch((error: unknown) => {
          if (error instanceof NoAnswer) return { refused: error.message };
          throw error;
        });
      }
      const op = operations.get(step.operationId);
      if (step.source !== 'numbersApi' || !op) return { refused: `${step.operationId} is no operation of the description under test` };
      // A workflow carries real ids and valid bodies: what deletes or charges (x-effects) is never sent.
      const harm = harmOf(op.effects);
      if (harm) return { refused: `${op.operationId} is never sent by the suite: it ${harm}` };
      const writes = op.effects.changesState;
      if (writes && config.level !== 'writes') return { refused: `${op.operationId} creates or changes something: only at --level writes` };
      if (writes && writesLeft <= 0) return { refused: `${op.operationId} would send more than the ${entry.sends} sends the workflow declares (x-conformance.sends)` };
      const spec: RequestSpec = { auth: step.authorization === null ? 'none' : 'valid', pathParams: {}, query: {}, headers: {} };
      for (const parameter of op.parameters as JsonObject[]) {
        const value = step.values[String(parameter.name)];
        if (value === undefined) continue;
        if (parameter.in === 'path') spec.pathParams![parameter.name] = String(value);
        else if (parameter.in === 'query') spec.query![parameter.name] = typeof value === 'number' ? value : String(value);
        else if (parameter.in === 'header' && String(parameter.name).toLowerCase() !== 'authorization') spec.headers![String(parameter.name).toLowerCase()] = String(value);
      }
      // Part 7.4: each call without a key places another call; the suite never sends one.
      const keyHeader = op.effects.idempotencyKey;
      if (keyHeader && !spec.headers![keyHeader.toLowerCase()]) return { refused: `${op.operationId} without an ${keyHeader} is never sent` };
      if (step.body !== undefined) spec.body = step.body;
      // events/wait answers within its own window (part 8): give it that and a margin.
      const waitSeconds = op.operationId === 'waitForEvent' ? Number((step.body as JsonObject | undefined)?.timeout ?? 0) : 0;
      if (waitSeconds > 0) spec.timeoutMs = Math.max(config.timeoutMs, (waitSeconds + 10) * 1000);
      if (writes) writesLeft -= 1;
      try {
        const exchange = await http.send(op, spec);
        requests.set(`${step.workflowId}/${step.stepId}`, exchange);
        const code = answerCode(exchange);
        exchanges.push({ ...(exchange.seq !== undefined ? { seq: exchange.seq } : {}), operationId: op.operationId, status: exchange.status, ...(code ? { code } : {}), request: describeRequest(exchange) });
        if (writes) sends.push({ operationId: op.operationId, request: describeRequest(exchange), status: exchange.status });
        return { status: exchange.status, headers: exchange.headers, body: exchange.body ?? (exchange.bodyText === '' ? undefined : exchange.bodyText) };
      } catch (error) {
        if (error instanceof RateLimited || error instanceof NoResponse) {
          if (writes) sends.push({ operationId: op.operationId, request: `${op.method.toUpperCase()} ${op.path} (no answer)` });
          return { refused: error.message };
        }
        throw error;
      }
    };
    const runner = new WorkflowRunner({
      arazzo,
      operations: { numbersApi: new Map([...operations].map(([id, op]) => [id, { method: op.method, path: op.path }])) },
      call,
      isMock: options.isMock === true,
      hiddenInputs: { apiKey: config.apiKey },
    });
    const given = config.to ? { to: config.to } : {};
    const run = await runner.run(entry.workflowId, given);
    const findings = findingsOf(arazzo, entry.workflowId, run.steps, operations, requests);
    const verdict: Verdict = run.passed ? 'pass' : findings.some((f) => f.verdict === 'fail') ? 'fail' : 'skip';
    outcomes.push(
      suiteRedactor([config.apiKey])(
        {
          workflowId: entry.workflowId,
          level: entry.level,
          verdict,
          ...(verdict === 'skip' ? { reason: findings.map((f) => f.reason).join(' ') || 'a step could not be sent' } : {}),
          steps: run.steps,
          findings,
          sends,
          exchanges,
          durationMs: Date.now() - started,
        },
      ),
    );
  }
  const totals: Record<Verdict, number> = { pass: 0, fail: 0, advisory: 0, skip: 0, 'not-applicable': 0 };
  for (const outcome of outcomes) totals[outcome.verdict] += 1;
  return { level: config.level, ...(config.level === 'writes' ? { maxSends: config.maxSends } : {}), sendsSpent: budget.spent, workflows: outcomes, totals };
}

/** The first operation of the description a workflow sends (through its sub-workflows), in step order. */
function firstOperation(arazzo: JsonObject, workflowId: string, operations: Map<string, Operation>): string | undefined {
  const workflow = ((arazzo.workflows ?? []) as JsonObject[]).find((w) => w.workflowId === workflowId);
  for (const step of (workflow?.steps ?? []) as JsonObject[]) {
    const found = step.workflowId ? firstOperation(arazzo, String(step.workflowId), operations) : stepOperation(step)?.operationId;
    if (found && operations.has(found)) return found;
  }
  return undefined;
}

/** A workflow's steps as run, sub-workflows' steps flattened under theirs (`stepId → sub/step`). */
function stepLines(records: StepRecord[], prefix = ''): NonNullable<ScenarioOutcome['steps']> {
  return records.flatMap((r) => [
    { stepId: `${prefix}${r.stepId}`, runs: r.runs, outcome: r.outcome, ...(r.status !== undefined ? { status: r.status } : {}), ...(r.notes?.length ? { notes: r.notes } : {}) },
    ...stepLines(r.steps ?? [], `${prefix}${r.stepId}/`),
  ]);
}

/** The steps a run ended before (a step failed and nothing said go on), listed as replay lists them. */
function notReached(workflow: JsonObject | undefined, records: StepRecord[]): NonNullable<ScenarioOutcome['steps']> {
  const reached = new Set(records.map((r) => r.stepId.split(' → ')[0]));
  if (records.every((r) => r.outcome === 'passed' || r.outcome === 'skipped')) return [];
  return ((workflow?.steps ?? []) as JsonObject[])
    .filter((step) => !reached.has(String(step.stepId)))
    .map((step) => ({ stepId: String(step.stepId), runs: step.workflowId ? `workflow ${String(step.workflowId)}` : (stepOperation(step)?.operationId ?? String(step.operationId ?? '')), outcome: 'skipped' as const, notes: ['not run: a step before it failed'] }));
}

/**
 * A workflow as a scenario of the suite's report (report.ts), so that `--workflows` writes the
 * same conformance-report.json, junit.xml and HTML as every run: its steps as its checks, its
 * failing steps as findings, not run with its reason. It is filed under the operation its first
 * failing step sent, else the first operation it sends: the report lists scenarios by operation.
 */
export function workflowScenario(outcome: WorkflowOutcome, arazzo: JsonObject, operations: Map<string, Operation>): ScenarioOutcome {
  const workflow = ((arazzo.workflows ?? []) as JsonObject[]).find((w) => w.workflowId === outcome.workflowId);
  const failing = outcome.findings.find((f) => f.verdict === 'fail' && operations.has(f.operationId))?.operationId;
  const notRun = outcome.verdict === 'not-applicable' || outcome.verdict === 'skip';
  return {
    scenarioId: `workflow ${outcome.workflowId}`,
    operationId: failing ?? firstOperation(arazzo, outcome.workflowId, operations) ?? outcome.workflowId,
    title: `workflow ${outcome.workflowId}${workflow?.summary ? `: ${String(workflow.summary)}` : ''}`,
    check: 'workflow',
    ...(outcome.durationMs !== undefined ? { durationMs: outcome.durationMs } : {}),
    level: outcome.level === 'writes' ? 'writes' : 'contract',
    verdict: outcome.verdict,
    ...(notRun ? { skipReason: `workflow ${outcome.workflowId} not run: ${outcome.reason ?? 'a step could not be sent'}` } : {}),
    findings: outcome.findings,
    exchanges: outcome.exchanges,
    notes: [],
    sends: outcome.sends,
    steps: notRun ? [] : [...stepLines(outcome.steps), ...notReached(workflow, outcome.steps)],
  };
}

/** `-t <pattern>` under --workflows: the workflows whose id matches, or a usage error naming them all. */
export function workflowsMatching(raw: string, arazzo: JsonObject = readGeneratedJson('workflows.arazzo.json')): string[] {
  let pattern: RegExp;
  try {
    pattern = new RegExp(raw, 'i');
  } catch (error) {
    throw new UsageError(`-t "${raw}" is not a regular expression: ${(error as Error).message}.`);
  }
  const ids = ((arazzo.workflows ?? []) as JsonObject[]).map((w) => String(w.workflowId));
  const matched = ids.filter((id) => pattern.test(id));
  if (matched.length === 0) throw new UsageError(`-t "${raw}" matches no workflow. With --workflows, -t selects workflows by id: ${ids.join(', ')}.`);
  return matched;
}

export interface WorkflowsCommandOptions {
  /** The workflows `-t` selected (workflowsMatching); all when absent. */
  only?: string[];
  /** The operations the suite never sends, for the report's table. */
  notSent?: NotSent[];
  verbose?: boolean;
  isMock?: boolean;
}

/**
 * `conformance --workflows` after the probe and the level's preconditions: runs, then reports as
 * every run does (report.ts: the console summary; conformance-report.json, junit.xml and the HTML
 * in the report directory). Exit 1 when a workflow failed, else 0.
 */
export async function runWorkflowsCommand(config: ConformanceConfig, document: Json, out: (text: string) => void, options: WorkflowsCommandOptions = {}): Promise<number> {
  const arazzo = readGeneratedJson('workflows.arazzo.json');
  const result = await runWorkflows({ config, document, arazzo, only: options.only, isMock: options.isMock });
  const operations = new Map(listOperations(document).map((op) => [op.operationId, op]));
  const outcomes = result.workflows.map((w) => workflowScenario(w, arazzo, operations));
  const report = buildReport({ document, outcomes, notSent: options.notSent ?? [], baseUrl: config.baseUrl, level: config.level, ...(config.level === 'writes' && config.to ? { to: config.to } : {}), maxSends: result.maxSends, mock: options.isMock });
  const redact = suiteRedactor([config.apiKey]);
  const files = writeReports(path.resolve(config.reportDir), redact(report));
  out(`${redact(formatSummary(report, { verbose: options.verbose, reportDir: config.reportDir }))}\nReports: ${files.json}, ${files.junit}, ${files.html}\n`);
  return report.totals.fail > 0 ? 1 : 0;
}
