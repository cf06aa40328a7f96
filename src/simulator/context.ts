// What a rule sees when it handles one request or one step of a simulated process, and the
// shape of a resource module. Each module under resources/ owns the operations of one resource or
// state machine and cites its part; simulator.ts routes requests to it.
import type { IdGenerator } from './clock.js';
import type { SimContract } from './contract.js';
import type { BodyOf, OperationId, StatusOf } from './records.js';
import type { AccountState, Job, SimState } from './state.js';
import type { JsonObject, SimEvent, SimRequest, SimResponse } from './types.js';

export interface SimOptions {
  /** The right email and SMS code (part 8: 6 digits); every other code is wrong. */
  signupCode: string;
  /** Only keys the sign-up issued or the seed names are accepted. */
  strictKeys: boolean;
  /** How fast simulated processes run in real time (1 = the default brisk pace). */
  pace: number;
  /** Live accounts at most; past it the least recently used is evicted (src/simulator/account-bounds.ts). */
  maxAccounts: number;
  /** What one account may hold, in bytes of JSON; a request body that would pass it is refused (400). */
  maxAccountBytes: number;
}

/** What a simulator keeps beside its state, in this process: never stored, never another simulator's. */
export interface ProcessLocal {
  /** `events/wait` requests held now, per account id (by id: a store may hand each run its own copy of an account). */
  readonly heldWaits: Map<string, number>;
  /** The subscription a `webhook.ping` goes to, per account id, while it is emitted. */
  readonly pingInFlight: Map<string, string>;
}

export interface RuleContext {
  contract: SimContract;
  state: SimState;
  /** This simulator's own, beside the state. */
  local: ProcessLocal;
  ids: IdGenerator;
  options: SimOptions;
  /** Simulated now, in ms and as ISO 8601. */
  now: number;
  nowIso: string;
  /** Appends an event to the account's log (part 6) and hands it to the transports' listeners. */
  emit(account: AccountState, type: string, data: JsonObject, relatedObject: SimEvent['relatedObject']): SimEvent;
  /** Plans a step of a simulated process `delayMs` from now (simulated time). */
  schedule(account: AccountState, kind: string, ref: string, delayMs: number, data?: JsonObject): void;
  /** Drops the planned steps of `kind` about `ref`. */
  unschedule(account: AccountState, kind: string, ref: string): void;
  /** A new account, set up from the seed; used by sign-up and by a first-seen key. */
  createAccount(init: { email: string | null; key?: string }): AccountState;
}

/** What a request handler sees, whatever its operation. */
export interface RequestFacts extends RuleContext {
  request: SimRequest;
  operationId: OperationId;
  params: Record<string, string>;
  /** The caller's account; set on every operation that needs a key. */
  account: AccountState;
  /** The request body as an object (`{}` when there was none or it is not an object). */
  body: JsonObject;
  /**
   * The documented answer of a test value (`x-test-values`) the request carries, if any:
   * `only` limits it to the named test values.
   */
  testValue(only?: string[]): SimResponse | undefined;
}

/** How a handler of `Op` answers: typed by the statuses and bodies the contract documents for `Op`. */
export interface TypedAnswers<Op extends OperationId> {
  /** This operation's documented example answer (`status`, optional example name), with `headers`. */
  documented(status: StatusOf<Op>, example?: string, headers?: Record<string, string>): SimResponse;
  /** A JSON answer composed from state, typed as the contract documents `status` of this operation. */
  json<S extends StatusOf<Op>>(status: S, body: BodyOf<Op, S>, headers?: Record<string, string>): SimResponse;
}

/** How a helper shared by several operations' handlers answers: any status; the handler's own type bounds it. */
export interface AnyAnswers {
  documented(status: number, example?: string, headers?: Record<string, string>): SimResponse;
  json(status: number, body: unknown, headers?: Record<string, string>): SimResponse;
}

/** The context of one request to `Op`; without `Op`, that of a helper shared by several operations. */
export type RequestContext<Op extends OperationId | undefined = undefined> = RequestFacts & (Op extends OperationId ? TypedAnswers<Op> & { operationId: Op } : AnyAnswers);

export type Handler<Op extends OperationId | undefined = undefined> = (ctx: RequestContext<Op>) => SimResponse;
export type Precheck<Op extends OperationId | undefined = undefined> = (ctx: RequestContext<Op>) => SimResponse | undefined;
export type ProcessStep = (ctx: RuleContext, account: AccountState, job: Job) => void;

export interface ResourceModule {
  /** What the module simulates, and the parts of the interface specification it follows. */
  name: string;
  parts: string;
  /** Request handlers by operationId, each typed by its operation. */
  handlers: { [Op in OperationId]?: Handler<Op> };
  /**
   * Operations whose handler only reads state: answering one is not a change (so under `--state`
   * it waits for no write). Held to it by test/simulator-reads.test.ts.
   */
  reads?: readonly OperationId[];
  /**
   * Checks that run before the generic answer to a request that broke its schema: where part 7
   * gives a specific message for a cause (exactly one of `to` or `groupId` ...), it answers that.
   */
  precheck?: { [Op in OperationId]?: Precheck<Op> };
  /** Steps of simulated processes by job kind. */
  processes?: Record<string, ProcessStep>;
  /** Sets up a new account's records of this resource from the seed. */
  seed?: (ctx: RuleContext, account: AccountState, seed: JsonObject) => void;
}
