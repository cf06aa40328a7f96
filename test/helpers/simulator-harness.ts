// The set-up the simulator tests (test/simulator-*.test.ts) share: the production core in-process
// (src/serve/mock-core.ts, as the HTTP mock and MSW build it) on a manual clock with
// sequential ids, every request through its pipeline (the key, the named answer, the real gate,
// the simulator) and every composed answer through its answer check, which must find nothing; the
// real stateful mock started once per `describe`; and the check that every event emitted matches
// the contract's AnyEvent schema.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { contractValidator } from '../../src/contract/contract-validator.js';
import { describeVerdict } from '../../src/contract/verdict.js';
import { loadOpenApi, readGeneratedJson } from '../../src/contract/generated-files.js';
import type { MockOptions } from '../../src/mock/start-mock.js';
import { manualClock, sequentialIds } from '../../src/simulator/clock.js';
import { createMockCore } from '../../src/serve/mock-core.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/simulator.js';
import type { FormPart, SimRequest, SimResponse } from '../../src/simulator/types.js';
import { startStatefulMock, type StatefulMock } from './stateful-mock.js';

/** The bundled OpenAPI description, loaded once. */
export const document = loadOpenApi();

/** The value of the contract's test value `name` (`x-test-values`). */
export function testValue(name: string): string {
  return (document['x-test-values'] as Array<{ name: string; value: string }>).find((entry) => entry.name === name)!.value;
}

export interface RequestParts {
  body?: unknown;
  /** Sent as `Authorization: Bearer <key>`; null or undefined: no Authorization header. */
  key?: string | null;
  headers?: Record<string, string>;
  form?: Record<string, FormPart>;
}

/** A SimRequest for `path` (which may carry a `?query`), with no violations. */
export function simRequest(method: string, path: string, { body, key, headers = {}, form }: RequestParts = {}): SimRequest {
  const [pathname, query = ''] = path.split('?');
  return {
    method,
    pathname: pathname!,
    query: new URLSearchParams(query),
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body,
    violations: [],
    ...(form ? { form } : {}),
  };
}

/** An answer whose body the tests read freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = SimResponse & { body: any };

export interface InProcessInit {
  seed?: SimulatorOptions['seed'];
  options?: { strictKeys?: boolean; signupCode?: string };
  /** The key `call` and `account` use when none is given; none: `call` sends no Authorization header. */
  key?: string;
}

const controlDocument = readGeneratedJson('mock-control.json');

export function inProcessSimulator({ seed, options, key: defaultKey }: InProcessInit = {}) {
  const clock = manualClock();
  const core = createMockCore({
    document,
    controlDocument,
    clock,
    ids: sequentialIds(),
    ...(seed ? { seed } : {}),
    ...(options?.strictKeys !== undefined ? { strictKeys: options.strictKeys } : {}),
    ...(options?.signupCode !== undefined ? { signupCode: options.signupCode } : {}),
    answerCheck: 'header',
  });
  // The clock moves only when a test moves it: no timer runs the simulator behind the test's back.
  core.runner.stop();
  const { simulator } = core;

  /** The request through the production pipeline; the answer check must have found nothing. */
  function answer(request: SimRequest): Answer {
    const response = core.pipeline.answer(request);
    const header = response.headers?.['sl-violations'];
    expect(header, `${request.method} ${request.pathname} → ${response.status} ${JSON.stringify(response.body)} breaks the contract: ${header}`).toBeUndefined();
    return response as Answer;
  }

  const send = (method: string, path: string, parts: RequestParts = {}): Answer => answer(simRequest(method, path, { ...parts, key: parts.key === undefined ? defaultKey : parts.key }));
  const call = (method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>): Answer => send(method, path, { body, key, headers });
  const account = (key: string | undefined = defaultKey) => simulator.accountForKey(key)!;
  return { simulator, clock, call, send, answer, account };
}

export type InProcess = ReturnType<typeof inProcessSimulator>;

/**
 * The real stateful mock (node:http before the core pipeline), started before the enclosing `describe`'s
 * tests and closed after them. Call it inside the `describe`; read the mock through the getter.
 */
export function useStatefulMock(options?: MockOptions): () => StatefulMock {
  let mock: StatefulMock | undefined;
  beforeAll(async () => {
    mock = await startStatefulMock(options);
  }, 60_000);
  afterAll(async () => {
    await mock?.close();
  });
  return () => {
    if (!mock) throw new Error('The stateful mock is not running (useStatefulMock is for use inside a describe, read in a test).');
    return mock;
  };
}

const validator = contractValidator(document);

/** Every event the simulators emitted matches the contract's AnyEvent schema (part 6). */
export function expectEventsMatchContract(simulators: Iterable<Simulator>): void {
  for (const sim of simulators) {
    for (const account of Object.values(sim.state.accounts)) {
      for (const { event } of account.events) expect(validator.value('#/components/schemas/AnyEvent', event).map(describeVerdict), JSON.stringify(event)).toEqual([]);
    }
  }
}

/**
 * Registers an `afterEach` that checks the events of every simulator handed to the returned
 * function during the test (then forgets them). Call at the top level of a test file.
 */
export function checkEventsAfterEach(): (simulator: Simulator) => Simulator {
  const simulators: Simulator[] = [];
  afterEach(() => expectEventsMatchContract(simulators.splice(0)));
  return (simulator) => {
    simulators.push(simulator);
    return simulator;
  };
}
