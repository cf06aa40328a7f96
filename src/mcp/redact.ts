// The key never appears in a tool result or a log line: every string leaving the server passes
// through here. Any API key (part 5.1: a string beginning `sk_live_`) is shown as a preview, as
// the account shows its keys (its first characters and last four), and the secrets the server
// holds (its key, the mock's control token) are masked wherever they appear, whatever they look like.
import { keyPrefix } from '../contract/api-key.js';
import { loadOpenApi } from '../contract/generated-files.js';

// The prefix part 5.1 gives every key, read from the contract.
const API_KEY_PREFIX = keyPrefix(loadOpenApi());

const ANY_KEY = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_\\-]+`, 'g');

const preview = (key: string): string => `${API_KEY_PREFIX}…${key.length > API_KEY_PREFIX.length + 8 ? key.slice(-4) : ''}`;

export type Redactor = <T>(value: T) => T;

/** A function that returns a copy of a value (a string, or JSON) with every key and secret masked. */
export function redactor(secrets: ReadonlyArray<string | undefined>): Redactor {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4).sort((a, b) => b.length - a.length);
  const text = (value: string): string => {
    let out = value;
    for (const secret of known) out = out.split(secret).join(secret.startsWith(API_KEY_PREFIX) ? preview(secret) : '…');
    return out.replace(ANY_KEY, (key) => preview(key));
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), walk(v)]));
    return value;
  };
  return <T>(value: T): T => walk(value) as T;
}
