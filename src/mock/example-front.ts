// The example server's front (`--stateless`): the smallest HTTP layer of our own before Prism, which
// serves the documented examples. Prism routes, validates and answers; the front keeps what Prism
// cannot or does differently:
//
// - What a request gets whatever its operation is answered here, in the one `Error` shape of part
//   7 and as the stateful mock answers it: a browser's preflight and CORS for a bearer-token API
//   (browsers.ts, Prism's own CORS headers dropped), `OPTIONS`, a path or method the contract
//   does not have (Prism: a 404/405/422 `problem+json`), a `Prefer` naming an undocumented status
//   or example (Prism: its NOT_FOUND problem), protocol errors (client-errors.ts).
//
// - On an operation that needs a key, a request whose `Authorization` is not `Bearer sk_live_…` is
//   passed on WITHOUT that header. Prism then answers exactly as for a missing key: 401 with the
//   operation's documented example and its usual CORS headers, so a browser can read it.
// - Where Prism's default answer (the lowest 2xx) is not the operation's (a 200 replay beside a
//   201 creation, `POST /api/v1/calls`), a request naming no status asks for the 201.
// - The rules of the interface specification a static example cannot show (src/mock/rules/: an
//   unknown id is 404, usage `days`, billing activity paging) shape the answer of a request that
//   leaves it to the mock. A request that names its answer (`Prefer: code=` or `example=`) gets
//   exactly that, as documented. Only the answers of the operations a rule rewrites are parsed.
// - Everything else is passed on unchanged.
// - Requests that arrive before Prism is up wait for it instead of failing.
// - A request that meets a connection Prism has just closed is sent once more (see forward()).
// - One quiet line per request, written once the response is finished.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyPrefix, wellFormedKey } from '../contract/api-key.js';
import type { SimContract } from '../simulator/contract.js';
import { preferRefusal } from '../simulator/named-answers.js';
import { isJsonType } from '../simulator/request-body.js';
import { optionsAnswer, routeNotFound, unauthorized } from '../simulator/respond.js';
import { browserHeaders, preflightAnswer } from './browsers.js';
import { answerClientErrors } from './client-errors.js';
import { writeAnswer } from './http-transport.js';
import { requestLogLine } from './request-log.js';
import type { RouteFacts } from './route-facts.js';
import type { OperationRule, RuleRequest } from './rules/index.js';

export interface FrontOptions {
  host: string;
  port: number;
  /** The facts of the operation `METHOD /path` is for (whether it needs a key, its default status). */
  match: (method: string, pathname: string) => RouteFacts | undefined;
  /** The contract, for what the front answers itself. */
  contract: SimContract;
  /** The port of the Prism to send the next request to; requests wait until one answers. */
  upstreamPort: () => Promise<number>;
  /** Receives one line per finished request; omit for no request log. */
  log?: (line: string) => void;
}

export interface Front {
  server: http.Server;
  /** The port the front listens on (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded; Prism's
// CORS headers are replaced by the front's (browsers.ts).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);
const PRISM_CORS = /^access-control-|^vary$/i;

/** Prism's answer headers as the front passes them on: no hop-by-hop, no CORS of Prism's, the front's added. */
function answerHeaders(raw: string[], request: http.IncomingHttpHeaders, drop: readonly string[] = []): string[] {
  const kept = forwardableHeaders(raw, drop);
  const pairs: string[] = [];
  for (let i = 0; i < kept.length; i += 2) if (!PRISM_CORS.test(kept[i]!)) pairs.push(kept[i]!, kept[i + 1]!);
  for (const [name, value] of Object.entries(browserHeaders(request))) pairs.push(name, value);
  return pairs;
}

function forwardableHeaders(raw: string[], drop: readonly string[] = []): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || drop.includes(name)) continue;
    kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

const NO_RULES: readonly OperationRule[] = [];

/** The text of a Prism problem (`detail`, else `title`). */
function problemText(body: Buffer): string {
  try {
    const problem = JSON.parse(body.toString('utf8')) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? 'The mock could not answer this request.';
  } catch {
    return 'The mock could not answer this request.';
  }
}

/**
 * Prism's JSON answer with the rules' rewrites applied; the answer as it was if it is not JSON or
 * a rule cannot read it (a mock that answers the plain example beats one that drops the request).
 */
function rewriteAnswer(body: Buffer, rules: readonly OperationRule[], request: RuleRequest): Buffer {
  try {
    let value = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    for (const rule of rules) value = rule.rewrite!.apply(value, request);
    return Buffer.from(JSON.stringify(value));
  } catch {
    return body;
  }
}

export async function startFront(options: FrontOptions): Promise<Front> {
  // Idle connections to Prism are closed after 2 s, before Prism's own 5 s keep-alive timeout
  // closes them from its side (the classic race that turns a reused connection into ECONNRESET).
  const agent = new http.Agent({ keepAlive: true, timeout: 2000 });

  const server = http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const pathname = url.split('?', 1)[0]!;
    if (options.log) {
      const log = options.log;
      res.once('finish', () => log(requestLogLine(req, res.statusCode, started, note)));
    }
    let note = '';
    const preflight = preflightAnswer(method, req.headers, options.contract.methodsAt, pathname);
    if (preflight) {
      res.writeHead(preflight.status, preflight.headers);
      res.end();
      return;
    }
    const route = method === 'OPTIONS' ? undefined : options.match(method, pathname);
    const prefer = [req.headers.prefer ?? []].flat().join(', ');
    const answeredHere =
      method === 'OPTIONS'
        ? optionsAnswer({ method, pathname }, options.contract.methodsAt(pathname))
        : !route
          ? routeNotFound({ method, pathname })
          : route.secured && req.headers.authorization === undefined
            ? unauthorized(options.contract, route.operationId, undefined)
            : /\b(?:code|example)=/.test(prefer)
              ? preferRefusal(options.contract, route.operationId, prefer)
              : undefined;
    if (answeredHere) {
      req.resume();
      req.once('end', () => writeAnswer(req, res, answeredHere));
      return;
    }
    const keyRefused = (route?.secured ?? false) && wellFormedKey(req.headers.authorization, keyPrefix(options.contract.document)) === undefined;
    // Prism answers the lowest 2xx unless told otherwise; where that is not the operation's
    // default (a 200 replay beside a 201 creation), the request asks for the default, unless it
    // names a status itself.
    // The rules shape the answer a request leaves to the mock: not a refused key's 401, and not an
    // answer the request names itself.
    const rules = route && !keyRefused && !/\b(?:code|example)=/.test(prefer) ? route.rules : NO_RULES;
    let ruleRequest: RuleRequest | undefined;
    let ruleCode: string | undefined;
    if (rules.length > 0) {
      const queryAt = url.indexOf('?');
      ruleRequest = { params: route!.params, query: new URLSearchParams(queryAt >= 0 ? url.slice(queryAt + 1) : '') };
      for (const rule of rules) {
        ruleCode = rule.preferCode?.(ruleRequest);
        if (ruleCode !== undefined) break;
      }
    }
    // A rule's status replaces the answer altogether, so nothing is rewritten then.
    const rewrites = ruleCode === undefined ? rules.filter((rule) => rule.rewrite) : NO_RULES;
    const code = ruleCode ?? route?.preferCode;
    const preferDefault = code !== undefined && !/\bcode=/.test(prefer) ? `${prefer ? `${prefer}, ` : ''}code=${code}` : undefined;

    note =
      keyRefused && req.headers.authorization !== undefined
        ? ' (key does not begin sk_live_)'
        : ruleCode === '404'
          ? ' (an id the examples do not use)'
          : '';

    // The body is read whole before it is passed on (mock bodies are small; Prism reads them whole
    // too), so that a request can be sent again after the keep-alive race below.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const hadBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
      // The body goes on with its length, however it came (chunked or not).
      const drop = ['content-length', 'transfer-encoding', ...(keyRefused ? ['authorization'] : []), ...(preferDefault ? ['prefer'] : [])];
      const pairs = forwardableHeaders(req.rawHeaders, drop);
      if (hadBody) pairs.push('Content-Length', String(body.length));
      if (preferDefault) pairs.push('Prefer', preferDefault);

      options.upstreamPort().then(
        (port) => forward(port, pairs, body, false),
        (error: Error) => {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: `The mock's Prism process is not running: ${error.message}` }));
        },
      );
    });

    function forward(port: number, headers: string[], body: Buffer, isRetry: boolean): void {
      const upstream = http.request({ host: '127.0.0.1', port, method, path: url, headers, agent }, (answer) => {
        const status = answer.statusCode ?? 502;
        const rewriting = rewrites.filter((rule) => rule.rewrite!.status === status);
        if (/^application\/problem\+json/i.test(answer.headers['content-type'] ?? '')) {
          // Prism's own problem (none is expected past the checks above): the one Error shape instead.
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => writeAnswer(req, res, { status, body: { error: problemText(Buffer.concat(parts)) } }));
          return;
        }
        if (rewriting.length === 0 || !isJsonType(answer.headers['content-type'])) {
          res.writeHead(status, answer.statusMessage, answerHeaders(answer.rawHeaders, req.headers));
          answer.pipe(res);
          return;
        }
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const rewritten = rewriteAnswer(Buffer.concat(parts), rewriting, ruleRequest!);
          const headers = answerHeaders(answer.rawHeaders, req.headers, ['content-length', 'transfer-encoding']);
          headers.push('Content-Length', String(rewritten.length));
          res.writeHead(status, answer.statusMessage, headers);
          res.end(method === 'HEAD' ? undefined : rewritten);
        });
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        // Keep-alive race: Prism closed an idle connection just as it was reused. Prism keeps no
        // state, so sending the request once more, on a new connection, is harmless.
        if (!isRetry && upstream.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          forward(port, headers, body, true);
          return;
        }
        if (!res.headersSent) {
          writeAnswer(req, res, { status: 502, body: { error: `The mock's Prism process did not answer: ${error.message}` } });
        } else {
          res.destroy(error);
        }
      });
      // A client that goes away takes its upstream request with it.
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body.length > 0 ? body : undefined);
    }
  });
  // Keep idle client connections a little longer than common HTTP clients' own idle timeout.
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
