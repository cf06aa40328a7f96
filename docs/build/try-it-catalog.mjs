// What the try-it consoles know about each operation, read from the dereferenced bundle at build
// time (never written per operation): method, path, whether it needs a key, its parameters with
// their example values, its named request examples (the JSON media type's, the names `Prefer:
// example=` selects), the documented answers a request can name with `Prefer`, the test values
// of the mock that apply to it, and the request of the reference's sample (code-samples.mjs), which
// the page writes again for the server a reader picks. The consoles never read the request schema's
// shape, so a reshaped schema (a new union, an open enum) changes nothing here as long as the
// examples stay.
import { simContract } from '../../src/simulator/contract.ts';
import { demoAccountSeed } from '../../src/simulator/seed.ts';
import { docsServers, ID, isPublic, onLoopback, parameterExample, sampleRequest, serverUrl } from './code-samples.mjs';
import { listOperations, referenceRoute } from './contract.mjs';

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
  // The servers as the reference shows them, the local mock first: the reference's samples address the first.
  const servers = docsServers(dereferenced).map(serverUrl);
  const ids = demoIds(dereferenced);
  const operations = listOperations(dereferenced)
    .filter((op) => op.path)
    .map((op) => {
      const params = [...(op.pathItem.parameters ?? []), ...(op.operation.parameters ?? [])]
        .filter((p) => ['path', 'query', 'header'].includes(p.in))
        .map((p) => {
          // The form starts from the example, or from the default where there is none.
          const shown = parameterExample(p);
          const example = shown === undefined ? p.schema?.default : shown;
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
        sample: sampleRequest(op, dereferenced, ids),
      };
    });
  // The mock's own address: the contract's server on loopback (what `npm start` listens on).
  return { mockUrl: servers.find(onLoopback) ?? 'http://127.0.0.1:4010', servers, operations, demoIds: ids };
}
