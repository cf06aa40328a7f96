// The values a command line gives, checked the same way in every command. Each throws a UsageError
// naming where the value came from (`--base-url`, `NUMBERS_API_BASE_URL`); a key is never echoed.
import { isWellFormedKey, keyPrefix } from '../contract/api-key.js';
import { loadOpenApi } from '../contract/generated-files.js';
import type { JsonObject } from '../contract/json-pointer.js';
import type { DeliveryOptions } from '../delivery/deliver.js';
import { MOCK_URL } from './options.js';
import { UsageError } from './usage-error.js';

/** A base URL: http(s), no credentials (the key travels apart), no query or fragment (each path is joined to it). */
export function baseUrl(input: string, from: string): URL {
  if (!URL.canParse(input)) throw new UsageError(`${from} "${input}" is not a URL; give one such as ${MOCK_URL}.`);
  const url = new URL(input);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${from} "${input}" must use http:// or https://.`);
  if (url.username || url.password) throw new UsageError(`${from} must not carry credentials; the key is read from --api-key or NUMBERS_API_KEY.`);
  if (url.search || url.hash) throw new UsageError(`${from} must not carry a query or a fragment.`);
  return url;
}

/** A key as part 5.1 gives it: the prefix of the contract's `SignedIn.apiKey` pattern, then something. */
export function apiKey(value: string | undefined, from: string, document: JsonObject = loadOpenApi()): string {
  const prefix = keyPrefix(document);
  if (!value) throw new UsageError(`No API key: set NUMBERS_API_KEY (a key beginning ${prefix}) or pass --api-key.`);
  if (!isWellFormedKey(value, prefix)) throw new UsageError(`${from} must be a key beginning ${prefix} (part 5.1).`);
  return value;
}

/** E.164 as the contract's own `E164` schema states it (part 8), not restated here. */
export function phoneNumber(value: string, from: string, document: JsonObject = loadOpenApi()): string {
  const pattern = document.components?.schemas?.E164?.pattern;
  if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value)) throw new UsageError(`${from} must be an E.164 number such as +14155550123, got "${value}".`);
  return value;
}

export function port(value: string, from: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`${from} must be a port number from 0 to 65535, got "${value}".`);
  return Number(value);
}

/** A token sent in a header: visible ASCII, `least` to 200 characters. */
export function token(value: string, from: string, least = 8): string {
  if (!/^[\x21-\x7e]+$/.test(value) || value.length < least || value.length > 200) throw new UsageError(`${from} must be ${least} to 200 visible ASCII characters (it is sent in a header).`);
  return value;
}

export function wholeNumber(value: string, from: string, least = 0, most = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < least || Number(value) > most) {
    throw new UsageError(`${from} must be a whole number ${most === Number.MAX_SAFE_INTEGER ? `of at least ${least}` : `from ${least} to ${most}`}, got "${value}".`);
  }
  return Number(value);
}

export function seconds(value: string, from: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0) throw new UsageError(`${from} is seconds, a number above 0; got "${value}".`);
  return number;
}

export function oneOf<T extends string>(value: string, from: string, choices: readonly T[]): T {
  if (!choices.includes(value as T)) throw new UsageError(`${from} must be one of ${choices.join(', ')}, got "${value}".`);
  return value as T;
}

// An HTTP field name is a token (RFC 9110 §5.1).
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The delivery flags (SHARED's secret, signature-header, bearer, timeout) as the delivery takes them. */
export function deliveryOptions(values: { secret?: string; 'signature-header'?: string; bearer?: string; timeout?: string }): DeliveryOptions {
  const options: DeliveryOptions = {};
  if (values.secret !== undefined) {
    if (values.secret === '') throw new UsageError('--secret must not be empty.');
    options.secret = values.secret;
  }
  const header = values['signature-header'];
  if (header !== undefined) {
    if (values.secret === undefined) throw new UsageError('--signature-header names the header of the signature, so it needs --secret.');
    if (!FIELD_NAME.test(header)) throw new UsageError(`--signature-header "${header}" is not a valid HTTP header name.`);
    options.signatureHeader = header;
  }
  if (values.bearer !== undefined) {
    if (!/^\S+$/.test(values.bearer)) throw new UsageError('--bearer must be one token, without spaces, and not empty.');
    options.bearer = values.bearer;
  }
  if (values.timeout !== undefined) options.timeoutSeconds = seconds(values.timeout, '--timeout');
  return options;
}
