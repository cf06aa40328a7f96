// Streamable HTTP (the MCP transport for a server a client reaches by URL), on loopback only and
// for this machine's programs that hold the token: the SDK's transport in stateless mode (a
// server per request, all sharing one service), behind the checks every control port of this
// package makes (the guide: "control ports are closed to web pages"): a Host that is a loopback
// name (DNS rebinding), no Origin (a web page always sends one), `Authorization: Bearer <token>`
// (printed at start), the one path `/mcp`. Each refusal is one JSON-RPC error; the key is never in one.
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { bearerToken, isLoopbackHost, sameToken } from '../mock/control-access.js';
import { listenHttp, type HttpDoor } from '../mock/http-transport.js';
import { createMcpServer } from './server.js';
import type { McpService } from './service.js';

export const MCP_PATH = '/mcp';
/** The largest request body read (the SDK transport answers 413 past it). */
export const MAX_REQUEST_BYTES = 1024 * 1024;

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string;
  version: string;
}

export type RunningHttpServer = Pick<HttpDoor, 'url' | 'close'>;

function refuse(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Why a request is refused before it reaches MCP, or undefined. */
export function refusal(req: http.IncomingMessage, token: string): { status: number; message: string } | undefined {
  const host = `http://${req.headers.host ?? ''}`;
  if (!URL.canParse(host)) return { status: 403, message: 'The Host header is not one this server answers.' };
  if (!req.headers.host || !isLoopbackHost(new URL(host).hostname)) return { status: 403, message: 'This server answers only this machine (Host 127.0.0.1, localhost or [::1]).' };
  if (req.headers.origin !== undefined) return { status: 403, message: 'Requests from web pages (with an Origin) are refused.' };
  if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) return { status: 404, message: `The MCP endpoint is ${MCP_PATH}.` };
  if (!sameToken(bearerToken(req.headers.authorization), token)) return { status: 401, message: 'Authorization: Bearer <token> is needed: the token numbers-api mcp printed when it started.' };
  if (req.method !== 'POST') return { status: 405, message: 'This stateless server takes POST only.' };
  return undefined;
}

export async function startHttpServer(service: McpService, options: HttpServerOptions): Promise<RunningHttpServer> {
  if (!isLoopbackHost(options.host)) throw new Error(`--host must be a loopback address (127.0.0.1, localhost or ::1), not ${options.host}`);
  const server = http.createServer((req, res) => {
    const refused = refusal(req, options.token);
    if (refused) {
      req.resume();
      refuse(res, refused.status, refused.message);
      return;
    }
    const mcp = createMcpServer(service, options.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: MAX_REQUEST_BYTES });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    mcp
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) refuse(res, 500, 'The request could not be handled.');
      });
  });
  const door = await listenHttp(server, options.host, options.port);
  return { url: `${door.url}${MCP_PATH}`, close: door.close };
}
