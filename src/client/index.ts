// numbers-api-contract/client: a thin typed client on openapi-fetch.
//
//   const api = createClient({ apiKey: process.env.NUMBERS_API_KEY!, baseUrl: 'https://your-deployment.example' });
//   const { data: message } = await api.POST('/api/v1/messages', { body: { to, fromNumberId, body } });
//
// Paths, parameters, bodies and responses are typed from the generated `paths`. A 2xx answer
// resolves to `{ status, data, response }`, typed per documented status; anything else throws
// `ApiError` (part 7). Beyond openapi-fetch
// it adds only what part 7 asks of a client: the bearer key, an idempotency key where the operation
// takes one (`x-effects`: the call placement), and retries where they are safe (the package's one
// outgoing request, src/request/).

import type { MaybeOptionalInit } from 'openapi-fetch';
import { idempotencyKeyHeaders, serverUrls } from '../../generated/types/constants.js';
import type { paths } from '../../generated/types/openapi.js';
import type { HttpMethod } from '../contract/operations.js';
import { httpClient } from '../request/index.js';
import type { PendingRequest } from '../request/pending-request.js';
import { parseRetryAfter, resolveRetryOptions, type RetryKind, type RetryOptions } from '../request/retry.js';
import { ApiError, displayUrl } from './api-error.js';

export { ApiError, isFieldErrors, type ApiErrorDetails, type FieldErrors } from './api-error.js';
export { RETRY_DEFAULTS, type RetryOptions } from '../request/retry.js';
export { serverUrls };

export interface CreateClientOptions {
  /**
   * The API key (`sk_live_...`, part 5), sent as `Authorization: Bearer <key>` on every request.
   * `null` sends no key: only the four sign-up operations work without one (part 5.1).
   */
  apiKey: string | null;
  /**
   * Where the API is: your deployment's http(s) URL, or `'mock'` (this package's local mock,
   * `http://127.0.0.1:4010`). Required: the interface specification does not show the service's
   * address (`{base_url}`, part 5.8), so there is no default to fall back on. `'base'` and
   * `'legacy'` name the description's `{base_url}` and `{legacy_base_url}` servers (parts 5.8,
   * 9.3); they resolve only to a real address, and the description gives them placeholders
   * (`example.com`, reserved for documentation by RFC 2606), so today naming them throws.
   * The named addresses come from `servers` in the bundled description (see `serverUrls`).
   */
  baseUrl: keyof typeof serverUrls | (string & {});
  /** The fetch to send requests with (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retry tuning, or `false` to never retry. Which requests are retried is fixed by part 7. */
  retry?: RetryOptions | false;
}

/** A path of the API that has an operation for `M`: `PathWith<'post'>` includes `'/api/v1/messages'`. */
export type PathWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends Record<M, infer Operation> ? (Operation extends undefined ? never : P) : never;
}[keyof paths];
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
// The options argument is optional exactly when nothing in it is required (as in openapi-fetch).
// Unlike openapi-fetch, the options are not an inferred type parameter: a fresh object literal is
// checked against the operation's own types, so a misspelt body field is an error, not an extra.
type InitArgs<Init> = RequiredKeys<Init> extends never ? [init?: Init] : [init: Init];
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207 | 208 | 226 | '2XX';

/** The JSON body of one response, or `undefined` when it has no JSON content. */
type JsonBody<Response> = Response extends { content: { 'application/json': infer Json } } ? Json : undefined;

/**
 * What a request resolves to, one member per documented 2xx status: `status` (narrow on it, e.g.
 * 201 for a fresh call and 200 for an idempotent replay), `data` (that status's JSON body) and the
 * `response` itself. Bodies are read straight from the generated operation: openapi-fetch's own
 * `data` type passes through its `Readable` helper, which drops every property whose type is
 * exactly `null` (such as `relatedObject` of `webhook.ping`), so it is not used here.
 */
export type ApiResult<Operation> = Operation extends { responses: infer Responses }
  ? {
      [S in keyof Responses & SuccessStatus]: { status: S; data: JsonBody<Responses[S]>; response: Response };
    }[keyof Responses & SuccessStatus]
  : never;

/** The JSON body of any 2xx response of an operation. */
export type SuccessBody<Operation> = ApiResult<Operation>['data'];

/** One HTTP method of the client: `api.GET('/api/v1/calls')`. Non-2xx answers reject with `ApiError`. */
export type ClientMethod<M extends HttpMethod> = <P extends PathWith<M>>(
  url: P,
  ...init: InitArgs<MaybeOptionalInit<paths[P], M>>
) => Promise<ApiResult<paths[P][M]>>;

export interface NumbersApiClient {
  readonly baseUrl: string;
  GET: ClientMethod<'get'>;
  POST: ClientMethod<'post'>;
  PATCH: ClientMethod<'patch'>;
  PUT: ClientMethod<'put'>;
  DELETE: ClientMethod<'delete'>;
}

/** A host reserved for documentation (RFC 2606): an address that stands for one, never a service. */
function isPlaceholderHost(hostname: string): boolean {
  return /(^|\.)example\.(com|net|org)$/i.test(hostname) || /\.example$/i.test(hostname);
}

/**
 * The base URL a `baseUrl` option names, checked: a missing or bad one is refused here, with what
 * to pass, not on first use (and never replaced by a placeholder address).
 */
export function resolveBaseUrl(baseUrl: CreateClientOptions['baseUrl'] | undefined): string {
  if (baseUrl === undefined || baseUrl === null || (typeof baseUrl === 'string' && baseUrl.trim() === '')) {
    throw new TypeError(
      `createClient needs a baseUrl: your deployment's address (an http(s) URL), or 'mock' for this package's local mock (${serverUrls.mock}). ` +
        'The service address is not given by the interface specification (part 5.8), so there is no default.',
    );
  }
  if (typeof baseUrl !== 'string') throw new TypeError(`baseUrl must be a string, got ${typeof baseUrl}`);
  const named = Object.hasOwn(serverUrls, baseUrl);
  const chosen = named ? serverUrls[baseUrl as keyof typeof serverUrls] : baseUrl;
  let parsed: URL;
  try {
    parsed = new URL(chosen);
  } catch {
    throw new TypeError(`baseUrl must be 'mock' or an http(s) URL, got ${JSON.stringify(chosen)}`);
  }
  if (named && isPlaceholderHost(parsed.hostname)) {
    throw new TypeError(
      `baseUrl '${baseUrl}' names a server whose address the contract does not give (its ${chosen} is a placeholder, parts 5.8 and 9.3): ` +
        `pass your deployment's address instead, or 'mock' for the local mock.`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`baseUrl must use http: or https:, got ${JSON.stringify(chosen)}`);
  }
  return chosen.replace(/\/+$/, '');
}

/**
 * The typed client: `GET`, `POST`, `PATCH`, `PUT`, `DELETE` on the contract's paths, with the key
 * and the retries part 7 asks for; a non-2xx answer throws `ApiError`.
 *
 * ```ts
 * import { createClient } from 'numbers-api-contract/client';
 *
 * const api = createClient({ apiKey: process.env.NUMBERS_API_KEY ?? null, baseUrl: 'mock' }); // or your deployment's URL
 * const { data: message } = await api.POST('/api/v1/messages', {
 *   body: { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'Hello', channel: 'sms' },
 * });
 * console.log(message);
 * ```
 */
export function createClient(options: CreateClientOptions): NumbersApiClient {
  if (options === null || typeof options !== 'object') throw new TypeError('createClient needs an options object: { apiKey, baseUrl, fetch? }');
  const { apiKey } = options;
  if (apiKey !== null && (typeof apiKey !== 'string' || apiKey.trim() === '')) {
    throw new TypeError('apiKey must be a non-empty string (or null for the sign-up operations only)');
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('fetch must be a function');
  const baseUrl = resolveBaseUrl(options.baseUrl);
  // The requests the middleware saw carry their operation's idempotency key (part 7.2).
  const keyed = new WeakSet<PendingRequest>();
  const retryKind = (request: PendingRequest): RetryKind =>
    request.method === 'GET' || request.method === 'HEAD' ? 'safe' : keyed.has(request) ? 'keyed' : 'never';
  const inner = httpClient<paths>({ baseUrl, apiKey, fetch: options.fetch, retry: { options: resolveRetryOptions(options.retry), kindOf: retryKind } });
  inner.use({
    onRequest({ request, schemaPath }) {
      // Part 7.2: without the key every attempt places another call, so one is always sent.
      const header = idempotencyKeyHeaders[`${request.method} ${schemaPath}`];
      if (header && !request.headers.has(header)) request.headers.set(header, globalThis.crypto.randomUUID());
      if (header) keyed.add(request as unknown as PendingRequest);
    },
  });

  const method = (name: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE') =>
    (async (url: string, init?: Record<string, unknown>) => {
      let result: { data?: unknown; error?: unknown; response: Response };
      try {
        result = await (inner[name] as (url: string, init?: unknown) => Promise<typeof result>)(url, init);
      } catch (error) {
        if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) throw error;
        throw new ApiError({ status: 0, method: name, url, secret: apiKey, cause: error, body: undefined });
      }
      const { response } = result;
      if (!response.ok) {
        const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
        throw new ApiError({
          status: response.status,
          method: name,
          url: response.url ? displayUrl(response.url) : url,
          body: result.error,
          retryAfterSeconds: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
          secret: apiKey,
        });
      }
      return { status: response.status, data: result.data, response };
    }) as never;

  return {
    baseUrl,
    GET: method('GET'),
    POST: method('POST'),
    PATCH: method('PATCH'),
    PUT: method('PUT'),
    DELETE: method('DELETE'),
  };
}
