// Delivering one event to a local fan-out target, by rules 2 and 3 of part 6:
// - `Content-Type: application/json`; with a secret, the HMAC-SHA256 hex digest of the raw body in
//   `X-Service-Signature` (or the header `--signature-header` names); with a bearer token,
//   `Authorization: Bearer <token>`; both may be combined (part 5.9);
// - each attempt has `timeoutSeconds` (default 5);
// - a 2xx answer is delivered; any other status, a connection error or a timeout gets exactly one
//   retry; if the retry fails too, the event is dropped (the caller logs it; nothing is queued).
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { loopbackOnlyLookup } from './loopback-url.js';

export const DEFAULT_SIGNATURE_HEADER = 'X-Service-Signature';
export const DEFAULT_TIMEOUT_SECONDS = 5;
/** The first attempt and exactly one retry (part 6, rule 3). */
export const MAX_ATTEMPTS = 2;

export interface DeliveryOptions {
  secret?: string;
  signatureHeader?: string;
  bearer?: string;
  timeoutSeconds?: number;
}

export interface Attempt {
  /** The HTTP status, when the target answered. */
  status?: number;
  /** What went wrong when it did not: a connection error or the timeout. */
  error?: string;
  ms: number;
}

export interface DeliveryResult {
  delivered: boolean;
  attempts: Attempt[];
}

/** HMAC-SHA256 of the raw body keyed with the secret, as lower-case hex (part 5.9). */
export function signBody(rawBody: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** The request headers of one delivery (the same on the retry). */
export function deliveryHeaders(rawBody: string, options: DeliveryOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(rawBody)),
  };
  if (options.secret !== undefined) headers[options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER] = signBody(rawBody, options.secret);
  if (options.bearer !== undefined) headers.Authorization = `Bearer ${options.bearer}`;
  return headers;
}

/** One POST of `rawBody` to a loopback `url` with a fresh connection; settles with its status or what went wrong. */
export function postOnce(url: URL, rawBody: string, headers: Record<string, string>, timeoutMs: number): Promise<Attempt> {
  const started = process.hrtime.bigint();
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const settle = (attempt: Omit<Attempt, 'ms'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...attempt, ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6) });
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      // A fresh connection per attempt: a retry must not reuse the socket of a target that hung.
      { method: 'POST', headers, agent: false, lookup: loopbackOnlyLookup as never },
      (response) => {
        // The status is the answer (rule 3); the body is read and discarded.
        settle({ status: response.statusCode });
        response.resume();
      },
    );
    const timer = setTimeout(() => {
      settle({ error: `no answer within ${timeoutMs / 1000} s` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle({ error: error.code ? `${error.code}: ${error.message}` : error.message }));
    request.end(rawBody);
  });
}

export const isSuccess = (attempt: Attempt): boolean => attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;

/** An attempt as the event source and the listening agent print it: its status, or what went wrong, and how long it took. */
export function describeAttempt(attempt: Attempt): string {
  return attempt.status !== undefined ? `HTTP ${attempt.status} in ${attempt.ms} ms` : `${attempt.error} after ${attempt.ms} ms`;
}

/**
 * POSTs `rawBody` to `url` (already checked by `parseTargetUrl`); one retry after a failed first
 * attempt, none after that. `onAttempt` sees each attempt as it ends.
 */
export async function deliverEvent(
  url: URL,
  rawBody: string,
  options: DeliveryOptions = {},
  onAttempt?: (attempt: Attempt, number: number) => void,
): Promise<DeliveryResult> {
  const headers = deliveryHeaders(rawBody, options);
  const timeoutMs = (options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const attempts: Attempt[] = [];
  for (let number = 1; number <= MAX_ATTEMPTS; number++) {
    const attempt = await postOnce(url, rawBody, headers, timeoutMs);
    attempts.push(attempt);
    onAttempt?.(attempt, number);
    if (isSuccess(attempt)) return { delivered: true, attempts };
  }
  return { delivered: false, attempts };
}
