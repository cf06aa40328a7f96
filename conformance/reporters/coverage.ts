// The coverage matrix: for each operation, each status it documents and each machine code of
// part 7 its documented answers carry, whether the run provoked it (and whether the answer then
// held), asked for it and got another status (the status that came), at which level, or why not
// and what would let the suite provoke it. Every reason comes from the run's data: what a scenario
// set out to provoke and could not here (its skip, or a state it read), what its requests got,
// whether the scenario was in this run's plan (its level, the mock, a second account, the safety
// policy) or was left out of it (-t or --shard), else a static explanation for what no request can
// choose (`bad_request`).
import { documentedResponse, documentedStatuses, listOperations, type Json, type Operation } from '../description.js';
import type { ExchangeRecord, ScenarioOutcome } from '../findings.js';
import type { NotSent, Plan } from '../plan.js';
import type { Scenario } from '../scenario.js';
import { FIXTURE_ACCOUNTS } from '../config.js';

/**
 * `passed`: provoked, and its answer held; `failed`: provoked, and its answer broke a rule;
 * `answered-otherwise`: a scenario asked for it and another status (or code) came, which is a
 * failure of that scenario; `not-provoked`: not asked for here, with why.
 */
export type CellState = 'passed' | 'failed' | 'answered-otherwise' | 'not-provoked';

export interface CoverageCell {
  /** The documented status as written (`404`), and a machine code of its documented answers. */
  status: string;
  code?: string;
  state: CellState;
  /** Where it was provoked: the contract level, the writes level on the run's account, or on accounts the suite signed up on the mock. */
  level?: 'contract' | 'writes' | 'mock';
  /** What came instead, when it was asked for and answered otherwise: `500`, `402 rate_limited`. */
  came?: string[];
  /** Why it was not provoked, or what asked for it and got another answer, in a line. */
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
  emptyWallet?: boolean;
  freeAccount?: boolean;
  /** This run's plan (its level and options): a scenario in it that has no outcome was left out by -t or --shard. */
  plan: Plan;
  /**
   * The checks of the scenarios this run ran when none was the suite's (`--workflows`, a replay):
   * then the plan's scenarios were not left out, the run was of another kind.
   */
  notTheSuite?: string[];
}

const WRITES_UNLOCK = '--level writes --to <E.164>';

/** Whether a cell's status (and code) came in this run, whatever the answer then held. */
export function provoked(cell: CoverageCell): boolean {
  return cell.state === 'passed' || cell.state === 'failed';
}

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

type Why = { reason: string; unlock?: string; leftOut?: true };

/** Why a scenario of the full suite that would provoke `target` did not run here: from this run's plan and options. */
function why(scenario: Scenario, run: CoverageRun, target: string): Why {
  if (run.plan.scenarios.some((s) => s.id === scenario.id)) {
    if (run.notTheSuite) return { reason: `this run ran its ${run.notTheSuite.join(' and ')} scenarios, none of the suite's; the suite's "${scenario.title}" provokes it`, leftOut: true };
    return { reason: `its scenario "${scenario.title}" was left out of this run (-t or --shard)`, leftOut: true };
  }
  if (scenario.mockOnly && !run.mock) return { reason: `on the package's mock only: ${scenario.mockOnlyBecause?.[target] ?? scenario.mockOnly}` };
  if (scenario.fixture && !(scenario.fixture === 'empty-wallet' ? run.emptyWallet : run.freeAccount)) {
    const { option, account } = FIXTURE_ACCOUNTS[scenario.fixture];
    return { reason: `needs a fixture account: ${account} the team sets aside for it`, unlock: option };
  }
  if (scenario.secondAccount && !run.secondKey && !run.mock) return { reason: 'needs a second account (cross-account isolation)', unlock: '--second-key' };
  if (scenario.level === 'writes' && run.level !== 'writes') return { reason: `provoked at --level writes (${scenario.check})`, unlock: WRITES_UNLOCK };
  const notSent: NotSent | undefined = run.plan.notSent.find((n) => n.operationId === scenario.operationId);
  if (notSent) {
    // On the mock, the writes level sends it on accounts the suite signs up there (plan.ts).
    return run.mock ? { reason: `${scenario.operationId} is sent only at --level writes on the package's mock, on accounts the suite signs up there: it ${notSent.reason}`, unlock: WRITES_UNLOCK } : { reason: `never sent to a deployment (safety policy): it ${notSent.reason}` };
  }
  return { reason: `its scenario "${scenario.title}" is not in this run's plan` };
}

/** The expected `{status, code}` of a finding that compared a status (ScenarioContext.expectStatus), as data. */
function expectedStatus(expected: unknown): { status: number; code?: string } | undefined {
  const value = expected as { status?: unknown; code?: unknown } | undefined;
  return value && typeof value === 'object' && typeof value.status === 'number' ? { status: value.status, ...(typeof value.code === 'string' ? { code: value.code } : {}) } : undefined;
}

const answered = (ex: ExchangeRecord): string => `${ex.status}${ex.code ? ` ${ex.code}` : ''}`;

/**
 * What came where a scenario asked `op` for `status` (and `code`) and failed on the answer: the
 * statuses (and codes) of its failing exchanges with `op`. A finding that says which status it
 * expected (expectStatus) names its target; one that does not is about every status the scenario
 * asked of `op` and did not get, unless its status is one the scenario asks for.
 */
function cameInstead(attempts: ReadonlyArray<{ outcome: ScenarioOutcome; scenario: Scenario }>, op: Operation, status: string, code?: string): string[] {
  const came = new Set<string>();
  for (const { outcome, scenario } of attempts) {
    const asked = new Set((scenario.provokes ?? []).map((t) => t.split(' ')).filter(([id]) => id === op.operationId).map(([, s]) => s));
    for (const finding of outcome.findings) {
      if (finding.verdict !== 'fail' || finding.exchange === undefined || finding.operationId !== op.operationId) continue;
      const ex = outcome.exchanges.find((e) => e.seq === finding.exchange);
      if (!ex || (String(ex.status) === status && (code === undefined || ex.code === code))) continue;
      const expected = expectedStatus(finding.expected);
      if (expected) {
        if (String(expected.status) !== status) continue;
        // Asked for the status alone: only another status is another answer; asked for a code: another code is too.
        if (expected.code === undefined ? String(ex.status) === status : code !== undefined && expected.code !== code) continue;
      } else if (asked.has(String(ex.status))) continue;
      came.add(answered(ex));
    }
  }
  return [...came];
}

/** The cells of one operation. */
export function coverageCells(input: { document: Json; op: Operation; outcomes: readonly ScenarioOutcome[]; full: Plan; run: CoverageRun; codes: Set<string> }): CoverageCell[] {
  const { op, outcomes, full, run } = input;
  const failedExchanges = new Set(outcomes.flatMap((o) => o.findings.filter((f) => f.verdict === 'fail' && f.exchange !== undefined).map((f) => f.exchange as number)));
  const codesByStatus = documentedCodes(input.document, op, input.codes);
  const scenarioOf = new Map(full.scenarios.map((s) => [s.id, s]));
  const notProvoked = outcomes.flatMap((o) => o.notProvoked ?? []);
  const cells: CoverageCell[] = [];
  const targets: Array<{ status: string; code?: string }> = [];
  for (const status of documentedStatuses(op)) {
    targets.push({ status });
    for (const code of codesByStatus.get(status) ?? []) targets.push({ status, code });
  }
  for (const { status, code } of targets) {
    const target = `${op.operationId} ${status}${code ? ` ${code}` : ''}`;
    const statusTarget = `${op.operationId} ${status}`;
    // A scenario that provokes the status provokes its codes as well.
    const asks = (s: Scenario) => (s.provokes ?? []).includes(target) || (s.provokes ?? []).includes(statusTarget);
    const matching = outcomes.flatMap((o) =>
      o.exchanges.filter((ex) => ex.operationId === op.operationId && String(ex.status) === status && (code === undefined || ex.code === code)).map((ex) => ({ ex, o })),
    );
    if (matching.length) {
      const failed = matching.some(({ ex }) => ex.seq !== undefined && failedExchanges.has(ex.seq));
      const level = matching.some(({ o }) => o.level === 'contract') ? 'contract' : matching.some(({ o }) => !o.onMock) ? 'writes' : 'mock';
      cells.push({ status, ...(code ? { code } : {}), state: failed ? 'failed' : 'passed', level });
      continue;
    }
    const attempts = outcomes.flatMap((outcome) => {
      const scenario = scenarioOf.get(outcome.scenarioId);
      return scenario && asks(scenario) ? [{ outcome, scenario }] : [];
    });
    const came = cameInstead(attempts, op, status, code);
    if (came.length) {
      const by = attempts.find(({ outcome }) => outcome.verdict === 'fail')?.outcome ?? attempts[0]!.outcome;
      cells.push({ status, ...(code ? { code } : {}), state: 'answered-otherwise', came, reason: `asked for by "${by.title}", and ${came.join(', ')} came instead (see its finding)` });
      continue;
    }
    const said = notProvoked.find((n) => n.target === target) ?? (code ? notProvoked.find((n) => n.target === statusTarget) : undefined);
    let reason: string | undefined = said?.reason;
    let unlock: string | undefined = said?.unlock;
    // The status came without the code (the code cells of a status).
    const codes = code ? [...new Set(outcomes.flatMap((o) => o.exchanges.filter((ex) => ex.operationId === op.operationId && String(ex.status) === status).map((ex) => ex.code ?? 'no code')))] : [];
    const withoutCode = codes.length ? `${status} came with ${codes.join(', ')}, not ${code}` : undefined;
    // A code some scenario asks for by name is said of that scenario, not of one that asked for its status alone.
    const named = (s: Scenario) => (s.provokes ?? []).includes(target);
    const byName = full.scenarios.some(named);
    const ranHere = byName ? attempts.filter(({ scenario }) => named(scenario)) : attempts;
    if (!reason && ranHere.length) {
      const ran = ranHere[0]!.outcome;
      // A scenario that passed took another answer it allows (events/wait: 408 when no event came).
      reason = withoutCode ?? (ran.verdict === 'pass' || ran.verdict === 'advisory' ? `sent by "${ran.title}", which got another answer it allows` : `sent by "${ran.title}", which ended ${ran.verdict} before it came`);
    }
    if (!reason) {
      const candidates = full.scenarios.filter(byName ? named : asks);
      const ranked = candidates.map((s) => why(s, run, (s.provokes ?? []).includes(target) ? target : statusTarget));
      // The most direct cause first (this run's own selection), then the cheapest way: a level before the mock, the mock before nothing.
      const best = ranked.find((w) => w.leftOut) ?? ranked.find((w) => w.unlock === WRITES_UNLOCK) ?? ranked.find((w) => w.unlock) ?? ranked[0];
      if (best) ({ reason, unlock } = best);
    }
    reason ??= withoutCode ?? (code ? NO_REQUEST_CAUSES[code] : undefined);
    cells.push({ status, ...(code ? { code } : {}), state: 'not-provoked', reason: reason ?? 'no scenario of the suite provokes it', ...(unlock ? { unlock } : {}) });
  }
  return cells;
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
        if (provoked(cell)) provokedAt.push(`${op.operationId} ${cell.status}`);
        else reason ??= cell.reason;
      }
    }
    if (!documentedAt.length) reason = NO_REQUEST_CAUSES[code] ?? 'no documented answer carries it';
    return { code, status, documentedAt, provokedAt, ...(provokedAt.length ? {} : { reason }), ...(inferred ? { inferred: true } : {}) };
  });
}
