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
import { CONTROL_PREFIX } from '../delivery/control-paths.js';
import type { ControlSurface } from './control.js';
import type { Gate } from './gate.js';
import { namedAnswer, namesItsAnswer } from './named-answers.js';
import { optionsAnswer, unauthorized } from './respond.js';
import type { SimRunner } from './runner.js';
import type { Simulator } from './simulator.js';
import type { SimRequest, SimResponse } from './types.js';
import type { ContractValidator } from './validator.js';

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
      const problems = validator().response(operationId, response);
      if (problems.length === 0) return response;
      if (mode === 'strict') {
        return { status: 500, body: { error: `The mock composed a ${response.status} answer to ${operationId} that breaks the contract: ${problems.join('; ')}` } };
      }
      const header = JSON.stringify(problems.map((message) => ({ location: ['response'], severity: 'Error', message })));
      return { ...response, headers: { ...response.headers, 'sl-violations': header } };
    },
  };
}

/**
 * Where the state is kept across restarts (`--state`, src/mock/state-file.ts): a request is
 * answered only once every change made before its answer is durable, its own and any other it
 * could show, so nothing acknowledged or shown is lost.
 */
export interface Durability {
  /**
   * Resolves once every change made so far is durable (at once when all are); rejects when the
   * write that was to hold them failed (the error's message says why, for the 503).
   */
  durable(): Promise<void>;
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
}


export function createPipeline({ simulator, control, runner, gate, answers, durability }: PipelineParts): Pipeline {
  const { contract } = simulator;
  return {
    async serve(request, clientGone) {
      const answer = await answerOf(request, clientGone);
      if (durability) {
        try {
          await durability.durable();
        } catch (error) {
          return frozen(stateNotSaved(error as Error));
        }
      }
      return answer;
    },
  };

  async function answerOf(request: SimRequest, clientGone?: () => AbortSignal): Promise<SimResponse> {
    if (request.pathname.startsWith(CONTROL_PREFIX)) {
      const controlled = control.handle(request)!;
      runner.reschedule();
      return frozen(controlled);
    }
    if (request.method === 'OPTIONS') return frozen(optionsAnswer(request, contract.methodsAt(request.pathname)));
    const route = contract.match(request.method, request.pathname);
    // The key first: no named answer, rule or gate verdict reaches a request the mock refuses (part 5.1).
    if (route && contract.needsKey(route.operationId) && !simulator.acceptsKey(request.headers.authorization)) {
      return frozen(unauthorized(contract, route.operationId, request.headers.authorization));
    }
    if (route && namesItsAnswer(request)) return frozen(namedAnswer(contract, gate, request, route));
    // A body that could not be read is already a violation; the gate judges the rest.
    if (route && request.violations.length === 0) request.violations.push(...gate.check(route.operationId, request));
    const response = simulator.handle(request, route ?? null);
    runner.reschedule();
    const settled = response.hold ? await runner.settle(response, clientGone?.()) : response;
    return frozen(route ? answers.check(route.operationId, settled) : settled);
  }
}

/**
 * The answer with its body written out now (`text`), while it shows what its own request did: a
 * rule answers the records it keeps, which a request served after this one (while this answer
 * waits for the disk, or for an MSW resolver's next turn) may change.
 */
function frozen(answer: SimResponse): SimResponse {
  return answer.body === undefined || answer.text !== undefined ? answer : { ...answer, text: JSON.stringify(answer.body) };
}

/** A change that could not be made durable (`--state` on a full or read-only disk): 503 in the `Error` shape. */
function stateNotSaved(error: Error): SimResponse {
  return { status: 503, body: { error: error.message } };
}
