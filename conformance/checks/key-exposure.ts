// Part 5.3: a key is returned once, by the sign-up (`apiKey` of verify and verify-number), and
// never again: the account shows previews only. A full-length key anywhere else in any answer,
// the caller's own or any other, is a failure wherever it stands (inferred fields and
// undocumented answers included: the rule is about the key, not the schema). The finding names
// where the key stood, never the key.
import { documentedResponse, type Json, type Operation } from '../description.js';
import { keyPrefix } from '../../src/contract/api-key.js';
import { childPointer, resolveRef } from '../../src/contract/json-pointer.js';
import type { Finding } from '../findings.js';
import { describeRequest } from '../http.js';
import type { ResponseCheck } from './check.js';

export const KEY_EXPOSURE_CHECK = 'no-full-key-in-answers';


/**
 * A key with nothing elided: the prefix and at least 16 more key characters. A preview
 * (`sk_live_…p7dc`) elides, and the prefix alone is not a key.
 */
function wholeKeyPattern(document: Json): RegExp {
  return new RegExp(`${keyPrefix(document).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[A-Za-z0-9_-]{16,}`);
}

/** The top-level fields of a documented answer that carry the key by design (the sign-up's `apiKey`). */
function documentedKeyFields(document: Json, op: Operation, status: number): Set<string> {
  const fields = new Set<string>();
  const keyPattern = document.components?.schemas?.SignedIn?.properties?.apiKey?.pattern;
  const schema = documentedResponse(document, op, status)?.response?.content?.['application/json']?.schema;
  const visit = (raw: Json, depth: number) => {
    const node = resolveRef(document, raw);
    if (!node || typeof node !== 'object' || depth > 6) return;
    for (const [name, property] of Object.entries<Json>(node.properties ?? {})) {
      if (keyPattern && resolveRef(document, property)?.pattern === keyPattern) fields.add(name);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf']) (node[key] ?? []).forEach((s: Json) => visit(s, depth + 1));
  };
  if (status >= 200 && status < 300) visit(schema, 0);
  return fields;
}

/** JSON pointers of the strings in `value` that `matches`, skipping the allowed top-level fields. */
function locate(value: unknown, matches: (s: string) => boolean, allowed: Set<string>, pointer = '', out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (matches(value)) out.push(pointer || '(body)');
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => locate(v, matches, allowed, `${pointer}/${i}`, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (pointer === '' && allowed.has(k)) continue;
      if (matches(k)) out.push(`${childPointer(pointer, k)} (as a field name)`);
      locate(v, matches, allowed, childPointer(pointer, k), out);
    }
  }
  return out;
}

export const noFullKeyInAnswers: ResponseCheck = ({ document, op, ex, apiKey }) => {
  const whole = wholeKeyPattern(document);
  const ownKey = apiKey && apiKey.length > keyPrefix(document).length ? apiKey : undefined;
  const matches = (s: string) => whole.test(s) || (ownKey !== undefined && s.includes(ownKey));
  const allowed = documentedKeyFields(document, op, ex.status);
  const where =
    ex.body !== undefined
      ? locate(ex.body, matches, allowed)
      : // Not JSON: judged on the text itself.
        matches(ex.bodyText)
        ? ['(body text)']
        : [];
  for (const [name, value] of Object.entries(ex.headers)) if (matches(value)) where.push(`header ${name}`);
  const finding = (verdict: Finding['verdict'], reason: string): Finding => ({
    check: KEY_EXPOSURE_CHECK,
    part: '5.3',
    verdict,
    reason,
    operationId: op.operationId,
    request: describeRequest(ex),
    status: ex.status,
  });
  if (where.length === 0) return [finding('pass', 'No full-length key in the answer.')];
  const shown = where.length > 5 ? `${where.slice(0, 5).join(', ')}, ...` : where.join(', ');
  return [
    finding(
      'fail',
      `The answer carries a full-length API key (${keyPrefix(document)} with nothing elided) at ${shown}; part 5.3 returns a key once, at sign-up, and shows only previews after (the key is not printed here).`,
    ),
  ];
};
