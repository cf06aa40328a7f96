// What stands between the validating proxy (validating-proxy.ts) and the deployment (issue 27,
// item 9). Prism's proxy forwarded with node-fetch, which follows redirects and keeps
// `Authorization` on a redirect to the same host on another port or scheme, reads an answer whole
// (a 1 GiB body took 11.9 GB of RSS), and answered 500 `problem+json` when a JSON answer did not
// parse. So the proxy forwards to this guard on loopback, and the guard to the configured origin
// only:
//
// - a redirect is never followed: its status comes back without `Location` (that is moved to
//   `X-Upstream-Location`), so nothing, and no key, goes to another origin; the proxy reports the
//   undocumented status as a violation;
// - an answer is read up to MAX_UPSTREAM_BYTES; a larger one is answered 502 in the `Error` shape
//   (a violation too), and its connection closed;
// - a body declared JSON that does not parse (not JSON, or cut short) is passed on as it came with
//   `Content-Type: text/plain` (and `X-Upstream-Content-Type`), which the proxy reports as a
//   violation instead of failing with a 500; a compressed answer is passed on decompressed.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** The largest answer of the deployment the proxy passes on. */
export const MAX_UPSTREAM_BYTES = 32 * 1024 * 1024;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);
const DECODERS: Record<string, (buffer: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

export interface ProxyGuard {
  /** The guard's base URL, with the upstream's path: what Prism is given as its upstream. */
  url: string;
  close(): Promise<void>;
}

const isJsonType = (type: string | undefined): boolean => type !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);

function errorAnswer(res: http.ServerResponse, status: number, error: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/** Starts the guard on a free loopback port, in front of `upstream` (a base URL, path included). */
export async function startProxyGuard(upstream: URL, maxBytes = MAX_UPSTREAM_BYTES): Promise<ProxyGuard> {
  const transport = upstream.protocol === 'https:' ? https : http;
  const server = http.createServer((req, res) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    // Only the configured origin is ever asked, at the path Prism asked for.
    const target = new URL(req.url ?? '/', upstream.origin);
    const forward = transport.request(target, { method: req.method, headers, agent: false }, (answer) => {
      const status = answer.statusCode ?? 502;
      const declared = Number(answer.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        answer.destroy();
        return errorAnswer(res, 502, `The deployment's answer declares ${declared} bytes, more than the ${maxBytes} the proxy passes on.`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          answer.destroy();
          errorAnswer(res, 502, `The deployment's answer is larger than the ${maxBytes} bytes the proxy passes on; it was cut off.`);
          return;
        }
        chunks.push(chunk);
      });
      answer.on('error', () => errorAnswer(res, 502, 'The deployment closed its answer before it was complete.'));
      answer.on('end', async () => {
        if (res.headersSent || size > maxBytes) return;
        let body: Buffer = Buffer.concat(chunks);
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        const encoding = String(answer.headers['content-encoding'] ?? '').toLowerCase();
        if (DECODERS[encoding]) {
          try {
            body = await DECODERS[encoding]!(body);
            if (body.length > maxBytes) return errorAnswer(res, 502, `The deployment's answer is larger than the ${maxBytes} bytes the proxy passes on, once decompressed.`);
            delete out['content-encoding'];
          } catch {
            return errorAnswer(res, 502, `The deployment's answer says ${encoding} but does not decompress.`);
          }
        }
        // Never followed, so no request (and no key) goes anywhere but the configured origin.
        if (status >= 300 && status < 400 && out.location !== undefined) {
          out['x-upstream-location'] = out.location;
          delete out.location;
        }
        if (isJsonType(String(out['content-type'] ?? '')) && body.length > 0) {
          try {
            JSON.parse(body.toString('utf8'));
          } catch {
            out['x-upstream-content-type'] = out['content-type'];
            out['content-type'] = 'text/plain; charset=utf-8';
          }
        }
        out['content-length'] = String(body.length);
        res.writeHead(status, answer.statusMessage, out);
        res.end(req.method === 'HEAD' ? undefined : body);
      });
    });
    forward.on('error', (error: NodeJS.ErrnoException) => errorAnswer(res, 502, `The deployment did not answer: ${error.code ?? error.message}.`));
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
