// The stateful mock's core, put together once for every transport: the simulator (state, rules,
// clock and ids), its runner in real time, the control surface, the contract gate, the
// composed-answer check and the pipeline that runs them in order (pipeline.ts). The HTTP mock
// (src/mock/start-mock.ts) and the MSW handlers (src/msw/handlers.ts) each call `createMockCore`
// and adapt their own request and response around `core.pipeline.serve`. Browser-safe.
import { contractValidator, type ContractValidator } from '../contract/contract-validator.js';
import type { JsonObject } from '../contract/operations.js';
import type { IdGenerator, SimClock } from './clock.js';
import { controlSurface, type ControlSurface } from './control.js';
import { ajvGate, type Gate } from './gate.js';
import { namedAnswer, namesItsAnswer } from './named-answers.js';
import { answerCheck, answerCheckModeFromEnvironment, createPipeline, type AnswerCheckMode, type Durability, type Pipeline, type Responder } from './pipeline.js';
import { startRunner, type SimRunner } from './runner.js';
import type { SeedFile } from './seed.js';
import { createSimulator, type Simulator } from './simulator.js';
import { Recorder, type RecorderOptions } from '../recording/recorder.js';
import { headerParameterNames, recordingSwitch } from '../recording/recording-switch.js';
import type { SimState } from './state.js';

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
  /** Where changes are made durable before they are acknowledged (`--state`), given the simulator. */
  durability?: (simulator: Simulator) => Durability;
  /**
   * Recording (src/recording/): `all` records every account (`--record`), else only the keys
   * switched on at `/__mock/recording`; `urls` are where a recording finds the two descriptions.
   */
  recording?: Omit<RecorderOptions, 'headerNames'> & { urls?: { numbersApi: string; mockControl: string } };
}

export interface MockCore {
  simulator: Simulator;
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
  const runner = startRunner(simulator);
  const { urls, ...recorderOptions } = options.recording ?? {};
  const recorder = new Recorder({ ...recorderOptions, headerNames: headerParameterNames(options.document) });
  const control = controlSurface(simulator, options.controlDocument, recordingSwitch(recorder, { document: options.document, controlDocument: options.controlDocument, ...(urls ? { urls } : {}) }));
  const gate = lazyGate(options.gate ?? ajvGate, validate);
  const answers = answerCheck(options.answerCheck ?? answerCheckModeFromEnvironment() ?? 'off', validate);
  const durability = options.durability?.(simulator);
  const pipeline = createPipeline({
    contract: simulator.contract,
    acceptedKey: simulator.acceptedKey,
    responder: simulatorResponder(simulator, runner),
    gate,
    control: rescheduling(control, runner),
    answers,
    ...(durability ? { durability } : {}),
    recorder,
  });
  runner.reschedule();
  return { simulator, runner, control, pipeline, recorder, stop: () => runner.stop() };
}

/**
 * The stateful mock's responder: the example a request names (`Prefer`, touching no state), else
 * the simulator's rule; a held answer (a long poll) settles in real time, by the runner.
 */
function simulatorResponder(simulator: Simulator, runner: SimRunner): Responder {
  return {
    respond(request, route, key) {
      if (namesItsAnswer(request)) return namedAnswer(simulator.contract, request, route);
      const response = simulator.handle(request, route, key);
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
      runner.reschedule();
      return answer;
    },
  };
}

/** The gate, built on its first request. */
function lazyGate(make: (validator: ContractValidator) => Gate, validator: () => ContractValidator): Gate {
  let gate: Gate | undefined;
  return { check: (operationId, request) => (gate ??= make(validator())).check(operationId, request) };
}
