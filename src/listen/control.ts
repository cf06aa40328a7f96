// Targets added, listed and removed while the agent runs (part 6, fan-out rule 5), through a
// small control API on a loopback port (127.0.0.1 only, never another interface):
//   GET    /targets                  → 200 {"targets": [url, ...]}
//   POST   /targets  {"url": "..."}  → 201 {"targets": [...]}; 400 {"error"} for a URL rule 1 refuses
//   DELETE /targets  {"url": "..."}  → 200 {"targets": [...]}; 404 {"error"} when it is not a target
// (`?url=` works in place of the body for DELETE.) `numbers-api listen targets ...` calls it.
//
// The port is this machine's, and only its programs' (issue 27, item 7): every request carries the
// control token the agent printed at start (`Authorization: Bearer <token>`); its `Host` names
// 127.0.0.1 or localhost (a name rebound to this machine is refused); a request from a page
// (`Origin`) is refused, and no answer carries CORS headers; a body is JSON
// (`Content-Type: application/json`), an object with a string `url`, of at most MAX_BODY_BYTES.
// Anything else is answered 400, 401 or 403 with `{"error"}`; nothing answers 500.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { TargetUrlError } from '../delivery/loopback-url.js';
import { bearerToken, newControlToken, sameToken } from '../mock/control-access.js';
import { listenHttp, type HttpDoor } from '../mock/http-transport.js';
import type { ListenAgent } from './agent.js';

/** A request body larger than this is refused (a target URL is short). */
export const MAX_BODY_BYTES = 16 * 1024;

export interface ControlServer extends HttpDoor {
  /** The token every request needs, as `Authorization: Bearer <token>`. */
  token: string;
}

/** A body the targets port cannot use: answered 400 with its message. */
class BadRequest extends Error {}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => (size > MAX_BODY_BYTES ? reject(new BadRequest(`The body is larger than the ${MAX_BODY_BYTES} bytes the targets port reads.`)) : resolve(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
}

/** The target a request names: `{"url": "..."}` as JSON, or `?url=` on DELETE. */
function givenUrl(request: IncomingMessage, url: URL, text: string): string | undefined {
  if (text.trim() === '') return request.method === 'DELETE' ? (url.searchParams.get('url') ?? undefined) : undefined;
  if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) throw new BadRequest('Send the body as JSON (Content-Type: application/json).');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BadRequest(`The body is not JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as { url?: unknown }).url !== 'string') {
    throw new BadRequest('The body must be an object with a string url: {"url": "http://127.0.0.1:3000/hooks"}.');
  }
  return (parsed as { url: string }).url;
}

/** `token`: the one every request needs (a fresh random one unless given). */
export async function startControlServer(agent: ListenAgent, port = 0, log: (line: string) => void = () => undefined, token = newControlToken()): Promise<ControlServer> {
  let bound = 0;
  const server = createServer(async (request, response) => {
    const refuse = (status: number, error: string): void => answer(response, status, { error });
    try {
      const host = (request.headers.host ?? '').toLowerCase();
      if (host !== `127.0.0.1:${bound}` && host !== `localhost:${bound}`) return refuse(403, 'The targets port answers only to 127.0.0.1 and localhost.');
      if (request.headers.origin !== undefined) return refuse(403, 'The targets port is not for web pages.');
      if (!sameToken(bearerToken(request.headers.authorization), token)) return refuse(401, 'The targets port needs the token the agent printed at start, as Authorization: Bearer <token>.');
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/targets') return refuse(404, 'Use /targets (GET, POST or DELETE).');
      if (request.method === 'GET') return answer(response, 200, { targets: agent.targets() });
      if (request.method !== 'POST' && request.method !== 'DELETE') return refuse(405, 'Use GET, POST or DELETE.');
      const given = givenUrl(request, url, await readBody(request));
      if (!given) return refuse(400, 'Give the target as {"url": "http://127.0.0.1:3000/hooks"}.');
      if (request.method === 'POST') {
        const added = agent.addTarget(given);
        log(`target added: ${added.href}`);
        return answer(response, 201, { targets: agent.targets() });
      }
      if (!agent.removeTarget(given)) return answer(response, 404, { error: 'That URL is not a target.', targets: agent.targets() });
      log(`target removed: ${JSON.stringify(given).slice(1, -1).slice(0, 300)}`);
      return answer(response, 200, { targets: agent.targets() });
    } catch (error) {
      return refuse(400, error instanceof BadRequest || error instanceof TargetUrlError ? error.message : 'The targets port could not read this request.');
    } finally {
      // A refused request's body is not read: the connection goes with the answer.
      if (!request.complete) response.once('finish', () => request.destroy());
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  const door = await listenHttp(server, '127.0.0.1', port);
  bound = door.port;
  return { ...door, token };
}
