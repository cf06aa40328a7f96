// The stateful mock's HTTP side: a request that leaves its answer to the mock goes to Prism first,
// which validates it against the contract (its verdict arrives in the `sl-violations` header),
// then to the simulator core, which answers from state. Prism stays the gate for every request;
// its example answer is dropped. The control surface (`/__mock/...`) is answered here directly.
import type http from 'node:http';
import type { ControlSurface } from '../simulator/control.js';
import type { SimRunner } from '../simulator/runner.js';
import type { Simulator } from '../simulator/simulator.js';
import { readBody } from '../simulator/request-body.js';
import type { SimRequest, SimResponse, Violation } from '../simulator/types.js';
import type { ContractValidator } from '../simulator/validator.js';

/** What Prism answered: its status, headers (as received) and body. */
export interface PrismAnswer {
  status: number;
  rawHeaders: string[];
}

export interface StatefulTransportOptions {
  simulator: Simulator;
  control: ControlSurface;
  runner: SimRunner;
  /**
   * Check every answer the simulator composes against the contract: `header` reports problems in
   * an `sl-violations` header (as Prism does for its own answers), `strict` answers 500 instead
   * (the test suite runs this way, so a composed answer that breaks the contract fails a test).
   */
  validateResponses?: 'off' | 'header' | 'strict';
  responseValidator?: () => ContractValidator;
}

const CORS_HEADERS = /^access-control-|^vary$/i;

/** Prism's verdict on the request: the `sl-violations` header's request violations of severity Error. */
export function prismViolations(rawHeaders: string[]): Violation[] {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'sl-violations') continue;
    try {
      const list = JSON.parse(rawHeaders[i + 1]!) as Array<{ location?: string[]; severity?: string; message?: string }>;
      return list
        .filter((v) => v.severity === 'Error' && v.location?.[0] === 'request')
        .map((v) => ({ location: (v.location ?? []).slice(1).map(String), message: v.message ?? 'is invalid' }));
    } catch {
      return [{ location: ['body'], message: 'is invalid' }];
    }
  }
  return [];
}

/** The request as the simulator reads it; a body that is not JSON where JSON is sent is a violation. */
export async function toSimRequest(method: string, url: string, headers: http.IncomingHttpHeaders, body: Buffer): Promise<SimRequest> {
  const queryAt = url.indexOf('?');
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  const request: SimRequest = {
    method: method.toUpperCase(),
    pathname: url.slice(0, queryAt >= 0 ? queryAt : undefined),
    query: new URLSearchParams(queryAt >= 0 ? url.slice(queryAt + 1) : ''),
    headers: flat,
    body: undefined,
    violations: [],
  };
  await readBody(request, body, flat['content-type']);
  return request;
}

export interface StatefulExchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  method: string;
  url: string;
  body: Buffer;
  /** Sends the request to Prism and resolves with its answer (its body is drained). */
  askPrism(): Promise<PrismAnswer>;
}

export function statefulTransport(options: StatefulTransportOptions) {
  const { simulator, control, runner } = options;
  const mode = options.validateResponses ?? 'off';

  function send(exchange: StatefulExchange, response: SimResponse, cors: string[], operationId: string | undefined): void {
    const { res, method } = exchange;
    if (res.destroyed || res.headersSent) return;
    const headers: Record<string, string> = { ...response.headers };
    let status = response.status;
    let body = response.body;
    if (mode !== 'off' && operationId && options.responseValidator) {
      const problems = options.responseValidator().response(operationId, response);
      if (problems.length > 0) {
        if (mode === 'strict') {
          status = 500;
          body = { error: `The mock composed a ${response.status} answer to ${operationId} that breaks the contract: ${problems.join('; ')}` };
        } else {
          headers['sl-violations'] = JSON.stringify(problems.map((message) => ({ location: ['response'], severity: 'Error', message })));
        }
      }
    }
    const text = body === undefined ? '' : JSON.stringify(body);
    const pairs: string[] = [...cors];
    for (const [name, value] of Object.entries(headers)) pairs.push(name, value);
    if (body !== undefined) pairs.push('Content-Type', 'application/json');
    pairs.push('Content-Length', String(Buffer.byteLength(text)));
    res.writeHead(status, pairs);
    res.end(method === 'HEAD' ? undefined : text);
  }

  return {
    async serve(exchange: StatefulExchange): Promise<void> {
      const request = await toSimRequest(exchange.method, exchange.url, exchange.req.headers, exchange.body);
      const origin = exchange.req.headers.origin;
      const cors = origin ? ['Access-Control-Allow-Origin', origin, 'Access-Control-Allow-Credentials', 'true', 'Access-Control-Expose-Headers', '*', 'Vary', 'origin'] : ['Access-Control-Allow-Origin', '*'];

      const controlled = control.handle(request);
      if (controlled) {
        runner.reschedule();
        send(exchange, controlled, cors, undefined);
        return;
      }
      const matched = simulator.contract.match(request.method, request.pathname);
      // Prism validates the request (unless it is already known to be unreadable); its answer
      // itself is not used, but its CORS headers are kept, so a browser reads the mock as before.
      if (matched && request.violations.length === 0) {
        const answer = await exchange.askPrism();
        request.violations.push(...prismViolations(answer.rawHeaders));
        const kept: string[] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          if (CORS_HEADERS.test(answer.rawHeaders[i]!)) kept.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
        }
        if (kept.length > 0) cors.splice(0, cors.length, ...kept);
      }
      const response = simulator.handle(request);
      runner.reschedule();
      if (!response.hold) {
        send(exchange, response, cors, matched?.operationId);
        return;
      }
      // A held answer (a long poll) ends early when the client goes away.
      const abort = new AbortController();
      exchange.res.once('close', () => abort.abort());
      send(exchange, await runner.settle(response, abort.signal), cors, matched?.operationId);
    },
  };
}
