// A recording proxy for the conformance suite's own tests: node:http on 127.0.0.1 (port 0) in
// front of any deployment, forwarding every request unchanged and keeping what was sent (method,
// path and query, headers, body), so a test can prove what each level sends, whoever answers.
// `hide` makes the mock behind it look like a deployment: those paths (`/__mock/`) answer the
// contract's 404 Error without reaching it.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body?: unknown;
  /** The upstream's answer: its status, and its body when JSON. */
  status?: number;
  answer?: unknown;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingProxy(upstream: string, options: { hide?: RegExp } = {}): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      let body: unknown;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const recorded: RecordedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
      requests.push(recorded);
      if (options.hide?.test(req.url ?? '')) {
        recorded.status = 404;
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
        return;
      }
      const forward = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (answer) => {
          recorded.status = answer.statusCode;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            try {
              recorded.answer = JSON.parse(Buffer.concat(parts).toString('utf8'));
            } catch {
              recorded.answer = undefined;
            }
          });
          answer.pipe(res);
        },
      );
      forward.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
      });
      forward.end(raw);
    });
  });
  // As the mock and common front ends keep an idle connection (65 s), not Node's 5 s: a client that
  // reuses a connection the server is closing that very moment reads ECONNRESET, which a loaded
  // machine makes likely and no deployment of this kind shows.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
