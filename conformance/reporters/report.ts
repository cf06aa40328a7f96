// The report model: outcomes grouped by operation, totals, and the coverage table (which
// operations and which documented status codes the run exercised). Pure functions, so the
// console, JSON and tests all read the same thing.
import { documentedStatuses, listOperations, type Json } from '../description.js';
import type { Finding, ScenarioOutcome, SendRecord, Verdict } from '../findings.js';
import type { NotSent } from '../plan.js';

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
}

export interface ConformanceReport {
  baseUrl: string;
  level: string;
  generatedAt: string;
  totals: Record<Verdict, number>;
  operations: OperationReport[];
  coverage: CoverageRow[];
  restored: string[];
  /** What the `writes` level created or changed, against its --max-sends. */
  sends: SendSummary;
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
    stopped: { exitCode: input.exitCode, message: input.message },
  };
}

function statusMatches(documented: string, status: number): boolean {
  const code = String(status);
  return documented === code || documented.toUpperCase() === `${code[0]}XX`;
}

export function buildReport(input: { document: Json; outcomes: ScenarioOutcome[]; notSent: NotSent[]; baseUrl: string; level: string; maxSends?: number }): ConformanceReport {
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
      verdict: notSent ? 'not sent' : scenarios.length ? operationVerdict(scenarios.map((s) => s.verdict)) : 'not run',
      notSentReason: notSent?.reason,
      scenarios,
    };
  });
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
    };
  });
  const requests = input.outcomes.flatMap((o) => o.sends ?? []);
  const byOperation: Record<string, number> = {};
  for (const r of requests) byOperation[r.operationId] = (byOperation[r.operationId] ?? 0) + 1;
  return {
    baseUrl: input.baseUrl,
    level: input.level,
    generatedAt: new Date().toISOString(),
    totals,
    operations: opReports,
    coverage,
    restored: input.outcomes.flatMap((o) => o.notes),
    sends: { limit: input.maxSends, total: requests.length, byOperation, requests },
  };
}

const MARKS: Record<string, string> = { pass: 'PASS', fail: 'FAIL', advisory: 'ADVISORY', skip: 'SKIP', 'not-applicable': 'N/A', 'not sent': 'NOT SENT', 'not run': 'NOT RUN' };

function findingLine(f: Finding): string {
  return `      ${MARKS[f.verdict]} [${f.check}${f.part ? `, part ${f.part}` : ''}] ${f.reason}${f.request ? `\n        request: ${f.request}` : ''}`;
}

/** The console summary: by operation, each scenario's verdict with the reasons and requests. */
export function formatSummary(report: ConformanceReport, options: { verbose?: boolean } = {}): string {
  const lines: string[] = [`Conformance of ${report.baseUrl} (level ${report.level})`, ''];
  for (const op of report.operations) {
    const parts = op.source ? `  [part ${op.source}]` : '';
    lines.push(`${MARKS[op.verdict]?.padEnd(8)} ${op.operationId}  ${op.method} ${op.path}${parts}${op.notSentReason ? `  (not sent: ${op.notSentReason})` : ''}`);
    for (const s of op.scenarios) {
      // Skips are summarised once at the end (one reason often covers many operations).
      if ((s.verdict === 'pass' || s.verdict === 'skip' || s.verdict === 'not-applicable') && !options.verbose) continue;
      lines.push(`    ${MARKS[s.verdict]} ${s.title}${s.skipReason ? `: ${s.skipReason}` : ''}`);
      for (const f of s.findings) if (f.verdict === 'fail' || f.verdict === 'advisory' || options.verbose) lines.push(findingLine(f));
      for (const n of s.notes) lines.push(`      NOTE ${n}`);
    }
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
  const t = report.totals;
  lines.push('', `Scenarios: ${t.pass} passed, ${t.fail} failed, ${t.advisory} advisory, ${t.skip} skipped${t['not-applicable'] ? `, ${t['not-applicable']} not applicable` : ''}`);
  return lines.join('\n');
}

/** One line: what the writes level created or changed, against --max-sends. */
export function formatSends(sends: SendSummary): string {
  const parts = Object.entries(sends.byOperation).map(([op, n]) => `${op} ${n}`);
  return `Sends (creating or changing something): ${sends.total} of at most ${sends.limit} (--max-sends)${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** The coverage table: operations and documented status codes exercised. */
export function formatCoverage(report: ConformanceReport): string {
  const rows = report.coverage.map((c) => [
    c.operationId,
    `${c.method} ${c.path}`,
    c.exercised ? 'yes' : c.notSentReason ? 'never sent' : 'no',
    c.documented.map((d) => (c.seenOnlyAtWrites.includes(d) ? `${d}+` : c.seen.includes(d) ? `${d}*` : d)).join(' '),
    c.undocumentedSeen.join(' '),
  ]);
  const header = ['operation', 'request', 'exercised', 'documented statuses (* = seen, + = seen only at level writes)', 'undocumented seen'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const exercised = report.coverage.filter((c) => c.exercised).length;
  const statuses = report.coverage.reduce((n, c) => n + c.documented.length, 0);
  const seen = report.coverage.reduce((n, c) => n + c.seen.length, 0);
  const onlyAtWrites = report.coverage.reduce((n, c) => n + c.seenOnlyAtWrites.length, 0);
  return [
    'Coverage',
    fmt(header),
    ...rows.map(fmt),
    '',
    `Operations exercised: ${exercised}/${report.coverage.length} (${report.coverage.filter((c) => c.notSentReason).length} never sent by design); documented statuses seen: ${seen}/${statuses}${report.level === 'writes' ? ` (${onlyAtWrites} of them only at level writes)` : ''}`,
  ].join('\n');
}
