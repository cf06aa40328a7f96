// The example server's responder (`--stateless`): the pipeline (src/serve/pipeline.ts) has
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
// - Prism's own problem (`application/problem+json`) becomes the one `Error` shape of part 7, its
//   422 (an invalid request) part 7's 400;
// - a path whose escapes do not decode never reaches Prism (its path parsing throws and its
//   process dies): it gets what an unknown id gets;
// - Prism's CORS headers give way to the transport's (browsers.ts).
//
// Requests that arrive before Prism is up wait for it instead of failing; a request that meets a
// connection Prism has just closed is sent once more; one refused by a Prism that died goes to
// another (prism-workers.ts replaces it), and one whose Prism died while answering is a 503.
import http from 'node:http';
import type { MatchedOperation } from '../contract/operations.js';
import type { SimContract } from '../simulator/contract.js';
import { readableFieldErrors } from '../simulator/field-errors.js';
import { namesItsAnswer, namesItsStatus } from '../serve/named-answers.js';
import { isJsonType } from '../serve/request-body.js';
import { routeNotFound } from '../simulator/respond.js';
import type { Responder } from '../serve/pipeline.js';
import type { SimRequest, SimResponse } from '../simulator/types.js';
import { forwardedHeaders } from './forwarded-headers.js';
import type { OperationFacts } from './route-facts.js';
import type { OperationRule, RuleRequest } from './rules/index.js';

export interface PrismResponderOptions {
  contract: SimContract;
  /** The facts of the operation a request was routed to (route-facts.ts). */
  facts: (route: MatchedOperation) => OperationFacts;
  /** The port of the Prism to send the next request to; requests wait until one answers. */
  upstreamPort: () => Promise<number>;
  /** Told that nothing listens on a port any more (its Prism died): it is not handed out again. */
  upstreamDown?: (port: number) => void;
}

export interface PrismResponder extends Responder {
  /** Closes the idle connections to Prism. */
  close(): void;
}

// Prism's CORS headers give way to the transport's (browsers.ts).
const isPrismCors = (name: string): boolean => name.startsWith('access-control-') || name === 'vary';
const PROBLEM_TYPE = 'application/problem+json';

const NO_RULES: readonly OperationRule[] = [];
/** How many Prisms a request tries when each refuses the connection (it died before taking it). */
const REFUSED_TRIES = 3;

/** Whether every percent-escape of the path decodes as UTF-8 (Prism's path parsing throws on `%FF`, `%zz`, `%C0%AF`). */
function decodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

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

export function prismResponder(options: PrismResponderOptions): PrismResponder {
  // Idle connections to Prism are closed after 2 s, before Prism's own 5 s keep-alive timeout
  // closes them from its side (the classic race that turns a reused connection into ECONNRESET).
  const agent = new http.Agent({ keepAlive: true, timeout: 2000 });

  return {
    respond(request, route) {
      // A body that could not be read (not JSON, too large): the documented 400, as the stateful mock answers it.
      if (request.violations.length > 0) return readableFieldErrors(request, request.violations);
      if (!decodablePath(request.pathname)) {
        const documented = options.contract.operation(route.operationId).responses?.['404'] !== undefined;
        return documented ? { status: 404, body: options.contract.example(route.operationId, 404) } : routeNotFound(request);
      }
      const facts = options.facts(route);
      const prefer = request.headers.prefer ?? '';
      // The rules shape the answer a request leaves to the mock, not an answer it names itself.
      const rules = namesItsAnswer(request) ? NO_RULES : facts.rules;
      const ruleRequest: RuleRequest = { params: route.params, query: request.query };
      const ruleCode = rules.reduce<string | undefined>((code, rule) => code ?? rule.preferCode?.(ruleRequest), undefined);
      // A rule's status replaces the answer altogether, so nothing is rewritten then.
      const rewrites = ruleCode === undefined ? rules.filter((rule) => rule.rewrite) : NO_RULES;
      // Prism answers the lowest 2xx unless told otherwise; where that is not the operation's
      // default, the request asks for the default, unless it names a status itself.
      const code = ruleCode ?? facts.preferCode;
      // The request's headers as they go on to Prism, with the `Prefer` asked for and the body's length.
      const headers = forwardedHeaders(request.headers);
      if (code !== undefined && !namesItsStatus(prefer)) headers.prefer = `${prefer ? `${prefer}, ` : ''}code=${code}`;
      if (request.bytes && request.bytes.length > 0) headers['content-length'] = String(request.bytes.length);
      // A rule may ask Prism with another query, where it reads a value itself that Prism would refuse.
      const query = rules.reduce((forwarded, rule) => rule.forwardQuery?.(forwarded) ?? forwarded, request.query).toString();
      const path = `${request.pathname}${query ? `?${query}` : ''}`;
      return send(request, path, headers, rewrites, ruleRequest);
    },
    close: () => agent.destroy(),
  };

  async function send(request: SimRequest, path: string, headers: Record<string, string>, rewrites: readonly OperationRule[], ruleRequest: RuleRequest): Promise<SimResponse> {
    let refused = 0;
    let retried = false;
    for (;;) {
      let port: number;
      try {
        port = await options.upstreamPort();
      } catch (error) {
        return { status: 503, body: { error: `The mock's Prism process is not running: ${(error as Error).message}` } };
      }
      try {
        return await forward(port, request, path, headers, rewrites, ruleRequest);
      } catch (failure) {
        const error = failure as NodeJS.ErrnoException & { reusedSocket?: boolean };
        // Keep-alive race: Prism closed an idle connection just as it was reused. Prism keeps no
        // state, so sending the request once more, on a new connection, is harmless.
        if (!retried && error.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          retried = true;
          continue;
        }
        // Nothing listens there any more: the request never reached Prism, so it goes to another.
        if (error.code === 'ECONNREFUSED' && refused++ < REFUSED_TRIES) {
          options.upstreamDown?.(port);
          continue;
        }
        // Prism died while answering (it is replaced, prism-workers.ts): this request is told so.
        return { status: 503, body: { error: `The mock's Prism process stopped while answering (${error.code ?? error.message}); it is being replaced. Send the request again.` } };
      }
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
          // Prism's own problem: the one Error shape instead, its 422 (an invalid request) part 7's 400.
          if (type.toLowerCase().startsWith(PROBLEM_TYPE)) return resolve({ status: status === 422 ? 400 : status, body: { error: problemText(text) } });
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
