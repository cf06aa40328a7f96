// The stateful mock's core, put together once for every transport: the simulator (state, rules,
// clock and ids), its runner in real time, the control surface, the contract gate, the
// composed-answer check and the pipeline that runs them in order (pipeline.ts). The HTTP mock
// (src/mock/start-mock.ts) and the MSW handlers (src/msw/handlers.ts) each call `createMockCore`
// and adapt their own request and response around `core.pipeline.serve`. Browser-safe.
import { keyPrefix, wellFormedKey } from '../contract/api-key.js';
import { contractValidator, type ContractValidator } from '../contract/contract-validator.js';
import type { JsonObject } from '../contract/operations.js';
import type { IdGenerator, SimClock } from './clock.js';
import { controlSurface, type ControlSurface } from './control.js';
import { ajvGate, type Gate } from './gate.js';
import { namedAnswer, namesItsAnswer } from './named-answers.js';
import { unauthorized } from './respond.js';
import { memoryStore } from './memory-store.js';
import { answerCheck, answerCheckModeFromEnvironment, createPipeline, type AnswerCheckMode, type Pipeline, type Responder } from './pipeline.js';
import { startRunner, type SimRunner } from './runner.js';
import type { SeedFile } from './seed.js';
import { createSimulator, type Simulator } from './simulator.js';
import { Recorder, type RecorderOptions } from '../recording/recorder.js';
import { headerParameterNames, recordingSwitch } from '../recording/recording-switch.js';
import type { ArazzoTarget } from '../recording/to-arazzo.js';
import type { SimState } from './state.js';
import type { SimStore } from './store.js';
import { resolveRef } from '../contract/json-pointer.js';
import type { SimContract } from './contract.js';

export interface MockCoreOptions {
  /** The bundled OpenAPI description (generated/openapi.json), parsed. */
  document: JsonObject;
  /** The control surface's description (generated/mock-control.json), parsed. */
  controlDocument: JsonObject;
  clock?: SimClock;
  ids?: IdGenerator;
  /** Your own starting data; the demo seed built from the contract's examples otherwise. */
  seed?: SeedFile;
  /** A state to start from (`--state`). */
  state?: SimState;
  /** Accept only keys the sign-up issued or the seed names. */
  strictKeys?: boolean;
  /** The right email and SMS sign-up code (default: the contract's `signupCode` test value). */
  signupCode?: string;
  /** Live accounts at most (default 10,000); the least recently used is evicted past it. */
  maxAccounts?: number;
  /** What one account may hold, in bytes of JSON (default 16 MB). */
  maxAccountBytes?: number;
  /** The composed-answer check (default: `$NUMBERS_API_MOCK_VALIDATE` where there is one, else `off`). */
  answerCheck?: AnswerCheckMode;
  /** The contract gate, given the core's contract validator (default: `ajvGate`, ajv compiled from `document`). */
  gate?: (validator: ContractValidator) => Gate;
  /**
   * Recording (src/recording/): `all` records every account (`--record`), else only the keys
   * switched on at `/__mock/recording`; `mockUrl`, the address at which a recording names the descriptions.
   */
  recording?: Omit<RecorderOptions, 'headerNames'> & Pick<ArazzoTarget, 'mockUrl'>;
  /**
   * Where the state is kept (src/simulator/store.ts), given the simulator: the memory store by
   * default; the file (`--state`) and Valkey/Redis (`--store`) stores are the HTTP mock's.
   */
  store?: (simulator: Simulator) => SimStore;
}

export interface MockCore {
  simulator: Simulator;
  store: SimStore;
  runner: SimRunner;
  control: ControlSurface;
  pipeline: Pipeline;
  /** What the mock records (every account with `recording.all`, else the keys switched on). */
  recorder: Recorder;
  /** Stops the runner's timers and answers held long polls. */
  stop(): void;
}

export function createMockCore(options: MockCoreOptions): MockCore {
  // One validator (one ajv, each schema compiled once) for the gate and the answer check, set up
  // on first use (a mock that is never asked compiles nothing).
  let validator: ContractValidator | undefined;
  const validate = (): ContractValidator => (validator ??= contractValidator(options.document));
  const simulator: Simulator = createSimulator({
    document: options.document,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.state ? { state: options.state } : {}),
    options: {
      strictKeys: options.strictKeys ?? false,
      ...(options.signupCode ? { signupCode: options.signupCode } : {}),
      ...(options.maxAccounts !== undefined ? { maxAccounts: options.maxAccounts } : {}),
      ...(options.maxAccountBytes !== undefined ? { maxAccountBytes: options.maxAccountBytes } : {}),
    },
  });
  const store = options.store?.(simulator) ?? memoryStore(simulator);
  const runner = startRunner(simulator, store);
  const { mockUrl, ...recorderOptions } = options.recording ?? {};
  const recorder = new Recorder({ ...recorderOptions, headerNames: headerParameterNames(options.document) });
  const control = controlSurface(simulator, store, options.controlDocument, recordingSwitch(recorder, { document: options.document, controlDocument: options.controlDocument, ...(mockUrl ? { mockUrl } : {}) }));
  const gate = lazyGate(options.gate ?? ajvGate, validate);
  const answers = answerCheck(options.answerCheck ?? answerCheckModeFromEnvironment() ?? 'off', validate);
  const { durability } = store;
  const pipeline = createPipeline({
    contract: simulator.contract,
    // A well-formed key is let through here; whether it opens an account is the store's to say (in the run).
    acceptedKey: store.kind === 'memory' || store.kind === 'file' ? simulator.acceptedKey : (authorization) => wellFormedKey(authorization, keyPrefix(options.document)),
    responder: simulatorResponder(simulator, store, runner),
    gate,
    control: rescheduling(control, runner),
    answers,
    ...(durability ? { durability } : {}),
    recorder,
  });
  runner.reschedule();
  return { simulator, store, runner, control, pipeline, recorder, stop: () => runner.stop() };
}

/**
 * The stateful mock's responder: the example a request names (`Prefer`, touching no state), else
 * the simulator's rule; a held answer (a long poll) settles in real time, by the runner.
 */
function simulatorResponder(simulator: Simulator, store: SimStore, runner: SimRunner): Responder {
  return {
    respond(request, route, key) {
      // A store of one process has said whether the key opens an account (the pipeline asked the
      // simulator); a shared one says it in the run, where the keys of every process are seen.
      const local = store.kind !== 'redis';
      if (namesItsAnswer(request)) {
        if (local || key === undefined) return namedAnswer(simulator.contract, request, route);
        return Promise.resolve(store.run({ key }, (sim) => sim.acceptedKey(request.headers.authorization))).then((accepted) =>
          accepted === undefined ? unauthorized(simulator.contract, route.operationId, request.headers.authorization) : namedAnswer(simulator.contract, request, route),
        );
      }
      const idempotencyKey = request.headers['idempotency-key'];
      if (store.claimIdempotency && key !== undefined && idempotencyKey && takesIdempotencyKey(simulator.contract, route.operationId)) {
        // Part 7.2 across processes: a duplicate waits while the original runs elsewhere, then
        // replays it (the run sees its call); past the wait window it is told to retry (409).
        const claim = store.claimIdempotency;
        return claim(key, idempotencyKey)
          .then(async (release) => {
            if (!release) return { status: 409, body: simulator.contract.example(route.operationId, 409) };
            try {
              return await store.run({ key }, (sim) => sim.handle(request, route, undefined));
            } finally {
              await release();
            }
          })
          .finally(() => runner.reschedule());
      }
      const response = store.run(key === undefined ? {} : { key }, (sim) => sim.handle(request, route, local ? key : undefined));
      if (response instanceof Promise) return response.finally(() => runner.reschedule());
      runner.reschedule();
      return response;
    },
    settle: (response, signal) => runner.settle(response, signal),
  };
}

/** The control surface, the runner woken after each of its answers (a clock moved, a reset). */
function rescheduling(control: ControlSurface, runner: SimRunner): ControlSurface {
  return {
    contract: control.contract,
    handle(request) {
      const answer = control.handle(request);
      if (answer instanceof Promise) return answer.finally(() => runner.reschedule());
      runner.reschedule();
      return answer;
    },
  };
}

/** Whether the operation takes an `Idempotency-Key` header (part 7.2), as the contract says. */
function takesIdempotencyKey(contract: SimContract, operationId: string): boolean {
  const parameters = (contract.operation(operationId).parameters ?? []) as unknown[];
  return parameters.some((parameter) => {
    const resolved = resolveRef<JsonObject>(contract.document, parameter);
    return resolved?.in === 'header' && String(resolved.name).toLowerCase() === 'idempotency-key';
  });
}

/** The gate, built on its first request. */
function lazyGate(make: (validator: ContractValidator) => Gate, validator: () => ContractValidator): Gate {
  let gate: Gate | undefined;
  return { check: (operationId, request) => (gate ??= make(validator())).check(operationId, request) };
}
