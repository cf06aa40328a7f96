// The one outgoing request of the package: every door that talks to a deployment or the mock (the
// typed client, the runner's steps, the MCP tools, replays, the suite, the listening agent, the
// docs' "Run this workflow") sends through openapi-fetch's `request()`, one piece per concern:
// - the base URL and the operation's path joined one way (openapi-fetch's createFinalURL): a base
//   URL's own path is kept, so `http://host/prefix` reaches `/prefix/api/v1/...`;
// - the key (middleware): `Authorization: Bearer <key>` on every request that names no Authorization
//   of its own in `params.header` (a workflow step's own value, or null for none), part 5.1;
// - the mock's control token (middleware) on requests to its control surface, and `{}` as the body
//   of a change there that has none (it takes changes only as JSON, spec/mock-control.yaml);
// - redirects never followed: a 3xx is an answer like any other, so the key never reaches another host;
// - an answer read up to a bound, a clear error past it, its JSON parsed without prototypes;
// - the request as sent kept as data (method, URL, path and query below the base URL, headers but the
//   secrets, body) for reports, findings and curl lines, as Respect keeps each step's request;
// - every message made of a failure masked by the redactor (redact.ts).
// Part 7's retries and part 8's `Retry-After` are retry.ts. Browser-safe.
import createFetchClient, { createFinalURL, createQuerySerializer, defaultPathSerializer, type Client, type Middleware } from 'openapi-fetch';
import { withoutPrototype, dict } from '../contract/dict.js';
import { CONTROL_PREFIX, CONTROL_TOKEN_HEADER } from '../delivery/control-paths.js';
import { PendingRequest } from './pending-request.js';
import { redactor, type Redactor } from './redact.js';
import { createRetryingFetch, type ResolvedRetryOptions, type RetryKind } from './retry.js';

export interface HttpClientOptions {
  baseUrl: string | URL;
  /** Sent as `Authorization: Bearer <key>` on every request that names no Authorization of its own; null sends none. */
  apiKey: string | null;
  /** The mock's control token, sent on requests to its control surface. */
  controlToken?: string | undefined;
  /** The fetch to send with (default: the global fetch, looked up at each request). */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** Part 7's retries: their tuning, and which rule each request falls under. */
  retry?: { options: ResolvedRetryOptions; kindOf: (request: PendingRequest) => RetryKind };
}

const hasOwn = (header: Record<string, unknown> | undefined, name: string): boolean => Object.keys(header ?? {}).some((key) => key.toLowerCase() === name);

/** openapi-fetch with this package's pieces: the key and the control token as middleware, the light request, part 7's retries. */
export function httpClient<Paths extends {}>(options: HttpClientOptions): Client<Paths> {
  const userFetch = options.fetch;
  const send = userFetch ? (request: PendingRequest) => userFetch(request.toRequest()) : (request: PendingRequest) => globalThis.fetch(request.url, request.toInit());
  const client = createFetchClient<Paths>({
    baseUrl: baseOf(options.baseUrl),
    Request: PendingRequest as unknown as typeof Request,
    fetch: (options.retry ? createRetryingFetch(send, options.retry.options, options.retry.kindOf) : send) as unknown as (request: Request) => Promise<Response>,
  });
  const { apiKey, controlToken } = options;
  // Set here rather than in default headers, so a secret lives only in this closure and in the
  // outgoing request: never in options objects, results or errors. Changed in place: nothing is
  // returned (openapi-fetch would insist on a real Request).
  if (apiKey !== null) client.use({ onRequest: ({ request, params }) => void (hasOwn(params.header, 'authorization') || request.headers.set('Authorization', `Bearer ${apiKey}`)) });
  if (controlToken) client.use({ onRequest: ({ request, schemaPath }) => void (schemaPath.startsWith(CONTROL_PREFIX) && request.headers.set(CONTROL_TOKEN_HEADER, controlToken)) });
  return client;
}

/** A base URL as openapi-fetch joins it: its path kept, no query, fragment or trailing slash. */
function baseOf(baseUrl: string | URL): string {
  const url = new URL(String(baseUrl));
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/** openapi-fetch's `params`: each value where its parameter goes. */
export interface Params {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** Header values by name; `authorization: null` sends no key. */
  header?: Record<string, string | null>;
}

/**
 * Values by parameter name put where each parameter goes. `authorization` undefined leaves the key
 * to the middleware; a string (a step's own) or null (none) is the request's own.
 */
export function paramsOf(parameters: ReadonlyArray<{ name: string; in: string }>, values: Record<string, unknown>, authorization?: string | null): Params {
  const params: Required<Params> = { path: {}, query: {}, header: {} };
  for (const parameter of parameters) {
    const value = values[parameter.name];
    if (value === undefined) continue;
    if (parameter.in === 'path' || parameter.in === 'query') params[parameter.in][parameter.name] = value;
    else if (parameter.in === 'header') params.header[parameter.name.toLowerCase()] = String(value);
  }
  if (authorization !== undefined) params.header.authorization = authorization;
  return params;
}

/** The path and query a request sends below the base URL, joined as openapi-fetch joins them (for a line naming a request before it goes). */
export function targetOf(path: string, params: Params = {}): string {
  return createFinalURL(path, { baseUrl: '', params, querySerializer: createQuerySerializer(), pathSerializer: defaultPathSerializer });
}

/** One request: an operation's method and path template, its parameters and JSON body. */
export interface Call {
  method: string;
  /** The path template below the base URL, e.g. `/api/v1/numbers/{id}`. */
  path: string;
  params?: Params;
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Told the request as it goes out (a player shows it before its answer comes). */
  onSend?: (request: RequestData) => void;
}

/** A request as sent, as data: what a report, a finding or a curl line shows. */
export interface RequestData {
  method: string;
  url: string;
  /** Path and query below the base URL, as sent: `/api/v1/usage?days=45`. */
  target: string;
  /** The headers sent (names in lower case), Authorization and the control token aside. */
  headers: Record<string, string>;
  body?: unknown;
}

/** A request and its answer, the answer as the workflow runner reads it (its `Answer`). */
export interface Exchange {
  request: RequestData;
  status: number;
  /** Names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body when its Content-Type says JSON, else the text, or undefined when empty. */
  body: unknown;
  /** The body as text (read up to the bound). */
  text: string;
  /** The body parsed as JSON when it is JSON, whatever its Content-Type; else undefined. */
  json: unknown;
  durationMs: number;
}

/**
 * No answer to show: no connection (`network`), none in time (`timeout`), or one larger than the
 * bound (`too-large`, with its status). `detail` says what happened (`ECONNREFUSED: connect
 * ECONNREFUSED 127.0.0.1:4010`), `code` is the system error's; nothing in it names a secret.
 */
export class NoAnswer extends Error {
  constructor(message: string, readonly kind: 'network' | 'timeout' | 'too-large', readonly request: RequestData | undefined, readonly detail: string, readonly code?: string, readonly status?: number) {
    super(message);
  }
}

export interface RequesterOptions extends Omit<HttpClientOptions, 'retry' | 'apiKey'> {
  apiKey?: string | null;
  /** The most of one answer read, in bytes (default 4 MB: no documented answer comes near). */
  maxAnswerBytes?: number;
  /** Per request unless a call says otherwise (default 75 s: longer than the longest documented wait, `events/wait`'s 60 s, part 8). */
  timeoutMs?: number;
  /** Secrets besides the key and the control token, masked in every message (a second key). */
  secrets?: ReadonlyArray<string | undefined>;
}

export interface Requester {
  /** The base URL requests go below, and a redactor of this requester's secrets and any key (for what a door logs or reports). */
  readonly baseUrl: string;
  readonly redact: Redactor;
  /** Sends one request and reads its answer; throws `NoAnswer` when there is none to read. */
  send(call: Call): Promise<Exchange>;
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const TIMEOUT_MS = 75_000;
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
class TooLarge extends Error {
  constructor(readonly status: number) {
    super(`an answer of ${status} past the bound`);
  }
}

/** The body of `response` as text, reading no more than `max` bytes (then it throws `TooLarge`). */
async function readCapped(response: Response, max: number): Promise<string> {
  if (Number(response.headers.get('content-length')) > max) {
    await response.body?.cancel().catch(() => undefined);
    throw new TooLarge(response.status);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let size = 0; ; ) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge(response.status);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** The requester of a door: one base URL, its key and control token, a bound on answers, a timeout. */
export function createRequester(options: RequesterOptions): Requester {
  const client = httpClient<Record<string, never>>({ ...options, apiKey: options.apiKey ?? null });
  const request = client.request as unknown as (method: string, path: string, init: object) => Promise<{ response: Response }>;
  const baseUrl = baseOf(options.baseUrl);
  const origin = new URL(baseUrl).origin;
  const redact = redactor([options.apiKey, options.controlToken, ...(options.secrets ?? [])]);
  const max = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  return {
    baseUrl,
    redact,
    async send(call) {
      const started = Date.now();
      const method = call.method.toUpperCase();
      const timeoutMs = call.timeoutMs ?? options.timeoutMs ?? TIMEOUT_MS;
      const timeout = AbortSignal.timeout(timeoutMs);
      const body = call.body ?? (method !== 'GET' && call.path.startsWith(CONTROL_PREFIX) ? {} : undefined);
      let sent: RequestData | undefined;
      let text = '';
      // Runs after the key and the token (a request's own middleware comes last) and reads the answer first.
      const exchange: Middleware = {
        onRequest({ request: outgoing }) {
          const headers = dict<string>();
          outgoing.headers.forEach((value, name) => {
            if (name !== 'authorization' && name !== CONTROL_TOKEN_HEADER.toLowerCase()) headers[name] = value;
          });
          const target = outgoing.url.startsWith(baseUrl) ? outgoing.url.slice(baseUrl.length) : outgoing.url;
          sent = { method, url: outgoing.url, target, headers, ...(body !== undefined ? { body } : {}) };
          call.onSend?.(sent);
        },
        async onResponse({ response }) {
          text = await readCapped(response, max);
          return new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, response);
        },
      };
      let response: Response;
      try {
        ({ response } = await request(method, call.path, {
          params: call.params ?? {},
          body,
          headers: { Accept: 'application/json' },
          parseAs: 'text',
          redirect: 'manual',
          signal: call.signal ? AbortSignal.any([timeout, call.signal]) : timeout,
          middleware: [exchange],
        }));
      } catch (error) {
        if (call.signal?.aborted) throw error;
        const what = `${method} ${sent?.target ?? call.path}`;
        if (error instanceof TooLarge) throw new NoAnswer(redact(`the answer to ${what} from ${origin} is larger than ${max} bytes; it was not read`), 'too-large', sent, `larger than ${max} bytes`, undefined, error.status);
        if (timeout.aborted) throw new NoAnswer(redact(`${what} to ${origin}: no answer within ${timeoutMs / 1000} s`), 'timeout', sent, `no answer within ${timeoutMs / 1000} s`);
        // fetch says "fetch failed"; what happened (ECONNREFUSED, a TLS error) is in its cause.
        const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
        const code = typeof cause?.code === 'string' ? cause.code : undefined;
        const detail = redact([code, String(cause?.message ?? (error as Error).message)].filter(Boolean).join(': '));
        throw new NoAnswer(redact(`${what} to ${origin} failed (${detail})`), 'network', sent, detail, code);
      }
      const headers = dict<string>();
      response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text, withoutPrototype);
      } catch {
        // not JSON: `json` stays undefined, `body` is the text
      }
      const isJson = json !== undefined && /\bjson\b/i.test(headers['content-type'] ?? '');
      return { request: sent!, status: response.status, headers, body: isJson ? json : text === '' ? undefined : text, text, json, durationMs: Date.now() - started };
    },
  };
}
