// The real stateful mock (node:http before the core pipeline, in this process) on a free loopback port,
// and a small JSON client for it. Every test takes its own key (`newKey`), so its account starts
// from the seed whatever other tests did.
import { randomUUID } from 'node:crypto';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll } from 'vitest';
import { createHandlers, type MockHandlers } from '../../src/msw/index.js';
import { startMock, type MockOptions, type RunningMock } from '../../src/mock/start-mock.js';
import type { Simulator } from '../../src/simulator/simulator.js';

type SetupServer = ReturnType<typeof setupServer>;

export interface StatefulMock {
  url: string;
  mock: RunningMock;
  simulator: Simulator;
  close(): Promise<void>;
}

export async function startStatefulMock(options: MockOptions = {}): Promise<StatefulMock> {
  const mock = await startMock({ host: '127.0.0.1', port: 0, ...options });
  try {
    await mock.ready;
  } catch (error) {
    await mock.close();
    throw error;
  }
  return { url: mock.url, mock, simulator: mock.simulator!, close: () => mock.close() };
}

/** A key no other test uses: its account is created from the seed on first use. */
export function newKey(label = 'test'): string {
  return `sk_live_${label}_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** `call('POST', '/api/v1/messages', body)` with `key` (null: no Authorization header). */
export function client(baseUrl: string, key: string | null) {
  return async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers: {
        ...(key ? { Authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

/** The base URL the MSW handlers answer in these tests (the description's placeholder server). */
export const MSW_BASE = 'https://api.example.com';

export interface BothTransports {
  /** The real HTTP mock on loopback. */
  readonly http: StatefulMock;
  /** The MSW handlers, listening under msw/node. */
  readonly msw: MockHandlers;
  readonly server: SetupServer;
  /** Each transport by name with its base URL, for `describe.each`. */
  readonly bases: ReadonlyArray<readonly [name: string, base: () => string]>;
}

/**
 * Both transports of the stateful mock for one test file, started in `beforeAll` and stopped in
 * `afterAll`, each checking every answer it composes against the contract (strict).
 */
export function useBothTransports(): BothTransports {
  let http: StatefulMock | undefined;
  let msw: MockHandlers | undefined;
  let server: SetupServer | undefined;
  beforeAll(async () => {
    http = await startStatefulMock();
    msw = createHandlers({ validateResponses: 'strict' });
    server = setupServer(...msw.handlers);
    server.listen({ onUnhandledRequest: 'bypass' });
  });
  afterAll(async () => {
    server?.close();
    msw?.control.stop();
    await http?.close();
  });
  return {
    get http() {
      return http!;
    },
    get msw() {
      return msw!;
    },
    get server() {
      return server!;
    },
    bases: [
      ['HTTP mock', () => http!.url],
      ['MSW handlers', () => MSW_BASE],
    ],
  };
}
