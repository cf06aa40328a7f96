// One HTTP request in the languages people use, written by httpsnippet-lite (the snippet library
// Stoplight Elements draws its samples with): curl, JavaScript (fetch), Python (http.client),
// Go (net/http) and Java (java.net.http), each on its language's standard library, so a sample
// runs with nothing installed. Shared by the reference's code samples (code-samples.mjs, at build
// time) and the try-it consoles (in the page), so both show a request alike. TypeScript with this
// package's client is not a library target: snippet-syntax.mjs and its callers write that one.
//
// The key is never printed: the library writes the request with a placeholder key, and each
// sample then reads NUMBERS_API_KEY from the environment as its language does (KEY_FROM_ENV).
import { HTTPSnippet } from 'httpsnippet-lite';

/** The languages the library writes, in tab order after TypeScript: the library's target and client. */
export const LIBRARY_LANGUAGES = [
  { key: 'curl', label: 'curl', target: 'shell', client: 'curl', comment: '#' },
  { key: 'javascript', label: 'JavaScript', target: 'javascript', client: 'fetch', comment: '//' },
  { key: 'python', label: 'Python', target: 'python', client: 'python3', comment: '#' },
  { key: 'go', label: 'Go', target: 'go', client: 'native', comment: '//' },
  { key: 'java', label: 'Java', target: 'java', client: 'nethttp', comment: '//' },
];

export const KEY_ENV = 'NUMBERS_API_KEY';
const KEY_PLACEHOLDER = '__NUMBERS_API_KEY__';

/**
 * Where each language's sample reads the key: the string literal the library wrote around the
 * placeholder, what replaces it, and an import the replacement needs.
 */
const KEY_FROM_ENV = {
  curl: { literal: `'Authorization: Bearer ${KEY_PLACEHOLDER}'`, code: `"Authorization: Bearer $${KEY_ENV}"` },
  javascript: { literal: `'Bearer ${KEY_PLACEHOLDER}'`, code: `\`Bearer \${process.env.${KEY_ENV}}\`` },
  python: { literal: `"Bearer ${KEY_PLACEHOLDER}"`, code: `f"Bearer {os.environ['${KEY_ENV}']}"`, imports: ['import http.client\n', 'import http.client\nimport os\n'] },
  go: { literal: `"Bearer ${KEY_PLACEHOLDER}"`, code: `"Bearer "+os.Getenv("${KEY_ENV}")`, imports: ['import (\n', 'import (\n\t"os"\n'] },
  java: { literal: `"Bearer ${KEY_PLACEHOLDER}"`, code: `"Bearer " + System.getenv("${KEY_ENV}")` },
};

function readKeyFromEnv(key, code) {
  const placement = KEY_FROM_ENV[key];
  if (!code.includes(placement.literal)) throw new Error(`http-samples: the ${key} sample no longer writes the key as ${placement.literal}; review KEY_FROM_ENV`);
  let out = code.replace(placement.literal, placement.code);
  if (placement.imports) {
    const [anchor, withImport] = placement.imports;
    if (!out.includes(anchor)) throw new Error(`http-samples: the ${key} sample has no "${anchor.trim()}" to add its import to; review KEY_FROM_ENV`);
    out = out.replace(anchor, withImport);
  }
  return out;
}

/**
 * The samples of one request: `{ curl, javascript, python, go, java }`.
 *
 * `request`: `{ method, url (with its query), headers: [[name, value]], body (JSON value, or
 * undefined for none), withKey }`; with `withKey` each sample sends `Authorization: Bearer` and
 * the key from NUMBERS_API_KEY. `rawBody`, when given, is sent as typed instead of `body`.
 *
 * @param {{ method: string, url: string, headers?: Array<[string, unknown]>, body?: unknown, rawBody?: string, withKey: boolean }} request
 * @returns {Promise<Record<string, string>>}
 */
export async function httpSamples({ method, url, headers = [], body, rawBody, withKey }) {
  const har = {
    method: method.toUpperCase(),
    url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    queryString: [],
    headersSize: -1,
    bodySize: -1,
    headers: [
      ...(withKey ? [{ name: 'Authorization', value: `Bearer ${KEY_PLACEHOLDER}` }] : []),
      ...headers.map(([name, value]) => ({ name, value: String(value) })),
    ],
  };
  const text = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  if (text !== undefined) {
    har.headers.push({ name: 'Content-Type', value: 'application/json' });
    har.postData = { mimeType: 'application/json', text };
  }
  const snippet = new HTTPSnippet(har);
  const samples = {};
  for (const { key, target, client } of LIBRARY_LANGUAGES) {
    const code = await snippet.convert(target, client);
    if (typeof code !== 'string') throw new Error(`http-samples: no ${target}/${client} sample`);
    samples[key] = withKey ? readKeyFromEnv(key, code) : code;
  }
  return samples;
}
