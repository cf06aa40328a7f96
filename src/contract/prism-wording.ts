// Verdicts in Prism's words: the `sl-violations` header Prism's users read (the mock's composed-answer
// check, the validating proxy), and the gate's parity with `prism mock` (test/gate-parity.test.ts
// holds this rendering to the real Prism's, word for word). Prism words an ajv error in
// prism-http's validator/validators/utils.js `convertAjvErrors`; this is that function over a
// verdict's data, plus Prism's own sentence for a required body (validators/body.js):
// - the message is prefixed: `Request body property a.b must ...`, `Request body must ...`,
//   `Request query parameter days must ...`, `Request header parameter idempotency-key must ...`;
// - a missing required property stays on its parent (`['body', 'a']`, "... must have required
//   property 'b'"); a missing required parameter is on its whole group (`['query']`, "Request
//   query must have required property 'x'"); parameter names are lower case;
// - `: a, b` follows an `enum` break (its allowed values), `; found 'x'` an additional property.
// Browser-safe.
import { pointerSegments } from './json-pointer.js';
import { ruleWords, type Verdict } from './verdict.js';

/** One violation as Prism reports it in `sl-violations` (its `location` without the `request`/`response` prefix here). */
export interface PrismViolation {
  location: string[];
  message: string;
}

function suffix(params: Record<string, unknown>): string {
  const allowed = Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(', ')}` : '';
  const found = params.additionalProperty !== undefined ? `; found '${String(params.additionalProperty)}'` : '';
  const unevaluated = params.unevaluatedProperty !== undefined ? `: '${String(params.unevaluatedProperty)}'` : '';
  return `${allowed}${found}${unevaluated}`;
}

/** A verdict as Prism words and places it. */
export function prismViolation(verdict: Verdict): PrismViolation {
  const side = verdict.of === 'request' ? 'Request' : 'Response';
  if (verdict.in === 'status') return { location: [], message: `${side} status ${ruleWords(verdict)}` };
  if (verdict.keyword === 'bodyRequired') return { location: ['body'], message: 'Body parameter is required' };
  // Prism judges parameters and headers as one object per group, keyed by lower-case names.
  const name = (verdict.parameter ?? '').toLowerCase();
  if (verdict.in !== 'body' && verdict.keyword === 'required' && verdict.ajvMessage === undefined) {
    return { location: [verdict.in], message: `${side} ${verdict.in} must have required property '${name}'` };
  }
  if (verdict.ajvMessage === undefined) return { location: [verdict.in], message: `${side} ${verdict.in} ${ruleWords(verdict)}` };
  if (verdict.in === 'body') {
    const path = pointerSegments(verdict.instancePath);
    return { location: ['body', ...path], message: `${side} body ${path.length > 0 ? `property ${path.join('.')} ` : ''}${verdict.ajvMessage}${suffix(verdict.params)}` };
  }
  const path = [name, ...pointerSegments(verdict.instancePath)];
  return { location: [verdict.in, ...path], message: `${side} ${verdict.in} parameter ${path.join('.')} ${verdict.ajvMessage}${suffix(verdict.params)}` };
}

/** The `sl-violations` header of an answer: each verdict placed under `request` or `response`, inferred ones as warnings. */
export function slViolationsHeader(verdicts: readonly Verdict[]): string {
  return JSON.stringify(
    verdicts.map((verdict) => {
      const { location, message } = prismViolation(verdict);
      return { location: [verdict.of, ...location], severity: verdict.severity === 'inferred' ? 'Warning' : 'Error', message };
    }),
  );
}
