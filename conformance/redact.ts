// The API key never appears in any output, report or error message. Every string the suite
// emits passes through `redact`; the CLI also filters stdout and stderr as a last line of defence.
const MARK = '[redacted key]';

export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short values would redact unrelated text; keys are long random strings.
    if (secret && secret.length >= 6) out = out.split(secret).join(MARK);
  }
  return out;
}

/** Deep copy of a JSON-like value with every string redacted. */
export function redactDeep<T>(value: T, secrets: readonly (string | undefined)[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k, secrets), redactDeep(v, secrets)])) as T;
  }
  return value;
}
