// The stateful mock put together once for every door: the simulator (state, rules, clock and
// ids) over its store, the runner in real time, the control surface, the contract gate, the
// answer check, the recorder and the pipeline that runs them in order (pipeline.ts), with the
// simulator as its responder (simulator-responder.ts). The HTTP mock (src/mock/start-mock.ts)
// and the MSW handlers (src/msw/handlers.ts) each call `createMockCore` and adapt their own
// request and response around `core.pipeline.serve`. Browser-safe.
import { keyPrefix, wellFormedKey } from '../contract/api-key.js';
import { contractValidator, type ContractValidator } from '../contract/contract-validator.js';
import type { JsonObject } from '../contract/operations.js';
import { Recorder, type RecorderOptions } from '../recording/recorder.js';
import type { ArazzoTarget } from '../recording/to-arazzo.js';
import { memoryStore } from '../store/memory-store.js';
import type { SimOptions } from '../simulator/context.js';
import { createSimulator, type SimStorage, type Simulator, type SimulatorOptions } from '../simulator/simulator.js';
import type { SimStore } from '../store/store.js';
import { controlSurface, type ControlSurface } from './control.js';
import { ajvGate, type Gate } from './gate.js';
import { answerCheck, answerCheckModeFromEnvironment, createPipeline, type AnswerCheckMode, type Pipeline } from './pipeline.js';
import { headerParameterNames, recordingSwitch } from './recording-switch.js';
import { startRunner, type SimRunner } from './runner.js';
import { simulatorResponder } from './simulator-responder.js';

/** The simulator's (its options flat, each left out keeping its default), then the mock's around it. */
export interface MockCoreOptions extends Omit<SimulatorOptions, 'options' | 'modules'>, Partial<Pick<SimOptions, 'strictKeys' | 'signupCode' | 'maxAccounts' | 'maxAccountBytes'>> {
  /** The control surface's description (generated/mock-control.json), parsed. */
  controlDocument: JsonObject;
  /** What the memory store's snapshots may hold together, in bytes (src/store/snapshots.ts; a given `store` is told its own). */
  maxSnapshotBytes?: number;
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
   * Where the state is kept (src/store/store.ts), given the simulator: the memory store by
   * default; the file (`--state`) and Valkey/Redis (`--store`) stores are the HTTP mock's.
   */
  store?: (simulator: SimStorage) => SimStore;
}

export interface MockCore {
  simulator: Simulator;
  store: SimStore;
  runner: SimRunner;
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
  const { document, clock, ids, seed, state, strictKeys, signupCode, maxAccounts, maxAccountBytes } = options;
  const simulator: Simulator = createSimulator({ document, clock, ids, seed, state, options: { strictKeys, signupCode, maxAccounts, maxAccountBytes } });
  const store = options.store?.(simulator) ?? memoryStore(simulator, options.maxSnapshotBytes);
  const runner = startRunner(simulator, store);
  const { mockUrl, ...recorderOptions } = options.recording ?? {};
  const recorder = new Recorder({ ...recorderOptions, headerNames: headerParameterNames(options.document) });
  const descriptions = { 'openapi.json': options.document, 'mock-control.json': options.controlDocument };
  const control = controlSurface(simulator, store, options.controlDocument, descriptions, recordingSwitch(recorder, { document: options.document, controlDocument: options.controlDocument, ...(mockUrl ? { mockUrl } : {}) }));
  const gate = lazyGate(options.gate ?? ajvGate, validate);
  const answers = answerCheck(options.answerCheck ?? answerCheckModeFromEnvironment() ?? 'off', validate);
  const pipeline = createPipeline({
    contract: simulator.contract,
    // With a shared store a well-formed key is let through here; whether it opens an account is said in the run.
    acceptedKey: store.shared ? (authorization) => wellFormedKey(authorization, keyPrefix(options.document)) : simulator.acceptedKey,
    responder: simulatorResponder(simulator.contract, store, runner),
    gate,
    control: rescheduling(control, runner),
    answers,
    durability: store.durability,
    recorder,
  });
  runner.reschedule();
  return { simulator, store, runner, pipeline, recorder, stop: () => runner.stop() };
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

/** The gate, built on its first request. */
function lazyGate(make: (validator: ContractValidator) => Gate, validator: () => ContractValidator): Gate {
  let gate: Gate | undefined;
  return { check: (operationId, request) => (gate ??= make(validator())).check(operationId, request) };
}
