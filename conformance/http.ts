// The suite's only way to reach the deployment: a request for an operation of the description,
// sent as the package's one outgoing request (src/request/: base URL and path joined one way, no
// redirects followed, answers read up to a bound, timed out), with concurrency bounded, 429s waited
// out (Retry-After honoured within a budget) and the exchange returned with the keys kept out of
// everything it records.
import { randomUUID } from 'node:crypto';
import type { ConformanceConfig, FixtureAccount } from './config.js';
import type { Operation } from './description.js';
import { Limiter } from './limiter.js';
import { createRequester, NoAnswer, type Requester } from '../src/request/index.js';
import { redactor, type Redactor } from '../src/request/redact.js';
import { backoffDelay, parseRetryAfter } from '../src/request/retry.js';

/**
 * Which Authorization header a request carries (part 5.1): the run's key, none, a malformed or a
 * well-formed unknown one, the second key (`--second-key`, cross-account checks), or the key of
 * an account the suite signed up on the package's mock (`scratch`, given in `RequestSpec.key`), or
 * the key of a fixture account the team set aside (`empty-wallet`, `free-account`: config.ts).
 */
export type AuthMode = 'valid' | 'none' | 'malformed' | 'unknown-key' | 'second' | 'scratch' | FixtureAccount;

export interface RequestSpec {
  pathParams?: Record<string, string>;
  query?: Record<string, string | number>;
  body?: unknown;
  auth?: AuthMode;
  /** The key of `auth: 'scratch'` (an account the suite signed up on the mock). */
  key?: string;
  headers?: Record<string, string>;
  /** Overrides the per-request timeout (events/wait must answer within its own window). */
  timeoutMs?: number;
  /**
   * A 429 is the answer the request is sent to provoke (a limit of part 8): it is returned as it
   * came instead of being waited out.
   */
  expect429?: boolean;
}

export interface Exchange {
  /** Numbers the exchanges of a run, so that findings about one answer can be told apart from another's. */
  seq?: number;
  operationId: string;
  method: string;
  /** Path and query as sent, e.g. `/api/v1/usage?days=45`. */
  target: string;
  auth: AuthMode;
  requestBody?: unknown;
  /** The headers sent besides Authorization (Accept, Content-Type, Idempotency-Key ...), for the curl of a finding and --rerun. */
  requestHeaders?: Record<string, string>;
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** The parsed JSON body, when the body is JSON. */
  body?: unknown;
  durationMs: number;
}

/** A 429 that could not be waited out within the retry budget: the check is skipped, not failed. */
export class RateLimited extends Error {}
/** No HTTP answer: a timeout or a connection error. */
export class NoResponse extends Error {}

// Synthetic credentials for the negative authentication checks. Neither can be a real key.
const MALFORMED_KEY = 'not-a-key';
const UNKNOWN_KEY_PREFIX = 'sk_live_conformance0000invalid';

export function describeAuth(auth: AuthMode): string {
  return {
    valid: 'with the API key',
    none: 'without Authorization',
    malformed: 'with a malformed key (Bearer not-a-key)',
    'unknown-key': 'with a well-formed unknown key (Bearer sk_live_conformance0000invalid…)',
    second: 'with the second key (--second-key)',
    scratch: 'with the key of an account the suite signed up on the mock',
    'empty-wallet': 'with the empty-wallet key (--empty-wallet-key)',
    'free-account': 'with the free-account key (--free-account-key)',
  }[auth];
}

/** The Authorization a copy-paste command sends for `auth`: the keys as environment variables, never their values. */
export function curlAuthorization(auth: AuthMode): string | undefined {
  return {
    valid: 'Bearer $NUMBERS_API_KEY',
    none: undefined,
    malformed: `Bearer ${MALFORMED_KEY}`,
    'unknown-key': `Bearer ${UNKNOWN_KEY_PREFIX}0000`,
    second: 'Bearer $NUMBERS_API_SECOND_KEY',
    scratch: 'Bearer $SCRATCH_KEY',
    'empty-wallet': 'Bearer $NUMBERS_API_EMPTY_WALLET_KEY',
    'free-account': 'Bearer $NUMBERS_API_FREE_ACCOUNT_KEY',
  }[auth];
}

let exchanges = 0;

/** One line naming the request, for reports: `POST /api/v1/calls {…} (without Authorization)`. */
export function describeRequest(ex: Pick<Exchange, 'method' | 'target' | 'auth' | 'requestBody'>): string {
  let body = '';
  if (ex.requestBody !== undefined) {
    const json = JSON.stringify(ex.requestBody);
    body = ` ${json.length > 300 ? `${json.slice(0, 297)}...` : json}`;
  }
  return `${ex.method.toUpperCase()} ${ex.target}${body} (${describeAuth(ex.auth)})`;
}

/**
 * The suite's redaction: each key it holds becomes `[redacted key]`, not the preview a deployment
 * must show (part 5.3), which its findings judge; other keys in the evidence stay as they came
 * (the curl of an unknown-key check sends one).
 */
export const suiteRedactor = (secrets: readonly (string | undefined)[]): Redactor => redactor(secrets, { mark: '[redacted key]', otherKeys: false });

/** Waits before retrying a 429 that gives no Retry-After: one second, doubled each time, up to 30. */
const RATE_LIMIT_BACKOFF = { baseDelayMs: 1000, maxDelayMs: 30_000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every call costs money, so no request to an operation that takes an `Idempotency-Key` goes
 * without one (part 7.4: each such request may place another call), whatever it checks: one the
 * check did not set is made up here, once per request, and kept across its 429 retries.
 */
export function withIdempotencyKey(op: Operation, spec: RequestSpec): RequestSpec {
  const takesKey = op.parameters.some((parameter) => parameter.in === 'header' && String(parameter.name).toLowerCase() === 'idempotency-key');
  if (!takesKey || Object.keys(spec.headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key')) return spec;
  return { ...spec, headers: { ...spec.headers, 'idempotency-key': `conformance-${randomUUID()}` } };
}

export class ConformanceHttp {
  private readonly limiter: Limiter;

  private readonly scratchKeys: string[] = [];

  /** The suite's requests, the key given per request (its auth mode); the mock's control token on control requests. */
  readonly requests: Requester;

  constructor(
    private readonly config: Pick<ConformanceConfig, 'baseUrl' | 'apiKey' | 'concurrency' | 'timeoutMs' | 'retryBudgetMs' | 'mockControlToken'> & Partial<Pick<ConformanceConfig, 'secondKey' | 'emptyWalletKey' | 'freeAccountKey'>>,
    limiter?: Limiter,
  ) {
    this.limiter = limiter ?? new Limiter(config.concurrency);
    this.requests = createRequester({ baseUrl: config.baseUrl, apiKey: null, controlToken: config.mockControlToken, timeoutMs: config.timeoutMs });
  }

  /** Every key this run holds: kept out of every message it makes. */
  secrets(): string[] {
    return [this.config.apiKey, this.config.secondKey, this.config.emptyWalletKey, this.config.freeAccountKey, ...this.scratchKeys].filter((k): k is string => Boolean(k));
  }

  /** A key the suite was issued (an account it signed up on the mock): redacted like the run's own. */
  addSecret(key: string): void {
    if (!this.scratchKeys.includes(key)) this.scratchKeys.push(key);
  }

  private authorization(auth: AuthMode, key: string | undefined): string | null {
    switch (auth) {
      case 'valid':
        return `Bearer ${this.config.apiKey}`;
      case 'second':
        return this.config.secondKey ? `Bearer ${this.config.secondKey}` : null;
      case 'scratch':
        return key ? `Bearer ${key}` : null;
      case 'empty-wallet':
        return this.config.emptyWalletKey ? `Bearer ${this.config.emptyWalletKey}` : null;
      case 'free-account':
        return this.config.freeAccountKey ? `Bearer ${this.config.freeAccountKey}` : null;
      case 'malformed':
        return `Bearer ${MALFORMED_KEY}`;
      case 'unknown-key':
        return `Bearer ${UNKNOWN_KEY_PREFIX}${Math.random().toString(36).slice(2, 10)}`;
      default:
        return null;
    }
  }

  /**
   * Sends once per attempt; waits out 429s within the retry budget, then throws RateLimited.
   * `onAnswer` sees every answer, including each 429 before it is retried.
   */
  async send(op: Operation, given: RequestSpec = {}, onAnswer?: (ex: Exchange) => void): Promise<Exchange> {
    const spec = withIdempotencyKey(op, given);
    for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
      if (spec.pathParams?.[name!] === undefined) throw new Error(`No value for path parameter {${name}} of ${op.operationId}.`);
    }
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const ex = await this.limiter.run(() => this.once(op, spec));
      onAnswer?.(ex);
      if (ex.status !== 429 || spec.expect429) return ex;
      const retryAfter = parseRetryAfter(ex.headers['retry-after']);
      const delay = retryAfter ?? backoffDelay(attempt, RATE_LIMIT_BACKOFF);
      const spent = Date.now() - started;
      if (spent + delay > this.config.retryBudgetMs) {
        throw new RateLimited(
          `429 from ${describeRequest(ex)}${retryAfter !== undefined ? ` with Retry-After ${Math.ceil(retryAfter / 1000)}s` : ''}; ` +
            `the retry budget of ${Math.round(this.config.retryBudgetMs / 1000)}s would be exceeded, so the check is skipped.`,
        );
      }
      await sleep(delay);
    }
  }

  private async once(op: Operation, spec: RequestSpec): Promise<Exchange> {
    const auth = spec.auth ?? 'valid';
    const header = { authorization: this.authorization(auth, spec.key), ...spec.headers };
    try {
      const ex = await this.requests.send({ method: op.method, path: op.path, params: { path: spec.pathParams, query: spec.query, header }, body: spec.body, timeoutMs: spec.timeoutMs });
      const { target, headers: requestHeaders } = ex.request;
      return { seq: ++exchanges, operationId: op.operationId, method: op.method, target, auth, requestBody: spec.body, requestHeaders, status: ex.status, headers: ex.headers, bodyText: ex.text, body: ex.json, durationMs: ex.durationMs };
    } catch (error) {
      if (!(error instanceof NoAnswer)) throw error;
      const target = error.request?.target ?? op.path;
      const what = error.kind === 'network' ? `request failed: ${error.detail}` : error.kind === 'timeout' ? error.detail : `an answer ${error.detail}, not read`;
      throw new NoResponse(suiteRedactor(this.secrets())(`${describeRequest({ method: op.method, target, auth, requestBody: spec.body })}: ${what}`));
    }
  }
}
