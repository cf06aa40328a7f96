// The set-up the simulator tests (test/sim-*.test.ts) share: the simulator core in-process on a
// manual clock with sequential ids, every request through the contract's validator as the gate
// (the ajv gate the pipeline runs) and every composed answer checked against the contract; the real
// stateful mock started once per `describe`; and the check that every event emitted matches the
// contract's AnyEvent schema.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { loadOpenApi } from '../../src/contract/generated-files.js';
import type { MockOptions } from '../../src/mock/start-mock.js';
import { manualClock, sequentialIds } from '../../src/simulator/clock.js';
import { createSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/simulator.js';
import type { FormPart, SimRequest, SimResponse } from '../../src/simulator/types.js';
import { contractValidator } from '../../src/simulator/validator.js';
import { createContractAjv, validatorAt } from './ajv.js';
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
  options?: SimulatorOptions['options'];
  /** The key `call` and `account` use when none is given; none: `call` sends no Authorization header. */
  key?: string;
}

export function inProcessSimulator({ seed, options, key: defaultKey }: InProcessInit = {}) {
  const clock = manualClock();
  const simulator: Simulator = createSimulator({ document, clock, ids: sequentialIds(), ...(seed ? { seed } : {}), ...(options ? { options } : {}) });
  const validator = contractValidator(simulator.contract);

  /** The request through the contract gate (skipped for a multipart form) and the answer checked against the contract. */
  function send(method: string, path: string, parts: RequestParts = {}): Answer {
    const request = simRequest(method, path, { ...parts, key: parts.key === undefined ? defaultKey : parts.key });
    const operationId = simulator.contract.match(method, request.pathname)?.operationId;
    if (operationId && !parts.form) request.violations = validator.request(operationId, request);
    const answer = simulator.handle(request);
    // Every composed answer is a documented status with a schema-valid body.
    if (operationId) expect(validator.response(operationId, answer), `${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`).toEqual([]);
    return answer as Answer;
  }

  const call = (method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>): Answer => send(method, path, { body, key, headers });
  const account = (key: string | undefined = defaultKey) => simulator.accountForKey(key)!;
  return { simulator, clock, call, send, account };
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

let validEvent: ReturnType<typeof validatorAt> | undefined;

/** Every event the simulators emitted matches the contract's AnyEvent schema (part 6). */
export function expectEventsMatchContract(simulators: Iterable<Simulator>): void {
  validEvent ??= validatorAt(createContractAjv(document), '#/components/schemas/AnyEvent');
  for (const sim of simulators) {
    for (const account of Object.values(sim.state.accounts)) {
      for (const { event } of account.events) expect(validEvent(event), `${JSON.stringify(event)} ${JSON.stringify(validEvent.errors)}`).toBe(true);
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
