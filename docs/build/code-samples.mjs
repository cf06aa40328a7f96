// Code samples for the reference, generated for every operation from its method, path,
// parameters and first named request example (never written per operation by hand), and
// injected as `x-codeSamples` into a COPY of the bundle that only the docs build reads.
//
// The samples address the server the reference shows first: the local mock (`npm start`), so that
// each runs as copied against it; the deployment's servers follow it in Redoc's server menu, and
// picking one there rewrites the samples in the page for it (browser/try-it/reference-samples.ts).
// One writer makes every sample (browser/try-it/snippets.ts): TypeScript with this package's
// client, and curl, JavaScript (fetch), Python, Go and Java by the snippet library
// (http-samples.mjs), each on the scheme of the URL it names. Redoc holds one sample per language
// per operation, so these show the operation's first example, named in each sample's first line,
// with what a reader replaces (an id an earlier answer gives) said under it.
import { requestSamples, SAMPLE_LANGUAGES } from './browser/try-it/snippets.ts';

export const CLIENT_MODULE = 'numbers-api-contract/client';

/**
 * The sample languages, in tab order. Redoc 3 shows only the `x-codeSamples` whose label is in its
 * `codeSamples.languages` option (by default its own list, which has no TypeScript), so the
 * reference build passes this list as that option.
 */
export const CODE_SAMPLE_LANGUAGES = SAMPLE_LANGUAGES.map(({ label }) => ({ lang: label, label }));

/** An id in the style of the contract's examples and the mock's answers: `pn_8f3kq2m9x7` (the consoles' ID, session.ts). */
export const ID = /^([a-z]{2,6})_([A-Za-z0-9]{6,})$/;

/** A server's URL with its variables at their defaults. */
export function serverUrl(server) {
  let url = server.url;
  for (const [name, variable] of Object.entries(server.variables ?? {})) url = url.replaceAll(`{${name}}`, variable.default);
  return url.replace(/\/+$/, '');
}

/** Whether a URL is the local mock's: the contract's server on loopback (what `npm start` listens on). */
export const onLoopback = (url) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url);

/** The servers in the order the reference shows them: the local mock first, then the description's. */
export function docsServers(doc) {
  const servers = doc.servers ?? [];
  return [...servers.filter((s) => onLoopback(serverUrl(s))), ...servers.filter((s) => !onLoopback(serverUrl(s)))];
}

/** True when the operation needs no API key (`security: []`, the sign-up operations). */
export function isPublic(operation, doc) {
  const security = operation.security ?? doc.security ?? [];
  return security.length === 0 || security.some((s) => Object.keys(s).length === 0);
}

/** A parameter's example value (dereferenced parameter), or undefined. */
export function parameterExample(param) {
  if ('example' in param) return param.example;
  const [first] = Object.values(param.examples ?? {});
  if (first && 'value' in first) return first.value;
  if (Array.isArray(param.schema?.examples)) return param.schema.examples[0];
  return undefined;
}

/** The first request example of an operation (dereferenced): `{ name, summary, value }`, JSON first. */
function firstRequestExample(operation) {
  const content = operation.requestBody?.content;
  if (!content) return null;
  // JSON first: a sample shows the JSON form even where multipart is also accepted (10DLC).
  const media = content['application/json'] ?? Object.values(content)[0];
  const [name, example] = Object.entries(media.examples ?? {})[0] ?? [];
  if (example && 'value' in example) return { name, summary: example.summary, value: example.value };
  if ('example' in media) return { name: null, summary: null, value: media.example };
  return null;
}

/** Every string of a JSON value with the key that holds it: `[key, value]`. */
function* stringsOf(value, key = '') {
  if (typeof value === 'string') yield [key, value];
  else if (Array.isArray(value)) for (const item of value) yield* stringsOf(item, key);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* stringsOf(v, k);
}

/**
 * The other operation whose documented answers hold `wanted(key, value)`, one that creates (201)
 * before one that reads: `{ operationId, key }`, or null.
 */
function answering(doc, self, wanted) {
  let read = null;
  for (const pathItem of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(pathItem)) {
      if (operation?.operationId === self) continue;
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        for (const example of Object.values(response.content?.['application/json']?.examples ?? {})) {
          for (const [key, value] of stringsOf(example.value)) {
            if (!wanted(key, value)) continue;
            if (status === '201') return { operationId: operation.operationId, key };
            read ??= { operationId: operation.operationId, key };
          }
        }
      }
    }
  }
  return read;
}

/** Whether a key names an id: an object's own (`id`) or another's (`verificationId`, `invoiceId`). */
const ID_KEY = /^id$|Id$/;

/**
 * What a reader replaces before a sample runs: each id of the request that a new key's account on
 * the mock does not hold (`demoIds`), with the answer that gives it (an operation whose documented
 * answer holds that very value, else one that answers ids of its kind as their own `id`).
 */
function replacements(op, request, doc, demoIds) {
  const lines = [];
  for (const [key, value] of stringsOf([request.path, request.query, request.body])) {
    const match = ID.exec(value);
    if (!match || !ID_KEY.test(key) || demoIds.has(value) || lines.some((line) => line.includes(value))) continue;
    const exact = answering(doc, op.operationId, (_, v) => v === value);
    const kind = exact ?? answering(doc, op.operationId, (k, v) => k === 'id' && v.startsWith(`${match[1]}_`));
    if (exact) lines.push(`Replace ${value} with the ${exact.key} of your ${exact.operationId} answer.`);
    else if (kind) lines.push(`Replace ${value} with an id of yours (${kind.operationId} answers them).`);
  }
  return lines;
}

/** The mock's sign-up code (its `signupCode` test value), where the request carries a code of the example's. */
function signupCodeNote(op, request, doc) {
  const code = (doc['x-test-values'] ?? []).find((entry) => entry.name === 'signupCode' && entry.operations.includes(op.operationId));
  const field = code?.field.replace(/^body\./, '');
  if (!code || request.body?.[field] === undefined || request.body[field] === code.value) return [];
  return [`On the mock the ${field} is ${code.value} (its signupCode test value).`];
}

/**
 * The request a sample of `op` (a docs listing entry of the dereferenced `doc`) sends, without its
 * server: the first example's body, every parameter that has an example, the key or none, and the
 * lines each sample opens with. `demoIds`: the ids of the mock's demo account.
 */
export function sampleRequest(op, doc, demoIds) {
  const request = { path: {}, query: {}, header: {}, body: undefined, withKey: !isPublic(op.operation, doc), comments: [] };
  for (const param of [...(op.pathItem.parameters ?? []), ...(op.operation.parameters ?? [])]) {
    if (!['path', 'query', 'header'].includes(param.in)) continue;
    const value = parameterExample(param);
    if (value === undefined) {
      if (param.required) throw new Error(`${op.operationId}: required ${param.in} parameter ${param.name} has no example for the code sample.`);
      continue;
    }
    request[param.in][param.name] = value;
  }
  const example = firstRequestExample(op.operation);
  if (example) request.body = example.value;
  // Redoc's example picker above a sample does not change it: the sample says which it is.
  if (example?.name) request.comments.push(`${example.summary ? `${example.summary} ` : ''}(example "${example.name}"; the Try it console writes the others)`);
  request.comments.push(...replacements(op, request, doc, new Set(demoIds)), ...signupCodeNote(op, request, doc));
  return request;
}

/** Every language's sample of a catalog operation (try-it-catalog.mjs) sent to `baseUrl`, by label. */
export async function referenceSamples(op, baseUrl) {
  const written = await requestSamples({ ...op.sample, op, baseUrl, prefer: null });
  return Object.fromEntries(SAMPLE_LANGUAGES.map(({ key, label }) => [label, written[key]]));
}

/**
 * A copy of the bundled description with its servers in the reference's order (docsServers) and
 * `x-codeSamples` on every operation of `paths` for the first of them (webhooks are called by the
 * service, not by a client, so they get none). The requests come from the try-it catalog, built
 * from the dereferenced description, which has the same paths and methods.
 */
export async function withCodeSamples(bundle, catalog) {
  const copy = structuredClone(bundle);
  copy.servers = docsServers(copy);
  for (const op of catalog.operations) {
    const samples = await referenceSamples(op, catalog.servers[0]);
    copy.paths[op.path][op.method.toLowerCase()]['x-codeSamples'] = CODE_SAMPLE_LANGUAGES.map(({ lang, label }) => ({ lang, label, source: samples[label] }));
  }
  return { document: copy, count: catalog.operations.length };
}
