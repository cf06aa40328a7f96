// A scenario is one small, ordered piece of the suite (a few requests and the named check they
// prove). runScenario gives it a context that sends requests through ConformanceHttp, runs the
// generic checks on every answer, and collects findings into an outcome for the reporters.
import { checkResponse } from './checks/response.js';
import type { ConformanceConfig, Level } from './config.js';
import { findOperation, type Json, type Operation } from './description.js';
import { Fixtures } from './fixtures.js';
import { overallVerdict, type Finding, type ScenarioOutcome, type SendRecord, type Verdict } from './findings.js';
import { ConformanceHttp, describeRequest, NoResponse, RateLimited, type Exchange, type RequestSpec } from './http.js';
import { redactDeep } from './redact.js';
import type { NamedLocks } from './limiter.js';
import type { SendBudget } from './sends.js';
import type { ContractValidator } from '../src/contract/contract-validator.js';

export interface Scenario {
  /** Stable id: `<operationId>/<check>[/<variant>]`. */
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
  run(ctx: ScenarioContext): Promise<void>;
}

export class Skip extends Error {}
/** The rule does not apply to this deployment (what it announced, or what the user said). */
export class NotApplicable extends Skip {}
/** The account lacks what the flow needs (credit, a line to send from): not a finding, exit 2. */
export class PreconditionUnmet extends Skip {}

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
  private reserved = 0;

  constructor(readonly env: Environment, readonly scenario: Scenario) {}

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
        this.findings.push(...checkResponse(this.env.document, this.env.validator, op, ex, this.env.config.apiKey));
      }
    }
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

  /** Sends a request that creates or changes something, from the sends reserved (or one more taken). */
  async write(op: Operation, spec: RequestSpec = {}): Promise<Exchange> {
    if (this.reserved === 0) this.reserveSends(1, `a further ${op.operationId}`);
    this.reserved--;
    const sent: SendRecord = { operationId: op.operationId, request: describeRequest({ method: op.method, target: this.env.http.buildTarget(op, spec), auth: spec.auth ?? 'valid', requestBody: spec.body }) };
    this.sends.push(sent);
    const ex = await this.send(op, spec);
    sent.status = ex.status;
    // Part 7: 402 is insufficient credit. The account cannot run this flow; that is no finding.
    if (ex.status === 402) throw new PreconditionUnmet(creditNeeded(ex));
    return ex;
  }

  record(verdict: Verdict, reason: string, ex?: Exchange, check = this.scenario.check, part = this.scenario.part): void {
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
      verdict,
      reason,
      operationId,
      request: ex ? describeRequest(ex) : undefined,
      status: ex?.status,
    });
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

  skip(reason: string): never {
    throw new Skip(reason);
  }

  notApplicable(reason: string): never {
    throw new NotApplicable(reason);
  }

  precondition(reason: string): never {
    throw new PreconditionUnmet(reason);
  }
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
  let notApplicable = false;
  try {
    await (scenario.exclusive ? env.locks.run(scenario.exclusive, () => scenario.run(ctx)) : scenario.run(ctx));
  } catch (error) {
    if (error instanceof Skip || error instanceof RateLimited) skipReason = error.message;
    else if (error instanceof NoResponse) ctx.record('fail', error.message, undefined, 'response-received');
    else throw error;
    if (error instanceof PreconditionUnmet) precondition = error.message;
    notApplicable = error instanceof NotApplicable;
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
    findings: ctx.findings,
    exchanges: ctx.exchanges.map((ex) => ({ operationId: ex.operationId, status: ex.status, request: describeRequest(ex) })),
    notes: ctx.notes,
    level: scenario.level,
    sends: ctx.sends,
  };
  return redactDeep(outcome, [env.config.apiKey]);
}
