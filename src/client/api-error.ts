// The one error type of the client (part 7): whatever went wrong, the caller catches `ApiError`
// and branches on `status` first, then reads `error` and `code`, as the interface specification
// tells clients to do.

import type { components } from '../../generated/types/openapi.js';
import { redactor } from '../request/redact.js';

type ErrorBody = components['schemas']['Error'];
type ErrorCode = components['schemas']['ErrorCode'];

/** The fields of a 400 validation failure (part 7): each failing field with its messages. */
export type FieldErrors = components['schemas']['FieldErrors']['fieldErrors'];

/** A support reference the service puts in a `bad_request` message (part 7): `ref_` then an id. */
const REFERENCE = /\bref_[A-Za-z0-9_-]+/;

/** Longest text of a non-JSON error body kept on the error (an HTML error page, say). */
const MAX_TEXT = 500;

export interface ApiErrorDetails {
  /** HTTP status; 0 when no response arrived (connection refused, reset, DNS failure). */
  status: number;
  method: string;
  /** The request URL without credentials, or the operation's path template when none was sent. */
  url: string;
  /** The response body as parsed (JSON when it was JSON, else its text), or undefined. */
  body?: unknown;
  /** `Retry-After` in seconds when the response carried one. */
  retryAfterSeconds?: number | undefined;
  /** A text that must never appear on the error (the API key): masked wherever it occurs, as any other key. */
  secret?: string | null | undefined;
  cause?: unknown;
}

/** The fields `toJSON` shows, in this order (the body stays on the error). */
const SHOWN = ['name', 'message', 'status', 'error', 'code', 'ref', 'retryAfterSeconds', 'method', 'url'] as const;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status (part 7: branch on it first); 0 when no response arrived. */
  readonly status: number;
  /** The body's `error`: usually a string; an object for validation failures. */
  readonly error: ErrorBody['error'] | undefined;
  /** The body's machine `code`, when it has one (`rate_limited`, `unsupported_region`, ...). */
  readonly code: ErrorCode | undefined;
  /** The `ref_...` support reference found in the message, when present (`bad_request`). */
  readonly ref: string | undefined;
  /** `Retry-After` in seconds, when the response carried one (429, part 8). */
  readonly retryAfterSeconds: number | undefined;
  readonly method: string;
  readonly url: string;
  /** The whole response body as received. */
  readonly body: unknown;

  constructor(details: ApiErrorDetails) {
    const redact = redactor([details.secret]);
    const body = redact(details.body);
    const { error, code } = readErrorBody(body);
    const text = typeof error === 'string' ? error : error === undefined ? undefined : JSON.stringify(error);
    const summary =
      details.status === 0
        ? `${details.method} ${details.url} failed: no response (${describeCause(details.cause)})`
        : `${details.method} ${details.url} failed with ${details.status}${code ? ` ${code}` : ''}${text ? `: ${text}` : ''}`;
    super(redact(summary), details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.error = error;
    this.code = code;
    this.ref = typeof error === 'string' ? REFERENCE.exec(error)?.[0] : undefined;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.method = details.method;
    this.url = redact(details.url);
    this.body = body;
  }

  /** What `JSON.stringify` and loggers that call it see: the fields, never request headers. */
  toJSON(): Record<string, unknown> {
    return Object.fromEntries(SHOWN.map((field) => [field, this[field]]));
  }
}

/** `error` and `code` from a body shaped like the service's error body; a plain text body is the error. */
function readErrorBody(body: unknown): { error: ErrorBody['error'] | undefined; code: ErrorCode | undefined } {
  if (body !== null && typeof body === 'object' && 'error' in body) {
    const { error, code } = body as { error: unknown; code?: unknown };
    return {
      error: typeof error === 'string' || (error !== null && typeof error === 'object') ? (error as ErrorBody['error']) : String(error),
      code: typeof code === 'string' ? code : undefined,
    };
  }
  if (typeof body === 'string' && body.trim() !== '') {
    return { error: body.length > MAX_TEXT ? `${body.slice(0, MAX_TEXT)}…` : body, code: undefined };
  }
  return { error: undefined, code: undefined };
}

/** `fetch failed (ECONNREFUSED)`: the message and, when there is one, the system error code. */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return 'network error';
  const inner = (cause as { cause?: { code?: unknown } }).cause;
  return typeof inner?.code === 'string' ? `${cause.message}: ${inner.code}` : cause.message;
}

/** The request URL as safe to show: no user or password part. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * True when `error` (the `error` of an `ApiError`, or of any error body) is a validation failure
 * keyed by field, a 400's `{ fieldErrors: { to: ['Invalid phone number'] } }` (part 7), and narrows
 * it so that `error.fieldErrors` is the map of fields. False for a message string and for a 10DLC
 * failure (`tendlc_validation_failed`: keyed by field, without the `fieldErrors` wrapper).
 *
 * ```ts
 * import { ApiError, createClient, isFieldErrors } from 'numbers-api-contract/client';
 *
 * const api = createClient({ apiKey: process.env.NUMBERS_API_KEY ?? null, baseUrl: 'mock' });
 * try {
 *   await api.PATCH('/api/v1/account', { body: { maxCallDurationSeconds: 5 } });
 * } catch (e) {
 *   if (e instanceof ApiError && isFieldErrors(e.error)) {
 *     for (const [field, messages] of Object.entries(e.error.fieldErrors)) console.log(field, messages.join('; '));
 *   }
 * }
 * ```
 */
export function isFieldErrors(error: unknown): error is { fieldErrors: FieldErrors } {
  if (error === null || typeof error !== 'object' || !('fieldErrors' in error)) return false;
  const fields = (error as { fieldErrors: unknown }).fieldErrors;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return false;
  return Object.values(fields).every((messages) => Array.isArray(messages) && messages.every((message) => typeof message === 'string'));
}
