// The report model: outcomes grouped by operation, totals, the findings grouped as a person acts on
// them (finding-groups.ts), and the coverage matrix (coverage.ts: every documented status and
// code, provoked or why not). Pure functions, so the console, JSON, JUnit, HTML and tests all read
// the same thing.
import path from 'node:path';
import { documentedStatuses, listOperations, type Json } from '../description.js';
import type { Finding, ScenarioOutcome, SendRecord, Verdict } from '../findings.js';
import { DEFAULT_REPORT_DIR, FIXTURE_ACCOUNTS, type FixtureAccount, type Level } from '../config.js';
import { fullPlan, planScenarios, type NotSent, type PlanOptions } from '../plan.js';
import { RULES } from '../rules.js';
import { catalogCodes, codeCoverage, coverageCells, provoked, type CodeCoverage, type CoverageCell } from './coverage.js';
import { authNote } from './explain.js';
import { groupFindings, type FindingGroup } from './finding-groups.js';

export interface OperationReport {
  operationId: string;
  method: string;
  path: string;
  /** `x-source`: the parts of the interface specification the operation comes from. */
  source: string;
  verdict: Verdict | 'not sent' | 'not run';
  notSentReason?: string;
  scenarios: ScenarioOutcome[];
}

export interface CoverageRow {
  operationId: string;
  method: string;
  path: string;
  exercised: boolean;
  notSentReason?: string;
  documented: string[];
  seen: string[];
  /** Documented statuses only `writes` scenarios reached (marked `+` in the table). */
  seenOnlyAtWrites: string[];
  /** Statuses answered that the operation does not document. */
  undocumentedSeen: string[];
  /** Each documented status, and each code of part 7 its answers carry: provoked (and held or not), or why not. */
  cells: CoverageCell[];
}

/** The coverage in figures: statuses provoked by level, and part 7's codes provoked or explained. */
export interface CoverageSummary {
  statuses: number;
  /** Statuses that came (their answer held or not). */
  provoked: number;
  /** Statuses that came with an answer that broke a rule. */
  failed: number;
  /** Statuses asked for that got another status instead (a failure too, but the status never came). */
  answeredOtherwise: number;
  byLevel: { contract: number; writes: number; mock: number };
  codes: { total: number; provoked: number; explained: number };
}

export interface ConformanceReport {
  baseUrl: string;
  level: string;
  /** The test number of `--level writes` (`--to`): `--rerun` reads it from here, as it reads the base URL. */
  to?: string;
  generatedAt: string;
  totals: Record<Verdict, number>;
  operations: OperationReport[];
  coverage: CoverageRow[];
  restored: string[];
  /** What the `writes` level created or changed, against its --max-sends. */
  sends: SendSummary;
  /** The failures and advisories, one cause one finding, identical ones grouped with a count. */
  findings: FindingGroup[];
  /** Part 7's machine codes: where each was provoked, or why not. */
  codes: CodeCoverage[];
  coverageSummary: CoverageSummary;
  /** The options and states that would let the suite provoke more, and what each unlocks. */
  unlocks: Array<{ unlock: string; what: string[] }>;
  /** On the package's mock: what the suite sent on accounts it signed up there (never the run's own). */
  mockAccounts?: { scenarios: number; requests: number };
  /**
   * Set when the run stopped instead of judging (exit 2): a usage error, a base URL that is not
   * this API, a key it refuses, or an account the `writes` level cannot run on; `message` says
   * what to change, as the console did.
   */
  stopped?: { exitCode: number; message: string };
}

export interface SendSummary {
  /** --max-sends; absent at the contract level, which creates nothing. */
  limit?: number;
  total: number;
  byOperation: Record<string, number>;
  requests: SendRecord[];
}

/** An operation fails if any scenario failed; it is skipped only if nothing could be judged. */
function operationVerdict(verdicts: Verdict[]): Verdict {
  for (const v of ['fail', 'advisory', 'pass', 'skip'] as const) if (verdicts.includes(v)) return v;
  return 'not-applicable';
}

/**
 * An operation no scenario of its own judges, sent by scenarios of others (a sign-up or a billing
 * journey): its verdict is what was found about its answers there.
 */
function exercisedElsewhere(outcomes: readonly ScenarioOutcome[], operationId: string): Verdict | 'not run' {
  const findings = outcomes.flatMap((o) => o.findings.filter((f) => f.operationId === operationId));
  if (!findings.length) return 'not run';
  return findings.some((f) => f.verdict === 'fail') ? 'fail' : findings.some((f) => f.verdict === 'advisory') ? 'advisory' : 'pass';
}

const noTotals = (): Record<Verdict, number> => ({ pass: 0, fail: 0, advisory: 0, skip: 0, 'not-applicable': 0 });

/** The report of a run that stopped before judging anything (exit 2): the reason, and nothing else. */
export function stoppedReport(input: { baseUrl?: string; level?: string; exitCode: number; message: string }): ConformanceReport {
  return {
    baseUrl: input.baseUrl ?? '',
    level: input.level ?? '',
    generatedAt: new Date().toISOString(),
    totals: noTotals(),
    operations: [],
    coverage: [],
    restored: [],
    sends: { total: 0, byOperation: {}, requests: [] },
    findings: [],
    codes: [],
    coverageSummary: { statuses: 0, provoked: 0, failed: 0, answeredOtherwise: 0, byLevel: { contract: 0, writes: 0, mock: 0 }, codes: { total: 0, provoked: 0, explained: 0 } },
    unlocks: [],
    stopped: { exitCode: input.exitCode, message: input.message },
  };
}

function statusMatches(documented: string, status: number): boolean {
  const code = String(status);
  return documented === code || documented.toUpperCase() === `${code[0]}XX`;
}

export interface ReportInput {
  document: Json;
  outcomes: ScenarioOutcome[];
  notSent: NotSent[];
  baseUrl: string;
  level: string;
  to?: string;
  maxSends?: number;
  /** The deployment announced itself as the package's mock. */
  mock?: boolean;
  /** A second key was given (--second-key). */
  secondKey?: boolean;
  /** A fixture account's key was given (--empty-wallet-key, --free-account-key). */
  emptyWallet?: boolean;
  freeAccount?: boolean;
}

/** What the suite offers a person to provoke more: each option with what it unlocks. */
function unlocksOf(coverage: CoverageRow[], run: Required<PlanOptions>): Array<{ unlock: string; what: string[] }> {
  const by = new Map<string, string[]>();
  for (const row of coverage) {
    for (const cell of row.cells) {
      if (cell.state !== 'not-provoked' || !cell.unlock) continue;
      by.set(cell.unlock, [...(by.get(cell.unlock) ?? []), `${row.operationId} ${cell.status}${cell.code ? ` ${cell.code}` : ''}`]);
    }
  }
  if (!run.secondKey && !run.mock) {
    const byId = coverage.filter((row) => row.path.includes('{')).map((row) => row.operationId);
    by.set('--second-key', [`cross-account isolation (part 7: 404 for another account's record) on ${byId.join(', ')}`, ...(by.get('--second-key') ?? [])]);
  }
  // The rules of the table only a fixture account lets the suite judge (rules.ts), before the statuses they provoke.
  for (const [fixture, { option, account }] of Object.entries(FIXTURE_ACCOUNTS) as Array<[FixtureAccount, (typeof FIXTURE_ACCOUNTS)[FixtureAccount]]>) {
    if (run.mock || (fixture === 'empty-wallet' ? run.emptyWallet : run.freeAccount)) continue;
    const rules = RULES.filter((r) => r.checked?.fixture === option).map((r) => r.id);
    if (rules.length) by.set(option, [`${account} set aside: the rules ${rules.join(', ')}`, ...(by.get(option) ?? [])]);
  }
  return [...by].map(([unlock, what]) => ({ unlock, what }));
}

export function buildReport(input: ReportInput): ConformanceReport {
  const operations = listOperations(input.document);
  const totals = noTotals();
  for (const o of input.outcomes) totals[o.verdict]++;
  const opReports: OperationReport[] = operations.map((op) => {
    const scenarios = input.outcomes.filter((o) => o.operationId === op.operationId);
    const notSent = input.notSent.find((n) => n.operationId === op.operationId);
    return {
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      source: op.source,
      verdict: notSent ? 'not sent' : scenarios.length ? operationVerdict(scenarios.map((s) => s.verdict)) : exercisedElsewhere(input.outcomes, op.operationId),
      notSentReason: notSent?.reason,
      scenarios,
    };
  });
  const full = fullPlan(input.document);
  const options: Required<PlanOptions> = { mock: input.mock === true, secondKey: input.secondKey === true, emptyWallet: input.emptyWallet === true, freeAccount: input.freeAccount === true };
  // A run of workflows or of a recording has outcomes of its own, none of a scenario of the suite.
  const suite = new Set(full.scenarios.map((s) => s.id));
  const notTheSuite = input.outcomes.length && !input.outcomes.some((o) => suite.has(o.scenarioId)) ? [...new Set(input.outcomes.map((o) => o.check))] : undefined;
  const run = { level: input.level, ...options, plan: planScenarios(input.document, input.level as Level, options), ...(notTheSuite ? { notTheSuite } : {}) };
  const known = new Set(catalogCodes(input.document).map((c) => c.code));
  const coverage: CoverageRow[] = operations.map((op) => {
    const statuses = new Set<number>();
    const atContract = new Set<number>();
    for (const o of input.outcomes) {
      for (const ex of o.exchanges) {
        if (ex.operationId !== op.operationId) continue;
        statuses.add(ex.status);
        if (o.level !== 'writes') atContract.add(ex.status);
      }
    }
    const documented = documentedStatuses(op);
    const seen = documented.filter((d) => [...statuses].some((s) => statusMatches(d, s)));
    const seenOnlyAtWrites = seen.filter((d) => ![...atContract].some((s) => statusMatches(d, s)));
    const undocumentedSeen = [...statuses].filter((s) => !documented.some((d) => statusMatches(d, s) || d === 'default')).map(String);
    return {
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      exercised: statuses.size > 0,
      notSentReason: input.notSent.find((n) => n.operationId === op.operationId)?.reason,
      documented,
      seen,
      seenOnlyAtWrites,
      undocumentedSeen,
      cells: coverageCells({ document: input.document, op, outcomes: input.outcomes, full, run, codes: known }),
    };
  });
  const requests = input.outcomes.flatMap((o) => o.sends ?? []);
  const byOperation: Record<string, number> = {};
  for (const r of requests) byOperation[r.operationId] = (byOperation[r.operationId] ?? 0) + 1;
  const codes = codeCoverage(input.document, new Map(coverage.map((row) => [row.operationId, row.cells])));
  const statusCells = coverage.flatMap((row) => row.cells.filter((cell) => cell.code === undefined));
  const part7 = codes.filter((c) => !c.inferred);
  const onMock = input.outcomes.filter((o) => o.onMock);
  return {
    baseUrl: input.baseUrl,
    level: input.level,
    ...(input.to ? { to: input.to } : {}),
    generatedAt: new Date().toISOString(),
    totals,
    operations: opReports,
    coverage,
    restored: input.outcomes.flatMap((o) => o.notes),
    sends: { limit: input.maxSends, total: requests.length, byOperation, requests },
    findings: groupFindings(input.document, input.outcomes, input.baseUrl),
    codes,
    coverageSummary: {
      statuses: statusCells.length,
      provoked: statusCells.filter(provoked).length,
      failed: statusCells.filter((c) => c.state === 'failed').length,
      answeredOtherwise: statusCells.filter((c) => c.state === 'answered-otherwise').length,
      byLevel: {
        contract: statusCells.filter((c) => c.level === 'contract').length,
        writes: statusCells.filter((c) => c.level === 'writes').length,
        mock: statusCells.filter((c) => c.level === 'mock').length,
      },
      codes: { total: part7.length, provoked: part7.filter((c) => c.provokedAt.length).length, explained: part7.filter((c) => !c.provokedAt.length).length },
    },
    unlocks: unlocksOf(coverage, run),
    ...(onMock.length ? { mockAccounts: { scenarios: onMock.length, requests: onMock.reduce((n, o) => n + (o.scratchRequests ?? 0), 0) } } : {}),
  };
}

const MARKS: Record<string, string> = { pass: 'PASS', fail: 'FAIL', advisory: 'ADVISORY', skip: 'SKIP', 'not-applicable': 'N/A', 'not sent': 'NOT SENT', 'not run': 'NOT RUN' };

/** The progress line's marks, one per scenario as it ends: said once before the first. */
export const PROGRESS_LEGEND = 'Progress, one mark per scenario: . passed  F failed  a advisory  s skipped  - does not apply here  E error in the suite itself';

function findingLine(f: Finding): string {
  return `      ${MARKS[f.verdict]} [${f.check}${f.part ? `, part ${f.part}` : ''}] ${f.reason}${f.request ? `\n        request: ${f.request}` : ''}`;
}

const shellWord = (text: string): string => (/^[\w./:@+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** Where to tell `--rerun` to read the report: nothing when it is the default directory under the one the command runs from. */
function reportDirArgument(reportDir: string | undefined): string[] {
  if (reportDir === undefined || path.resolve(reportDir) === path.resolve(DEFAULT_REPORT_DIR)) return [];
  return ['--report-dir', shellWord(path.resolve(reportDir))];
}

/**
 * How a person judges a finding again: one line that runs as pasted (the installed form after a
 * shell comment), naming what the run's report cannot give (the level, which only a person may
 * choose, and where the report is). The base URL and `--to` come from the report, the keys from
 * their variables, as the curl's.
 */
export function rerunCommand(group: Pick<FindingGroup, 'id' | 'level'>, reportDir?: string): string {
  const args = ['--rerun', group.id, ...(group.level === 'writes' ? ['--level', 'writes'] : []), ...reportDirArgument(reportDir)].join(' ');
  return `npm run conformance -- ${args}   # installed: npx numbers-api conformance ${args}`;
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/**
 * A finding group as the console shows it: the rule, where, expected and actual, the contract, the
 * request, a curl and the rerun (`rerun: false` leaves the rerun out: a rerun's own output).
 */
export function formatFinding(group: FindingGroup, options: { reportDir?: string; rerun?: boolean } = {}): string[] {
  const times = group.count > 1 ? `  (${group.count} times${group.requests > 1 ? `, in ${group.requests} requests` : ''})` : '';
  const lines = [`${MARKS[group.verdict]} [${group.check}${group.part ? `, part ${group.part}` : ''}] ${group.title}${times}  finding ${group.id}`];
  const where = [`${group.operationId}${group.status !== undefined ? ` answered ${group.status}` : ''}`];
  if (group.at) where.push(`at ${group.at}`);
  if (group.rule?.schema) where.push(`rule ${group.rule.schema.pointer}/${group.rule.keyword}${group.rule.schema.component ? ` (${group.rule.schema.component})` : ''}`);
  lines.push(`    ${where.join('  ')}`);
  if (group.expected !== undefined || group.actual !== undefined) lines.push(`    expected ${show(group.expected)}; actual ${show(group.actual)}`);
  if (group.nearMiss?.length) lines.push(`    near miss: ${group.nearMiss.map((n) => `\`${n}\``).join(', ')} is present where \`${group.at?.split('/').pop()}\` is missing: renamed?`);
  if (group.branch) lines.push(`    ${group.branch.words}; only that branch's breaks are shown`);
  for (const also of group.also.slice(0, 3)) lines.push(`    also, from the same answer: ${also}`);
  if (group.also.length > 3) lines.push(`    also, from the same answer: ${group.also.length - 3} more`);
  if (group.example.request) lines.push(`    request: ${group.example.request}`);
  if (group.example.curl) lines.push(`    ${group.example.curl}`);
  // A request sent with a key the suite did not keep: what its variable is, and how to get one.
  const note = authNote(group.example.sent);
  if (note) lines.push(`    (${note})`);
  if (options.rerun !== false) lines.push(`    rerun: ${rerunCommand(group, options.reportDir)}`);
  return lines;
}

/** The console summary: by operation, each scenario's verdict, then the findings grouped by rule. */
export function formatSummary(report: ConformanceReport, options: { verbose?: boolean; reportDir?: string } = {}): string {
  const lines: string[] = [`Conformance of ${report.baseUrl} (level ${report.level})`, ''];
  for (const op of report.operations) {
    const parts = op.source ? `  [part ${op.source}]` : '';
    lines.push(`${MARKS[op.verdict]?.padEnd(8)} ${op.operationId}  ${op.method} ${op.path}${parts}${op.notSentReason ? `  (not sent: ${op.notSentReason})` : ''}`);
    for (const s of op.scenarios) {
      // Skips are summarised once at the end (one reason often covers many operations).
      if ((s.verdict === 'pass' || s.verdict === 'skip' || s.verdict === 'not-applicable') && !options.verbose) continue;
      lines.push(`    ${MARKS[s.verdict]} ${s.title}${s.skipReason ? `: ${s.skipReason}` : ''}`);
      if (options.verbose) for (const f of s.findings) lines.push(findingLine(f));
      for (const n of s.notes) lines.push(`      NOTE ${n}`);
    }
  }
  if (report.findings.length) {
    const failures = report.findings.filter((g) => g.verdict === 'fail');
    const seen = report.findings.reduce((n, g) => n + g.count, 0);
    lines.push('', `Findings: ${failures.length} failing, ${report.findings.length - failures.length} advisory (${seen} occurrences, grouped by rule; one cause, one finding)`);
    for (const group of report.findings) lines.push('', ...formatFinding(group, { reportDir: options.reportDir }));
  }
  const skips = new Map<string, string[]>();
  for (const op of report.operations) {
    for (const s of op.scenarios) if (s.verdict === 'skip') skips.set(s.skipReason ?? 'skipped', [...(skips.get(s.skipReason ?? 'skipped') ?? []), `${op.operationId}: ${s.title}`]);
  }
  if (skips.size && !options.verbose) {
    lines.push('', 'Skipped:');
    for (const [reason, which] of skips) lines.push(`  - ${reason}`, ...(which.length > 3 ? [`      ${which.length} scenarios`] : which.map((w) => `      ${w}`)));
  }
  // A rule that does not apply to this deployment: one line per reason, whatever the count.
  const notApplicable = new Map<string, number>();
  for (const op of report.operations) {
    for (const s of op.scenarios) if (s.verdict === 'not-applicable') notApplicable.set(s.skipReason ?? '', (notApplicable.get(s.skipReason ?? '') ?? 0) + 1);
  }
  if (notApplicable.size) lines.push('');
  for (const [reason, count] of notApplicable) lines.push(`Not applicable (${count} scenarios): ${reason}`);
  if (report.restored.length) {
    lines.push('', 'State the suite changed (a change it made, or one the deployment wrongly accepted), and what it did:');
    for (const n of report.restored) lines.push(`  - ${n}`);
  }
  if (report.sends.limit !== undefined) lines.push('', formatSends(report.sends));
  if (report.mockAccounts) {
    lines.push(`On the mock, on accounts the suite signed up there (never yours): ${report.mockAccounts.requests} requests in ${report.mockAccounts.scenarios} scenarios`);
  }
  const t = report.totals;
  lines.push('', `Scenarios: ${t.pass} passed, ${t.fail} failed, ${t.advisory} advisory, ${t.skip} skipped${t['not-applicable'] ? `, ${t['not-applicable']} not applicable` : ''}`);
  return lines.join('\n');
}

/** One line: what the writes level created or changed, against --max-sends. */
export function formatSends(sends: SendSummary): string {
  const parts = Object.entries(sends.byOperation).map(([op, n]) => `${op} ${n}`);
  return `Sends (creating or changing something): ${sends.total} of at most ${sends.limit} (--max-sends)${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/**
 * A cell's mark in the table: `*` provoked, `+` provoked only at the writes level (or on the
 * mock's accounts), `!` provoked and failed, `(got 500)` asked for and another status came.
 */
function mark(cell: CoverageCell): string {
  if (cell.state === 'answered-otherwise') return `(got ${cell.came?.join(', ')})`;
  if (!provoked(cell)) return '';
  return `${cell.level === 'contract' ? '*' : '+'}${cell.state === 'failed' ? '!' : ''}`;
}

/** The coverage: the table of operations and statuses, the codes, what was not provoked and why, and what would unlock more. */
export function formatCoverage(report: ConformanceReport): string {
  const rows = report.coverage.map((c) => {
    const status = (d: string) => c.cells.find((cell) => cell.status === d && cell.code === undefined);
    return [
      c.operationId,
      `${c.method} ${c.path}`,
      c.exercised ? 'yes' : c.notSentReason ? 'never sent' : 'no',
      c.documented.map((d) => `${d}${status(d) ? mark(status(d)!) : ''}`).join(' '),
      c.cells.filter((cell) => cell.code !== undefined).map((cell) => `${cell.status} ${cell.code}${mark(cell)}`).join(', '),
      c.undocumentedSeen.join(' '),
    ];
  });
  const header = ['operation', 'request', 'exercised', 'documented statuses (* = provoked, + = only at level writes, ! = its answer failed, (got 500) = asked for, 500 came)', 'part 7 codes', 'undocumented seen'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const exercised = report.coverage.filter((c) => c.exercised).length;
  const sum = report.coverageSummary;
  const lines = [
    'Coverage',
    fmt(header),
    ...rows.map(fmt),
    '',
    `Operations exercised: ${exercised}/${report.coverage.length} (${report.coverage.filter((c) => c.notSentReason).length} never sent by design); documented statuses provoked: ${sum.provoked}/${sum.statuses} ` +
      `(${sum.byLevel.contract} at level contract, ${sum.byLevel.writes} at level writes${sum.byLevel.mock ? `, ${sum.byLevel.mock} on accounts the suite signed up on the mock` : ''}${sum.failed ? `; ${sum.failed} answered wrongly` : ''}${sum.answeredOtherwise ? `; ${sum.answeredOtherwise} asked for and answered with another status` : ''})`,
    `Part 7 codes: ${sum.codes.provoked} of ${sum.codes.total} provoked, ${sum.codes.explained} explained`,
  ];
  for (const code of report.codes.filter((c) => !c.inferred && !c.provokedAt.length)) lines.push(`  - ${code.code} (${code.status}): not provoked: ${code.reason}`);
  const byReason = (state: CoverageCell['state']) => {
    const out = new Map<string, string[]>();
    for (const row of report.coverage) {
      for (const cell of row.cells) {
        if (cell.state !== state || cell.code !== undefined) continue;
        const reason = cell.reason ?? 'not provoked';
        out.set(reason, [...(out.get(reason) ?? []), `${row.operationId} ${cell.status}`]);
      }
    }
    return out;
  };
  const otherwise = byReason('answered-otherwise');
  if (otherwise.size) {
    lines.push('', `Asked for, and another status came (${sum.answeredOtherwise}):`);
    for (const [reason, which] of otherwise) lines.push(`  - ${which.join(', ')}: ${reason}`);
  }
  const notProvoked = byReason('not-provoked');
  if (notProvoked.size) {
    lines.push('', `Not provoked (${sum.statuses - sum.provoked - sum.answeredOtherwise}), and why:`);
    for (const [reason, which] of notProvoked) lines.push(`  - ${reason}: ${which.join(', ')}`);
  }
  if (report.unlocks.length) {
    lines.push('', 'What would let the suite provoke more:');
    for (const { unlock, what } of report.unlocks) lines.push(`  ${unlock}: ${what.length > 6 ? `${what.slice(0, 6).join(', ')} and ${what.length - 6} more` : what.join(', ')}`);
  }
  return lines.join('\n');
}
