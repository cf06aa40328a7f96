// The validating proxy (`numbers-api proxy`): the mocks' pipeline (src/serve/pipeline.ts) with a
// forwarder for its responder, as Prism's `proxy` is its `mock` with a forwarder instead of a
// mocker. A frontend points at it instead of a deployment; every request goes on to the
// deployment unchanged and every answer comes back unchanged, both judged against the contract as
// they flow by the pipeline's gate and answer check. The verdicts are rendered at the edge, by the
// mocks' HTTP door (src/mock/http-transport.ts): one log line per exchange and one per verdict
// (where, the rule, where it lives in the contract), and `sl-violations` in Prism's words. With
// `errors`, a request that breaks the contract is answered the documented 400 without reaching the
// deployment, and an answer that breaks it a 502, both in the `Error` shape. The door also answers
// a browser's preflight, adds the browser headers and answers the protocol's edges.
//
// It trusts nothing the deployment sends (issue 27, item 9: Prism's proxy followed redirects with
// the key, read a 1 GiB answer whole, answered 500 to JSON that did not parse): only the configured
// origin is asked; a redirect comes back unfollowed, its `Location` moved to `X-Upstream-Location`
// so the client does not follow it either; an answer past MAX_UPSTREAM_BYTES is a 502 rather than
// read whole; a compressed answer is judged and passed on decompressed; one whose JSON does not
// parse passes on as it came, with its verdict.
import { contractValidator, type ContractValidator } from '../src/contract/contract-validator.js';
import type { JsonObject } from '../src/contract/operations.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { forwardedHeaders } from '../src/mock/forwarded-headers.js';
import { pipelineListener, serveHttp, type HttpDoor } from '../src/mock/http-transport.js';
import { ajvGate } from '../src/serve/gate.js';
import { answerCheck, createPipeline, UpstreamFailure, type AnswerRefusal, type Forwarder } from '../src/serve/pipeline.js';
import { simContract } from '../src/simulator/contract.js';
import type { SimRequest, SimResponse } from '../src/simulator/types.js';

/** The largest answer of the deployment the proxy passes on. */
export const MAX_UPSTREAM_BYTES = 32 * 1024 * 1024;

export interface ValidatingProxyOptions {
  /** The deployment's base URL (its origin and path prefix). */
  upstream: string;
  host: string;
  port: number;
  /** Answer an exchange that breaks the contract with an error instead of passing it on. */
  errors: boolean;
  /** The contract (generated/openapi.json, parsed). */
  document: JsonObject;
  /** One line per exchange, and one per verdict. */
  log: (line: string) => void;
}

/** With `errors`: an answer that breaks a documented rule is the deployment's fault, a 502 (one that breaks an inferred one only is passed on, reported). */
const deploymentRefusal: AnswerRefusal = (_operationId, response, verdicts) =>
  verdicts.some((verdict) => verdict.severity === 'documented') ? { status: 502, body: { error: `The deployment's ${response.status} answer breaks the contract: ${verdicts.map(describeVerdict).join('; ')}` } } : undefined;

export async function startValidatingProxy(options: ValidatingProxyOptions): Promise<HttpDoor> {
  const contract = simContract(options.document);
  let validator: ContractValidator | undefined;
  const validate = (): ContractValidator => (validator ??= contractValidator(options.document));
  const pipeline = createPipeline({
    contract,
    forwarder: deploymentForwarder(new URL(options.upstream)),
    gate: ajvGate(validate()),
    answers: answerCheck(options.errors ? 'strict' : 'header', validate, deploymentRefusal),
    errors: options.errors,
  });
  return serveHttp(pipelineListener({ pipeline, methodsAt: contract.methodsAt, log: options.log }), options.host, options.port);
}

/** Not passed on: what the next hop's fetch sets itself (and decompresses), and what it refuses. */
const OWN_REQUEST_HEADERS = new Set(['accept-encoding', 'expect']);

/** The forwarder to the deployment at `upstream` (its origin and path prefix), the proxy's one outgoing request. */
export function deploymentForwarder(upstream: URL, maxBytes = MAX_UPSTREAM_BYTES): Forwarder {
  const base = `${upstream.origin}${upstream.pathname.replace(/\/$/, '')}`;
  return {
    async forward(request: SimRequest): Promise<SimResponse> {
      const query = request.query.toString();
      let answer: Response;
      try {
        answer = await fetch(`${base}${request.pathname}${query ? `?${query}` : ''}`, {
          method: request.method,
          headers: forwardedHeaders(request.headers, (name) => OWN_REQUEST_HEADERS.has(name)),
          ...(request.bytes?.length ? { body: new Uint8Array(request.bytes) } : {}),
          redirect: 'manual',
        });
      } catch (error) {
        const cause = (error as Error & { cause?: NodeJS.ErrnoException }).cause;
        throw new UpstreamFailure(`The deployment did not answer: ${cause?.code ?? cause?.message ?? (error as Error).message}.`);
      }
      const bytes = await cappedBody(answer, maxBytes);
      const received: Record<string, string> = {};
      answer.headers.forEach((value, name) => (received[name] = value));
      // The body is passed on decompressed, so its encoding is not.
      const headers = forwardedHeaders(received, (name) => name === 'content-encoding');
      // Never followed, here or by the client: no request, and no key, goes to another origin.
      if (answer.status >= 300 && answer.status < 400 && headers.location !== undefined) {
        headers['x-upstream-location'] = headers.location;
        delete headers.location;
      }
      return { status: answer.status, headers, bytes };
    },
  };
}

/** The answer's body, read up to `maxBytes`: past it the read stops and the answer is a 502. */
async function cappedBody(answer: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(answer.headers.get('content-length'));
  const tooLarge = (what: string): UpstreamFailure => new UpstreamFailure(`The deployment's answer ${what} than the ${maxBytes} bytes the proxy passes on.`);
  if (declared > maxBytes) {
    await answer.body?.cancel();
    throw tooLarge(`declares ${declared} bytes, more`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = answer.body?.getReader();
  try {
    for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
      size += read.value.length;
      if (size > maxBytes) break;
      chunks.push(read.value);
    }
  } catch {
    throw new UpstreamFailure('The deployment closed its answer before it was complete.');
  }
  if (size > maxBytes) {
    await reader!.cancel();
    throw tooLarge('is larger');
  }
  return Buffer.concat(chunks);
}
