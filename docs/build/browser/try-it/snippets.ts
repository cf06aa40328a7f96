// A request in code: TypeScript with this package's client (numbers-api-contract/client), and curl,
// JavaScript, Python, Go and Java written by the docs' snippet library (http-samples.mjs). One
// writer for every sample of the site: the consoles' code of what their form describes (in the
// page), the reference's samples of each operation's first example (code-samples.mjs, at build
// time) and those samples again for the server a reader picks in the reference (reference-samples.ts).
// The key is never printed: every sample reads $NUMBERS_API_KEY.
import { httpSamples, LIBRARY_LANGUAGES } from '../../http-samples.mjs';
import { tsLiteral } from '../../snippet-syntax.mjs';

export interface SentRequest {
  /** The operation: its method (any case) and path template. */
  op: { method: string; path: string };
  baseUrl: string;
  /** Declared parameters as sent, by location (values typed as the form typed them). */
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  /** `Prefer`, when the reader asked for a documented answer. */
  prefer: string | null;
  withKey: boolean;
  /** The JSON body as sent, or undefined for none (or for a body that is not JSON: see `rawBody`). */
  body: unknown;
  /** The body as typed, when it is not JSON (sent as it is: the mock answers 400). */
  rawBody?: string;
  /** Lines each sample opens with, as comments of its language (which example it is, what to replace). */
  comments?: string[];
}

/** The languages of the site's code, in tab order (the reference's order), with each one's comment mark. */
export const SAMPLE_LANGUAGES: Array<{ key: string; label: string; comment: string }> = [
  { key: 'typescript', label: 'TypeScript', comment: '//' },
  ...LIBRARY_LANGUAGES.map(({ key, label, comment }) => ({ key, label, comment })),
];

export function requestUrl(sent: SentRequest): string {
  let url = sent.op.path;
  for (const [name, value] of Object.entries(sent.path)) url = url.replaceAll(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(sent.query).map(([k, v]) => [k, String(v)])).toString();
  return `${sent.baseUrl}${url}${query ? `?${query}` : ''}`;
}

function typescriptSnippet(sent: SentRequest): string {
  const init: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  for (const where of ['path', 'query', 'header'] as const) if (Object.keys(sent[where]).length) params[where] = sent[where];
  if (Object.keys(params).length) init.params = params;
  if (sent.prefer) init.headers = { Prefer: sent.prefer };
  if (sent.body !== undefined) init.body = sent.body;
  const method = sent.op.method.toUpperCase();
  const call = Object.keys(init).length ? `api.${method}('${sent.op.path}', ${tsLiteral(init, '  ')})` : `api.${method}('${sent.op.path}')`;
  return [
    "import { ApiError, createClient } from 'numbers-api-contract/client';",
    '',
    ...(sent.withKey ? [] : ['// Sign-up needs no API key (part 5.1).']),
    `const api = createClient({ apiKey: ${sent.withKey ? 'process.env.NUMBERS_API_KEY!' : 'null'}, baseUrl: ${tsLiteral(sent.baseUrl)} });`,
    ...('Idempotency-Key' in sent.header ? ['// Retry with the same Idempotency-Key (part 7.2).'] : []),
    'try {',
    `  const { status, data } = await ${call};`,
    '  console.log(status, data);',
    '} catch (error) {',
    '  // A non-2xx answer throws ApiError (part 7).',
    '  if (error instanceof ApiError) console.error(error.status, error.message);',
    '  else throw error;',
    '}',
  ].join('\n');
}

/** The request in every language, by key (`typescript`, `curl`, `javascript`, ...). */
export async function requestSamples(sent: SentRequest): Promise<Record<string, string>> {
  const headers: Array<[string, unknown]> = Object.entries(sent.header);
  if (sent.prefer) headers.push(['Prefer', sent.prefer]);
  const written: Record<string, string> = await httpSamples({ method: sent.op.method, url: requestUrl(sent), headers, body: sent.body, rawBody: sent.rawBody, withKey: sent.withKey });
  written.typescript = sent.rawBody === undefined ? typescriptSnippet(sent) : '// The body is not JSON, so the typed client cannot send it: see another language.';
  const samples: Record<string, string> = {};
  for (const { key, comment } of SAMPLE_LANGUAGES) samples[key] = [...(sent.comments ?? []).map((line) => `${comment} ${line}`), written[key]].join('\n');
  return samples;
}
