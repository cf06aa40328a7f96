// The stateful mock in-process: MSW request handlers, a thin adapter over the same pipeline as the
// HTTP mock (src/serve/pipeline.ts), for browser apps (setupWorker), Storybook and unit tests
// (setupServer): a Fetch Request becomes a SimRequest, the pipeline answers, the SimResponse
// becomes a Fetch Response. Webhook deliveries become a callback, since a browser has no network to
// deliver them to. Browser-safe: no `node:` import here or below.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { randomIds, systemClock, type IdGenerator, type SimClock } from '../simulator/clock.js';
import { createMockCore } from '../serve/mock-core.js';
import type { SeedFile } from '../simulator/seed.js';
import type { Simulator } from '../simulator/simulator.js';
import type { JsonObject, SimEvent, SimResponse } from '../simulator/types.js';
import { startWebhookFanout } from '../serve/webhook-fanout.js';
import { mockControlDocument, openApiDocument } from './bundle.js';
import { fetchToSimRequest } from './request.js';
import { recordingToArazzo } from '../recording/to-arazzo.js';

export interface CreateHandlersOptions {
  /** Another base URL to answer for, besides the contract's servers (absolute, or a path such as `/backend`). */
  baseUrl?: string | string[];
  /** Your own starting data (the demo seed built from the contract's examples otherwise). */
  seed?: SeedFile;
  /** The simulated clock (default: the machine's time; `control.advanceClock` moves it forward). */
  clock?: SimClock;
  ids?: IdGenerator;
  /** The right email and SMS sign-up code (default: the contract's `signupCode` test value). */
  signupCode?: string;
  /** Accept only keys the sign-up issued or the seed names. */
  strictKeys?: boolean;
  /** Live accounts at most (default 10,000); past it the least recently used is forgotten. */
  maxAccounts?: number;
  /** What one account may hold, in bytes of JSON (default 16 MB); a body that would pass it is refused (400). */
  maxAccountBytes?: number;
  /**
   * Called for each webhook delivery: every event of an account to each of its subscriptions
   * whose `eventTypes` lists the event's type, and a `webhook.ping` to the one subscription pinged,
   * after the request that caused it has been answered. Resolving counts as delivered (a ping then
   * sets the subscription's `lastPingAt`); throwing or rejecting as failed.
   */
  onWebhookDelivery?: (event: SimEvent, subscription: JsonObject) => void | Promise<void>;
  /**
   * Check every answer the simulator composes against the contract: `strict` answers 500 instead
   * of an answer that breaks it (this package's tests run so). Default: `$NUMBERS_API_MOCK_VALIDATE`
   * where there is a `process`, else `off`.
   */
  validateResponses?: 'off' | 'strict';
  /**
   * Record every account's requests as an Arazzo workflow (issue 31; README, "Record and
   * replay"): read them with `recordings()`. Without it, `control.startRecording(key)` records
   * one account. `mockUrl` is the mock at whose address a recording names the two descriptions
   * (default `http://127.0.0.1:4010`, where `npx numbers-api mock` serves them for Respect).
   */
  record?: boolean | { maxSteps?: number; maxBytes?: number; mockUrl?: string };
}

/** An answer of the control surface that is not a success. */
export class MockControlError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`The mock's control surface answered ${status}: ${JSON.stringify(body)}`);
  }
}

/** What the HTTP mock's control surface (`/__mock/...`) does, as functions. */
export interface MockControl {
  /** Back to the seed: every account and key forgotten. */
  reset(): void;
  /** The simulated time and how far it is ahead of the machine's. */
  clock(): { now: string; offsetSeconds: number };
  /** Moves the simulated clock forward, running every step that falls due (deliveries, call progress ...). */
  advanceClock(seconds: number): { now: string; offsetSeconds: number };
  /** Completes a pending checkout of the account `apiKey` opens, as the payment page would. */
  completeCheckout(apiKey: string, request: { clientSecret: string; amount?: number }): unknown;
  /** Sets the credit-wallet balance (US dollars) of the account `apiKey` opens. */
  setWallet(apiKey: string, balance: number): { balance: number };
  /** Records the account `apiKey` opens from now on (`name`: its workflowId; default `recording-<n>`). */
  startRecording(apiKey: string, name?: string): { recording: string; steps: number };
  /** The account's recording so far, an Arazzo 1.0.1 document. */
  recording(apiKey: string): unknown;
  /** Ends the account's recording and gives it. */
  stopRecording(apiKey: string): unknown;
  /** Stops the timers of simulated processes and answers held long polls (call it in `afterAll`). */
  stop(): void;
}

export interface MockHandlers {
  /** Pass to `setupServer(...handlers)` or `setupWorker(...handlers)`. */
  handlers: HttpHandler[];
  control: MockControl;
  /** The simulator core itself (its `state` is plain data). */
  simulator: Simulator;
  /** Every recording kept (all accounts with `record`), each an Arazzo 1.0.1 document, in the order they began. */
  recordings(): Array<{ name: string; document: JsonObject }>;
}

/** The base URLs of the contract's servers, their variables at their defaults. */
export function serverBaseUrls(document: JsonObject): string[] {
  return ((document.servers ?? []) as JsonObject[]).map((server) =>
    String(server.url).replace(/\{([^}]+)\}/g, (_, name: string) => String(server.variables?.[name]?.default ?? '')),
  );
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/** The path of a base URL, absolute or a path (`''` for an origin): what a request's path starts with below it. */
const basePath = (base: string): string => trimSlash(new URL(base, 'http://localhost').pathname);

export function createHandlers(options: CreateHandlersOptions = {}): MockHandlers {
  const clock = options.clock ?? systemClock();
  const record = typeof options.record === 'object' ? options.record : {};
  const { simulator, store, runner, pipeline, recorder } = createMockCore({
    document: openApiDocument,
    controlDocument: mockControlDocument,
    clock,
    ids: options.ids ?? randomIds(clock),
    seed: options.seed,
    strictKeys: options.strictKeys,
    signupCode: options.signupCode,
    maxAccounts: options.maxAccounts,
    maxAccountBytes: options.maxAccountBytes,
    answerCheck: options.validateResponses,
    recording: { all: Boolean(options.record), ...record },
  });

  // Webhook deliveries (part 6): the one fan-out (src/serve/webhook-fanout.ts), its delivery the
  // page's callback (`onWebhookDelivery`): resolving counts as delivered (a ping then sets
  // `lastPingAt`), throwing or rejecting as failed; one attempt each (the page decides about retries).
  const deliver = options.onWebhookDelivery;
  const webhooks = deliver
    ? startWebhookFanout({
        simulator,
        store,
        attempts: 1,
        deliver: ({ event, subscription }) =>
          Promise.resolve()
            .then(() => deliver(event, subscription))
            .then(
              () => ({ delivered: true }),
              (error: unknown) => ({ delivered: false, error: error instanceof Error ? error.message : String(error) }),
            ),
      })
    : undefined;

  function toResponse(response: SimResponse, method: string): Response {
    const headers = new Headers(response.headers);
    if (response.body === undefined || method === 'HEAD') return new HttpResponse(null, { status: response.status, headers });
    if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
    // The text the pipeline wrote when it answered: what this request did, whatever came after.
    return new HttpResponse(response.text ?? JSON.stringify(response.body), { status: response.status, headers });
  }

  /** `below`: the length of the base URL's path, which the request's path starts with. */
  async function answer(request: Request, below: number): Promise<Response> {
    const pathname = new URL(request.url).pathname.slice(below) || '/';
    const sim = await fetchToSimRequest(request, pathname);
    // In this process, with no network between: the caller is the program that made the handlers.
    sim.controlProof = 'process';
    return toResponse(await pipeline.serve(sim, () => request.signal), sim.method);
  }

  const bases = [...new Set([...serverBaseUrls(openApiDocument), ...serverBaseUrls(mockControlDocument), ...[options.baseUrl ?? []].flat()].map(trimSlash))];
  const handlers: HttpHandler[] = [];
  for (const base of bases) {
    const below = basePath(base).length;
    for (const root of ['/api/*', '/__mock/*']) handlers.push(http.all(`${base}${root}`, ({ request }) => answer(request, below)));
  }

  // The facade goes through the pipeline, as a request to `/__mock/...` would (the same steps,
  // synchronously: the control surface lets no time pass).
  const controlCall = (method: string, pathname: string, apiKey?: string, body?: unknown): unknown => {
    const response = pipeline.answer({
      method,
      pathname,
      query: new URLSearchParams(),
      headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body,
      violations: [],
      controlProof: 'process',
    });
    if (response.status >= 300) throw new MockControlError(response.status, response.body);
    return response.body;
  };

  const target = { document: openApiDocument, controlDocument: mockControlDocument, ...(record.mockUrl ? { mockUrl: record.mockUrl } : {}) };
  return {
    handlers,
    simulator,
    recordings: () => recorder.recordings().map((recording) => ({ name: recording.name, document: recordingToArazzo(recording, target) })),
    control: {
      reset: () => void controlCall('POST', '/__mock/reset'),
      clock: () => controlCall('GET', '/__mock/clock') as { now: string; offsetSeconds: number },
      advanceClock: (seconds) => controlCall('POST', '/__mock/clock/advance', undefined, { seconds }) as { now: string; offsetSeconds: number },
      completeCheckout: (apiKey, request) => controlCall('POST', '/__mock/checkout/complete', apiKey, request),
      setWallet: (apiKey, balance) => controlCall('PUT', '/__mock/wallet', apiKey, { balance }) as { balance: number },
      startRecording: (apiKey, name) => controlCall('PUT', '/__mock/recording', apiKey, name === undefined ? {} : { name }) as { recording: string; steps: number },
      recording: (apiKey) => controlCall('GET', '/__mock/recording', apiKey),
      stopRecording: (apiKey) => controlCall('DELETE', '/__mock/recording', apiKey),
      stop: () => {
        runner.stop();
        webhooks?.stop();
      },
    },
  };
}
