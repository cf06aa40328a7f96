// The example server's responder (`--stateless`): the pipeline (src/simulator/pipeline.ts) has
// answered what a request gets whatever its operation (OPTIONS, a path the contract lacks, the key,
// a `Prefer` naming what the operation does not document); this forwards what is left to real
// Prism (prism-workers.ts), which routes again, validates, answers the documented examples and
// keeps its own features (`Prefer: code=`, `example=`, `dynamic=`; `--validate-response`), then:
//
// - where Prism's default answer (the lowest 2xx) is not the operation's (a 200 replay beside a
//   201 creation, `POST /api/v1/calls`), a request naming no status asks for the 201;
// - the rules of the interface specification a static example cannot show (src/mock/rules/: an
//   unknown id is 404, usage `days`, billing activity paging) shape the answer of a request that
//   leaves it to the mock; one that names its answer (`Prefer: code=` or `example=`) gets exactly
//   that, as documented. Only the answers of the operations a rule rewrites are parsed;
// - Prism's own problem (`application/problem+json`) becomes the one `Error` shape of part 7;
// - Prism's CORS headers give way to the transport's (browsers.ts).
//
// Requests that arrive before Prism is up wait for it instead of failing; a request that meets a
// connection Prism has just closed is sent once more (see `forward`).
import http from 'node:http';
import type { MatchedOperation } from '../contract/operations.js';
import { readableFieldErrors } from '../simulator/field-errors.js';
import { namesItsAnswer, namesItsStatus } from '../simulator/named-answers.js';
import { isJsonType } from '../simulator/request-body.js';
import type { Responder } from '../simulator/pipeline.js';
import type { SimRequest, SimResponse } from '../simulator/types.js';
import { forwardedHeaders } from './forwarded-headers.js';
import type { OperationFacts } from './route-facts.js';
import type { OperationRule, RuleRequest } from './rules/index.js';

export interface PrismResponderOptions {
  /** The facts of the operation a request was routed to (route-facts.ts). */
  facts: (route: MatchedOperation) => OperationFacts;
  /** The port of the Prism to send the next request to; requests wait until one answers. */
  upstreamPort: () => Promise<number>;
}

export interface PrismResponder extends Responder {
  /** Closes the idle connections to Prism. */
  close(): void;
}

// Prism's CORS headers give way to the transport's (browsers.ts).
const isPrismCors = (name: string): boolean => name.startsWith('access-control-') || name === 'vary';
const PROBLEM_TYPE = 'application/problem+json';

const NO_RULES: readonly OperationRule[] = [];

/** The text of a Prism problem (`detail`, else `title`). */
function problemText(body: string): string {
  try {
    const problem = JSON.parse(body) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? 'The mock could not answer this request.';
  } catch {
    return 'The mock could not answer this request.';
  }
}

/**
 * Prism's JSON answer with the rules' rewrites applied; the answer as it was if a rule cannot read
 * it (a mock that answers the plain example beats one that drops the request).
 */
function rewritten(text: string, rules: readonly OperationRule[], request: RuleRequest): string {
  try {
    let value = JSON.parse(text) as Record<string, unknown>;
    for (const rule of rules) value = rule.rewrite!.apply(value, request);
    return JSON.stringify(value);
  } catch {
    return text;
  }
}

/** The request's headers as they go on to Prism, with the `Prefer` asked for and the body's length. */
function upstreamHeaders(request: SimRequest, prefer: string | undefined): Record<string, string> {
  const headers = forwardedHeaders(request.headers);
  if (prefer !== undefined) headers.prefer = prefer;
  if (request.bytes && request.bytes.length > 0) headers['content-length'] = String(request.bytes.length);
  return headers;
}

export function prismResponder(options: PrismResponderOptions): PrismResponder {
  // Idle connections to Prism are closed after 2 s, before Prism's own 5 s keep-alive timeout
  // closes them from its side (the classic race that turns a reused connection into ECONNRESET).
  const agent = new http.Agent({ keepAlive: true, timeout: 2000 });

  return {
    respond(request, route) {
      // A body that could not be read (not JSON, too large): the documented 400, as the stateful mock answers it.
      if (request.violations.length > 0) return readableFieldErrors(request, request.violations);
      const facts = options.facts(route);
      const prefer = request.headers.prefer ?? '';
      // The rules shape the answer a request leaves to the mock, not an answer it names itself.
      const rules = namesItsAnswer(request) ? NO_RULES : facts.rules;
      const ruleRequest: RuleRequest = { params: route.params, query: request.query };
      let ruleCode: string | undefined;
      for (const rule of rules) {
        ruleCode = rule.preferCode?.(ruleRequest);
        if (ruleCode !== undefined) break;
      }
      // A rule's status replaces the answer altogether, so nothing is rewritten then.
      const rewrites = ruleCode === undefined ? rules.filter((rule) => rule.rewrite) : NO_RULES;
      // Prism answers the lowest 2xx unless told otherwise; where that is not the operation's
      // default, the request asks for the default, unless it names a status itself.
      const code = ruleCode ?? facts.preferCode;
      const preferDefault = code !== undefined && !namesItsStatus(prefer) ? `${prefer ? `${prefer}, ` : ''}code=${code}` : undefined;
      const query = request.query.toString();
      const path = `${request.pathname}${query ? `?${query}` : ''}`;
      return send(request, path, upstreamHeaders(request, preferDefault), rewrites, ruleRequest);
    },
    close: () => agent.destroy(),
  };

  async function send(request: SimRequest, path: string, headers: Record<string, string>, rewrites: readonly OperationRule[], ruleRequest: RuleRequest): Promise<SimResponse> {
    let port: number;
    try {
      port = await options.upstreamPort();
    } catch (error) {
      return { status: 503, body: { error: `The mock's Prism process is not running: ${(error as Error).message}` } };
    }
    try {
      return await forward(port, request, path, headers, rewrites, ruleRequest);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException & { reusedSocket?: boolean };
      // Keep-alive race: Prism closed an idle connection just as it was reused. Prism keeps no
      // state, so sending the request once more, on a new connection, is harmless.
      if ((error as { reusedSocket?: boolean }).reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
        try {
          return await forward(port, request, path, headers, rewrites, ruleRequest);
        } catch (again) {
          error = again;
        }
      }
      return { status: 502, body: { error: `The mock's Prism process did not answer: ${(error as Error).message}` } };
    }
  }

  function forward(port: number, request: SimRequest, path: string, headers: Record<string, string>, rewrites: readonly OperationRule[], ruleRequest: RuleRequest): Promise<SimResponse> {
    return new Promise((resolve, reject) => {
      const upstream = http.request({ host: '127.0.0.1', port, method: request.method, path, headers, agent }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', reject);
        answer.on('end', () => {
          const status = answer.statusCode ?? 502;
          const text = Buffer.concat(chunks).toString('utf8');
          const type = answer.headers['content-type'] ?? '';
          // Prism's own problem (none is expected past the pipeline's steps): the one Error shape instead.
          if (type.toLowerCase().startsWith(PROBLEM_TYPE)) return resolve({ status, body: { error: problemText(text) } });
          const rewriting = rewrites.filter((rule) => rule.rewrite!.status === status);
          const body = rewriting.length > 0 && isJsonType(type) ? rewritten(text, rewriting, ruleRequest) : text;
          resolve({ status, headers: forwardedHeaders(answer.headers, isPrismCors), text: body });
        });
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { reusedSocket: upstream.reusedSocket })));
      upstream.end(request.bytes && request.bytes.length > 0 ? request.bytes : undefined);
    });
  }
}
