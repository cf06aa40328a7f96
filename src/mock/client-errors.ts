// Protocol errors (Node's `clientError`: a method HTTP does not know, a malformed chunked body,
// headers over Node's 16 KB, a request line that is not HTTP) are answered, where the connection
// still allows an answer, with the documented 400 in the one `Error` shape of part 7, instead of
// Node's bare 400 or 431 with no body. Both the stateful mock and the example server do this.
import type http from 'node:http';
import type { Duplex } from 'node:stream';

const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request headers are larger than the mock reads (16 KB).',
  HPE_INVALID_METHOD: 'The request method is not one HTTP defines.',
  HPE_INVALID_CHUNK_SIZE: 'The chunked request body is malformed (a chunk size that is not hexadecimal).',
  HPE_INVALID_HEADER_TOKEN: 'A request header name holds a character HTTP does not allow.',
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not a number.',
};

/** The 400 for a protocol error, as raw HTTP (the server has no response object for it). */
export function clientErrorAnswer(code: string | undefined): string {
  const body = JSON.stringify({ error: REASONS[code ?? ''] ?? `The request is not valid HTTP${code ? ` (${code})` : ''}.` });
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Access-Control-Allow-Origin: *',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answers protocol errors of `server` with the documented 400 (or closes a connection that cannot take one). */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(error.code));
  });
}
