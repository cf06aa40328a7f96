// The simulator core: one behaviour for every door. The pipeline (src/serve/pipeline.ts) hands it
// each request a door (src/mock/ over HTTP, src/msw/ in-process) turned into a SimRequest, with
// its route and key, and `handle` answers it; the runner (src/serve/runner.ts) calls `tick` when
// the next simulated step is due (`nextDueAt`), and the events `onEvent` hands out go to waiters
// and webhooks. State is plain data (`state`), time and ids are injected, and each rule lives in
// the module of its resource (resources/).
import { defaultStatus, type MatchedOperation } from '../contract/operations.js';
import { randomIds, systemClock, type IdGenerator, type SimClock } from './clock.js';
import type { AnyAnswers, Handler, Precheck, ProcessLocal, RequestContext, RequestFacts, ResourceModule, RuleContext, SimOptions } from './context.js';
import type { OperationId } from './records.js';
import { simContract, type SimContract } from './contract.js';
import { acceptedKey, createAccountState, openAccount } from './accounts.js';
import { readableFieldErrors } from './field-errors.js';
import { routeNotFound, unauthorized } from './respond.js';
import { dropJobs, nextDueAt, orderJobs, planJob, takeDue } from './job-queue.js';
import { EVENT_LOG_LIMIT, emptyState, trimOldest, type AccountState, type SimState } from './state.js';
import { RESOURCE_MODULES } from './resources/index.js';
import { demoAccountSeed, type SeedFile } from './seed.js';
import { matchTestValue } from './documented-inputs.js';
import { accountBounds, DEFAULT_MAX_ACCOUNT_BYTES, DEFAULT_MAX_ACCOUNTS, type Eviction } from './account-bounds.js';
import { webhookTargets } from './resources/events.js';
import type { JsonObject, SimEvent, SimRequest, SimResponse } from './types.js';

export interface SimulatorOptions {
  /** The bundled OpenAPI description (generated/openapi.json), parsed. */
  document: JsonObject;
  clock?: SimClock;
  ids?: IdGenerator;
  /** Your own data (`--seed`); the demo seed built from the contract's examples otherwise. */
  seed?: SeedFile;
  /** A state to start from (`--state`). */
  state?: SimState;
  options?: Partial<SimOptions>;
  modules?: readonly ResourceModule[];
}

/** An event as its listeners get it: once the change that emitted it is committed, with the subscriptions it goes to (webhookTargets, asked when it was emitted). */
export type EventListener = (event: SimEvent, account: AccountState, seq: number, hooks: JsonObject[]) => void;

/** An event emitted by a run, held until the store has committed the run (src/store/store.ts). */
export interface Emitted {
  event: SimEvent;
  account: AccountState;
  seq: number;
  /** The subscriptions it goes to, as they were when it was emitted (plain copies). */
  hooks: JsonObject[];
}

/** What a run of the store hands its work (src/store/store.ts): the responder, the control surface, a held long poll and a delivery's outcome act through it, only in a run. */
export interface SimRules {
  readonly contract: SimContract;
  /** The state the run sees (the store's view of it). */
  readonly state: SimState;
  /**
   * The answer to a request the gate has judged (its `violations`). `route` is the operation the
   * pipeline matched (null: none), so the path is matched once; `key`, the key the pipeline
   * accepted for it (`acceptedKey`), so the key is checked once. Each is worked out here when not given.
   */
  handle(request: SimRequest, route?: MatchedOperation | null, key?: string): SimResponse;
  /** The key of `Authorization` when `handle` would accept it (part 5.1), changing nothing; else undefined. */
  acceptedKey(authorization: string | undefined): string | undefined;
  /** The account a key opens, as `handle` would (creating it from the seed where allowed), or undefined. */
  accountForKey(key: string | undefined): AccountState | undefined;
  /** Runs a rule outside a request (the control surface, a delivery's outcome): `fn` gets a rule context. */
  withContext<T>(fn: (ctx: RuleContext) => T): T;
}

/** What a store drives (src/store/): runs of the rules over the state it keeps, and the moves of the whole state. */
export interface SimStorage extends SimRules {
  readonly clock: SimClock;
  /**
   * Runs `fn` with every rule seeing `view` as the state; returns its result and the events it
   * emitted, handed to no listener: the store publishes them once it commits, or drops them.
   * `whole`: the state `view` tracks, whole (the file store's): a declared read that changes
   * nothing runs on it, untracked, as on the memory store (its traps made a read cost twice as much).
   */
  within<T>(view: SimState, fn: () => T, whole?: SimState): { result: T; emitted: Emitted[] };
  /** Hands committed events to the listeners (`onEvent`). */
  publish(emitted: readonly Emitted[]): void;
  /** Runs every simulated step due by now. */
  tick(): void;
  /** When the next simulated step is due (simulated ms), or undefined. */
  nextDueAt(): number | undefined;
  /** Moves the simulated clock forward and runs what fell due. */
  advance(ms: number): void;
  /** Back to the seed: every account and key forgotten. */
  reset(): void;
  /** Starts over from `state` (a snapshot brought back); the simulated clock keeps its time. */
  load(state: SimState): void;
  /** Creates the seed's named accounts that the state lacks (a store that resets itself, src/store/redis-store.ts). */
  seedNamedAccounts(): void;
}

/** What the control surface, the runner and the webhook fan-out watch (src/serve/): the options, the clock, what happened. */
export interface SimWatch {
  readonly options: SimOptions;
  readonly clock: SimClock;
  /** Called for each event, once the change that emitted it is committed, in order. Returns a function that stops it. */
  onEvent(listener: EventListener): () => void;
  /** Called after each change of state. Returns a function that stops it. */
  onChange(listener: () => void): () => void;
}

/** The bounds (account-bounds.ts) as the heap guard and the eviction log see them (src/mock/). */
export interface SimBounds {
  /** Called for each account evicted. Returns a function that stops it. */
  onEvict(listener: (eviction: Eviction) => void): () => void;
  /** Lowers the cap on live accounts for good, evicting the least recently used idle ones down to it; the cap now. */
  lowerAccountCap(limit: number): number;
  /** How many accounts are live. */
  liveAccounts(): number;
  /** How many `events/wait` requests of this account (or account id) this simulator holds now: a held account is never evicted. */
  heldWaits(account: AccountState | string | undefined): number;
}

/** The whole simulator, as its assembler (src/serve/mock-core.ts), the doors and the tests hold it; each part is handed one face. */
export interface Simulator extends SimStorage, SimWatch, SimBounds {}

export const DEFAULT_OPTIONS: Omit<SimOptions, 'signupCode'> = { strictKeys: false, pace: 1, maxAccounts: DEFAULT_MAX_ACCOUNTS, maxAccountBytes: DEFAULT_MAX_ACCOUNT_BYTES };

/** The right sign-up code: the contract's `signupCode` test value. */
export function documentedSignupCode(contract: SimContract): string {
  const entry = contract.testValues().find((value) => value.name === 'signupCode');
  if (!entry) throw new Error('The contract documents no signupCode test value (spec/test-values.yaml).');
  return entry.value;
}

/** Adds a listener to `listeners`; the function it returns removes it. */
const subscriber =
  <L>(listeners: Set<L>) =>
  (listener: L): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;

/** The documented 400 of a request body the account cannot take (src/simulator/account-bounds.ts). */
function accountFull(held: number, max: number): SimResponse {
  return {
    status: 400,
    body: {
      error:
        `This account holds ${megabytes(held)} of records, and the mock keeps at most ${megabytes(max)} for one account ` +
        '(--max-account-bytes): this request would pass it, so nothing was changed. Use another key, or reset the mock.',
    },
  };
}

export function createSimulator(init: SimulatorOptions): Simulator {
  const contract = simContract(init.document);
  const modules = init.modules ?? RESOURCE_MODULES;
  const options: SimOptions = { ...DEFAULT_OPTIONS, signupCode: documentedSignupCode(contract) };
  for (const [name, value] of Object.entries(init.options ?? {})) if (value !== undefined) Object.assign(options, { [name]: value });
  // A seed without `default` keeps the demo seed for accounts opened by unknown keys.
  const seed: SeedFile = { ...init.seed, default: init.seed?.default ?? demoAccountSeed(contract) };
  let state: SimState = init.state ?? emptyState();
  orderJobs(state);
  const clock = init.clock ?? systemClock(undefined, state.clockOffsetMs);
  const ids = init.ids ?? randomIds(clock);
  const eventListeners = new Set<EventListener>();
  /** Events emitted and not yet handed out; `deferring` while a store runs a view (`within`). */
  let pending: Emitted[] = [];
  let deferring = 0;
  /** While a store runs a view (`within`): the state it tracks, whole, when the store has it. */
  let whole: SimState | undefined;
  const publish = (emitted: readonly Emitted[]): void => {
    for (const { event, account, seq, hooks } of emitted) for (const listener of eventListeners) listener(event, account, seq, hooks);
  };
  /** Hands out what the last entry point emitted (the memory store: it is committed as it is made). */
  const flush = (): void => {
    if (deferring > 0 || pending.length === 0) return;
    const emitted = pending;
    pending = [];
    publish(emitted);
  };
  const changeListeners = new Set<() => void>();
  const evictListeners = new Set<(eviction: Eviction) => void>();
  // The seed's named accounts are never evicted: their keys are the ones a team relies on.
  const namedKeys = new Set((seed.accounts ?? []).flatMap((named) => named.keys));
  const local: ProcessLocal = { heldWaits: new Map(), pingInFlight: new Map() };
  const heldWaits = (account: AccountState | string | undefined): number => (account === undefined ? 0 : (local.heldWaits.get(typeof account === 'string' ? account : account.id) ?? 0));
  const bounds = accountBounds(
    () => state,
    options,
    (account) => heldWaits(account) > 0,
    (account) => account.keys.some((key) => namedKeys.has(key)),
  );
  const evicted = (evictions: Eviction[]): Eviction[] => {
    for (const eviction of evictions) for (const listener of evictListeners) listener(eviction);
    return evictions;
  };

  // The registry is keyed by operationId: each handler is typed by its own operation, and a request
  // reaches only the handler of the operation it matched, so it is called with that context.
  const handlers = new Map<string, { handler: Handler; reads: boolean }>();
  const prechecks = new Map<string, Precheck>();
  const processes = new Map<string, NonNullable<ResourceModule['processes']>[string]>();
  for (const module of modules) {
    for (const [operationId, handler] of Object.entries(module.handlers)) {
      if (handlers.has(operationId)) throw new Error(`${operationId} is handled twice (${module.name})`);
      handlers.set(operationId, { handler: handler as unknown as Handler, reads: module.reads?.includes(operationId as OperationId) ?? false });
    }
    for (const [operationId, check] of Object.entries(module.precheck ?? {})) prechecks.set(operationId, check as unknown as Precheck);
    for (const [kind, step] of Object.entries(module.processes ?? {})) processes.set(kind, step);
  }

  const changed = (): void => {
    state.clockOffsetMs = clock.offset();
    for (const listener of changeListeners) listener();
  };

  // The rules' view of one moment, and of one request. Their methods live on the prototype, made
  // once per simulator, so a request allocates its context object and nothing more.
  class Moment implements RuleContext {
    readonly contract = contract;
    readonly local = local;
    readonly ids = ids;
    readonly options = options;
    readonly nowIso: string;
    constructor(readonly now: number) {
      this.nowIso = new Date(now).toISOString();
    }
    get state(): SimState {
      return state;
    }
    emit(account: AccountState, type: string, data: JsonObject, relatedObject: SimEvent['relatedObject']): SimEvent {
      const event: SimEvent = { id: ids.next('evt_'), object: 'event', type, version: 1, createdAt: this.nowIso, relatedObject, data };
      const seq = ++state.eventSeq;
      account.events.push({ seq, event });
      trimOldest(account.events, EVENT_LOG_LIMIT);
      // Where it goes is asked now (a ping's target is known only while it is emitted); the
      // listeners get it once the change is committed (`flush`, or the store's `publish`).
      const hooks = webhookTargets(local, account, event).map((hook) => JSON.parse(JSON.stringify(hook)) as JsonObject);
      pending.push({ event, account, seq, hooks });
      return event;
    }
    schedule(account: AccountState, kind: string, ref: string, delayMs: number, data?: JsonObject): void {
      planJob(state, { at: this.now + Math.max(0, delayMs), kind, accountId: account.id, ref, ...(data ? { data } : {}) });
    }
    unschedule(account: AccountState, kind: string, ref: string): void {
      dropJobs(state, (job) => job.accountId === account.id && job.kind === kind && job.ref === ref);
    }
    createAccount({ email, key }: { email: string | null; key?: string }): AccountState {
      const account = createAccountState(this, modules, seed, { email, key });
      bounds.touch(account);
      return account;
    }
  }

  class RequestMoment extends Moment implements RequestFacts, AnyAnswers {
    readonly body: JsonObject;
    /** Set once the key is checked, on every operation that needs one. */
    account!: AccountState;
    constructor(
      now: number,
      readonly request: SimRequest,
      readonly operationId: OperationId,
      readonly params: Record<string, string>,
    ) {
      super(now);
      this.body = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? (request.body as JsonObject) : {};
    }
    documented(status: number, example?: string, headers?: Record<string, string>): SimResponse {
      return { status, body: contract.example(this.operationId, status, example), ...(headers ? { headers } : {}) };
    }
    json(status: number, value: unknown, headers?: Record<string, string>): SimResponse {
      return { status, body: value, ...(headers ? { headers } : {}) };
    }
    testValue(only?: string[]): SimResponse | undefined {
      const found = matchTestValue(contract, this.operationId, this.request, only);
      return found && found.status !== undefined ? { status: found.status, body: contract.example(this.operationId, found.status, found.example) } : undefined;
    }
  }

  const ruleContext = (now = clock.now()): RuleContext => new Moment(now);

  /**
   * Runs every step due by now, in time order, whoever's it is: the runner's wake-up, and the
   * start of each request, so a request sees the simulated world as it stands at its time. A step
   * may plan another that falls due by now: it runs in its turn, in the same pass.
   */
  function runDue(): boolean {
    const now = clock.now();
    let ran = false;
    for (let job = takeDue(state, now); job; job = takeDue(state, now)) {
      ran = true;
      const account = state.accounts[job.accountId];
      const step = processes.get(job.kind);
      // The step runs at its own due time, so its events carry the time it happened.
      if (account && step) step(ruleContext(job.at), account, job);
    }
    return ran;
  }

  function seedNamedAccounts(): void {
    const ctx = ruleContext();
    for (const named of seed.accounts ?? []) {
      if (named.keys.some((key) => state.keys[key])) continue;
      createAccountState(ctx, modules, seed, { email: named.email ?? null, key: named.keys[0], named });
    }
  }
  seedNamedAccounts();
  bounds.rebuild(state);

  function handle(request: SimRequest, route?: MatchedOperation | null, accepted?: string): SimResponse {
    const matched = route === undefined ? contract.match(request.method, request.pathname) : route;
    if (!matched) return routeNotFound(request);
    let stateChanged = false;
    const { operationId, params } = matched;
    const entry = handlers.get(operationId);
    const ctx = new RequestMoment(clock.now(), request, operationId as OperationId, params);
    if (contract.needsKey(operationId)) {
      const key = accepted ?? acceptedKey({ contract, state, options }, request.headers.authorization);
      if (key === undefined) return unauthorized(contract, operationId, request.headers.authorization);
      // A declared read of an open account with no step due changes nothing (test/simulator-reads.test.ts).
      const quiet = entry?.reads && whole !== undefined ? quietAccount(whole, key, ctx.now) : undefined;
      if (quiet) {
        ctx.account = quiet;
        bounds.touch(quiet);
        const view = state;
        state = whole!;
        try {
          return reply(ctx, entry, false);
        } finally {
          state = view;
        }
      }
      ctx.account = openAccount(ctx, key, (k) => {
        stateChanged = true; // a new account is a change
        return ctx.createAccount({ email: null, key: k });
      });
      bounds.touch(ctx.account);
      stateChanged = runDue() || stateChanged;
    }
    return reply(ctx, entry, stateChanged);
  }

  /** The account `key` opens in `on` as it is, when nothing is due by `now`: what opening it and running due steps would change is nothing. */
  function quietAccount(on: SimState, key: string, now: number): AccountState | undefined {
    if (!Object.hasOwn(on.keys, key) || (nextDueAt(on) ?? Number.POSITIVE_INFINITY) <= now) return undefined;
    return on.accounts[on.keys[key]!];
  }

  /** The answer once the account is open and what was due has run. */
  function reply(ctx: RequestMoment, entry: ReturnType<typeof handlers.get>, stateChanged: boolean): SimResponse {
    const { request, operationId } = ctx;
    const precheck = prechecks.get(operationId)?.(ctx as RequestContext);
    if (precheck) return finish(precheck, stateChanged);
    if (request.violations.length > 0) return finish(readableFieldErrors(request, request.violations), stateChanged);
    // What one account may hold: a body that would pass it is refused before it changes anything.
    if (ctx.account && contract.operation(operationId).requestBody !== undefined) {
      const held = bounds.refuses(ctx.account, request.size ?? 0);
      if (held !== undefined) return finish(accountFull(held, options.maxAccountBytes), stateChanged);
    }
    if (!entry) {
      // An operation no module simulates yet answers its documented example, as the stateless mock does.
      const status = defaultStatus(contract.operation(operationId));
      return finish({ status, body: contract.example(operationId, status) }, stateChanged);
    }
    // A handler may change state on any path, so every handled request counts as a change, but
    // for one its module declares a read.
    const answer = entry.handler(ctx as RequestContext);
    // The maps that grow without an account (sign-ups, keys that ended, bound numbers) are kept bounded.
    if (!ctx.account || operationId === 'deleteAccount') bounds.trimGlobal();
    return finish(answer, !entry.reads || stateChanged);
  }

  function finish(response: SimResponse, mutated: boolean): SimResponse {
    if (mutated) {
      // Past the cap on live accounts (a key or a sign-up opened one), the least recently used goes.
      evicted(bounds.enforce());
      changed();
    }
    flush();
    return response;
  }

  return {
    contract,
    clock,
    options,
    get state() {
      return state;
    },
    handle,
    tick() {
      if (runDue()) changed();
      flush();
    },
    within(view, fn, plain) {
      const outer = state;
      state = view;
      whole = plain;
      deferring++;
      const mark = pending.length;
      try {
        return { result: fn(), emitted: pending.splice(mark) };
      } finally {
        deferring--;
        state = outer;
        whole = undefined;
      }
    },
    publish,
    nextDueAt: () => nextDueAt(state),
    advance(ms) {
      clock.advance(ms);
      runDue();
      changed();
      flush();
    },
    reset() {
      state = emptyState();
      seedNamedAccounts();
      bounds.rebuild(state);
      changed();
    },
    seedNamedAccounts() {
      seedNamedAccounts();
      changed();
    },
    load(next) {
      state = next;
      orderJobs(state);
      bounds.rebuild(state);
      changed();
    },
    onEvict: subscriber(evictListeners),
    lowerAccountCap(limit) {
      if (evicted(bounds.lowerCap(limit)).length > 0) changed();
      return bounds.cap();
    },
    liveAccounts: () => bounds.live(),
    heldWaits,
    onEvent: subscriber(eventListeners),
    onChange: subscriber(changeListeners),
    acceptedKey: (authorization) => acceptedKey({ contract, state, options }, authorization),
    accountForKey(key) {
      const accepted = acceptedKey({ contract, state, options }, key === undefined ? undefined : `Bearer ${key}`);
      if (accepted === undefined) return undefined;
      const ctx = ruleContext();
      const account = openAccount(ctx, accepted, (k) => createAccountState(ctx, modules, seed, { email: null, key: k }));
      bounds.touch(account);
      evicted(bounds.enforce(account));
      return account;
    },
    withContext: (fn) => {
      const result = fn(ruleContext());
      changed();
      flush();
      return result;
    },
  };
}
