// A scripted HTTP server on loopback for the client tests: each request is recorded (method,
// path, headers, body) and answered by the next step of a script, so a test says "503, then 503,
// then 200" and then reads back exactly what the client sent.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { listenLoopback, readWhole } from './loopback-server.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One scripted answer: a status with a JSON (or text) body and headers, or a dropped connection. */
export type Step =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string>; /** Answer this much later. */ delayMs?: number }
  | { drop: true };

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Answers for the coming requests, in order; when they run out, the fallback answers. */
  script(...steps: Step[]): void;
  close(): Promise<void>;
}

export async function startScriptedServer(fallback: Step = { status: 200, json: {} }): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let steps: Step[] = [];
  const server: Server = createServer((req, res) => {
    void readWhole(req).then((raw) => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw.toString('utf8') });
      const step = steps.shift() ?? fallback;
      if ('drop' in step) {
        // The request arrived but no answer ever will: the ambiguous failure of part 7.5.
        req.socket.destroy();
        return;
      }
      const body = step.text ?? (step.json === undefined ? '' : JSON.stringify(step.json));
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(step.status, {
          ...(step.text === undefined && step.json !== undefined ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'text/plain' }),
          ...step.headers,
        });
        res.end(body);
      };
      if (step.delayMs) setTimeout(answer, step.delayMs).unref();
      else answer();
    });
  });
  return {
    ...(await listenLoopback(server)),
    requests,
    script: (...next) => {
      steps = next;
    },
  };
}

/** One scripted server for a test file, its script and the requests it recorded cleared before each test. */
export function useScriptedServer(): ScriptedServer {
  let server: ScriptedServer | undefined;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    server!.requests.length = 0;
    server!.script();
  });
  return {
    get url() {
      return server!.url;
    },
    get requests() {
      return server!.requests;
    },
    script: (...steps) => server!.script(...steps),
    close: () => server!.close(),
  };
}

/** A sleep that waits for nothing and remembers what it was asked to wait. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}
