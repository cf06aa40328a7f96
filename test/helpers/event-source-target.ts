// A local handler for the event source tests: a real HTTP server on 127.0.0.1 that records every
// request (raw body bytes included) and answers by a plan: a status per attempt, or never.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CliIo } from '../../src/cli/io.js';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Milliseconds since the server started. */
  at: number;
}

/** A status to answer with, `'hang'` to never answer, or a status after a delay. */
export type Answer = number | 'hang' | { status: number; afterMs: number };

export interface Target {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

/** `answers[i]` answers the i-th request; after the list, `fallback`. */
export async function startTarget(answers: Answer[], fallback: Answer = 200): Promise<Target> {
  const received: Received[] = [];
  const started = Date.now();
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = received.length;
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks), at: Date.now() - started });
      const answer = answers[index] ?? fallback;
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      const { status, afterMs } = typeof answer === 'number' ? { status: answer, afterMs: 0 } : answer;
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status)), afterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/numbers`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Captures a CLI's output instead of writing it to the terminal. */
export function captureIo(): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    out: () => out,
    err: () => err,
  };
}
