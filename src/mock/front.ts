// The mock's front: the smallest HTTP layer of our own before Prism. It does one thing Prism cannot
// (part 5.1: a key must begin `sk_live_`; Prism accepts any bearer token) and leaves everything
// else (routing, validation, examples, `Prefer`, CORS, the 401 body) to Prism:
//
// - On an operation that needs a key, a request whose `Authorization` is not `Bearer sk_live_…` is
//   passed on WITHOUT that header. Prism then answers exactly as for a missing key: 401 with the
//   operation's documented example and its usual CORS headers, so a browser can read it.
// - Everything else is passed on unchanged.
// - Requests that arrive before Prism is up wait for it instead of failing.
// - One quiet line per request, written once the response is finished.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAcceptedAuthorization } from './api-key.js';

export interface FrontOptions {
  host: string;
  port: number;
  /** Tells whether `METHOD /path` is an operation that needs a key. */
  isSecured: (method: string, pathname: string) => boolean;
  /** Resolves with Prism's port once Prism answers; requests wait for it. */
  upstreamPort: Promise<number>;
  /** Receives one line per finished request; omit for no request log. */
  log?: (line: string) => void;
}

export interface Front {
  server: http.Server;
  /** The port the front listens on (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

function forwardableHeaders(raw: string[], drop?: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || name === drop) continue;
    kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

export async function startFront(options: FrontOptions): Promise<Front> {
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const pathname = url.split('?', 1)[0]!;
    const keyRefused = options.isSecured(method, pathname) && !isAcceptedAuthorization(req.headers.authorization);

    if (options.log) {
      const log = options.log;
      res.once('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const note = keyRefused && req.headers.authorization !== undefined ? ' (key does not begin sk_live_)' : '';
        log(`${clock()} ${method} ${url} ${res.statusCode} ${ms.toFixed(1)} ms${note}`);
      });
    }

    options.upstreamPort.then(
      (port) => {
        const upstream = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path: url,
            headers: forwardableHeaders(req.rawHeaders, keyRefused ? 'authorization' : undefined),
            agent,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardableHeaders(answer.rawHeaders));
            answer.pipe(res);
          },
        );
        upstream.on('error', (error) => {
          if (!res.headersSent) {
            res.writeHead(502, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: `The mock's Prism process did not answer: ${error.message}` }));
          } else {
            res.destroy(error);
          }
        });
        // A client that goes away takes its upstream request with it.
        res.on('close', () => {
          if (!res.writableFinished) upstream.destroy();
        });
        req.pipe(upstream);
      },
      (error: Error) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `The mock's Prism process is not running: ${error.message}` }));
      },
    );
  });
  // Keep idle client connections a little longer than common HTTP clients' own idle timeout.
  server.keepAliveTimeout = 65_000;

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
