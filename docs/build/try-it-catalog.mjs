// What the try-it consoles know about each operation, read from the dereferenced bundle at build
// time (never written per operation): method, path, whether it needs a key, its parameters with
// their example values, its named request examples (the JSON media type's, the names `Prefer:
// example=` selects), the documented answers a request can name with `Prefer`, and the test values
// of the mock that apply to it. The consoles never read the request schema's shape, so a reshaped
// schema (a new union, an open enum) changes nothing here as long as the examples stay.
import { simContract } from '../../src/simulator/contract.ts';
import { demoAccountSeed } from '../../src/simulator/seed.ts';
import { listOperations, referenceRoute } from './contract.mjs';

/** A parameter's example value, or undefined. */
function parameterExample(param) {
  if ('example' in param) return param.example;
  const [first] = Object.values(param.examples ?? {});
  if (first && 'value' in first) return first.value;
  if (Array.isArray(param.schema?.examples)) return param.schema.examples[0];
  if (param.schema && 'default' in param.schema) return param.schema.default;
  return undefined;
}

/** True when the operation needs no API key (`security: []`, the sign-up operations). */
function isPublic(operation, doc) {
  const security = operation.security ?? doc.security ?? [];
  return security.length === 0 || security.some((s) => Object.keys(s).length === 0);
}

/** The named request examples of the JSON media type, in document order. */
function requestExamples(operation) {
  const content = operation.requestBody?.content;
  if (!content) return null;
  const media = content['application/json'];
  if (!media) return null;
  const examples = Object.entries(media.examples ?? {})
    .filter(([, example]) => example && 'value' in example)
    .map(([name, example]) => ({ name, summary: example.summary ?? '', value: example.value }));
  if (!examples.length && 'example' in media) examples.push({ name: 'example', summary: '', value: media.example });
  return { mediaType: 'application/json', required: operation.requestBody.required === true, examples };
}

/** Every documented answer a request can name: `Prefer: code=<status>, example=<name>`. */
function documentedAnswers(operation) {
  const answers = [];
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^\d{3}$/.test(status)) continue;
    for (const name of Object.keys(response.content?.['application/json']?.examples ?? {})) {
      answers.push({ status: Number(status), name, summary: response.content['application/json'].examples[name].summary ?? '' });
    }
  }
  return answers;
}

/** The test values of the mock (`x-test-values`) that apply to an operation. */
function testValuesOf(doc, operationId) {
  return (doc['x-test-values'] ?? [])
    .filter((entry) => entry.operations.includes(operationId))
    .map(({ name, field, value, status, example, description }) => ({ name, field, value, status: status ?? null, example: example ?? null, description: description ?? '' }));
}

/** An id in the style of the contract's examples (the consoles' ID, session.ts). */
const ID = /^([a-z]{2,6})_([A-Za-z0-9]{6,})$/;

/**
 * The ids of the account a fresh key opens on the mock (the demo seed, built from the contract's
 * own examples): an example naming one of these finds it there, before the reader made anything.
 */
function demoIds(dereferenced) {
  const ids = new Set();
  const walk = (value) => {
    if (typeof value === 'string') {
      if (ID.test(value)) ids.add(value);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(demoAccountSeed(simContract(dereferenced)));
  return [...ids].sort();
}

/** The catalog of every operation of `paths` (webhooks are called by the service, not by a client). */
export function tryItCatalog(dereferenced) {
  const servers = (dereferenced.servers ?? []).map((server) => {
    let url = server.url;
    for (const [name, variable] of Object.entries(server.variables ?? {})) url = url.replaceAll(`{${name}}`, variable.default);
    return url;
  });
  const operations = listOperations(dereferenced)
    .filter((op) => op.path)
    .map((op) => {
      const params = [...(op.pathItem.parameters ?? []), ...(op.operation.parameters ?? [])]
        .filter((p) => ['path', 'query', 'header'].includes(p.in))
        .map((p) => {
          const example = parameterExample(p);
          return { in: p.in, name: p.name, required: p.required === true, ...(example === undefined ? {} : { example }), description: p.description ?? '' };
        });
      return {
        id: op.operationId,
        method: op.method.toUpperCase(),
        path: op.path,
        summary: op.summary ?? op.operationId,
        tag: op.tag,
        route: referenceRoute(op),
        public: isPublic(op.operation, dereferenced),
        params,
        body: requestExamples(op.operation),
        answers: documentedAnswers(op.operation),
        testValues: testValuesOf(dereferenced, op.operationId),
      };
    });
  // The mock's own address: the contract's server on loopback (what `npm start` listens on).
  const mockUrl = servers.find((url) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url)) ?? 'http://127.0.0.1:4010';
  return { mockUrl, operations, demoIds: demoIds(dereferenced) };
}
