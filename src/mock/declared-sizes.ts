// What each request declares of its body's size, followed beside Node's parser, which never tells
// the server a chunk's size and takes any below 2^64: a chunk of `FFFFFFFFFFFFFFFF` was held until
// Node's request timeout (issue 39). Each connection's bytes are read here after the parser read
// them, with the framing it found in each request's headers: a header block ends at the first
// CR LF CR LF (the parser requires CR LF), a Content-Length body is skipped, each chunk-size line of
// a chunked body read. Once a request declares more than `limit` (its Content-Length, or its chunks
// so far), its body ends there, refused, and the server answers it at once, in its turn among
// pipelined requests. An upgrade or CONNECT hands the connection over: it is followed no further.
import http from 'node:http';
import type { Socket } from 'node:net';

const CRLFCRLF = Buffer.from('\r\n\r\n');
const NONE = Buffer.alloc(0);

/** The requests whose headers the parser has read, per connection, in order, not yet framed here. */
const parsed = new WeakMap<Socket, FollowedMessage[]>();

/** Every request the parser makes, whatever event the server gives it as (request, checkExpectation, upgrade). */
export class FollowedMessage extends http.IncomingMessage {
  /** It declared more than the limit: its body ended there, and what follows is dropped. */
  bodyRefused = false;
  constructor(socket: Socket) {
    super(socket);
    parsed.get(socket)?.push(this);
  }
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    return this.bodyRefused || super.push(chunk, encoding);
  }
  refuseBody(): void {
    this.bodyRefused = true;
    // Complete as far as the server reads it: an incomplete message that ends takes its connection down (no answer).
    this.complete = true;
    super.push(null);
  }
}

/** How long a connection closed over a refused body still reads what its client sends. */
export const LINGER_MS = 5_000;

/**
 * The answer to a refused body is sent while the client is still sending it; closing at once would
 * make the client's system reset the connection when more bytes arrive, and a reset client loses
 * the answer it has not read yet (undici: "fetch failed", seen under load). So the connection
 * closes as nginx's lingering close does: this side ends (FIN) once the answer is written, and what
 * the client still sends is read and dropped until it ends too, for at most LINGER_MS.
 */
function lingerOnClose(socket: Socket): void {
  // The server closes a `Connection: close` answer's socket with destroySoon once it is written.
  socket.destroySoon = function lingering(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS).unref();
    this.once('end', () => this.destroy());
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}

/** Follows the declared sizes on every connection of `server` (made with `IncomingMessage: FollowedMessage`). */
export function followDeclaredSizes(server: http.Server, limit: number): void {
  server.on('connection', (socket: Socket) => {
    const requests: FollowedMessage[] = [];
    parsed.set(socket, requests);
    let current: FollowedMessage | undefined;
    let following = true;
    let at: 'start' | 'head' | 'body' | 'chunk' | 'size' | 'trailer' = 'start';
    /** The last bytes of the headers so far (head); bytes still to skip (body, chunk); the line so far (size, trailer). */
    let carry = NONE;
    let left = 0;
    let line = '';
    let declared = 0;
    const stop = (): void => {
      following = false;
      socket.off('data', follow);
      parsed.delete(socket);
    };
    const headersEnd = (): void => {
      current = requests.shift();
      if (!current || current.method === 'CONNECT' || current.headers.upgrade !== undefined) return stop();
      line = '';
      declared = 0;
      left = Number(current.headers['content-length'] ?? 0);
      if (left > limit) refuse();
      else at = /\bchunked\s*$/i.test(current.headers['transfer-encoding'] ?? '') ? 'size' : left > 0 ? 'body' : 'start';
    };
    const refuse = (): void => {
      stop();
      lingerOnClose(socket);
      current!.refuseBody();
    };
    const sizeLine = (): void => {
      const hex = /^0*([0-9a-f]*)/i.exec(line)![1]!;
      declared += hex.length > 8 ? Infinity : parseInt(hex || '0', 16);
      line = '';
      if (declared > limit) refuse();
      else if (hex === '') at = 'trailer';
      else {
        at = 'chunk';
        left = parseInt(hex, 16) + 2; // and its CR LF
      }
    };
    // Added after the server's own listener: the parser has read each buffer (and made its requests) before this does.
    function follow(bytes: Buffer): void {
      for (let i = 0; following && i < bytes.length; ) {
        if (at === 'start') {
          // Empty lines before a request line are skipped, as the parser skips them.
          if (bytes[i] === 13 || bytes[i] === 10) i++;
          else at = 'head';
        } else if (at === 'head') {
          // A CR LF CR LF may begin in the last buffer: its last three bytes are looked at again.
          const rest = carry.length > 0 ? Buffer.concat([carry, bytes.subarray(i)]) : bytes.subarray(i);
          const end = rest.indexOf(CRLFCRLF);
          i = end < 0 ? bytes.length : i + end + 4 - carry.length;
          carry = end < 0 ? Buffer.from(rest.subarray(-3)) : NONE;
          if (end >= 0) headersEnd();
        } else if (at === 'body' || at === 'chunk') {
          const skipped = Math.min(left, bytes.length - i);
          i += skipped;
          left -= skipped;
          if (left === 0) at = at === 'body' ? 'start' : 'size';
        } else {
          const byte = bytes[i++]!;
          if (byte === 10) {
            if (at === 'size') sizeLine();
            else if (line === '') at = 'start';
            else line = '';
          } else if (byte !== 13 && line.length < 32) {
            // Leading zeros of a chunk size are dropped as they come, so a long run of them is read right.
            line = line === '0' && at === 'size' ? String.fromCharCode(byte) : line + String.fromCharCode(byte);
          }
        }
      }
    }
    socket.on('data', follow);
  });
}
