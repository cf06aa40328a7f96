// The stateful mock in-process: MSW request handlers over the same simulator core as the HTTP mock
// (src/simulator/), for browser apps (setupWorker), Storybook and unit tests (setupServer). One
// behaviour, two transports: here ajv compiled from the bundle is the contract gate where the HTTP
// mock has Prism, and webhook deliveries become a callback, since a browser has no network to
// deliver them to. Browser-safe: no `node:` import here or below.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { resolveRef } from '../contract/operations.js';
import { isAcceptedAuthorization } from '../contract/api-key.js';
import { systemClock, randomIds, type IdGenerator, type SimClock } from '../simulator/clock.js';
import { controlSurface } from '../simulator/control.js';
import { fieldErrorsResponse, routeNotFound } from '../simulator/respond.js';
import { startRunner, type SimRunner } from '../simulator/runner.js';
import { createSimulator, defaultStatus, type Simulator } from '../simulator/simulator.js';
import type { SeedFile } from '../simulator/seed.js';
import type { AccountState } from '../simulator/state.js';
import type { JsonObject, SimEvent, SimRequest, SimResponse } from '../simulator/types.js';
import { contractValidator, type ContractValidator } from '../simulator/validator.js';
import { recordWebhookDelivery, webhookTargets, type WebhookDeliveryReport } from '../simulator/resources/events.js';
import { mockControlDocument, openApiDocument } from './bundle.js';
import { fetchToSimRequest } from './request.js';
import { gateView, normalizeViolations } from './violations.js';

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
  /** Stops the timers of simulated processes and answers held long polls (call it in `afterAll`). */
  stop(): void;
}

export interface MockHandlers {
  /** Pass to `setupServer(...handlers)` or `setupWorker(...handlers)`. */
  handlers: HttpHandler[];
  control: MockControl;
  /** The simulator core itself (its `state` is plain data). */
  simulator: Simulator;
}

const PREFER_NAMES_ANSWER = /\b(?:code|example)=/;

/** Prism's answer when a request names a status or an example the operation lacks (its NOT_FOUND problem). */
function prismNotFound(detail: string): SimResponse {
  return {
    status: 404,
    body: { type: 'https://stoplight.io/prism/errors#NOT_FOUND', title: 'The server cannot find the requested content', status: 404, detail },
  };
}

/** The base URLs of the contract's servers, their variables at their defaults. */
export function serverBaseUrls(document: JsonObject): string[] {
  return ((document.servers ?? []) as JsonObject[]).map((server) =>
    String(server.url).replace(/\{([^}]+)\}/g, (_, name: string) => String(server.variables?.[name]?.default ?? '')),
  );
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/** The path of a base URL (`''` for an origin): what a request's path starts with below it. */
function basePath(base: string): string {
  if (base.startsWith('/') || base === '') return trimSlash(base);
  try {
    return trimSlash(new URL(base).pathname);
  } catch {
    return '';
  }
}

function processEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name];
}

export function createHandlers(options: CreateHandlersOptions = {}): MockHandlers {
  const document = openApiDocument;
  const clock = options.clock ?? systemClock();
  const simulator = createSimulator({
    document,
    clock,
    ids: options.ids ?? randomIds(clock),
    seed: options.seed,
    options: { strictKeys: options.strictKeys ?? false, ...(options.signupCode ? { signupCode: options.signupCode } : {}) },
  });
  const runner: SimRunner = startRunner(simulator);
  const control = controlSurface(simulator, mockControlDocument);
  const contract = simulator.contract;
  let validator: ContractValidator | undefined;
  const gate = (): ContractValidator => (validator ??= contractValidator(contract));
  const envMode = processEnv('NUMBERS_API_MOCK_VALIDATE');
  const validateMode = options.validateResponses ?? (envMode === 'strict' ? 'strict' : 'off');

  // Webhook deliveries (part 6): the core says where an event goes (`webhookTargets`, asked while
  // it emits); the callback is called after the core is done, and its outcome is recorded on the
  // subscription as the HTTP mock records a real delivery (a ping that succeeds sets `lastPingAt`).
  const deliver = options.onWebhookDelivery;
  if (deliver) {
    simulator.onEvent((event: SimEvent, account: AccountState) => {
      for (const subscription of webhookTargets(account, event)) {
        const accountId = account.id;
        const copy = { event: structuredClone(event), subscription: structuredClone(subscription) };
        // A macrotask: after the request that caused it has been answered (or the step has run).
        setTimeout(() => {
          const report = (outcome: WebhookDeliveryReport['outcome'], detail?: string): void =>
            simulator.withContext((ctx) =>
              recordWebhookDelivery(ctx, accountId, String(subscription.id), { eventId: event.id, eventType: event.type, outcome, attempts: 1, ...(detail ? { detail } : {}) }),
            );
          Promise.resolve()
            .then(() => deliver(copy.event, copy.subscription))
            .then(
              () => report('delivered'),
              (error: unknown) => report('failed', error instanceof Error ? error.message : String(error)),
            );
        }, 0);
      }
    });
  }

  function composedChecked(operationId: string | undefined, response: SimResponse): SimResponse {
    if (validateMode !== 'strict' || !operationId) return response;
    const problems = gate().response(operationId, response);
    if (problems.length === 0) return response;
    return { status: 500, body: { error: `The mock composed a ${response.status} answer to ${operationId} that breaks the contract: ${problems.join('; ')}` } };
  }

  /**
   * A request that names its answer (`Prefer: code=`/`example=`) gets exactly that documented
   * example and touches no state, as the HTTP mock hands such a request to Prism alone. So this
   * answers as Prism's mocker does (prism-http mocker/index.js, negotiator/): a refused key gets
   * the 401 example; a request that breaks the contract gets the first example of its 422 or 400
   * answer (the named one when `code=` names that status); a status or an example name the
   * operation lacks gets Prism's NOT_FOUND problem.
   */
  function preferred(request: SimRequest, prefer: string): SimResponse {
    const matched = contract.match(request.method, request.pathname);
    if (!matched) return routeNotFound(request);
    const { operationId } = matched;
    const operation = contract.operation(operationId);
    const declaredAt = (status: number) => resolveRef<JsonObject | undefined>(document, operation.responses?.[String(status)]);
    if (contract.needsKey(operationId) && !isAcceptedAuthorization(request.headers.authorization)) {
      return { status: 401, body: contract.example(operationId, 401) };
    }
    const code = /\bcode=(\d{3})\b/.exec(prefer)?.[1];
    const name = /\bexample=([^,;\s"]+)/.exec(prefer)?.[1];
    const violations = [...request.violations, ...gate().request(operationId, gateView(request))];
    let status = code ? Number(code) : defaultStatus(operation);
    let example = name;
    if (violations.length > 0) {
      const invalid = [422, 400].find((candidate) => declaredAt(candidate));
      if (invalid === undefined) return fieldErrorsResponse(normalizeViolations(contract, operationId, violations));
      if (status !== invalid) example = undefined;
      status = invalid;
    }
    const declared = declaredAt(status);
    if (!declared) return prismNotFound(`Requested status code ${status} is not defined in the document.`);
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries<JsonObject>(declared.headers ?? {})) {
      const definition = resolveRef<JsonObject>(document, value);
      const schema = resolveRef<JsonObject | undefined>(document, definition.schema);
      const sample = definition.example ?? Object.values<JsonObject>(definition.examples ?? {})[0]?.value ?? schema?.examples?.[0] ?? schema?.example;
      if (sample !== undefined) headers[header] = String(sample);
    }
    if (declared.content?.['application/json'] === undefined) return { status, headers };
    if (example !== undefined && !contract.exampleNames(operationId, status).includes(example)) {
      return prismNotFound(`Response for contentType: application/json and exampleKey: ${example} does not exist.`);
    }
    return { status, headers, body: contract.example(operationId, status, example) };
  }

  function toResponse(response: SimResponse, method: string): Response {
    const headers = new Headers(response.headers);
    if (response.body === undefined || method === 'HEAD') return new HttpResponse(null, { status: response.status, headers });
    return HttpResponse.json(response.body as JsonObject, { status: response.status, headers });
  }

  async function answer(request: Request, base: string): Promise<Response> {
    const url = new URL(request.url);
    const prefix = basePath(base);
    const pathname = url.pathname.slice(prefix.length) || '/';
    const sim = await fetchToSimRequest(request, pathname);

    const controlled = control.handle(sim);
    if (controlled) {
      runner.reschedule();
      return toResponse(controlled, sim.method);
    }
    const prefer = sim.headers.prefer ?? '';
    if (PREFER_NAMES_ANSWER.test(prefer)) return toResponse(preferred(sim, prefer), sim.method);

    const matched = contract.match(sim.method, sim.pathname);
    // The contract gate: what Prism does on the HTTP mock (unless the body is already unreadable).
    if (matched && sim.violations.length === 0) sim.violations.push(...normalizeViolations(contract, matched.operationId, gate().request(matched.operationId, gateView(sim))));
    const response = simulator.handle(sim);
    runner.reschedule();
    const final = await runner.settle(response, request.signal);
    return toResponse(composedChecked(matched?.operationId, final), sim.method);
  }

  const bases = [...new Set([...serverBaseUrls(document), ...serverBaseUrls(mockControlDocument), ...[options.baseUrl ?? []].flat()].map(trimSlash))];
  const handlers: HttpHandler[] = [];
  for (const base of bases) {
    for (const root of ['/api/*', '/__mock/*']) handlers.push(http.all(`${base}${root}`, ({ request }) => answer(request, base)));
  }

  const controlCall = (method: string, pathname: string, apiKey?: string, body?: unknown): unknown => {
    const response = control.handle({
      method,
      pathname,
      query: new URLSearchParams(),
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      body,
      violations: [],
    })!;
    runner.reschedule();
    if (response.status >= 300) throw new MockControlError(response.status, response.body);
    return response.body;
  };

  return {
    handlers,
    simulator,
    control: {
      reset: () => void controlCall('POST', '/__mock/reset'),
      clock: () => controlCall('GET', '/__mock/clock') as { now: string; offsetSeconds: number },
      advanceClock: (seconds) => controlCall('POST', '/__mock/clock/advance', undefined, { seconds }) as { now: string; offsetSeconds: number },
      completeCheckout: (apiKey, request) => controlCall('POST', '/__mock/checkout/complete', apiKey, request),
      setWallet: (apiKey, balance) => controlCall('PUT', '/__mock/wallet', apiKey, { balance }) as { balance: number },
      stop: () => runner.stop(),
    },
  };
}
