// `--rerun <finding-id>`: judges a finding of the last run again the way the run judged it. It
// runs again, alone, the scenarios that showed it (their ids are in the report: a scenario of the
// suite, a workflow, or a replayed step), through the suite's own planner and runner: every
// request the rule needs (the earlier steps of a flow, the second send of an idempotency check,
// the wait after the action), the same criteria, the same finding grouping. Then:
// - `Still there` (exit 1): the same finding id came again, or its rule failed again in words a
//   run makes up (a count, an id) that no finding of the run had;
// - `Gone` (exit 0): every scenario ran to its end, judged the rule again, and did not find it;
// - otherwise (exit 2) what it would need: a level, a second key, the package's mock, an account
//   that can run the level, or why the scenario could not judge here.
// Nothing is sent when a scenario cannot run at these settings (a usage error, and no report is
// written then). A rerun that ran writes its own small report beside the run's
// (conformance-rerun-<id>.json), never over the run's. The key is the rerun's own (never one
// written anywhere); an account the suite signed up on the mock is signed up again by its scenario.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import type { JsonObject } from '../src/contract/json-pointer.js';
import { UsageError } from '../src/cli/usage-error.js';
import { CONTENT_TYPE_CONFORMANCE } from './checks/content-type-conformance.js';
import { KEY_EXPOSURE_CHECK } from './checks/key-exposure.js';
import { NOT_A_SERVER_ERROR } from './checks/not-a-server-error.js';
import { RESPONSE_HEADERS_CONFORMANCE } from './checks/response-headers-conformance.js';
import { RESPONSE_SCHEMA_CONFORMANCE } from './checks/response-schema-conformance.js';
import { STATUS_CODE_CONFORMANCE } from './checks/status-code-conformance.js';
import { FIXTURE_ACCOUNTS, OPTIONS, type ConformanceConfig, type Level } from './config.js';
import { findOperation, listOperations, loadDescription, type Json } from './description.js';
import { createEnvironment } from './environment.js';
import type { ScenarioOutcome } from './findings.js';
import { planOptions, planScenarios, type PlanOptions } from './plan.js';
import { preconditionLine } from './preconditions.js';
import { groupFindings, type FindingGroup } from './reporters/finding-groups.js';
import { reportFiles, rerunReportFile } from './reporters/files.js';
import { formatFinding, type ConformanceReport } from './reporters/report.js';
import { runScenario, type Environment, type Scenario } from './scenario.js';
import { planWorkflows, runWorkflows, workflowScenario } from './workflows.js';

/** The last run's report in `dir`, or a usage error saying there is none (nothing is written). */
export function readRunReport(dir: string): ConformanceReport {
  const file = reportFiles(dir).json;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
  } catch {
    throw new UsageError(`--rerun reads the last run's report, and there is none at ${file}: run the suite first (or pass its --report-dir).`);
  }
}

/** A scenario of the finding as it runs again here, or what it would need to. */
type Runnable = { scenarioId: string; title: string; run(env: Environment): Promise<ScenarioOutcome> };
type Rerunnable = Runnable | { scenarioId: string; needs: string };

/** What each setting a rerun may lack gives the planner. */
const SETTINGS: Array<{ give(options: Required<PlanOptions> & { level: Level }): void; words(config: ConformanceConfig, scenario: Scenario): string }> = [
  { give: (o) => (o.level = 'writes'), words: (config) => `--level writes${config.to ? '' : ' --to <test number>'}` },
  { give: (o) => (o.secondKey = true), words: () => '--second-key <a key of a second account> (or NUMBERS_API_SECOND_KEY)' },
  { give: (o) => (o.emptyWallet = true), words: () => `--empty-wallet-key <a key of ${FIXTURE_ACCOUNTS['empty-wallet'].account}> (or ${OPTIONS['empty-wallet-key'].env})` },
  { give: (o) => (o.freeAccount = true), words: () => `--free-account-key <a key of ${FIXTURE_ACCOUNTS['free-account'].account}> (or ${OPTIONS['free-account-key'].env})` },
  { give: (o) => (o.mock = true), words: (_config, scenario) => `the package's mock as the base URL: it runs only there (${scenario.mockOnly ?? 'on accounts it signs up'})` },
];

/** The fewest settings under which the suite plans `scenarioId`, in words; undefined when none does. */
function whatItNeeds(document: Json, scenarioId: string, config: ConformanceConfig): string | undefined {
  const subsets = Array.from({ length: 1 << SETTINGS.length }, (_, bits) => SETTINGS.filter((_, i) => bits & (1 << i))).sort((a, b) => a.length - b.length);
  for (const subset of subsets) {
    const options = { level: config.level, ...planOptions(config) };
    for (const setting of subset) setting.give(options);
    const scenario = planScenarios(document, options.level, options).scenarios.find((s) => s.id === scenarioId);
    if (scenario) return subset.map((setting) => setting.words(config, scenario)).join(' and ');
  }
  return undefined;
}

/** The checks of every answer (checks/response.ts): each judges one answer alone, so its request alone can show it again. */
const ANSWER_CHECKS = new Set([KEY_EXPOSURE_CHECK, NOT_A_SERVER_ERROR, STATUS_CODE_CONFORMANCE, RESPONSE_HEADERS_CONFORMANCE, CONTENT_TYPE_CONFORMANCE, RESPONSE_SCHEMA_CONFORMANCE]);

/** A replayed step's request, sent again alone: a replay's scenario is its recording, which the report does not keep. */
function replayedRequest(document: Json, group: FindingGroup, scenarioId: string, config: ConformanceConfig): Rerunnable {
  const sent = group.example.sent;
  const replay = 'a replay of the whole recording (numbers-api conformance --replay <recording>)';
  if (!sent) return { scenarioId, needs: `${replay}: the finding has no request of its own` };
  if (!ANSWER_CHECKS.has(group.check)) {
    return { scenarioId, needs: `${replay}: its rule (${group.check}) needs the steps before it` };
  }
  if (sent.auth === 'scratch') return { scenarioId, needs: `${replay}: its request went with the key of an account the recording signed up, which is not kept` };
  if (group.example.acting && config.level !== 'writes') return { scenarioId, needs: '--level writes: its request creates or changes something' };
  const op = findOperation(listOperations(document), group.operationId);
  if (!op) return { scenarioId, needs: `a description with the operation ${group.operationId}` };
  const headers = Object.fromEntries(Object.entries(sent.headers ?? {}).filter(([name]) => !['accept', 'content-type'].includes(name.toLowerCase())));
  const scenario: Scenario = {
    id: scenarioId,
    operationId: op.operationId,
    check: group.check,
    level: group.example.acting ? 'writes' : 'contract',
    title: `its request, sent again: ${group.example.request ?? `${sent.method} ${sent.target}`}`,
    async run(ctx) {
      // The path as it was sent: its ids and query are the finding's own.
      await ctx.send({ ...op, path: sent.target }, { auth: sent.auth, headers, ...(sent.body !== undefined ? { body: sent.body } : {}), expect429: true });
    },
  };
  return { scenarioId, title: scenario.title, run: (env) => runScenario(env, scenario) };
}

/** Each scenario that showed the finding, as it runs again at these settings. */
function rerunnables(document: Json, group: FindingGroup, config: ConformanceConfig): Rerunnable[] {
  const plan = planScenarios(document, config.level, planOptions(config));
  // A replay's steps share one example request: it goes again once.
  const ids = group.scenarioIds.filter((id, i) => !id.startsWith('replay ') || !group.scenarioIds.slice(0, i).some((other) => other.startsWith('replay ')));
  return ids.map((scenarioId): Rerunnable => {
    if (scenarioId.startsWith('replay ')) return replayedRequest(document, group, scenarioId, config);
    if (scenarioId.startsWith('workflow ')) {
      const workflowId = scenarioId.slice('workflow '.length);
      const arazzo = readGeneratedJson('workflows.arazzo.json') as JsonObject;
      const entry = planWorkflows(arazzo, config.level).find((w) => w.workflowId === workflowId);
      if (!entry) return { scenarioId, needs: `a version of the suite with the workflow ${workflowId}` };
      if (!entry.run) return { scenarioId, needs: entry.notRun ?? 'another level' };
      const operations = new Map(listOperations(document).map((op) => [op.operationId, op]));
      return {
        scenarioId,
        title: `workflow ${workflowId}`,
        run: async () => workflowScenario((await runWorkflows({ config, document, arazzo, only: [workflowId], isMock: config.mock !== undefined })).workflows[0]!, arazzo, operations),
      };
    }
    const scenario = plan.scenarios.find((s) => s.id === scenarioId);
    if (scenario) return { scenarioId, title: `${scenario.operationId}: ${scenario.title}`, run: (env) => runScenario(env, scenario) };
    return { scenarioId, needs: whatItNeeds(document, scenarioId, config) ?? `a version of the suite with the scenario ${scenarioId} (this one has none)` };
  });
}

/** Checks about one answer whose verdict depends on which documented response it fell under. */
const STATUS_BOUND = new Set([RESPONSE_SCHEMA_CONFORMANCE, RESPONSE_HEADERS_CONFORMANCE, CONTENT_TYPE_CONFORMANCE]);

/**
 * The rerun came to judge the finding's rule again: a scenario that ran to its end concluded
 * something (pass included) with the same check about the same operation (for a check of an
 * answer's shape, an answer of the same status), or a workflow ran through every step.
 */
function judgedAgain(group: FindingGroup, outcomes: ScenarioOutcome[]): boolean {
  return outcomes.some(
    (o) =>
      o.skipReason === undefined &&
      ((o.steps !== undefined && o.verdict === 'pass') ||
        o.findings.some((f) => f.check === group.check && f.operationId === group.operationId && (!STATUS_BOUND.has(group.check) || f.status === group.status))),
  );
}

export interface RerunReport {
  finding: Pick<FindingGroup, 'id' | 'check' | 'part' | 'operationId' | 'title'>;
  baseUrl: string;
  level: Level;
  generatedAt: string;
  result: 'still-there' | 'gone' | 'cannot-judge';
  exitCode: 0 | 1 | 2;
  /** What it concluded, as the console said it. */
  message: string;
  scenarios: Array<{ scenarioId: string; verdict: string; skipReason?: string; requests: string[] }>;
  /** The findings of the rerun, grouped as the run grouped its own. */
  findings: FindingGroup[];
}

/** What the rerun concluded from what it found. */
function conclude(group: FindingGroup, again: FindingGroup[], outcomes: ScenarioOutcome[], runIds: Set<string>): Pick<RerunReport, 'result' | 'exitCode' | 'message'> {
  const same = again.find((g) => g.id === group.id);
  if (same) return { result: 'still-there', exitCode: 1, message: `Still there: finding ${group.id} came again (${same.count} time${same.count === 1 ? '' : 's'}).` };
  const reworded = again.filter((g) => g.verdict === 'fail' && !runIds.has(g.id) && g.check === group.check && g.operationId === group.operationId);
  if (reworded.length) {
    return { result: 'still-there', exitCode: 1, message: `Still there: ${group.check} fails again on ${group.operationId}, in other words (finding ${reworded.map((g) => g.id).join(', ')}): ${reworded[0]!.title}` };
  }
  const precondition = outcomes.find((o) => o.precondition)?.precondition;
  if (precondition) return { result: 'cannot-judge', exitCode: 2, message: `Cannot judge it here: ${preconditionLine(precondition)}` };
  const skipped = outcomes.find((o) => o.skipReason !== undefined);
  if (skipped) return { result: 'cannot-judge', exitCode: 2, message: `Cannot judge it here: ${skipped.operationId}: ${skipped.title} did not run to its end: ${skipped.skipReason}` };
  if (!judgedAgain(group, outcomes)) {
    return { result: 'cannot-judge', exitCode: 2, message: `Cannot judge it here: the rerun did not come to judge ${group.check} on ${group.operationId}${group.status !== undefined && STATUS_BOUND.has(group.check) ? ` answering ${group.status}` : ''} (see its findings above).` };
  }
  return { result: 'gone', exitCode: 0, message: `Gone: ${outcomes.length === 1 ? 'its scenario' : `its ${outcomes.length} scenarios`} judged ${group.check} on ${group.operationId} again without finding ${group.id}.` };
}

const MAX_REQUESTS_SHOWN = 12;

/**
 * Judges finding `id` of the report in `config.reportDir` again; 1 still there, 0 gone, 2 cannot
 * judge (after running). Throws a UsageError, before anything is sent, when it cannot run here.
 */
export async function rerunFinding(config: ConformanceConfig, id: string, write: (line: string) => void): Promise<number> {
  const report = readRunReport(config.reportDir);
  const file = reportFiles(config.reportDir).json;
  const group = (report.findings ?? []).find((g) => g.id === id);
  if (!group) {
    const ids = (report.findings ?? []).map((g) => g.id);
    throw new UsageError(`No finding ${id} in ${file}${ids.length ? `; its findings are ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', ...' : ''}` : ', which has no finding'}.`);
  }
  if (!group.scenarioIds?.length) throw new UsageError(`${file} does not say which scenarios showed finding ${id} (an older version of the suite wrote it): run the suite again.`);
  const document = loadDescription(config.descriptionPath);
  const planned = rerunnables(document, group, config);
  const needs = [...new Set(planned.flatMap((r) => ('needs' in r ? [r.needs] : [])))];
  const runs = planned.filter((r): r is Runnable => !('needs' in r));
  if (needs.length) throw new UsageError(`Finding ${id} (${group.check} on ${group.operationId}) came from ${planned.map((r) => r.scenarioId).join(', ')}; judging it again needs ${needs.join('; ')}.`);
  write(`Finding ${id}: ${group.title}  [${group.check}${group.part ? `, part ${group.part}` : ''}]`);
  write(`Judged again against ${config.baseUrl} at --level ${config.level}${config.to && config.level === 'writes' ? ` (--to ${config.to})` : ''}, by the scenario${runs.length === 1 ? '' : 's'} that showed it:`);
  const env = createEnvironment(config, document);
  const outcomes: ScenarioOutcome[] = [];
  for (const rerun of runs) {
    const outcome = await rerun.run(env);
    outcomes.push(outcome);
    write(`  ${rerun.title}: ${outcome.verdict}${outcome.skipReason ? ` (${outcome.skipReason})` : ''}`);
    for (const ex of outcome.exchanges.slice(0, MAX_REQUESTS_SHOWN)) write(`    ${ex.request} → ${ex.status}`);
    if (outcome.exchanges.length > MAX_REQUESTS_SHOWN) write(`    ... and ${outcome.exchanges.length - MAX_REQUESTS_SHOWN} more requests`);
  }
  // Grouped as the run grouped them: the same rule broken at the same place has the same finding id.
  const again = groupFindings(document, outcomes, config.baseUrl);
  const runIds = new Set((report.findings ?? []).map((g) => g.id));
  for (const found of again) for (const line of ['', ...formatFinding(found, { rerun: false })]) write(line);
  const conclusion = conclude(group, again, outcomes, runIds);
  const others = again.filter((g) => g.id !== id && g.verdict === 'fail' && !conclusion.message.includes(g.id));
  write('');
  const [old, fresh] = [others.filter((g) => runIds.has(g.id)), others.filter((g) => !runIds.has(g.id))].map((list) => list.map((g) => g.id).join(', '));
  if (old) write(`Other findings of the run these scenarios still show (each has its own --rerun): ${old}.`);
  if (fresh) write(`New failures the run did not have: ${fresh}.`);
  write(conclusion.message);
  const rerunReport: RerunReport = {
    finding: { id: group.id, check: group.check, ...(group.part ? { part: group.part } : {}), operationId: group.operationId, title: group.title },
    baseUrl: config.baseUrl,
    level: config.level,
    generatedAt: new Date().toISOString(),
    ...conclusion,
    scenarios: outcomes.map((o) => ({ scenarioId: o.scenarioId, verdict: o.verdict, ...(o.skipReason ? { skipReason: o.skipReason } : {}), requests: o.exchanges.map((ex) => `${ex.request} → ${ex.status}`) })),
    findings: again,
  };
  mkdirSync(config.reportDir, { recursive: true });
  const out = rerunReportFile(config.reportDir, id);
  writeFileSync(out, `${JSON.stringify(rerunReport, null, 2)}\n`);
  write(`Rerun report: ${out}`);
  return conclusion.exitCode;
}
