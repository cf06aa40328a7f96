// The key rule (part 5.1), in one place: every request but the four sign-up operations carries
// `Authorization: Bearer <API_KEY>`, and a key is a string beginning `sk_live_` (the prefix read
// from the contract's `SignedIn.apiKey` pattern). Both mocks and the conformance suite read keys
// with these functions; which well-formed keys open an account is the simulator's
// (src/simulator/accounts.ts). Browser-safe.
import { sha256 } from '@noble/hashes/sha2.js';
import type { JsonObject } from './json-pointer.js';

/** The prefix part 5.1 gives, where the contract is not at hand (or gives no `SignedIn.apiKey` pattern). */
export const DOCUMENTED_KEY_PREFIX = 'sk_live_';

const prefixes = new WeakMap<object, string>();

/** The prefix every key begins with: the contract's `SignedIn.apiKey` pattern without its `^`. */
export function keyPrefix(document: JsonObject): string {
  let prefix = prefixes.get(document);
  if (prefix === undefined) {
    const pattern = document.components?.schemas?.SignedIn?.properties?.apiKey?.pattern;
    prefix = typeof pattern === 'string' && pattern.startsWith('^') ? pattern.slice(1) : DOCUMENTED_KEY_PREFIX;
    prefixes.set(document, prefix);
  }
  return prefix;
}

// `Bearer` exactly, as Prism's own bearer check takes it (it answers 401 to `bearer …`).
const BEARER = 'Bearer ';

/** The key of `Authorization: Bearer <key>` (one token, no spaces), or undefined; a repeated header is none. */
export function bearerKey(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || !header.startsWith(BEARER)) return undefined;
  const key = header.slice(BEARER.length);
  return key.length > 0 && !/\s/.test(key) ? key : undefined;
}

/** Whether `key` is well formed: the prefix and something after it. */
export function isWellFormedKey(key: unknown, prefix: string): key is string {
  return typeof key === 'string' && key.startsWith(prefix) && key.length > prefix.length;
}

/** The key `Authorization` carries when it is well formed, else undefined. */
export function wellFormedKey(header: string | string[] | undefined, prefix: string): string | undefined {
  const key = bearerKey(header);
  return isWellFormedKey(key, prefix) ? key : undefined;
}

/** How a key is kept where it must not be read (a snapshot, src/store/snapshots.ts): `sha256:<digest>:<last 4>`. */
const DIGEST = /^sha256:[A-Za-z0-9_-]{43}:.{0,4}$/s;

/** Whether `kept` is a key's digest rather than the key. */
export function isKeyDigest(kept: string): boolean {
  return kept.startsWith('sha256:') && DIGEST.test(kept);
}

/**
 * A key as a snapshot keeps it: its SHA-256 (a key opens its account again by it, and no one
 * reads the key back from it) and its last four characters, which the account's preview shows
 * anyway (part 5.3). A digest stays as it is. No salt: the same key must reopen its account on any
 * mock a snapshot file is loaded into; a key of 128 random bits (as the sign-up issues) is not
 * found again from its digest.
 */
export function keyDigest(key: string): string {
  if (isKeyDigest(key)) return key;
  const digest = sha256(new TextEncoder().encode(key));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `sha256:${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}:${key.slice(-4)}`;
}
