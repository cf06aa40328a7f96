// The real mock (our front plus real Prism) on a free loopback port, once per test file, and the
// documented requests that exercise it, built from the bundled description.
import { startMock, type MockOptions, type RunningMock } from '../../src/mock/start-mock.js';
import { followRef, isJsonMediaType, listOperations, type JsonObject, type OperationEntry } from './contract.js';

export const VALID_KEY = 'Bearer sk_live_mocktests4f9a';

export interface TestMock {
  url: string;
  mock: RunningMock;
  close(): Promise<void>;
}

/**
 * Starts the mock on 127.0.0.1 (port chosen by the OS) and waits until Prism has answered. The
 * example server (`stateless`) unless `options` say otherwise: the tests using this helper check
 * the documented examples and Prism's validation; the stateful mock has test/helpers/stateful-mock.ts.
 * MOCK_TEST_DOCUMENT=generated/openapi.yaml runs the same tests with Prism on another description
 * (to see which Prism traps the default, dereferenced one avoids).
 */
export async function startTestMock(options: MockOptions = { stateless: true }): Promise<TestMock> {
  const mock = await startMock({ host: '127.0.0.1', port: 0, document: process.env.MOCK_TEST_DOCUMENT || undefined, ...options });
  try {
    await mock.ready;
  } catch (error) {
    await mock.close();
    throw error;
  }
  return { url: mock.url, mock, close: () => mock.close() };
}

/** A parameter's example value: its `example`, else its first named example, else its schema's. */
export function parameterExample(document: JsonObject, parameter: JsonObject): unknown {
  if (parameter.example !== undefined) return parameter.example;
  const named = Object.values<JsonObject>(parameter.examples ?? {})[0];
  if (named) return followRef(document, named).value;
  const schema = followRef(document, parameter.schema ?? {});
  if (schema.examples?.[0] !== undefined) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  return undefined;
}

export interface DocumentedRequest {
  method: string;
  /** Path with parameters filled from their examples, plus the required query parameters. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The JSON request body media type's schema pointer, when there is a body. */
  requestSchema?: JsonObject;
  /** The parsed body. */
  json?: unknown;
}

/** A request of a test corpus: what it tries, for which operation, and the request itself. */
export interface CorpusRequest extends Pick<DocumentedRequest, 'method' | 'url' | 'headers' | 'body'> {
  name: string;
  operationId: string;
}

/**
 * A valid request for an operation, from its documented examples: path and required query/header
 * parameters from their examples, the body from the first example of its JSON request body, and
 * a valid key unless the operation needs none.
 */
/** `key`: the Authorization header to send; `null` sends none. */
export function documentedRequest(document: JsonObject, entry: OperationEntry, key: string | null = VALID_KEY): DocumentedRequest {
  const parameters = [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])].map((p: JsonObject) =>
    followRef(document, p),
  );
  let path = entry.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of parameters) {
    const value = parameterExample(document, parameter);
    if (parameter.in === 'path') {
      if (value === undefined) throw new Error(`${entry.pointer}: path parameter ${parameter.name} has no example`);
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
    } else if (parameter.required && parameter.in === 'query') {
      query.set(parameter.name, String(value));
    } else if (parameter.required && parameter.in === 'header') {
      headers[parameter.name] = String(value);
    }
  }
  if (key !== null) headers.Authorization = key;
  const request: DocumentedRequest = {
    method: entry.method.toUpperCase(),
    url: `${path}${query.size > 0 ? `?${query}` : ''}`,
    headers,
  };
  const requestBody = followRef(document, entry.operation.requestBody ?? null);
  const jsonMedia = Object.entries<JsonObject>(requestBody?.content ?? {}).find(([type]) => isJsonMediaType(type));
  if (jsonMedia) {
    const [mediaType, media] = jsonMedia;
    const first = Object.values<JsonObject>(media.examples ?? {})[0];
    const json = first ? followRef(document, first).value : media.example;
    if (json === undefined) throw new Error(`${entry.pointer}: the JSON request body has no example`);
    request.json = json;
    request.body = JSON.stringify(json);
    request.headers['Content-Type'] = mediaType;
    request.requestSchema = media.schema;
  }
  return request;
}

export function send(baseUrl: string, request: DocumentedRequest, extraHeaders: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}${request.url}`, {
    method: request.method,
    headers: { ...request.headers, ...extraHeaders },
    body: request.body,
  });
}

/**
 * The status a request naming none should get: the lowest documented 2xx, except that a fresh
 * creation is 201 (part 4) where a 200 replay is documented beside it (part 7.2).
 */
export function defaultSuccessStatus(entry: OperationEntry): string {
  const statuses = Object.keys(entry.operation.responses ?? {})
    .filter((status) => /^2\d\d$/.test(status))
    .sort();
  if (!statuses[0]) throw new Error(`${entry.pointer} documents no 2xx response`);
  return statuses.includes('201') && statuses.includes('200') ? '201' : statuses[0];
}

export { listOperations };
