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
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
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
  const forwarder = deploymentForwarder(new URL(options.upstream));
  const pipeline = createPipeline({
    contract,
    forwarder,
    gate: ajvGate(validate()),
    answers: answerCheck(options.errors ? 'strict' : 'header', validate, deploymentRefusal),
    errors: options.errors,
  });
  const door = await serveHttp(pipelineListener({ pipeline, methodsAt: contract.methodsAt, log: options.log }), options.host, options.port);
  return { ...door, close: () => door.close().then(() => forwarder.close()) };
}

/** Methods a request may be sent again with (RFC 9110 §9.2.2): after a kept-alive connection the deployment had closed. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const DECODERS: Record<string, (bytes: Buffer) => Promise<Buffer>> = { gzip: promisify(zlib.gunzip), 'x-gzip': promisify(zlib.gunzip), deflate: promisify(zlib.inflate), br: promisify(zlib.brotliDecompress) };

/**
 * The forwarder to the deployment at `upstream` (its origin and path prefix): the proxy's one
 * outgoing request, over node:http(s) with connections kept alive (fetch costs the proxy about
 * a third of its throughput).
 */
export function deploymentForwarder(upstream: URL, maxBytes = MAX_UPSTREAM_BYTES): Forwarder & { close(): void } {
  const transport = upstream.protocol === 'https:' ? https : http;
  // Idle connections are closed before a deployment's own keep-alive (5 s in Node's default) closes them.
  const agent = new transport.Agent({ keepAlive: true, timeout: 4000 });
  const base = `${upstream.origin}${upstream.pathname.replace(/\/$/, '')}`;
  const tooLarge = (what: string): UpstreamFailure => new UpstreamFailure(`The deployment's answer ${what} than the ${maxBytes} bytes the proxy passes on.`);

  const ask = (request: SimRequest, retry: boolean): Promise<SimResponse> =>
    new Promise((resolve, reject) => {
      const query = request.query.toString();
      const sent = transport.request(`${base}${request.pathname}${query ? `?${query}` : ''}`, { method: request.method, headers: forwardedHeaders(request.headers, (name) => name === 'expect'), agent }, (answer) => {
        const declared = Number(answer.headers['content-length']);
        if (declared > maxBytes) return answer.destroy(tooLarge(`declares ${declared} bytes, more`));
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) answer.destroy(tooLarge('is larger'));
          else chunks.push(chunk);
        });
        answer.on('error', (error) => reject(error instanceof UpstreamFailure ? error : new UpstreamFailure('The deployment closed its answer before it was complete.')));
        answer.on('end', () => void passedOn(answer, Buffer.concat(chunks)).then(resolve, reject));
      });
      sent.on('error', (error: NodeJS.ErrnoException) => {
        // The deployment closed a kept-alive connection as it was reused: the request never reached it.
        if (retry && sent.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) resolve(ask(request, false));
        else reject(error instanceof UpstreamFailure ? error : new UpstreamFailure(`The deployment did not answer: ${error.code ?? error.message}.`));
      });
      sent.end(request.bytes?.length ? request.bytes : undefined);
    });

  /** The answer as it goes back: decompressed (so judged as it reads), a redirect's target moved out of `Location`. */
  async function passedOn(answer: http.IncomingMessage, raw: Buffer): Promise<SimResponse> {
    const headers = forwardedHeaders(answer.headers);
    const decode = DECODERS[(headers['content-encoding'] ?? '').toLowerCase()];
    let bytes = raw;
    if (decode && raw.length > 0) {
      bytes = await decode(raw).catch(() => Promise.reject(new UpstreamFailure(`The deployment's answer says ${headers['content-encoding']} but does not decompress.`)));
      if (bytes.length > maxBytes) throw tooLarge('is, once decompressed, larger');
      delete headers['content-encoding'];
    }
    // Never followed, here or by the client: no request, and no key, goes to another origin.
    const status = answer.statusCode ?? 502;
    if (status >= 300 && status < 400 && headers.location !== undefined) {
      headers['x-upstream-location'] = headers.location;
      delete headers.location;
    }
    return { status, headers, bytes };
  }

  return { forward: (request) => ask(request, IDEMPOTENT.has(request.method)), close: () => agent.destroy() };
}
