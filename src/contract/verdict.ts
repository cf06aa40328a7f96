// A verdict: one way a request or an answer breaks the contract, as data (issue 28). The contract
// validator (contract-validator.ts) makes one from each ajv error, keeping what ajv knows (the
// keyword and its params, the instance path, the schema it sits in) and adding what the contract
// knows (the component's name, the union branch judged, the part cited, documented or inferred,
// the schema's own `x-error-message`). Every report is a rendering of it, made at the edge: the
// readable 400 (src/simulator/field-errors.ts), Prism's wording for `sl-violations` and the gate's
// parity with Prism (prism-wording.ts), the conformance suite's findings and the proxy's log
// (`describeVerdict` below). No code reads a verdict back out of its words. Browser-safe.

/** Where in the exchange: a part of the request or of the answer. */
export type VerdictPlace = 'body' | 'query' | 'header' | 'path' | 'status';

/**
 * `documented`: the rule broken is the interface specification's; `inferred`: it sits under an
 * `x-inferred` marker (spec/EXTENSIONS.md), or, for an answer, breaks only what the contract had
 * to assume (the conformance suite reports it as advisory).
 */
export type Severity = 'documented' | 'inferred';

/** The JSON type of a value, or `missing` when there was none. */
export type ActualType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array' | 'missing';

/** What came where the rule looked: enough to say what was wrong, never a whole body. */
export interface Actual {
  type: ActualType;
  /** The value itself, when it is a string, a number, a boolean or null (strings past 200 characters cut). */
  value?: string | number | boolean | null;
  /** An object's property names (what a `required` break found instead: `created_at` beside a missing `createdAt`). */
  properties?: string[];
  /** An array's length. */
  length?: number;
}

/** The branch of a `oneOf`/`anyOf` a value was judged against, or that a break belongs to. */
export interface UnionBranch {
  keyword: 'oneOf' | 'anyOf';
  /** JSON pointer of the union in the contract (`#/components/schemas/SendMessageRequest/oneOf`). */
  pointer: string;
  index: number;
  /** The branch's `title` (its component's), when it has one. */
  title?: string;
}

export interface Verdict {
  /** The request or its answer. */
  of: 'request' | 'response';
  in: VerdictPlace;
  /** The parameter or header, as the contract spells it (`in` query, header or path). */
  parameter?: string;
  /**
   * The rule broken: a JSON Schema keyword (`required`, `type`, `pattern`, `minimum`, `oneOf` ...)
   * or one of the exchange's own rules: `bodyRequired`, `bodyNotJson`, `bodyTooLarge`,
   * `bodyNotMultipart`, `fileType` (a form's file part), `status` (an answer's status the
   * operation does not document).
   */
  keyword: string;
  /** The keyword's params as ajv gives them (`{limit: 60, comparison: '>='}`, `{missingProperty: 'to'}`), or the own rule's. */
  params: Record<string, unknown>;
  /** JSON pointer inside the value judged (the body, or the parameter's value): ajv's `instancePath`. */
  instancePath: string;
  /**
   * The field a person would name: the instance path's segments, plus the property `required`
   * misses or `additionalProperties` finds; a parameter's name first. Empty: the body as a whole.
   */
  field: string[];
  /** Where the rule lives in the contract: the schema object holding the keyword, and its component. */
  schema?: {
    /** JSON pointer into the bundled description (`#/components/schemas/E164`); the keyword is at `<pointer>/<keyword>`. */
    pointer: string;
    /** The component schema it belongs to (`E164`), when it is in one. */
    component?: string;
  };
  /** The outermost union on the way, and the branch the break belongs to (a union's own break: the branch judged). */
  branch?: UnionBranch;
  /**
   * False for a break of a union branch the value was not judged against (the value meant another
   * branch); true everywhere else. A person is shown the judged ones; Prism lists them all.
   */
  judged: boolean;
  /** The part(s) of the interface specification the operation cites (`x-source`, `4.5, 7`). */
  part?: string;
  severity: Severity;
  /** What the contract asks: the keyword's value in the schema (the pattern, the enum, the limit, the types). */
  expected?: unknown;
  actual: Actual;
  /** The schema's own `x-error-message` for this break (part 7's sentence where it gives one). */
  errorMessage?: string;
  /** ajv's wording of the rule (`must be >= 60`), kept for the renderings that quote it (Prism's); never read back. */
  ajvMessage?: string;
}

/** The JSON type of `value`. */
export function jsonType(value: unknown): ActualType {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'object') return typeof value as ActualType;
  return 'string';
}

const MAX_SHOWN = 200;

/** What came, as a verdict carries it. */
export function actualOf(value: unknown): Actual {
  const type = jsonType(value);
  if (type === 'object') return { type, properties: Object.keys(value as object) };
  if (type === 'array') return { type, length: (value as unknown[]).length };
  if (type === 'missing') return { type };
  if (typeof value === 'string' && value.length > MAX_SHOWN) return { type, value: `${value.slice(0, MAX_SHOWN)}…` };
  return { type, value: value as string | number | boolean | null };
}

/** A verdict of one of the exchange's own rules (a body that cannot be read, a form's file part ...). */
export function ruleVerdict(init: Pick<Verdict, 'in' | 'keyword'> & Partial<Verdict>): Verdict {
  return { of: 'request', params: {}, instancePath: '', field: [], judged: true, severity: 'documented', actual: { type: 'missing' }, ...init };
}

/** A union's own keyword: its break says only that no branch (or more than one) held. */
export const isUnionKeyword = (keyword: string): boolean => keyword === 'oneOf' || keyword === 'anyOf';

/** Keywords that only combine others: their own break adds nothing a person can act on. */
export const COMBINING_KEYWORDS: ReadonlySet<string> = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'then', 'else']);

/** Where a verdict stands, as a person reads it: `/to` (a body's instance path), `(body)`, `query days`, `header Retry-After`, `status`. */
export function verdictPlace(verdict: Verdict): string {
  if (verdict.in === 'status') return 'status';
  if (verdict.in === 'body') return verdict.instancePath || '(body)';
  return `${verdict.in} ${verdict.parameter ?? ''}${verdict.instancePath}`.trimEnd();
}

/** The words of the exchange's own rules, by keyword. */
const OWN_RULE_WORDS: Record<string, (params: Verdict['params']) => string> = {
  bodyRequired: () => 'a JSON body is required',
  bodyNotJson: (p) => `is not valid JSON${p.reason ? ` (${String(p.reason)})` : ''}`,
  bodyTooLarge: (p) => `is larger than the ${Number(p.limit)} bytes the service reads`,
  bodyNotMultipart: (p) => `is not valid multipart/form-data${p.reason ? ` (${String(p.reason)})` : ''}`,
  status: (p) => `${String(p.status)} is not a status the operation documents${Array.isArray(p.documented) ? ` (documented: ${p.documented.join(', ')})` : ''}`,
  fileType: (p) => `must be a file of ${(p.types as string[] | undefined)?.join(', ') ?? 'a documented type'} of at most ${Number(p.maxBytes)} bytes`,
};

/** The words of a rule: ajv's for a schema keyword, the exchange's own for its rules. */
export function ruleWords(verdict: Verdict): string {
  const { keyword, params } = verdict;
  if (Object.hasOwn(OWN_RULE_WORDS, keyword)) return OWN_RULE_WORDS[keyword]!(params);
  return `${verdict.ajvMessage ?? keyword}${Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(', ')}` : ''}`;
}

/**
 * One line per verdict, for logs, findings and the strict answer check: where, what rule, where
 * the rule lives, and what came. `body /maxCallDurationSeconds must be >= 60 (got 59;
 * #/components/schemas/CallDurationSetting/minimum)`.
 */
export function describeVerdict(verdict: Verdict): string {
  const came = verdict.actual.type === 'missing' || verdict.actual.value === undefined ? '' : `got ${JSON.stringify(verdict.actual.value)}`;
  const where = verdict.schema ? `${verdict.schema.pointer}/${verdict.keyword}` : '';
  const notes = [came, where, verdict.severity === 'inferred' ? 'x-inferred' : ''].filter(Boolean).join('; ');
  return `${verdictPlace(verdict)} ${ruleWords(verdict)}${notes ? ` (${notes})` : ''}`;
}
