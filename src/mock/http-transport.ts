// The HTTP door of every pipeline (both mocks, the validating proxy): a thin adapter between
// node:http and src/serve/pipeline.ts. A request is read whole (at most MAX_BODY_BYTES are kept),
// turned into a SimRequest, served by the pipeline, and its SimResponse written back as JSON (or
// as the text or bytes it passes on) with what a browser needs (browsers.ts). One quiet log line
// per request, written once it is finished, and one per verdict its answer reports.
import { once } from 'node:events';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dict } from '../contract/dict.js';
import { describeVerdict } from '../contract/verdict.js';
import { MAX_BODY_BYTES, readRequest } from '../serve/request-body.js';
import type { Pipeline } from '../serve/pipeline.js';
import type { SimRequest, SimResponse, Verdict } from '../simulator/types.js';
import { browserHeaders, preflightAnswer } from './browsers.js';
import { createMockServer, protocolRefusal, type ProtocolTimeouts } from './client-errors.js';
import { FollowedMessage } from './declared-sizes.js';
import type { ControlAccess } from './control-access.js';

export interface HttpTransportOptions {
  pipeline: Pipeline;
  /** The methods the contract has operations for at a path (for a browser's preflight). */
  methodsAt: (pathname: string) => string[];
  /** Receives one line per finished request; omit for no request log. */
  log?: (line: string) => void;
  /** Who may change things on the control surface (control-access.ts); omit to let anyone. */
  control?: ControlAccess;
}

export interface HttpDoor {
  /** The base URL, e.g. `http://127.0.0.1:4010`. */
  url: string;
  port: number;
  /** Stops taking requests and ends every connection. */
  close(): Promise<void>;
}

/** `listener` served on `host`:`port` (0: a free one), the protocol's edges in the `Error` shape (client-errors.ts). */
export function serveHttp(listener: http.RequestListener, host: string, port: number, timeouts?: ProtocolTimeouts): Promise<HttpDoor> {
  return listenHttp(createMockServer(listener, timeouts), host, port);
}

/** `server` listening on `host`:`port` (0: a free one): every port of the package (the mock, the listen agent's targets, MCP) opens so. */
export async function listenHttp(server: http.Server, host: string, port: number): Promise<HttpDoor> {
  // Keep idle client connections a little longer than common HTTP clients' own idle timeout: Node's
  // 5 s lets a loaded client reuse a socket the server is closing ("fetch failed").
  server.keepAliveTimeout = 65_000;
  // Rejects on the server's 'error' (a port in use) before it listens.
  await once(server.listen(port, host), 'listening');
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The request as the core reads it: header names in lower case, repeated headers joined. */
export function toSimRequest(req: http.IncomingMessage, bytes: Uint8Array, tooLarge: boolean): Promise<SimRequest> {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const headers = dict<string | undefined>();
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const query = new URLSearchParams(queryAt >= 0 ? url.slice(queryAt + 1) : '');
  return readRequest({ method: req.method ?? 'GET', pathname: queryAt >= 0 ? url.slice(0, queryAt) : url, query, headers }, bytes, tooLarge);
}

/** Writes an answer as JSON (or the text it passes on, with its own type), with what a browser needs. */
export function writeAnswer(req: http.IncomingMessage, res: http.ServerResponse, answer: SimResponse): void {
  if (res.destroyed || res.headersSent) return;
  const text = answer.bytes ?? answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
  const headers: Record<string, string> = { ...browserHeaders(req.headers), ...answer.headers };
  // A JSON answer is said so; a body passed on as it came (Prism's) keeps its own type.
  if (answer.body !== undefined) headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.writeHead(answer.status, headers);
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** The time of day a log line begins with (UTC `HH:MM:SS`), made once a second: a Date and its ISO text were most of a line's cost. */
let clock = { second: -1, text: '' };
function timeOfDay(): string {
  const now = Date.now();
  if (Math.floor(now / 1000) !== clock.second) clock = { second: Math.floor(now / 1000), text: new Date(now).toISOString().slice(11, 19) };
  return clock.text;
}

/** The log of a finished request started at `started` (process.hrtime.bigint()), and a line per verdict its answer reports. */
function logLines(req: http.IncomingMessage, status: number, started: bigint, verdicts: readonly Verdict[]): string[] {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const line = `${timeOfDay()} ${req.method ?? 'GET'} ${req.url ?? '/'} ${status} ${ms.toFixed(1)} ms`;
  return [line, ...verdicts.map((verdict) => `  ${verdict.severity === 'inferred' ? 'advisory' : 'violation'}: ${verdict.of} ${describeVerdict(verdict)}`)];
}

/** The request listener of a pipeline's HTTP server. */
export function pipelineListener({ pipeline, methodsAt, log, control }: HttpTransportOptions): http.RequestListener {
  return (req, res) => {
    let verdicts: readonly Verdict[] = [];
    if (log) {
      const started = process.hrtime.bigint();
      res.once('finish', () => logLines(req, res.statusCode, started, verdicts).forEach(log));
    }
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const preflight = preflightAnswer(req.method, req.headers, methodsAt, pathname);
    if (preflight && control?.covers(pathname) && control.refusesPreflight(req)) {
      // No CORS headers: the page's browser stops there.
      const body = JSON.stringify({ error: 'The mock’s control surface is not for pages on other machines’ origins.' });
      res.writeHead(403, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (preflight) {
      res.writeHead(preflight.status, preflight.headers);
      res.end();
      return;
    }
    const refused = protocolRefusal(req) ?? (control?.covers(pathname) ? control.refusal(req) : undefined);
    if (refused) {
      res.setHeader('Connection', 'close');
      writeAnswer(req, res, refused);
      return;
    }
    /** The request read (`bytes`, of which `tooLarge` says more came), served and written back. */
    const answer = (bytes: Uint8Array, tooLarge: boolean, clientGone?: () => AbortSignal): void =>
      void toSimRequest(req, bytes, tooLarge)
        .then((request) => {
          const proof = control?.covers(pathname) ? control.proof(req) : undefined;
          if (proof) request.controlProof = proof;
          return pipeline.serve(request, clientGone);
        })
        .then(
          (answer) => {
            verdicts = answer.verdicts ?? [];
            writeAnswer(req, res, answer);
          },
          (error: Error) => writeAnswer(req, res, { status: 500, body: { error: `The mock could not answer: ${error.message}` } }),
        );
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so the client can finish sending and read the 400.
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      // A size declared past the limit ended the body (declared-sizes.ts): answered now, the connection closed after.
      const refused = req instanceof FollowedMessage && req.bodyRefused;
      if (refused) res.setHeader('Connection', 'close');
      const clientGone = (): AbortSignal => {
        const abort = new AbortController();
        res.once('close', () => abort.abort());
        return abort.signal;
      };
      answer(Buffer.concat(chunks), refused || size > MAX_BODY_BYTES, clientGone);
    });
  };
}
