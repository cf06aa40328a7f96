// What Node's HTTP server does at the edges of the protocol, answered in the one `Error` shape of
// part 7 as a documented status, on both the stateful mock and the example server (issue 27,
// item 10), where Node gives a bare answer, none, or waits:
//
// - protocol errors (`clientError`: a method HTTP does not know, a malformed chunked body, headers
//   over Node's 16 KB, a request line that is not HTTP): the documented 400; a request pipelined
//   before the bad one still gets its own answer first;
// - headers that do not arrive in time: 408 (what `events/wait` uses for a window that passed);
// - HTTP/1.1 without `Host`, an `Expect` other than `100-continue`, `CONNECT`: 400;
// - a body declared larger than the mock reads (`Content-Length` over MAX_BODY_BYTES, or chunks
//   that add up past it: declared-sizes.ts): the 400 at once, and the connection closed, instead of
//   reading it until Node's timeout.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_BODY_BYTES } from '../serve/request-body.js';
import type { SimResponse } from '../simulator/types.js';
import { followDeclaredSizes, FollowedMessage } from './declared-sizes.js';

const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request headers are larger than the mock reads (16 KB).',
  HPE_INVALID_METHOD: 'The request method is not one HTTP defines.',
  HPE_INVALID_CHUNK_SIZE: 'The chunked request body is malformed (a chunk size that is not hexadecimal).',
  HPE_INVALID_HEADER_TOKEN: 'A request header name holds a character HTTP does not allow.',
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not a number.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request did not arrive in time: its headers (or body) came too slowly.',
};

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout' };

/** A whole HTTP answer as raw bytes, for a connection the server has no response object for. */
function rawAnswer(status: number, error: string): string {
  const body = JSON.stringify({ error });
  return [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Access-Control-Allow-Origin: *',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The 400 of a request the protocol itself makes unreadable: HTTP/1.1 without `Host`. */
export function protocolRefusal(req: http.IncomingMessage): SimResponse | undefined {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    return { status: 400, body: { error: 'An HTTP/1.1 request must carry a Host header.' } };
  }
  return undefined;
}

/** Timeouts of the server, shorter in tests (production: Node's defaults). */
export interface ProtocolTimeouts {
  /** How long the headers of a request may take (Node's default 60 s). */
  headersMs?: number;
  /** How often Node checks for requests past their time (Node's default 30 s). */
  checkIntervalMs?: number;
}

/**
 * An HTTP server for the mock: `listener` serves what reaches it; the edges above are answered
 * here, in the `Error` shape.
 */
export function createMockServer(listener: http.RequestListener, timeouts: ProtocolTimeouts = {}): http.Server {
  const server = http.createServer(
    {
      // Answered by the listener (protocolRefusal), in the Error shape, instead of Node's bare 400.
      requireHostHeader: false,
      IncomingMessage: FollowedMessage,
      ...(timeouts.checkIntervalMs !== undefined ? { connectionsCheckingInterval: timeouts.checkIntervalMs } : {}),
      ...(timeouts.headersMs !== undefined ? { headersTimeout: timeouts.headersMs, requestTimeout: Math.max(timeouts.headersMs + 1, 300_000) } : {}),
    },
    listener,
  );
  answerClientErrors(server);
  followDeclaredSizes(server, MAX_BODY_BYTES);
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = JSON.stringify({ error: `The mock does not meet Expect: ${String(req.headers.expect).slice(0, 100)}; send the request without it (or with Expect: 100-continue).` });
    res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Access-Control-Allow-Origin': '*', Connection: 'close' });
    res.end(body);
  });
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(rawAnswer(400, 'The mock is not a proxy: CONNECT is not an operation of this API.'));
  });
  return server;
}

/** Answers protocol errors of `server` with the documented 400 or 408 (or closes a connection that cannot take one). */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // 408 for a request too slow, else the documented 400.
    const { code } = error;
    const answer = rawAnswer(code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400, REASONS[code ?? ''] ?? `The request is not valid HTTP${code ? ` (${code})` : ''}.`);
    // A request pipelined before the bad one is still being answered: its answer goes first.
    // (When the request in flight is itself the bad one, its body broke: it is answered now.)
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (inFlight && !inFlight.writableFinished && inFlight.req.complete) {
      inFlight.once('finish', () => socket.writable && socket.end(answer));
      inFlight.once('close', () => socket.writable && socket.end(answer));
      return;
    }
    socket.end(answer);
  });
}
