// The one request pipeline of the stateful mock, for every transport (issue 20). A transport turns
// its request into a SimRequest (node:http in src/mock/http-transport.ts, a Fetch Request in
// src/msw/handlers.ts), calls `serve`, and sends the SimResponse it resolves with. In order:
//
//   control surface (/__mock/...) → route (matched once) → the key (part 5.1) → named answer
//   (`Prefer`) → gate → simulator → hold and settle (long polls) → composed-answer check →
//   durable (with `--state`: the change is on disk before it is acknowledged)
//
// Each step is a named seam: the `ControlSurface`, the `Gate` (the contract's verdict on the
// request), the `Simulator` (the rules, one module per resource), the `SimRunner` (real time) and
// the `AnswerCheck`. Nothing here knows a transport, so a reader follows a request one way: from
// the transport's adapter to `serve`, from `serve` to the resource module, and back.
import type { ContractValidator } from '../contract/contract-validator.js';
import { slViolationsHeader } from '../contract/prism-wording.js';
import { describeVerdict } from '../contract/verdict.js';
import type { ControlSurface } from './control.js';
import type { Gate } from './gate.js';
import { namedAnswer, namesItsAnswer } from './named-answers.js';
import { optionsAnswer, unauthorized } from './respond.js';
import type { SimRunner } from './runner.js';
import type { Simulator } from './simulator.js';
import type { SimRequest, SimResponse } from './types.js';

/**
 * What happens to an answer the simulator composed that breaks the contract: `off` sends it as it
 * is; `header` reports the problems in an `sl-violations` header (as Prism reports its own);
 * `strict` answers 500 instead, so a test that reached it fails (this package's tests run so).
 */
export type AnswerCheckMode = 'off' | 'header' | 'strict';

/** The mode `NUMBERS_API_MOCK_VALIDATE` asks for, where there is a `process` (never in a browser). */
export function answerCheckModeFromEnvironment(): AnswerCheckMode | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const mode = env?.NUMBERS_API_MOCK_VALIDATE;
  return mode === 'strict' || mode === 'header' ? mode : undefined;
}

/** The composed-answer check: the last step of the pipeline. */
export interface AnswerCheck {
  check(operationId: string, response: SimResponse): SimResponse;
}

export function answerCheck(mode: AnswerCheckMode, validator: () => ContractValidator): AnswerCheck {
  return {
    check(operationId, response) {
      if (mode === 'off') return response;
      const verdicts = validator().response(operationId, response);
      if (verdicts.length === 0) return response;
      if (mode === 'strict') {
        return { status: 500, body: { error: `The mock composed a ${response.status} answer to ${operationId} that breaks the contract: ${verdicts.map(describeVerdict).join('; ')}` } };
      }
      return { ...response, headers: { ...response.headers, 'sl-violations': slViolationsHeader(verdicts) } };
    },
  };
}

/**
 * Where the state is kept across restarts (`--state`, src/mock/state-file.ts): a request that
 * changed state is answered only once its change is durable, so nothing acknowledged is lost.
 */
export interface Durability {
  /** A mark of the changes made so far. */
  mark(): number;
  /** Resolves once every change is durable, when any came after `mark` (at once otherwise). */
  durableSince(mark: number): Promise<void>;
}

export interface PipelineParts {
  simulator: Simulator;
  control: ControlSurface;
  runner: SimRunner;
  gate: Gate;
  answers: AnswerCheck;
  durability?: Durability;
}

export interface Pipeline {
  /**
   * The answer to one request. `clientGone` gives the signal that the client went away; it is
   * asked for only when the answer is held (a long poll), which then ends early.
   */
  serve(request: SimRequest, clientGone?: () => AbortSignal): Promise<SimResponse>;
  /**
   * The answer as far as it is known now: the same steps as `serve`, but a held answer (a long
   * poll) comes back with its `hold` unsettled and unchecked, and nothing waits for `--state`'s
   * disk. For callers in the same process that let no time pass (the in-process control facade,
   * the simulator's tests).
   */
  answer(request: SimRequest): SimResponse;
}

const CONTROL_PREFIX = '/__mock/';

export function createPipeline({ simulator, control, runner, gate, answers, durability }: PipelineParts): Pipeline {
  const { contract } = simulator;
  return {
    answer(request) {
      const { response, operationId } = step(request);
      return operationId === undefined || response.hold ? response : answers.check(operationId, response);
    },
    async serve(request, clientGone) {
      const mark = durability?.mark() ?? 0;
      const { response, operationId } = step(request);
      const settled = response.hold ? await runner.settle(response, clientGone?.()) : response;
      const answer = operationId === undefined ? settled : answers.check(operationId, settled);
      if (durability) await durability.durableSince(mark);
      return answer;
    },
  };

  /** Every step up to the simulator's answer; `operationId` when that answer is the simulator's (to be checked). */
  function step(request: SimRequest): { response: SimResponse; operationId?: string } {
    if (request.pathname.startsWith(CONTROL_PREFIX)) {
      const controlled = control.handle(request)!;
      runner.reschedule();
      return { response: controlled };
    }
    if (request.method === 'OPTIONS') return { response: optionsAnswer(request, contract.methodsAt(request.pathname)) };
    const route = contract.match(request.method, request.pathname);
    // The key first, and once: no named answer, rule or gate verdict reaches a request the mock refuses (part 5.1).
    const needsKey = route !== undefined && contract.needsKey(route.operationId);
    const key = needsKey ? simulator.acceptedKey(request.headers.authorization) : undefined;
    if (needsKey && key === undefined) return { response: unauthorized(contract, route!.operationId, request.headers.authorization) };
    if (route && namesItsAnswer(request)) return { response: namedAnswer(contract, gate, request, route) };
    // A body that could not be read is already a verdict; the gate judges the rest.
    if (route && request.violations.length === 0) request.violations.push(...gate.check(route.operationId, request));
    const response = simulator.handle(request, route ?? null, key);
    runner.reschedule();
    return { response, ...(route ? { operationId: route.operationId } : {}) };
  }
}
