// What a check concludes about one request: pass, fail, advisory (an inferred part, or a rule the
// suite could only partly judge), skip (rate limited past the budget, or nothing to judge) or
// not-applicable (the rule does not apply to this deployment, by what it announced or what the
// user said: the package's own mock accepting any key, see announcement.ts).
import type { Verdict as ContractVerdict } from '../src/contract/verdict.js';
import type { AuthMode } from './http.js';

export type Verdict = 'pass' | 'fail' | 'advisory' | 'skip' | 'not-applicable';

export interface Finding {
  /** The check's name, e.g. `response-schema-conformance` or `usage-days-fallback`. */
  check: string;
  /** The part of the interface specification the rule comes from (`4.3`), when it has one. */
  part?: string;
  /** The row of the rule table (conformance/rules.ts) a scenario's own judgement is about. */
  rule?: string;
  verdict: Verdict;
  reason: string;
  operationId: string;
  /** The request that showed it, key redacted (see describeRequest). */
  request?: string;
  status?: number;
  /**
   * The contract's verdicts behind a schema finding, as data (src/contract/verdict.ts): the rule
   * broken (keyword, params), where in the answer (instance path), where in the contract (schema
   * pointer, component), the union branch judged, the part, documented or inferred, expected and
   * actual. The reason is their rendering; a platform team aggregates on these.
   */
  verdicts?: ContractVerdict[];
  /** The exchange it is about (Exchange.seq): findings about one answer share one cause. */
  exchange?: number;
  /** What a check expected and what came, as data, where it compared values (a status, an id ...). */
  expected?: unknown;
  actual?: unknown;
  /** For a failure or an advisory: the request as data (for its curl and `--rerun`) and the answer it got. */
  sent?: SentRequest;
  answer?: AnswerExcerpt;
}

/** A request as sent, keys left out (`auth` says which one went). */
export interface SentRequest {
  method: string;
  /** Path and query. */
  target: string;
  auth: AuthMode;
  body?: unknown;
  /** Headers sent besides Authorization. */
  headers?: Record<string, string>;
}

/** What came back, cut short: enough to see what a finding is about. */
export interface AnswerExcerpt {
  status: number;
  contentType?: string;
  /** The body as text, at most 2,000 characters. */
  body?: string;
}

export interface ExchangeRecord {
  /** Exchange.seq: ties the findings about this answer to it. */
  seq?: number;
  operationId: string;
  status: number;
  /** The machine code of an error answer (part 7), when it carries one. */
  code?: string;
  request: string;
  /** Sent with a key other than the run's own (the second key, or an account the suite signed up on the mock). */
  auth?: AuthMode;
}

/**
 * A documented status (or machine code) a scenario set out to provoke and could not here, with
 * why and what would let it: the coverage says it instead of leaving the cell blank.
 */
export interface NotProvoked {
  /** `<operationId> <status>` or `<operationId> <status> <code>`. */
  target: string;
  reason: string;
  /** The option or change that would let the suite provoke it (`--second-key`, `--level writes` ...). */
  unlock?: string;
}

/** A request of the `writes` level that created or changed something (see sends.ts). */
export interface SendRecord {
  operationId: string;
  request: string;
  /** The answer's status; absent when no answer came (the request may still have acted). */
  status?: number;
}

export interface ScenarioOutcome {
  scenarioId: string;
  operationId: string;
  title: string;
  /** The named check the scenario proves, and the part it cites (JUnit suites are named by them). */
  check: string;
  part?: string;
  /** Wall time of the scenario, for JUnit. */
  durationMs?: number;
  /** The level the scenario belongs to (`contract` scenarios also run at `writes`). */
  level: 'contract' | 'writes';
  verdict: Verdict;
  /** Why the scenario was skipped (or is not applicable), when it was. */
  skipReason?: string;
  /**
   * What the account lacks for this flow (no credit, no line to send from): not a finding of the
   * deployment; the run stops with exit 2 and says it (preconditions.ts).
   */
  precondition?: string;
  /** A fixture account that is not what its option says, in a line naming the option (FixtureUnfit): the run stops with exit 2. */
  fixture?: string;
  findings: Finding[];
  exchanges: ExchangeRecord[];
  /** State the suite changed and put back (PATCH /account read first, restored after). */
  notes: string[];
  /** The requests of this scenario that created or changed something (`writes` level). */
  sends: SendRecord[];
  /** What it set out to provoke and could not here, and why (coverage). */
  notProvoked?: NotProvoked[];
  /** The scenario ran only on the package's mock, on accounts it signed up there; and how many requests it sent. */
  onMock?: true;
  scratchRequests?: number;
  /** A workflow's steps as run (`--workflows`): its checks, each with its outcome. */
  steps?: WorkflowStepLine[];
}

/** One step of a workflow scenario: what it ran, how it ended, its status, and the criteria not met or why it did not run. */
export interface WorkflowStepLine {
  stepId: string;
  runs: string;
  outcome: 'passed' | 'failed' | 'skipped' | 'refused';
  status?: number;
  notes?: string[];
}

export function overallVerdict(findings: Finding[], skipReason?: string, notApplicable = false): Verdict {
  if (findings.some((f) => f.verdict === 'fail')) return 'fail';
  if (skipReason) return notApplicable ? 'not-applicable' : 'skip';
  if (findings.some((f) => f.verdict === 'advisory')) return 'advisory';
  return 'pass';
}
