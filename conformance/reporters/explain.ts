// Words for a finding, made at the edge from the structured verdict (src/contract/verdict.ts) and
// the request as data: where in the answer, what rule, where the rule lives in the contract, what
// came, a near miss a person would spot at once (`created_at` beside a missing `createdAt`), the
// union branch judged, and a copy-paste `curl`. Nothing here reads meaning back out of a message.
import { COMBINING_KEYWORDS, ruleWords, type Verdict } from '../../src/contract/verdict.js';
import { curlAuthorization } from '../http.js';
import type { SentRequest } from '../findings.js';

/** An instance path with array indices as `*`: `/3/createdAt` and `/0/createdAt` are one place in every record. */
export function placePattern(instancePath: string): string {
  return instancePath.replace(/\/\d+(?=\/|$)/g, '/*');
}

const normalized = (name: string): string => name.toLowerCase().replace(/[_\-\s.]/g, '');

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length]!;
}

/**
 * The names present beside a missing required one that look like it: the same once case and
 * separators are ignored (`created_at`, `CreatedAt`), or one or two letters off for a long name
 * (`createdAtt`). Names the schema itself defines are not near misses.
 */
export function nearMisses(verdict: Verdict, known: readonly string[] = []): string[] {
  if (verdict.keyword !== 'required') return [];
  const missing = String(verdict.params.missingProperty ?? '');
  const present = verdict.actual.properties ?? [];
  return present.filter((name) => {
    if (name === missing || known.includes(name)) return false;
    const a = normalized(name);
    const b = normalized(missing);
    return a === b || (b.length >= 6 && distance(a, b) <= 2);
  });
}

/** The verdicts a person is shown: those of the union branch the value meant, without the unions' own "no branch matched". */
export function shownVerdicts(verdicts: readonly Verdict[]): Verdict[] {
  const judged = verdicts.filter((v) => v.judged);
  const specific = judged.filter((v) => !COMBINING_KEYWORDS.has(v.keyword));
  return specific.length ? specific : judged.length ? judged : [...verdicts];
}

/** Where the verdict stands, the field it names included: `/*\/createdAt`, `(body)`, `header Retry-After`. */
export function verdictAt(verdict: Verdict): string {
  if (verdict.in !== 'body') return `${verdict.in} ${verdict.parameter ?? ''}`.trim();
  const base = placePattern(verdict.instancePath);
  const named = verdict.keyword === 'required' ? verdict.params.missingProperty : verdict.keyword === 'additionalProperties' ? verdict.params.additionalProperty : undefined;
  return named !== undefined ? `${base}/${String(named)}` : base || '(body)';
}

/** What the rule asks, in words: `is missing (required)`, `must be one of SMS, MMS`. */
export function verdictRule(verdict: Verdict): string {
  if (verdict.keyword === 'required') return 'is missing (required)';
  return ruleWords(verdict);
}

/** What came, in words. */
export function verdictActual(verdict: Verdict): string {
  const { actual } = verdict;
  if (actual.type === 'missing') return 'nothing';
  if (actual.value !== undefined) return JSON.stringify(actual.value);
  if (actual.type === 'object') return `an object with ${(actual.properties ?? []).slice(0, 12).join(', ') || 'no fields'}${(actual.properties?.length ?? 0) > 12 ? ', ...' : ''}`;
  if (actual.type === 'array') return `an array of ${actual.length ?? 0}`;
  return actual.type;
}

/** The branch of a union a value was judged against, in words, or undefined. */
export function branchWords(verdict: Verdict): string | undefined {
  const branch = verdict.branch;
  if (!branch) return undefined;
  return `judged as branch ${branch.index + 1}${branch.title ? ` (${branch.title})` : ''} of ${branch.pointer}`;
}

/** One line for a verdict: where, the rule, what came, and a near miss when there is one. */
export function verdictLine(verdict: Verdict, known: readonly string[] = []): string {
  const near = nearMisses(verdict, known);
  const came = verdict.keyword === 'required' ? '' : ` (got ${verdictActual(verdict)})`;
  return `${verdictAt(verdict)} ${verdictRule(verdict)}${came}${near.length ? `: ${near.map((n) => `\`${n}\``).join(', ')} is present instead; renamed?` : ''}`;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A `curl` that sends the request again, the key as `$NUMBERS_API_KEY` (or the second key's
 * variable), never its value; the body as JSON, said so by `Content-Type` (without it curl sends
 * a form, and the service answers 400 where the step had its answer).
 */
export function curlOf(baseUrl: string, sent: SentRequest): string {
  const parts = ['curl -sS -i'];
  if (sent.method !== 'GET') parts.push(`-X ${sent.method}`);
  parts.push(quote(`${baseUrl}${sent.target}`));
  const authorization = curlAuthorization(sent.auth);
  if (authorization) parts.push(`-H "Authorization: ${authorization}"`);
  const headers = Object.entries(sent.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'content-type');
  if (sent.body !== undefined) headers.push(['Content-Type', 'application/json']);
  for (const [name, value] of headers) parts.push(`-H ${quote(`${name}: ${value}`)}`);
  if (sent.body !== undefined) parts.push(`--data-raw ${quote(JSON.stringify(sent.body))}`);
  return parts.join(' ');
}

/**
 * What the key variable of a request sent on an account the suite signed up on the mock stands
 * for, and how to get such a key: the one explanation, shown wherever such a request is (the
 * console, the HTML report, JUnit).
 */
export function scratchKeyNote(): string {
  const variable = /\$\w+/.exec(curlAuthorization('scratch') ?? '')?.[0] ?? 'its key';
  return (
    `${variable} is the key of an account the suite signed up on the package's mock for this check; the suite never keeps it. ` +
    'Its rerun line runs the check again on an account it signs up the same way. To send the curl yourself, sign up an account on the same mock ' +
    'as "A new account, step by step" in docs/guides/getting-a-key.md shows ' +
    "(an example.com address, a fictional 555-01xx holder number, and the mock's sign-up code: its `signupCode` test value), " +
    `then export ${variable}=<the apiKey that verify-number answered>.`
  );
}

/** The note a request needs besides its curl: what its key variable stands for, when the key is not the run's. */
export function authNote(sent: SentRequest | undefined): string | undefined {
  return sent?.auth === 'scratch' ? scratchKeyNote() : undefined;
}
