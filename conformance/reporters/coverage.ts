// The coverage matrix: for each operation, each status it documents and each machine code of
// part 7 its documented answers carry, whether the run provoked it (and whether the answer then
// held), at which level, or why not and what would let the suite provoke it. The reasons come from
// the scenarios themselves: what one set out to provoke and could not here (its skip, or a state
// it read), else the scenario of the full suite that would (its level, the mock it needs, a second
// account), else a static explanation for what no request can choose (`bad_request`).
import { documentedResponse, documentedStatuses, listOperations, type Json, type Operation } from '../description.js';
import type { ScenarioOutcome } from '../findings.js';
import type { Plan } from '../plan.js';
import type { Scenario } from '../scenario.js';

export type CellState = 'passed' | 'failed' | 'not-provoked';

export interface CoverageCell {
  /** The documented status as written (`404`), and a machine code of its documented answers. */
  status: string;
  code?: string;
  state: CellState;
  /** Where it was provoked: the contract level, the writes level on the run's account, or on accounts the suite signed up on the mock. */
  level?: 'contract' | 'writes' | 'mock';
  /** Why it was not provoked, in a line. */
  reason?: string;
  /** What would let the suite provoke it (an option, a level, a state of the account). */
  unlock?: string;
}

/** A machine code of part 7 and where the run provoked it, or why not. */
export interface CodeCoverage {
  code: string;
  /** The status part 7 gives it (`varies` for bad_request). */
  status: string;
  /** `<operationId> <status>` where its documented answers carry it. */
  documentedAt: string[];
  provokedAt: string[];
  reason?: string;
  /** Inferred by the contract (x-inferred), not a code of part 7. */
  inferred?: boolean;
}

/** What no request can provoke, whatever the run: a static explanation, by code. */
const NO_REQUEST_CAUSES: Readonly<Record<string, string>> = {
  bad_request: 'a generic code for a failure the service cannot classify (part 7): no request can choose to cause one; its reference `ref_` is judged wherever one comes',
};

/** What a run's level, deployment and options let the suite do (to say what would unlock more). */
export interface CoverageRun {
  level: string;
  mock: boolean;
  secondKey: boolean;
}

const WRITES_UNLOCK = '--level writes --to <E.164>';

/** The machine codes the documented answers of `op` carry, by status, from their examples. */
export function documentedCodes(document: Json, op: Operation, known: Set<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const status of documentedStatuses(op)) {
    const media = documentedResponse(document, op, Number(status))?.response?.content?.['application/json'];
    const codes = new Set<string>();
    const look = (value: unknown) => {
      if (value && typeof value === 'object') {
        const code = (value as Json).code;
        if (typeof code === 'string' && known.has(code)) codes.add(code);
      }
    };
    for (const example of Object.values<Json>(media?.examples ?? {})) look(example?.$ref ? undefined : example?.value);
    look(media?.example);
    if (codes.size) out.set(status, [...codes].sort());
  }
  return out;
}

/** The codes of the contract's ErrorCode catalog, with their part 7 status and whether they are inferred. */
export function catalogCodes(document: Json): Array<{ code: string; status: string; inferred: boolean }> {
  return ((document.components?.schemas?.ErrorCode?.anyOf ?? []) as Json[])
    .filter((entry) => typeof entry.const === 'string')
    .map((entry) => ({ code: entry.const as string, status: String(entry['x-status'] ?? ''), inferred: entry['x-inferred'] === true }));
}

function why(scenario: Scenario, run: CoverageRun, target: string): { reason: string; unlock?: string } | undefined {
  if (scenario.mockOnly && !run.mock) return { reason: `on the package's mock only: ${scenario.mockOnlyBecause?.[target] ?? scenario.mockOnly}` };
  if (scenario.secondAccount && !run.secondKey && !run.mock) return { reason: 'needs a second account (cross-account isolation)', unlock: '--second-key' };
  if (scenario.level === 'writes' && run.level !== 'writes') return { reason: `provoked at --level writes (${scenario.check})`, unlock: WRITES_UNLOCK };
  return undefined;
}

/** The cells of one operation. */
export function coverageCells(input: { document: Json; op: Operation; outcomes: readonly ScenarioOutcome[]; full: Plan; run: CoverageRun; codes: Set<string> }): CoverageCell[] {
  const { op, outcomes, full, run } = input;
  const failedExchanges = new Set(outcomes.flatMap((o) => o.findings.filter((f) => f.verdict === 'fail' && f.exchange !== undefined).map((f) => f.exchange as number)));
  const codesByStatus = documentedCodes(input.document, op, input.codes);
  const cells: CoverageCell[] = [];
  const targets: Array<{ status: string; code?: string }> = [];
  for (const status of documentedStatuses(op)) {
    targets.push({ status });
    for (const code of codesByStatus.get(status) ?? []) targets.push({ status, code });
  }
  for (const { status, code } of targets) {
    const target = `${op.operationId} ${status}${code ? ` ${code}` : ''}`;
    const matching = outcomes.flatMap((o) =>
      o.exchanges.filter((ex) => ex.operationId === op.operationId && String(ex.status) === status && (code === undefined || ex.code === code)).map((ex) => ({ ex, o })),
    );
    if (matching.length) {
      const failed = matching.some(({ ex }) => ex.seq !== undefined && failedExchanges.has(ex.seq));
      const level = matching.some(({ o }) => o.level === 'contract') ? 'contract' : matching.some(({ o }) => !o.onMock) ? 'writes' : 'mock';
      cells.push({ status, ...(code ? { code } : {}), state: failed ? 'failed' : 'passed', level });
      continue;
    }
    const statusTarget = `${op.operationId} ${status}`;
    const said = outcomes.flatMap((o) => o.notProvoked ?? []).find((n) => n.target === target) ?? (code ? undefined : outcomes.flatMap((o) => o.notProvoked ?? []).find((n) => n.target === statusTarget));
    let reason: string | undefined = said?.reason;
    let unlock: string | undefined = said?.unlock;
    if (!reason) {
      const ran = outcomes.find((o) => full.scenarios.some((s) => s.id === o.scenarioId && (s.provokes ?? []).includes(target)));
      // A scenario that passed took another answer it allows (events/wait: 408 when no event came).
      if (ran) reason = ran.verdict === 'pass' ? `sent by "${ran.title}", which got another answer it allows` : `sent by "${ran.title}", and answered otherwise (see its finding)`;
    }
    if (!reason) {
      const candidates = full.scenarios.filter((s) => (s.provokes ?? []).includes(target) || (code !== undefined && (s.provokes ?? []).includes(statusTarget)));
      const ranked = candidates.map((s) => why(s, run, (s.provokes ?? []).includes(target) ? target : statusTarget)).filter((w): w is { reason: string; unlock?: string } => w !== undefined);
      // The cheapest way first: a level before the mock, the mock before nothing.
      const best = ranked.find((w) => w.unlock === WRITES_UNLOCK) ?? ranked.find((w) => w.unlock) ?? ranked[0];
      if (best) ({ reason, unlock } = best);
      else if (candidates.length) reason = 'its scenario did not run here (-t or --shard)';
    }
    if (!reason && code && matchingStatus(outcomes, op, status)) reason = `${status} was provoked, answered without the code ${code}`;
    if (!reason && code && NO_REQUEST_CAUSES[code]) reason = NO_REQUEST_CAUSES[code];
    cells.push({ status, ...(code ? { code } : {}), state: 'not-provoked', reason: reason ?? 'no scenario of the suite provokes it', ...(unlock ? { unlock } : {}) });
  }
  return cells;
}

function matchingStatus(outcomes: readonly ScenarioOutcome[], op: Operation, status: string): boolean {
  return outcomes.some((o) => o.exchanges.some((ex) => ex.operationId === op.operationId && String(ex.status) === status));
}

/** Part 7's codes: where each was provoked, or why not. */
export function codeCoverage(document: Json, cellsByOperation: Map<string, CoverageCell[]>): CodeCoverage[] {
  const operations = listOperations(document);
  return catalogCodes(document).map(({ code, status, inferred }) => {
    const documentedAt: string[] = [];
    const provokedAt: string[] = [];
    let reason: string | undefined;
    for (const op of operations) {
      for (const cell of cellsByOperation.get(op.operationId) ?? []) {
        if (cell.code !== code) continue;
        documentedAt.push(`${op.operationId} ${cell.status}`);
        if (cell.state !== 'not-provoked') provokedAt.push(`${op.operationId} ${cell.status}`);
        else reason ??= cell.reason;
      }
    }
    if (!documentedAt.length) reason = NO_REQUEST_CAUSES[code] ?? 'no documented answer carries it';
    return { code, status, documentedAt, provokedAt, ...(provokedAt.length ? {} : { reason }), ...(inferred ? { inferred: true } : {}) };
  });
}
