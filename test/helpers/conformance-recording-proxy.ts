// A recording proxy for the conformance suite's own tests: node:http on 127.0.0.1 (port 0) in
// front of any deployment, forwarding every request unchanged and keeping what was sent (method,
// path and query, headers, body), so a test can prove what each level sends, whoever answers.
// `hide` makes the mock behind it look like a deployment: those paths (`/__mock/`) answer the
// contract's 404 Error without reaching it.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenLoopback, readWhole } from './loopback-server.js';

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
    void readWhole(req).then((raw) => {
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
          void readWhole(answer).then((whole) => {
            try {
              recorded.answer = JSON.parse(whole.toString('utf8'));
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
  return { ...(await listenLoopback(server)), requests };
}
