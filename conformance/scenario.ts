// A scenario is one small, ordered piece of the suite (a few requests and the named check they
// prove). runScenario gives it a context that sends requests through ConformanceHttp, runs the
// generic checks on every answer, and collects findings into an outcome for the reporters.
import { checkResponse } from './checks/response.js';
import type { ConformanceConfig, FixtureAccount, Level } from './config.js';
import { findOperation, type Json, type Operation } from './description.js';
import { Fixtures } from './fixtures.js';
import { overallVerdict, type AnswerExcerpt, type Finding, type NotProvoked, type ScenarioOutcome, type SendRecord, type SentRequest, type Verdict } from './findings.js';
import { ConformanceHttp, describeRequest, NoResponse, RateLimited, suiteRedactor, type Exchange, type RequestSpec } from './http.js';
import { ruleById } from './rules.js';
import type { NamedLocks } from './limiter.js';
import type { SendBudget } from './sends.js';
import type { ContractValidator } from '../src/contract/contract-validator.js';
import { targetOf } from '../src/request/index.js';

export interface Scenario {
  /** Stable id: `<operationId>/<check>[/<variant>]` (made so by the plan where a module gives none). */
  id: string;
  operationId: string;
  /** The named check it proves (generic checks run on every answer regardless). */
  check: string;
  part?: string;
  title: string;
  level: Level;
  /**
   * Scenarios naming the same lock run one after another. The writes flows share one: each
   * watches the account's event stream for what it caused, and the long poll is not a queue
   * (an event that fires while a wait is being renewed is lost), so one flow's events must not
   * fall into another's renewal.
   */
  exclusive?: string;
  /**
   * The documented answers it sets out to provoke, as `<operationId> <status>` or
   * `<operationId> <status> <code>` (a machine code of part 7): the coverage says, for each one it
   * did not see, why (this scenario skipped, its level, what it needs).
   */
  provokes?: string[];
  /**
   * Runs only against the package's mock, once it has announced itself (GET /__mock/about): it
   * uses the mock's documented test values, its sign-up code, accounts the suite signs up there,
   * or its control surface. Why it is never sent to a deployment, in a line (the coverage says it).
   */
  mockOnly?: string;
  /** Per target, a more precise reason than `mockOnly` (a limit part 8 does not publish, a free account it would need ...). */
  mockOnlyBecause?: Readonly<Record<string, string>>;
  /** Needs a second account: `--second-key`, or on the mock an account the suite signs up. */
  secondAccount?: boolean;
  /** Runs only on a fixture account the team set aside, named by its option (config.ts, FIXTURE_ACCOUNTS). */
  fixture?: FixtureAccount;
  /**
   * The rows of the rule table (conformance/rules.ts) it judges; `[check]` when not given. A
   * finding names the one being judged: the first, until ScenarioContext.judging names another.
   */
  rules?: string[];
  run(ctx: ScenarioContext): Promise<void>;
}

/** A scenario as its module declares it: the id only where it has a variant (the plan makes the rest). */
export type ScenarioDraft = Omit<Scenario, 'id'> & { id?: string };

/** The scenario with its stable id: `<operationId>/<check>` unless it names its own. */
export function withId(draft: ScenarioDraft): Scenario {
  return { ...draft, id: draft.id ?? `${draft.operationId}/${draft.check}` };
}

export class Skip extends Error {}
/** The rule does not apply to this deployment (what it announced, or what the user said). */
export class NotApplicable extends Skip {}
/** The account lacks what the flow needs (credit, a line to send from): not a finding, exit 2. */
export class PreconditionUnmet extends Skip {}
/**
 * A fixture account that is not what its option says (a wallet not empty, an account that has
 * paid): said about the fixture, in a line that names the option, never judged as the
 * deployment's. The run stops with exit 2, as for an account the level cannot run on.
 */
export class FixtureUnfit extends Skip {}

/** Everything a run shares: the description, the validator, the HTTP client, discovered fixtures. */
export interface Environment {
  config: ConformanceConfig;
  document: Json;
  operations: Operation[];
  validator: ContractValidator;
  http: ConformanceHttp;
  fixtures: Fixtures;
  /** The `writes` level's budget of sends (`--max-sends`), shared by the run. */
  sends: SendBudget;
  /** Serialises scenarios that change the same state (`account`). */
  locks: NamedLocks;
}

export class ScenarioContext {
  readonly findings: Finding[] = [];
  readonly exchanges: Exchange[] = [];
  readonly notes: string[] = [];
  readonly sends: SendRecord[] = [];
  readonly notProvoked: NotProvoked[] = [];
  /** Requests to the mock's control surface (not among `exchanges`: its answers are not the service's). */
  scratchRequests = 0;
  private reserved = 0;
  /** The rule (a row of conformance/rules.ts) the findings recorded from now on are about. */
  private rule: string | undefined;
  /** The part a rule other than the scenario's first cites (its row's), for its findings. */
  private rulePart: string | undefined;

  constructor(readonly env: Environment, readonly scenario: Scenario) {
    this.rule = (scenario.rules ?? [scenario.check])[0];
  }

  /** The findings recorded from now on judge `rule`, one of the scenario's rules, and cite its part. */
  judging(rule: string): void {
    const rules = this.scenario.rules ?? [this.scenario.check];
    if (!rules.includes(rule)) throw new Error(`${this.scenario.id} does not name the rule ${rule}.`);
    this.rule = rule;
    this.rulePart = rule === rules[0] ? undefined : ruleById(rule)?.part;
  }

  get config(): ConformanceConfig {
    return this.env.config;
  }

  operation(operationId: string): Operation {
    const op = findOperation(this.env.operations, operationId);
    if (!op) throw new Skip(`The description has no operation ${operationId}.`);
    return op;
  }

  /** Sends a request; every answer (429s included) goes through the generic checks. */
  async send(op: Operation, spec: RequestSpec = {}): Promise<Exchange> {
    const seen: Exchange[] = [];
    try {
      return await this.env.http.send(op, spec, (ex) => seen.push(ex));
    } finally {
      for (const ex of seen) {
        this.exchanges.push(ex);
        for (const finding of checkResponse(this.env.document, this.env.validator, op, ex, this.env.config.apiKey)) this.findings.push({ ...finding, ...(ex.seq !== undefined ? { exchange: ex.seq } : {}) });
      }
    }
  }

  /** A documented answer this scenario set out to provoke and cannot here: the coverage gives the reason. */
  notProvokedHere(target: string, reason: string, unlock?: string): void {
    this.notProvoked.push({ target, reason, ...(unlock ? { unlock } : {}) });
  }

  /**
   * Takes `count` sends from the run's budget for the writes this scenario is about to make, all
   * or none: a flow that could not finish (a set without its restore, a call without its replay)
   * is skipped before its first send.
   */
  reserveSends(count: number, what: string): void {
    if (!this.env.sends.take(count)) {
      this.skip(`--max-sends ${this.env.sends.limit}: ${what} needs ${count} more send(s) and ${this.env.sends.spent} are already taken, so it is not sent.`);
    }
    this.reserved += count;
  }

  /**
   * Sends a request that creates or changes something, from the sends reserved (or one more taken).
   * `refusedWith402`: the 402 is the answer the request asks for (an empty wallet's gate), not a
   * precondition of the account.
   */
  async write(op: Operation, spec: RequestSpec = {}, options: { refusedWith402?: boolean } = {}): Promise<Exchange> {
    if (this.reserved === 0) this.reserveSends(1, `a further ${op.operationId}`);
    this.reserved--;
    const sent: SendRecord = { operationId: op.operationId, request: describeRequest({ method: op.method, target: targetOf(op.path, { path: spec.pathParams, query: spec.query }), auth: spec.auth ?? 'valid', requestBody: spec.body }) };
    this.sends.push(sent);
    const ex = await this.send(op, spec);
    sent.status = ex.status;
    // Part 7: 402 is insufficient credit. The account cannot run this flow; that is no finding.
    if (ex.status === 402 && !options.refusedWith402) throw new PreconditionUnmet(creditNeeded(ex));
    return ex;
  }

  record(verdict: Verdict, reason: string, ex?: Exchange, check = this.scenario.check, part = this.rulePart ?? this.scenario.part, facts: { expected?: unknown; actual?: unknown } = {}): void {
    const operationId = ex?.operationId ?? this.scenario.operationId;
    // A rule judged on an inferred operation (x-inferred: its path or shape is not shown in the
    // interface specification) cannot fail the run: the deployment may simply not have it.
    if (verdict === 'fail' && findOperation(this.env.operations, operationId)?.inferred) {
      verdict = 'advisory';
      reason = `${reason} (advisory: ${operationId} is inferred, x-inferred)`;
    }
    this.findings.push({
      check,
      part,
      ...(this.rule ? { rule: this.rule } : {}),
      verdict,
      reason,
      operationId,
      request: ex ? describeRequest(ex) : undefined,
      status: ex?.status,
      ...(ex?.seq !== undefined ? { exchange: ex.seq } : {}),
      ...facts,
    });
  }

  /**
   * A value one answer carried to another (an id, a reference, an amount, a state), compared: a
   * difference is a failure naming both answers (issue 29: rules across requests are equalities).
   * `what` names the value, `from` and `to` say where each answer holds it.
   */
  same(what: string, from: { ex: Exchange; at: string; value: unknown }, to: { ex: Exchange; at: string; value: unknown }, part = this.rulePart ?? this.scenario.part): boolean {
    const equal = JSON.stringify(from.value) === JSON.stringify(to.value);
    const first = `${from.ex.method.toUpperCase()} ${from.ex.target.split('?')[0]} answered ${from.at} ${JSON.stringify(from.value)}`;
    const second = `${to.ex.method.toUpperCase()} ${to.ex.target.split('?')[0]} answered ${to.at} ${JSON.stringify(to.value)}`;
    this.record(equal ? 'pass' : 'fail', equal ? `${what}: ${first}, and ${second}.` : `${what} differs across requests: ${first}, but ${second}.`, to.ex, this.scenario.check, part, equal ? {} : { expected: from.value, actual: to.value });
    return equal;
  }

  pass(reason: string, ex?: Exchange): void {
    this.record('pass', reason, ex);
  }

  fail(reason: string, ex?: Exchange): void {
    this.record('fail', reason, ex);
  }

  advisory(reason: string, ex?: Exchange): void {
    this.record('advisory', reason, ex);
  }

  /** Pass when `ok`, else fail; the reason says what was expected. */
  expect(ok: boolean, reason: string, ex?: Exchange): boolean {
    this.record(ok ? 'pass' : 'fail', reason, ex);
    return ok;
  }

  /**
   * The answer's status is the one `target` names (`createCall 429 call_limit_reached`), and its
   * machine code too when the target names one: the provocation's verdict. `why` says what was
   * sent to provoke it.
   */
  expectStatus(ex: Exchange, status: number, why: string, code?: string): boolean {
    const actualCode = answerCode(ex);
    const ok = ex.status === status && (code === undefined || actualCode === code);
    const wanted = `${status}${code ? ` ${code}` : ''}`;
    const got = `${ex.status}${actualCode ? ` ${actualCode}` : ''}`;
    this.record(ok ? 'pass' : 'fail', ok ? `${why}: ${got}, as documented.` : `${why}: expected ${wanted}, got ${got}.`, ex, this.scenario.check, this.rulePart ?? this.scenario.part, ok ? {} : { expected: { status, ...(code ? { code } : {}) }, actual: { status: ex.status, ...(actualCode ? { code: actualCode } : {}) } });
    return ok;
  }

  skip(reason: string): never {
    throw new Skip(reason);
  }

  notApplicable(reason: string): never {
    throw new NotApplicable(reason);
  }

  precondition(reason: string): never {
    throw new PreconditionUnmet(reason);
  }

  /** The fixture account is not what its option says: `line` names the option and what the account showed. */
  fixtureUnfit(line: string): never {
    throw new FixtureUnfit(line);
  }
}

/** The machine code of an error answer (part 7: a string `code` beside `error`), when it carries one. */
export function answerCode(ex: Pick<Exchange, 'body'>): string | undefined {
  const code = (ex.body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The request of an exchange as data, for a finding's curl and `--rerun`. */
export function sentRequest(ex: Exchange): SentRequest {
  const headers = Object.fromEntries(Object.entries(ex.requestHeaders ?? {}).filter(([name]) => name.toLowerCase() !== 'authorization'));
  return { method: ex.method.toUpperCase(), target: ex.target, auth: ex.auth, ...(ex.requestBody !== undefined ? { body: ex.requestBody } : {}), ...(Object.keys(headers).length ? { headers } : {}) };
}

const EXCERPT = 2000;

/** The answer of an exchange, cut to what a person reads. */
export function answerExcerpt(ex: Exchange): AnswerExcerpt {
  const text = ex.bodyText.length > EXCERPT ? `${ex.bodyText.slice(0, EXCERPT)}…` : ex.bodyText;
  return { status: ex.status, ...(ex.headers['content-type'] ? { contentType: ex.headers['content-type'] } : {}), ...(text ? { body: text } : {}) };
}

/** What to do about a 402 on a write of the `writes` level, in one line. */
export function creditNeeded(ex: Pick<Exchange, 'method' | 'target'>): string {
  return (
    `the account has no credit: ${ex.method.toUpperCase()} ${ex.target.split('?')[0]} answered 402 (part 7: insufficient credit). ` +
    'Top up its wallet (on the numbers-api mock: PUT /__mock/wallet {"balance": 50}), then run again.'
  );
}

export async function runScenario(env: Environment, scenario: Scenario): Promise<ScenarioOutcome> {
  const ctx = new ScenarioContext(env, scenario);
  const started = Date.now();
  let skipReason: string | undefined;
  let precondition: string | undefined;
  let fixture: string | undefined;
  let notApplicable = false;
  try {
    await (scenario.exclusive ? env.locks.run(scenario.exclusive, () => scenario.run(ctx)) : scenario.run(ctx));
  } catch (error) {
    if (error instanceof Skip || error instanceof RateLimited) skipReason = error.message;
    else if (error instanceof NoResponse) ctx.record('fail', error.message, undefined, 'response-received');
    else throw error;
    if (error instanceof PreconditionUnmet) precondition = error.message;
    if (error instanceof FixtureUnfit) fixture = error.message;
    notApplicable = error instanceof NotApplicable;
  }
  // A failure or an advisory carries its request and answer, so a person can act on it alone.
  const byExchange = new Map(ctx.exchanges.filter((ex) => ex.seq !== undefined).map((ex) => [ex.seq as number, ex]));
  const findings = ctx.findings.map((finding) => {
    if (finding.verdict === 'pass' || finding.exchange === undefined) return finding;
    const ex = byExchange.get(finding.exchange);
    return ex ? { ...finding, sent: sentRequest(ex), answer: answerExcerpt(ex) } : finding;
  });
  // What it set out to provoke and did not see: the skip's reason, when it skipped.
  const seen = new Set(ctx.exchanges.flatMap((ex) => [`${ex.operationId} ${ex.status}`, `${ex.operationId} ${ex.status} ${answerCode(ex) ?? ''}`.trim()]));
  const notProvoked = [...ctx.notProvoked];
  if (skipReason !== undefined) {
    for (const target of scenario.provokes ?? []) if (!seen.has(target) && !notProvoked.some((n) => n.target === target)) notProvoked.push({ target, reason: skipReason });
  }
  const outcome: ScenarioOutcome = {
    scenarioId: scenario.id,
    operationId: scenario.operationId,
    title: scenario.title,
    check: scenario.check,
    part: scenario.part,
    durationMs: Date.now() - started,
    verdict: overallVerdict(ctx.findings, skipReason, notApplicable),
    skipReason,
    ...(precondition ? { precondition } : {}),
    ...(fixture ? { fixture } : {}),
    findings,
    exchanges: ctx.exchanges.map((ex) => {
      const code = answerCode(ex);
      return { ...(ex.seq !== undefined ? { seq: ex.seq } : {}), operationId: ex.operationId, status: ex.status, ...(code ? { code } : {}), request: describeRequest(ex), ...(ex.auth !== 'valid' && ex.auth !== 'none' && ex.auth !== 'malformed' && ex.auth !== 'unknown-key' ? { auth: ex.auth } : {}) };
    }),
    notes: ctx.notes,
    level: scenario.level,
    sends: ctx.sends,
    ...(notProvoked.length ? { notProvoked } : {}),
    // A scenario that runs only on the mock sends nothing to the run's own account.
    ...(scenario.mockOnly ? { onMock: true as const, scratchRequests: ctx.exchanges.length + ctx.scratchRequests } : {}),
  };
  return suiteRedactor(env.http.secrets())(outcome);
}
