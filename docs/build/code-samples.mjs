// Code samples for the reference, generated for every operation from its method, path,
// parameters and first named request example (never written per operation by hand), and
// injected as `x-codeSamples` into a COPY of the bundle that only the docs build reads.
//
// TypeScript uses this package's client (`numbers-api-contract/client`, openapi-fetch style:
// `api.POST('/api/v1/messages', { body })`); curl, JavaScript (fetch), Python, Go and Java are
// written by a snippet library (http-samples.mjs) from the same request. Redoc holds one sample
// per language per operation, so these show the operation's first example, named in each
// sample's first line; the Try it console shows every language for the example selected there.
import { listOperations } from './contract.mjs';
import { httpSamples, KEY_ENV, LIBRARY_LANGUAGES } from './http-samples.mjs';
import { tsLiteral } from './snippet-syntax.mjs';

export { tsLiteral };

export const CLIENT_MODULE = 'numbers-api-contract/client';
// The client needs an address (the service's is not shown, part 5.8): the deployment's, or the mock.
const BASE_URL = "process.env.NUMBERS_API_BASE_URL ?? 'mock'";

/**
 * The sample languages, in tab order. Redoc 3 shows only the `x-codeSamples` whose label is in its
 * `codeSamples.languages` option (by default its own list, which has no TypeScript), so the
 * reference build passes this list as that option.
 */
export const CODE_SAMPLE_LANGUAGES = [
  { lang: 'TypeScript', label: 'TypeScript' },
  ...LIBRARY_LANGUAGES.map(({ label }) => ({ lang: label, label })),
];

/** The first request example of an operation (dereferenced): `{ name, summary, value, mediaType }`. */
export function firstRequestExample(operation) {
  const content = operation.requestBody?.content;
  if (!content) return null;
  // JSON first: a sample shows the JSON form even where multipart is also accepted (10DLC).
  const mediaType = content['application/json'] ? 'application/json' : Object.keys(content)[0];
  const media = content[mediaType];
  const [name, example] = Object.entries(media.examples ?? {})[0] ?? [];
  if (example && 'value' in example) return { name, summary: example.summary, value: example.value, mediaType };
  if ('example' in media) return { name: null, summary: null, value: media.example, mediaType };
  return null;
}

/** A parameter's example value (dereferenced parameter), or undefined. */
function parameterExample(param) {
  if ('example' in param) return param.example;
  const [first] = Object.values(param.examples ?? {});
  if (first && 'value' in first) return first.value;
  if (Array.isArray(param.schema?.examples)) return param.schema.examples[0];
  return undefined;
}

/** The parameters of an operation, grouped by location, with example values. */
function parametersOf(op) {
  const all = [...(op.pathItem.parameters ?? []), ...(op.operation.parameters ?? [])];
  const groups = { path: {}, query: {}, header: {} };
  for (const p of all) {
    if (!(p.in in groups)) continue;
    const value = parameterExample(p);
    if (value === undefined) {
      if (p.required) throw new Error(`${op.operationId}: required ${p.in} parameter ${p.name} has no example for the code sample.`);
      continue;
    }
    groups[p.in][p.name] = value;
  }
  return groups;
}

/** True when the operation needs no API key (`security: []`, the sign-up operations). */
function isPublic(op, doc) {
  const security = op.operation.security ?? doc.security ?? [];
  return security.length === 0 || security.some((s) => Object.keys(s).length === 0);
}

/** The TypeScript sample of one operation. */
export function typescriptSample(op, doc) {
  const example = firstRequestExample(op.operation);
  const params = parametersOf(op);
  const init = {};
  const paramsInit = {};
  for (const where of ['path', 'query', 'header']) {
    if (Object.keys(params[where]).length) paramsInit[where] = params[where];
  }
  if (Object.keys(paramsInit).length) init.params = paramsInit;
  if (example) init.body = example.value;

  const lines = [`import { ApiError, createClient } from '${CLIENT_MODULE}';`, ''];
  if (isPublic(op, doc)) {
    lines.push('// Sign-up needs no API key (part 5.1).', `const api = createClient({ apiKey: null, baseUrl: ${BASE_URL} });`);
  } else {
    lines.push(`const api = createClient({ apiKey: process.env.${KEY_ENV}!, baseUrl: ${BASE_URL} });`);
  }
  lines.push('');
  if (example?.summary) lines.push(`// ${example.summary} (example "${example.name}")`);
  if (params.header['Idempotency-Key'] !== undefined) {
    lines.push('// Retry with the same Idempotency-Key (part 7.2).');
  }
  const method = op.method.toUpperCase();
  const call = Object.keys(init).length
    ? `api.${method}('${op.path}', ${tsLiteral(init, '  ')})`
    : `api.${method}('${op.path}')`;
  lines.push(
    'try {',
    `  const { data } = await ${call};`,
    '  console.log(data);',
    '} catch (error) {',
    '  // A non-2xx answer throws ApiError (part 7).',
    '  if (error instanceof ApiError) console.error(error.status, error.message);',
    '  else throw error;',
    '}',
  );
  return lines.join('\n');
}

/** The base URL of a description's first server, its variables at their defaults. */
export function firstServerUrl(doc) {
  const server = doc.servers?.[0];
  let base = server?.url ?? '';
  for (const [name, variable] of Object.entries(server?.variables ?? {})) base = base.replaceAll(`{${name}}`, variable.default);
  return base;
}

/** The HTTP request of an operation's first example (http-samples.mjs's shape), sent to `baseUrl`. */
export function exampleRequest(op, doc, baseUrl = firstServerUrl(doc)) {
  const params = parametersOf(op);
  let url = op.path;
  for (const [name, value] of Object.entries(params.path)) url = url.replaceAll(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(params.query).map(([k, v]) => [k, String(v)])).toString();
  return {
    method: op.method,
    url: `${baseUrl}${url}${query ? `?${query}` : ''}`,
    headers: Object.entries(params.header),
    body: firstRequestExample(op.operation)?.value,
    withKey: !isPublic(op, doc),
  };
}

/**
 * Every language's sample of an operation's first example, by language label (TypeScript, curl,
 * JavaScript, Python, Go, Java), sent to `baseUrl` (the description's first server by default).
 */
export async function operationSamples(op, doc, { baseUrl } = {}) {
  const example = firstRequestExample(op.operation);
  const written = await httpSamples(exampleRequest(op, doc, baseUrl));
  /** @type {Record<string, string>} */
  const samples = { TypeScript: typescriptSample(op, doc) };
  for (const { key, label, comment } of LIBRARY_LANGUAGES) {
    // Redoc's example picker above a sample does not change it: the sample says which it is.
    const named = example?.name ? `${comment} ${example.summary ? `${example.summary} ` : ''}(example "${example.name}"; the Try it console writes the others)\n` : '';
    samples[label] = `${named}${written[key]}`;
  }
  return samples;
}

/**
 * A copy of the bundled description with `x-codeSamples` on every operation of `paths`
 * (webhooks are called by the service, not by a client, so they get none). Values are read from
 * the dereferenced description, which has the same paths and methods.
 */
export async function withCodeSamples(bundle, dereferenced) {
  const copy = structuredClone(bundle);
  let count = 0;
  for (const op of listOperations(dereferenced)) {
    if (!op.path) continue;
    const samples = await operationSamples(op, dereferenced);
    copy.paths[op.path][op.method]['x-codeSamples'] = CODE_SAMPLE_LANGUAGES.map(({ lang, label }) => ({ lang, label, source: samples[label] }));
    count += 1;
  }
  return { document: copy, count };
}
