// Readable field errors (part 7): the documented 400 a form can show, a rendering of the gate's
// verdicts (src/contract/verdict.ts). Each field that is wrong is named once, in words a person
// reads, never the schema's internals:
//
// - a body whose schema is a union (`oneOf`/`anyOf`, the exactly-one rules of part 4.5) is shown
//   by the branch it means (the verdicts the validator marks `judged`), so
//   `{"to": "12345", "fromNumberId": ...}` is `to: ["Invalid phone number"]` alone;
// - the message of a field is its schema's `x-error-message` (part 7's own text where part 7
//   gives one, such as "Provide exactly one of `to` or `groupId`."), else a plain one by the rule
//   it breaks ("Required", "Must be one of: a, b", "Must be at least 60" ...);
// - a problem with the body as a whole (not JSON, too large, missing, not an object) is the
//   `error` sentence itself, never a `fieldErrors` key (`body` is also a field of a message).
// Browser-safe.
import { COMBINING_KEYWORDS, type Verdict } from '../contract/verdict.js';
import type { SimRequest, SimResponse } from './types.js';

const article = (type: string): string => (type === 'null' ? 'null' : ['a', 'e', 'i', 'o', 'u'].includes(type[0]!) ? `an ${type}` : `a ${type}`);
const megabytes = (bytes: unknown): number => Math.round(Number(bytes) / 1024 / 1024);

type Params = Verdict['params'];
const items = (limit: unknown): string => `${limit} item${limit === 1 ? '' : 's'}`;

/** A plain message for each rule a value breaks, by its keyword: the param it is made from (a verdict from Prism's gate may lack it), and its words. */
const PLAIN: Record<string, [needs: string | undefined, words: (params: Params) => string]> = {
  required: [undefined, () => 'Required'],
  type: ['type', (p) => `Must be ${[p.type].flat().map(String).map(article).join(' or ')}`],
  enum: ['allowedValues', (p) => `Must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`],
  const: ['allowedValue', (p) => `Must be ${JSON.stringify(p.allowedValue)}`],
  minimum: ['limit', (p) => `Must be at least ${p.limit}`],
  maximum: ['limit', (p) => `Must be at most ${p.limit}`],
  exclusiveMinimum: ['limit', (p) => `Must be more than ${p.limit}`],
  exclusiveMaximum: ['limit', (p) => `Must be less than ${p.limit}`],
  minLength: ['limit', (p) => (p.limit === 1 ? 'Must not be empty' : `Must be at least ${p.limit} characters`)],
  maxLength: ['limit', (p) => `Must be at most ${p.limit} characters`],
  minItems: ['limit', (p) => `Must hold at least ${items(p.limit)}`],
  maxItems: ['limit', (p) => `Must hold at most ${items(p.limit)}`],
  format: ['format', (p) => (p.format === 'email' ? 'Invalid email address' : p.format === 'uri' ? 'Invalid URL' : `Invalid ${p.format}`)],
  additionalProperties: [undefined, () => 'Not a field of this request'],
  fileType: [
    undefined,
    (p) => {
      const types = (p.types as string[] | undefined) ?? [];
      const named = types.length > 1 ? `${types.slice(0, -1).join(', ')} or ${types[types.length - 1]}` : (types[0] ?? 'an accepted');
      return `Must be a ${named} file of at most ${megabytes(p.maxBytes)} MB`;
    },
  ],
};

/** A plain message for a rule a value breaks (its keyword and params). */
export function plainMessage({ keyword, params }: Pick<Verdict, 'keyword' | 'params'>): string {
  const rule = Object.hasOwn(PLAIN, keyword) ? PLAIN[keyword] : undefined;
  return rule && (rule[0] === undefined || params[rule[0]] !== undefined) ? rule[1](params) : 'Invalid value';
}

/** The `error` sentence of a problem with the body as a whole, by its keyword (any other verdict is about a field). */
const WHOLE_BODY: Record<string, (params: Params) => string> = {
  bodyNotJson: (p) => `The request body is not valid JSON${p.reason ? `: ${String(p.reason)}` : ''}.`,
  bodyTooLarge: (p) => `The request body is larger than the ${megabytes(p.limit)} MB the service reads.`,
  bodyNotMultipart: () => 'The request body is not valid multipart/form-data.',
  bodyRequired: () => 'A JSON request body is required.',
};

/** A field's message: its schema's own sentence (not for a missing field), else the plain one. */
const messageOf = (verdict: Verdict): string => (verdict.keyword !== 'required' && verdict.errorMessage) || plainMessage(verdict);

/** A verdict a field of the body can show: a rule of a field, not a union's or the body's own. */
const isFieldBreak = (verdict: Verdict): boolean => verdict.in === 'body' && verdict.field.length > 0 && !COMBINING_KEYWORDS.has(verdict.keyword);

/** The documented 400 for a request the gate refused: `{error: {fieldErrors}}`, or the `error` sentence for the body as a whole. */
export function readableFieldErrors(request: Pick<SimRequest, 'body' | 'form'>, verdicts: readonly Verdict[]): SimResponse {
  for (const verdict of verdicts) {
    const whole = verdict.in === 'body' && Object.hasOwn(WHOLE_BODY, verdict.keyword) ? WHOLE_BODY[verdict.keyword]!(verdict.params) : undefined;
    if (whole) return { status: 400, body: { error: whole } };
  }
  const body = request.body;
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  if (!isObject && !request.form && verdicts.some((verdict) => verdict.in === 'body')) return { status: 400, body: { error: 'The request body must be a JSON object.' } };
  const fields: Record<string, string[]> = {};
  // Each field once: its first, most specific message.
  const add = (field: string, message: string): void => {
    if (!Object.hasOwn(fields, field)) fields[field] = [message];
  };
  const judged = verdicts.filter((verdict) => isFieldBreak(verdict) && verdict.judged);
  // A break the judged branch does not show (the value matched two branches): its fields, plainly.
  for (const verdict of judged.length > 0 ? judged : verdicts.filter(isFieldBreak)) add(verdict.field.join('.'), messageOf(verdict));
  for (const verdict of verdicts) if (verdict.in !== 'body') add(verdict.parameter ?? verdict.field.join('.'), messageOf(verdict));
  if (Object.keys(fields).length === 0) return { status: 400, body: { error: 'The request does not match the contract.' } };
  return { status: 400, body: { error: { fieldErrors: fields } } };
}
