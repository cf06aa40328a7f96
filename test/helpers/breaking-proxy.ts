// Purpose-built broken deployments for the conformance suite's own tests: node:http on 127.0.0.1
// (port 0) in front of the real mock, forwarding every request and answer, except where a rule
// added by a test drops, renames, mismatches or misreports what the mock answered. Each rule names
// the request it applies to (method and path pattern) and rewrites the answer as data; everything
// else (GET /__mock/about included, so the suite still knows it talks to the mock) passes as it came.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { startMock } from '../../src/mock/start-mock.js';
import { listenLoopback, readWhole } from './loopback-server.js';

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when the body is not JSON. */
  body: unknown;
}

export interface ProxiedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface BreakRule {
  /** `GET /api/v1/numbers`; the path part is a regular expression matched against the path without the query. */
  on: string;
  /** The broken answer: a changed copy of the mock's, or undefined to leave it. */
  answer?(answer: ProxiedAnswer, request: ProxiedRequest): ProxiedAnswer | undefined;
  /**
   * What reaches the mock instead of the request (a deployment that drops a header or a filter
   * before acting on it): a changed copy of its headers and body, or undefined to leave it.
   */
  request?(request: ProxiedRequest): Pick<ProxiedRequest, 'headers' | 'body'> | undefined;
}

export interface BreakingProxy {
  url: string;
  rules: BreakRule[];
  /** Requests that went through, in order (for a test that counts what was sent). */
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

function matches(rule: BreakRule, method: string, path: string): boolean {
  const [ruleMethod, pattern] = rule.on.split(' ', 2) as [string, string];
  return ruleMethod === method && new RegExp(`^${pattern}$`).test(path);
}

export async function startBreakingProxy(upstream: string): Promise<BreakingProxy> {
  const target = new URL(upstream);
  const rules: BreakRule[] = [];
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readWhole(req).then((raw) => {
      let requestBody: unknown;
      try {
        requestBody = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        requestBody = raw.toString('utf8');
      }
      const seen: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: requestBody };
      requests.push(seen);
      let forwarded: Pick<ProxiedRequest, 'headers' | 'body'> | undefined;
      for (const rule of rules) {
        if (rule.request && matches(rule, seen.method, seen.url.split('?')[0] ?? '/')) forwarded = rule.request(structuredClone({ ...seen, ...forwarded })) ?? forwarded;
      }
      const sentBody = forwarded ? Buffer.from(forwarded.body === undefined ? '' : JSON.stringify(forwarded.body)) : raw;
      const sentHeaders = { ...(forwarded?.headers ?? req.headers), host: target.host, ...(forwarded ? { 'content-length': String(sentBody.length) } : {}) };
      const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: sentHeaders }, (answer) => {
        void readWhole(answer).then((whole) => {
          const text = whole.toString('utf8');
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') headers[name] = value;
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          let out: ProxiedAnswer = { status: answer.statusCode ?? 502, headers, body };
          const path = seen.url.split('?')[0] ?? '/';
          let changed = false;
          for (const rule of rules) {
            if (!rule.answer || !matches(rule, seen.method, path)) continue;
            const next = rule.answer(structuredClone(out), seen);
            if (next) {
              out = next;
              changed = true;
            }
          }
          const written = changed ? (out.body === undefined ? '' : JSON.stringify(out.body)) : text;
          // A rule that answers `content-encoding: gzip` has its body sent gzip-encoded.
          const payload = changed && out.headers['content-encoding'] === 'gzip' ? gzipSync(written) : Buffer.from(written);
          const sent = { ...out.headers };
          delete sent['content-length'];
          delete sent['transfer-encoding'];
          res.writeHead(out.status, { ...sent, 'content-length': String(payload.length) });
          res.end(payload);
        });
      });
      forward.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
      });
      forward.end(sentBody);
    });
  });
  return { ...(await listenLoopback(server)), rules, requests };
}

/** Every object in `value` (records of a list, the answer itself) with `from` renamed `to`. */
export function renameField(value: unknown, from: string, to: string): unknown {
  const rename = (record: unknown): unknown => {
    if (!record || typeof record !== 'object' || Array.isArray(record) || !(from in record)) return record;
    const entries = Object.entries(record).map(([key, v]) => [key === from ? to : key, v] as const);
    return Object.fromEntries(entries);
  };
  return Array.isArray(value) ? value.map(rename) : rename(value);
}

/** Every object in `value` (records of a list, the answer itself) without `field`. */
export function dropField(value: unknown, field: string): unknown {
  const drop = (record: unknown): unknown => {
    if (!record || typeof record !== 'object' || Array.isArray(record)) return record;
    const { [field]: _gone, ...rest } = record as Record<string, unknown>;
    return rest;
  };
  return Array.isArray(value) ? value.map(drop) : drop(value);
}

/** A deployment hides the mock's control surface: GET /__mock/... answers 404. */
export const HIDE_MOCK: BreakRule = { on: 'GET /__mock/.*', answer: () => ({ status: 404, headers: { 'content-type': 'application/json' }, body: { error: 'Not found' } }) };

/**
 * The real mock (strict keys, `accounts` seeded) behind a breaking proxy that hides its control
 * surface, so the suite sees a deployment; `reset` drops the rules a test added, `close` stops both.
 */
export async function startMockAsDeployment(accounts: unknown[]): Promise<BreakingProxy & { reset(): void }> {
  const mock = await startMock({ port: 0, strictKeys: true, seed: { accounts: accounts as never[] } });
  await mock.ready;
  const proxy = await startBreakingProxy(mock.url);
  proxy.rules.push(HIDE_MOCK);
  return {
    ...proxy,
    reset: () => void proxy.rules.splice(0, proxy.rules.length, HIDE_MOCK),
    close: async () => (await proxy.close(), await mock.close()),
  };
}
