// `numbers-api conformance --replay <recording>`: a recording made on the mock (numbers-api mock
// --record, an Arazzo workflow) replayed against a base URL by the package's one runner
// (src/recording/replay.ts), under the suite's safety rules, decided for every step before
// anything is sent:
// - on a deployment (anything that does not announce itself as this package's mock), the
//   mock-only steps are left out (skipped, said why);
// - a step that changes something runs only at `--level writes`, at most --max-sends of them;
// - a step that deletes or charges (its x-effects: it deletes, buys, checks out or pays a fee),
//   with the values the recording carries, runs only when named with --allow <operationId>.
// A recording with a step its level does not allow sends nothing: the run stops (exit 2) naming
// each such step, why, and the flag that would allow it. Each step becomes a scenario of the
// suite's report (its criteria and the contract's verdicts on its answer as findings), written
// to --report-dir as the suite writes its own (conformance-report.json, junit.xml).
import { runCommand } from '../src/cli/command.js';
import type { Parsed } from '../src/cli/options.js';
import { UsageError } from '../src/cli/usage-error.js';
import { apiKey, wholeNumber } from '../src/cli/validators.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { stringLeaves, valueAt, type JsonObject } from '../src/contract/json-pointer.js';
import { readRecordingFile, RecordingFileError } from '../src/recording/recording-files-read.js';
import { recordedWorkflow, replayRecording } from '../src/recording/replay.js';
import { uniqueAt } from '../src/recording/unique-values.js';
import { stepOperation } from '../src/workflows/arazzo-runner.js';
import { resolveStepOperation, type ResolvedOperation } from '../src/contract/workflows.js';
import { criterionExpressions, expressionsIn, type Criterion } from '../src/contract/runtime-expression.js';
import { effectsOf, harmOf, type Effects } from '../src/contract/effects.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { readAnnouncement } from './announcement.js';
import { DEFAULT_MAX_SENDS, OPTIONS as SUITE, parseBaseUrl } from './config.js';
import { loadDescription } from './description.js';
import type { AnswerExcerpt, Finding, ScenarioOutcome, SentRequest } from './findings.js';
import { describeRequest, type AuthMode } from './http.js';
import { writeReports } from './reporters/files.js';
import { buildReport, formatSummary, stoppedReport } from './reporters/report.js';

export const REPLAY = {
  name: 'numbers-api conformance --replay',
  usage: '<recording> --base-url <url> [options]',
  about: 'Replays a recording (numbers-api mock --record <dir>: <name>.arazzo.json) against a deployment.',
  options: {
    replay: { type: 'string', value: '<recording>', help: 'the recording' },
    'base-url': SUITE['base-url'],
    'api-key': SUITE['api-key'],
    level: { ...SUITE.level, help: 'contract (default): only recordings that change nothing run; writes: steps that change something run, at most --max-sends' },
    'max-sends': { ...SUITE['max-sends'], help: `most steps that change something (default ${DEFAULT_MAX_SENDS})` },
    allow: { type: 'string', value: '<operationId>', multiple: true, help: 'also send a step the suite never sends (it deletes, buys, checks out, pays a fee), named one by one; repeatable' },
    input: { type: 'string', value: '<name=value>', multiple: true, help: 'a workflow input other than the key (a sign-up code); repeatable' },
    'report-dir': { ...SUITE['report-dir'], help: 'where conformance-report.json and junit.xml go (default ./conformance-report)' },
  },
  notes: `Exit codes: 0 every step passed, 1 a step failed, 2 usage error, a bad recording, or a step the
level does not allow (nothing is sent then).`,
} as const;

interface ReplayArgs {
  recording: string;
  baseUrl: string;
  apiKey: string;
  level: 'contract' | 'writes';
  maxSends: number;
  allow: Set<string>;
  inputs: Record<string, string>;
  reportDir: string;
}

function replayArgs({ values }: Parsed<typeof REPLAY.options>): ReplayArgs {
  if (!values.replay) throw new UsageError('--replay needs a recording file.');
  const level = values.level ?? 'contract';
  if (level !== 'contract' && level !== 'writes') throw new UsageError(`--level must be contract or writes, got "${level}".`);
  const inputs: Record<string, string> = {};
  for (const pair of values.input ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--input must be name=value, got "${pair}".`);
    inputs[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    recording: values.replay,
    baseUrl: parseBaseUrl(values['base-url']),
    apiKey: apiKey(values['api-key'], '--api-key', loadDescription()),
    level,
    maxSends: values['max-sends'] === undefined ? DEFAULT_MAX_SENDS : wholeNumber(values['max-sends'], '--max-sends', 0, 1000),
    allow: new Set(values.allow ?? []),
    inputs,
    reportDir: values['report-dir'] ?? 'conformance-report',
  };
}

type ReplayedAnswer = Parameters<NonNullable<Parameters<typeof replayRecording>[0]['onAnswer']>>[0];

/** A replayed request as the suite's findings keep it: a line, the request as data (no key), and the answer cut short. */
function requestOf(answer: ReplayedAnswer, apiKey: string): { line: string; sent: SentRequest; excerpt: AnswerExcerpt } {
  const authorization = answer.request.authorization;
  // The run's key is --api-key (NUMBERS_API_KEY); a key the recording's own sign-up got is not kept.
  const auth: AuthMode = authorization === null ? 'none' : authorization === `Bearer ${apiKey}` ? 'valid' : 'scratch';
  const sent: SentRequest = {
    method: answer.method.toUpperCase(),
    target: answer.sent.target,
    auth,
    ...(answer.request.body !== undefined ? { body: answer.request.body } : {}),
    ...(Object.keys(answer.sent.headers).length > 0 ? { headers: answer.sent.headers } : {}),
  };
  const text = answer.body === undefined ? undefined : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  return {
    line: describeRequest({ method: sent.method, target: sent.target, auth, requestBody: sent.body }),
    sent,
    excerpt: { status: answer.status, ...(answer.headers['content-type'] ? { contentType: answer.headers['content-type'] } : {}), ...(text !== undefined ? { body: text.slice(0, 2000) } : {}) },
  };
}

/** The step's criteria the runner said were not met (its notes name each by its condition and context). */
function unmetCriteria(step: JsonObject | undefined, notes: string[]): Criterion[] {
  const criteria = (step?.successCriteria ?? []) as Criterion[];
  return criteria.filter((c) => notes.includes(`not met: ${c.condition}${c.context ? ` (of ${c.context})` : ''}`));
}

/** The answer's place a criterion reads (`$response.body#/id`), as a JSON pointer. */
function placeOf(criterion: Criterion): string | undefined {
  const read = criterionExpressions(criterion)[0];
  return read?.root === '$response' && read.part === 'body' && read.pointer ? read.pointer : undefined;
}

/** The names beside a missing field that look like it (`phone_number_id` for `phoneNumberId`): renamed? */
function nearNames(body: unknown, pointer: string): string[] {
  const at = pointer.lastIndexOf('/');
  const parent = valueAt(body, `#${pointer.slice(0, at)}`);
  const missing = pointer.slice(at + 1);
  if (!parent || typeof parent !== 'object' || Array.isArray(parent) || missing in parent) return [];
  const plain = (name: string): string => name.toLowerCase().replace(/[_\-\s.]/g, '');
  return Object.keys(parent).filter((name) => plain(name) === plain(missing));
}

function criterionData(criterion: Criterion, body: unknown): Pick<Finding, 'expected' | 'actual'> {
  const pointer = placeOf(criterion);
  const actual = pointer ? valueAt(body, `#${pointer}`) : undefined;
  return { expected: { criterion: criterion.condition, ...(criterion.context ? { of: criterion.context } : {}) }, actual: pointer ? { at: pointer, value: actual ?? null } : null };
}

function criterionReason(criterion: Criterion, body: unknown): string {
  const pointer = placeOf(criterion);
  const near = pointer ? nearNames(body, pointer) : [];
  const missing = pointer !== undefined && valueAt(body, `#${pointer}`) === undefined;
  return `not met: ${criterion.condition}${criterion.context ? ` (of ${criterion.context})` : ''}${missing ? `; the answer has nothing at ${pointer}` : ''}${near.length ? `; near miss: ${near.map((n) => `\`${n}\``).join(', ')} is there instead: renamed?` : ''}`;
}

/** A value written as it was sent: no runtime expression in it (one the grammar cannot read counts as none). */
function isLiteral(value: string): boolean {
  try {
    return expressionsIn(value).length === 0;
  } catch {
    return false;
  }
}

/** The values a workflow step sends as literals where the service takes them once: `body /email`, `header Idempotency-Key`. */
function literalUniques(step: JsonObject, operation: ResolvedOperation): Array<{ where: string; value: string; reason: string }> {
  const found: Array<{ where: string; value: string; reason: string }> = [];
  for (const leaf of stringLeaves((step.requestBody as JsonObject | undefined)?.payload)) {
    const unique = isLiteral(leaf.value) ? uniqueAt(operation, { in: 'body', pointer: leaf.pointer }) : undefined;
    if (unique) found.push({ where: `body ${leaf.pointer}`, value: leaf.value, reason: unique.reason });
  }
  for (const parameter of (step.parameters ?? []) as JsonObject[]) {
    const where = parameter.in as 'path' | 'query' | 'header';
    const unique = typeof parameter.value === 'string' && isLiteral(parameter.value) ? uniqueAt(operation, { in: where, name: String(parameter.name) }) : undefined;
    if (unique) found.push({ where: `${where} ${parameter.name}`, value: String(parameter.value), reason: unique.reason });
  }
  return found;
}

/** A value a step sent as recorded where the service takes it once (`x-unique`). */
type Taken = ReturnType<typeof literalUniques>[number] & { stepId: string };

/** What a failure may owe to an earlier run: the values this step, or one before it, sent as recorded where the service takes them once. */
function leftovers(taken: Taken[]): string {
  const sent = taken.map((t) => `step ${t.stepId} sent ${t.where} ${JSON.stringify(t.value)} as recorded, and an earlier run may have taken it: ${t.reason.charAt(0).toLowerCase()}${t.reason.slice(1).replace(/\.$/, '')}`);
  return sent.length > 0 ? `; ${sent.join('; ')}; a fresh value per run avoids it (record again: the recorder writes it as Respect's $faker)` : '';
}

/** Why a step may not be sent at this level, or undefined. */
function refusal(step: { operationId: string; effects: Effects }, args: ReplayArgs): string | undefined {
  const harm = harmOf(step.effects);
  if (harm && !args.allow.has(step.operationId)) return `it ${harm}: the suite never sends it unless named with --allow ${step.operationId}`;
  if (step.effects.changesState && args.level !== 'writes') return 'it changes something: it runs only at --level writes';
  return undefined;
}

export async function runReplayCli(argv: string[], out: (t: string) => void = (t) => void process.stdout.write(t), err: (t: string) => void = (t) => void process.stderr.write(t), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCommand(REPLAY, argv, { stdout: out, stderr: err }, (parsed) => replay(replayArgs(parsed), out, err), env);
}

async function replay(args: ReplayArgs, out: (t: string) => void, err: (t: string) => void): Promise<number> {
  const stop = (message: string): number => {
    writeReports(args.reportDir, stoppedReport({ baseUrl: args.baseUrl, level: args.level, exitCode: 2, message }));
    err(`numbers-api conformance: ${message}\n`);
    return 2;
  };
  let recording: JsonObject;
  try {
    recording = readRecordingFile(args.recording).document;
  } catch (error) {
    if (error instanceof RecordingFileError) return stop(error.message);
    throw error;
  }
  const document = loadDescription() as JsonObject;
  const controlDocument = readGeneratedJson('mock-control.json') as JsonObject;
  const isMock = (await readAnnouncement(args.baseUrl, 10_000)) !== undefined;
  const workflow = recordedWorkflow(recording);
  const name = String(workflow.workflowId);

  // Every step decided before anything is sent; the values each sends as recorded where the service takes them once.
  const taken = new Map<string, Taken[]>();
  const takenSoFar: Taken[] = [];
  const refused: string[] = [];
  const leftOut = new Map<string, string>();
  let writes = 0;
  const changes = new Map<string, boolean>();
  for (const step of (workflow.steps ?? []) as JsonObject[]) {
    const target = stepOperation(step);
    const resolved = target ? resolveStepOperation({ numbersApi: document, mockControl: controlDocument }, String(step.operationId)) : 'no operation';
    if (typeof resolved === 'string') return stop(`${args.recording}: step ${step.stepId}: ${resolved}`);
    takenSoFar.push(...literalUniques(step, resolved).map((t) => ({ stepId: String(step.stepId), ...t })));
    taken.set(String(step.stepId), [...takenSoFar]);
    const effects = effectsOf(resolved.operation);
    changes.set(resolved.operationId, effects.changesState);
    if (effects.mockOnly) {
      if (!isMock) leftOut.set(String(step.stepId), 'mock only: the mock\'s control surface, left out on a deployment');
      continue;
    }
    if (isMock) continue;
    const why = refusal({ operationId: resolved.operationId, effects }, args);
    if (why) refused.push(`step ${step.stepId} (${resolved.operationId}): ${why}`);
    else if (effects.changesState) writes += 1;
  }
  if (refused.length > 0) return stop(`recording ${name}: nothing was sent; ${refused.length} step${refused.length === 1 ? '' : 's'} not allowed at --level ${args.level}: ${refused.join('; ')}`);
  if (!isMock && writes > args.maxSends) return stop(`recording ${name}: nothing was sent; it has ${writes} steps that change something, more than --max-sends ${args.maxSends}`);

  // Each answer as it came, in the order the steps were sent: the request as data for a finding's
  // curl and --rerun, and the answer for its excerpt.
  const answers: ReplayedAnswer[] = [];
  const result = await replayRecording({ recording, document, controlDocument, baseUrl: args.baseUrl, apiKey: args.apiKey, isMock, inputs: args.inputs, onAnswer: (answer) => answers.push(answer) });
  const contract = new Map(result.contract.map((c) => [c.stepId, c.verdicts]));
  const stepsById = new Map(((workflow.steps ?? []) as JsonObject[]).map((step) => [String(step.stepId), step]));
  const outcomes: ScenarioOutcome[] = [];
  let sent = 0;
  for (const record of result.steps) {
    const operationId = /^(\w+)/.exec(record.runs)?.[1] ?? record.runs;
    const answer = record.status !== undefined ? answers[sent++] : undefined;
    const seq = answer ? sent : undefined;
    const request = answer ? requestOf(answer, args.apiKey) : undefined;
    const acting = answer !== undefined && answer.source === 'numbersApi' && changes.get(answer.operationId) === true;
    const about = { operationId, ...(record.status !== undefined ? { status: record.status } : {}), ...(request ? { request: request.line, sent: request.sent, answer: request.excerpt, exchange: seq } : {}) };
    const findings: Finding[] = [];
    const verdicts = contract.get(record.stepId) ?? [];
    // Judged as the suite judges an answer: a documented rule broken fails, an inferred one (x-inferred) is advisory.
    if (verdicts.length > 0) {
      const documentedBreaks = verdicts.filter((verdict) => verdict.severity === 'documented');
      findings.push({ check: 'response-schema-conformance', verdict: documentedBreaks.length > 0 ? 'fail' : 'advisory', reason: (documentedBreaks.length > 0 ? documentedBreaks : verdicts).map(describeVerdict).join('; '), ...about, verdicts });
    }
    // One finding per criterion not met: what it expected, what came at its place, a near miss.
    const earlier = leftovers(taken.get(record.stepId) ?? []);
    for (const criterion of unmetCriteria(stepsById.get(record.stepId), record.notes ?? [])) {
      findings.push({ check: 'replay-step', verdict: 'fail', reason: `recording ${name}, step ${record.stepId}: ${criterionReason(criterion, answer?.body)}${earlier}`, ...about, ...criterionData(criterion, answer?.body) });
    }
    if (record.outcome === 'refused') findings.push({ check: 'replay-step', verdict: 'fail', reason: `recording ${name}, step ${record.stepId}: ${(record.notes ?? []).join('; ')}`, operationId });
    if (record.outcome === 'failed' && findings.length === 0) findings.push({ check: 'replay-step', verdict: 'fail', reason: `recording ${name}, step ${record.stepId}: ${(record.notes ?? ['failed']).join('; ')}${earlier}`, ...about });
    const skipReason = record.outcome === 'skipped' ? (leftOut.get(record.stepId) ?? (record.notes ?? []).join('; ')) : undefined;
    outcomes.push({
      scenarioId: `replay ${name} ${record.stepId}`,
      operationId,
      title: `recording ${name}, step ${record.stepId}`,
      check: 'replay-step',
      level: acting ? 'writes' : 'contract',
      verdict: findings.some((f) => f.verdict === 'fail') ? 'fail' : skipReason ? 'skip' : findings.length > 0 ? 'advisory' : 'pass',
      ...(skipReason ? { skipReason } : {}),
      findings,
      exchanges: record.status !== undefined ? [{ ...(seq !== undefined ? { seq } : {}), operationId, status: record.status, request: request?.line ?? record.runs }] : [],
      notes: [],
      // A step that changed something: --rerun sends it again only at --level writes.
      sends: acting && request ? [{ operationId, request: request.line, status: record.status }] : [],
    });
  }
  for (const stepId of result.notRun) {
    outcomes.push({ scenarioId: `replay ${name} ${stepId}`, operationId: stepId, title: `recording ${name}, step ${stepId}`, check: 'replay-step', level: 'contract', verdict: 'skip', skipReason: 'not run: a step before it failed', findings: [], exchanges: [], notes: [], sends: [] });
  }
  const report = buildReport({ document, outcomes, notSent: [], baseUrl: args.baseUrl, level: args.level });
  writeReports(args.reportDir, report);
  const lines = [`Replay of recording ${name} against ${args.baseUrl}${isMock ? ' (the numbers-api mock)' : ''}:`];
  for (const o of outcomes) {
    const finding = o.findings.find((f) => f.verdict === 'fail');
    lines.push(`  ${o.verdict.padEnd(5)} ${o.title.replace(`recording ${name}, `, '')}${o.skipReason ? ` (${o.skipReason})` : ''}${finding ? `: ${finding.reason.replace(`recording ${name}, step ${o.title.split('step ')[1]}: `, '')}` : ''}`);
  }
  out(`${lines.join('\n')}\n${formatSummary(report, { reportDir: args.reportDir })}\n`);
  return outcomes.some((o) => o.verdict === 'fail') ? 1 : 0;
}
