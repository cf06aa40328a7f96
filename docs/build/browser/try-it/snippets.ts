// The copy-paste forms of exactly what a console sent: curl, and TypeScript with this package's
// client (numbers-api-contract/client). The key is never printed: both read $NUMBERS_API_KEY.
import { shellQuote, tsLiteral } from '../../snippet-syntax.mjs';
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
  /** The JSON body as sent, or undefined for none. */
  body: unknown;
}

export function requestUrl(sent: SentRequest): string {
  let url = sent.op.path;
  for (const [name, value] of Object.entries(sent.path)) url = url.replaceAll(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(sent.query).map(([k, v]) => [k, String(v)])).toString();
  return `${sent.baseUrl}${url}${query ? `?${query}` : ''}`;
}

export function curlSnippet(sent: SentRequest): string {
  const lines = [`curl -X ${sent.op.method} ${shellQuote(requestUrl(sent))}`];
  if (sent.withKey) lines.push('-H "Authorization: Bearer $NUMBERS_API_KEY"');
  for (const [name, value] of Object.entries(sent.header)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (sent.prefer) lines.push(`-H ${shellQuote(`Prefer: ${sent.prefer}`)}`);
  if (sent.body !== undefined) {
    lines.push(`-H ${shellQuote('Content-Type: application/json')}`);
    lines.push(`-d ${shellQuote(JSON.stringify(sent.body))}`);
  }
  return lines.join(' \\\n  ');
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
