// What is logged or reported of a request or its answer holds no secret: the secrets a door holds
// (its key, the mock's control token, a second key) are masked wherever they appear, in a text or
// in every string and property name of a JSON value, and so is any other API key found there (a
// string beginning `sk_live_`, part 5.1: a server may echo one in a body or a URL). A key is shown
// as the account shows its keys (part 5.3: `sk_live_…` and its last four), any other secret as `…`.
// The one redactor of every door, as Respect masks its secrets in one module. Browser-safe.
import { DOCUMENTED_KEY_PREFIX as PREFIX } from '../contract/api-key.js';

export type Redactor = <T>(value: T) => T;

export interface RedactOptions {
  /** What each secret given becomes (default: a key's preview, `…` for any other secret). */
  mark?: string;
  /** Whether keys not given are shown as previews too (default true). */
  otherKeys?: boolean;
  /** The value is JSON text: each secret found, and its mark written, as JSON writes them inside a string. */
  json?: boolean;
}

// Shorter values would mask unrelated text; keys and tokens are long random strings.
const MIN_SECRET_LENGTH = 6;
const ANY_KEY = new RegExp(`${PREFIX}[A-Za-z0-9_\\-]+`, 'g');

/** A key as the account lists it (part 5.3): never whole. */
export const keyPreview = (key: string): string => `${PREFIX}…${key.length > PREFIX.length + 8 ? key.slice(-4) : ''}`;

/** A function that returns a copy of a value (a string, or JSON) with every secret and key masked. */
export function redactor(secrets: ReadonlyArray<string | null | undefined>, options: RedactOptions = {}): Redactor {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const mark = (secret: string): string => options.mark ?? (secret.startsWith(PREFIX) ? keyPreview(secret) : '…');
  const written = (text: string): string => (options.json ? JSON.stringify(text).slice(1, -1) : text);
  const marks = known.map((secret) => [written(secret), written(mark(secret))] as const);
  const text = (value: string): string => {
    let out = value;
    for (const [secret, shown] of marks) if (out.includes(secret)) out = out.split(secret).join(shown);
    return options.otherKeys === false ? out : out.replace(ANY_KEY, keyPreview);
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), walk(v)]));
    return value;
  };
  return <T>(value: T): T => walk(value) as T;
}
