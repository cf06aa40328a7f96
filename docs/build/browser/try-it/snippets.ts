// The request a console's form describes, in code: TypeScript with this package's client
// (numbers-api-contract/client), and curl, JavaScript, Python, Go and Java written by the docs'
// snippet library (http-samples.mjs, the one the reference's samples come from). The key is never
// printed: every sample reads $NUMBERS_API_KEY.
import { httpSamples, LIBRARY_LANGUAGES } from '../../http-samples.mjs';
import { tsLiteral } from '../../snippet-syntax.mjs';
import type { CatalogOperation } from './catalog.js';

export interface SentRequest {
  op: CatalogOperation;
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
}

/** The languages of a console's code, in tab order (the reference's order). */
export const SAMPLE_LANGUAGES: Array<{ key: string; label: string }> = [{ key: 'typescript', label: 'TypeScript' }, ...LIBRARY_LANGUAGES.map(({ key, label }) => ({ key, label }))];

export function requestUrl(sent: SentRequest): string {
  let url = sent.op.path;
  for (const [name, value] of Object.entries(sent.path)) url = url.replaceAll(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(sent.query).map(([k, v]) => [k, String(v)])).toString();
  return `${sent.baseUrl}${url}${query ? `?${query}` : ''}`;
}

export function typescriptSnippet(sent: SentRequest): string {
  const init: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  for (const where of ['path', 'query', 'header'] as const) if (Object.keys(sent[where]).length) params[where] = sent[where];
  if (Object.keys(params).length) init.params = params;
  if (sent.prefer) init.headers = { Prefer: sent.prefer };
  if (sent.body !== undefined) init.body = sent.body;
  const call = Object.keys(init).length ? `api.${sent.op.method}('${sent.op.path}', ${tsLiteral(init, '  ')})` : `api.${sent.op.method}('${sent.op.path}')`;
  return [
    "import { ApiError, createClient } from 'numbers-api-contract/client';",
    '',
    `const api = createClient({ apiKey: ${sent.withKey ? 'process.env.NUMBERS_API_KEY!' : 'null'}, baseUrl: ${tsLiteral(sent.baseUrl)} });`,
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
  const written = await httpSamples({ method: sent.op.method, url: requestUrl(sent), headers, body: sent.body, rawBody: sent.rawBody, withKey: sent.withKey });
  return {
    typescript: sent.rawBody === undefined ? typescriptSnippet(sent) : '// The body is not JSON, so the typed client cannot send it: see another language.',
    ...written,
  };
}
