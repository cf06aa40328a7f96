// The one request pipeline of every door (issues 20, 28 and 37): the corridor of src/serve/, read
// from here. A door turns its request into a SimRequest (node:http in src/mock/http-transport.ts,
// a Fetch Request in src/msw/handlers.ts; request-body.ts reads the body for both), calls `serve`,
// and sends the SimResponse it resolves with. In order, each step a named seam:
//
//   the `ControlSurface` (control.ts: the stateful mock's /__mock/...) → OPTIONS → route (matched
//   once; none is 404) → the key (part 5.1, checked once) → a `Prefer` naming what the operation
//   does not document (named-answers.ts) → the `Gate` (gate.ts: the contract's verdicts on the
//   request) → the `Responder` → hold and settle (long polls: runner.ts) → the `AnswerCheck` →
//   the `Durability` (with `--state`, src/store/: the change is on disk before it is acknowledged)
//
// The responder is where the doors part, as Prism's core chooses between a mocker and a forwarder:
// the stateful mock's is the simulator (simulator-responder.ts: a named answer, else the rule of
// the resource module; mock-core.ts assembles that mock), the example server's forwards to
// Prism's processes, then applies the rules a static example cannot show
// (src/mock/prism-responder.ts; there Prism is the gate). The validating proxy
// (conformance/validating-proxy.ts) has a `Forwarder`: every request goes on to a deployment,
// whatever its route or key, and the gate and the answer check only judge. Nothing here knows a
// transport: a reader follows a request from the door's adapter to `serve`, to the responder, back.
import type { ContractValidator } from '../contract/contract-validator.js';
import type { MatchedOperation } from '../contract/operations.js';
import { slViolationsHeader } from '../contract/prism-wording.js';
import { describeVerdict, ruleVerdict } from '../contract/verdict.js';
import { CONTROL_PREFIX } from '../delivery/control-paths.js';
import type { Observed } from '../recording/recorder.js';
import type { SimContract } from '../simulator/contract.js';
import { readableFieldErrors } from '../simulator/field-errors.js';
import { routeNotFound, unauthorized } from '../simulator/respond.js';
import type { SimRequest, SimResponse, Verdict } from '../simulator/types.js';
import { StoreFailure, type Durability } from '../store/store.js';
import type { ControlSurface } from './control.js';
import type { Gate } from './gate.js';
import { namesItsAnswer, preferRefusal } from './named-answers.js';
import { isJsonType } from './request-body.js';

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
   * the simulator's tests); a responder that answers later (Prism's) has none to give.
   */
  answer(request: SimRequest): SimResponse;
}

/** Who answers a request the pipeline routed and let in. */
export interface Responder {
  /** The answer to `request` for `route`, with the key the pipeline accepted (operations that need one): now, or once it comes. */
  respond(request: SimRequest, route: MatchedOperation, key: string | undefined): SimResponse | Promise<SimResponse>;
  /** The final answer of a held one (a long poll); `signal` ends it early when the client goes. */
  settle?(response: SimResponse, signal?: AbortSignal): Promise<SimResponse>;
}

/** Who passes a request on (the validating proxy's deployment): `route` is the operation it matched, if any. */
export interface Forwarder {
  /** The upstream's answer; rejects with an `UpstreamFailure` when there is none to pass on. */
  forward(request: SimRequest, route: MatchedOperation | undefined): Promise<SimResponse>;
}

interface CommonParts {
  /** The contract requests are routed by, and its documented answers (the 401, a refused `Prefer`). */
  contract: SimContract;
  /** The contract gate before the responder; none where the responder judges (Prism, on the example server). */
  gate?: Gate;
  /** The check of the responder's answers; none: not checked. */
  answers?: AnswerCheck;
}

/** The parts of a mock's pipeline: the pipeline answers the key, a refused `Prefer` and a path the contract lacks. */
export interface MockingParts extends CommonParts {
  /** The key of `Authorization` when it is accepted (part 5.1, src/contract/api-key.ts), else undefined. */
  acceptedKey(authorization: string | undefined): string | undefined;
  responder: Responder;
  /** The mock's control surface (`/__mock/...`); none on the example server. */
  control?: ControlSurface;
  durability?: Durability;
  /** Told of every answered request, once, with its operation and key (`--record`, src/recording/recorder.ts); none: nothing recorded. */
  recorder?: { observe(exchange: Observed): void };
}

/** The parts of a forwarding pipeline: the upstream answers every request, the pipeline only judges. */
export interface ForwardingParts extends CommonParts {
  forwarder: Forwarder;
  /** Prism's `--errors`: a request that breaks the contract is answered the documented 400 and not passed on. */
  errors?: boolean;
}

export type PipelineParts = MockingParts | ForwardingParts;

/** The operation a request was routed to, for the recorder. */
type Routed = Omit<Observed, 'request' | 'response'>;
/** Every step up to the responder's answer; `operationId` when that answer is the responder's (to be checked). */
type Step = { response: SimResponse | Promise<SimResponse>; operationId?: string; routed?: Routed };

export function createPipeline(parts: PipelineParts): Pipeline {
  const { contract, gate, answers } = parts;
  const mock = 'responder' in parts ? parts : undefined;
  const seen = (request: SimRequest, response: SimResponse, routed: Routed | undefined): void => {
    if (mock?.recorder && routed) mock.recorder.observe({ request, response, ...routed });
  };
  // A forwarded request's verdicts reached the upstream unanswered: the check reports them too.
  const checked = (request: SimRequest, operationId: string | undefined, response: SimResponse): SimResponse =>
    operationId === undefined || !answers || response.hold ? response : answers.check(operationId, response, mock ? [] : request.violations);
  const step = mock ? (request: SimRequest) => mocked(mock, request) : (request: SimRequest) => forwarded(parts as ForwardingParts, request);
  return {
    answer(request) {
      const { response, operationId, routed } = step(request);
      if (response instanceof Promise) throw new Error(`${request.method} ${request.pathname}: the responder answers later; serve it instead.`);
      const answer = checked(request, operationId, response);
      seen(request, answer, routed);
      return answer;
    },
    async serve(request, clientGone) {
      const { response, operationId, routed } = step(request);
      // Written out at once, while it shows what its own request did (see `frozen`); a held or a
      // forwarded answer once it comes.
      let answer: SimResponse;
      try {
        answer = response instanceof Promise || response.hold ? await later(request, response, operationId, clientGone) : frozen(checked(request, operationId, response));
      } catch (error) {
        // A store that could not keep or read the state (src/store/store.ts): 503, never a
        // success; an upstream with no answer to pass on: 502. Both unjudged: the pipeline's own.
        if (!(error instanceof StoreFailure || error instanceof UpstreamFailure)) throw error;
        return frozen({ status: error instanceof StoreFailure ? 503 : 502, body: { error: error.message } });
      }
      if (mock?.durability) {
        try {
          await mock.durability.durable();
        } catch (error) {
          // A change that could not be made durable (`--state` on a full or read-only disk): 503.
          return frozen({ status: 503, body: { error: (error as Error).message } });
        }
      }
      seen(request, answer, routed);
      return answer;
    },
  };

  /** A forwarded answer once it comes, a held one once it settles; checked and written out. */
  async function later(request: SimRequest, response: SimResponse | Promise<SimResponse>, operationId: string | undefined, clientGone?: () => AbortSignal): Promise<SimResponse> {
    const answered = await response;
    const settled = answered.hold && mock?.responder.settle ? await mock.responder.settle(answered, clientGone?.()) : answered;
    return frozen(checked(request, operationId, settled));
  }

  function mocked({ acceptedKey, responder, control, recorder }: MockingParts, request: SimRequest): Step {
    if (control && request.pathname.startsWith(CONTROL_PREFIX)) {
      const response = control.handle(request)!;
      const matched = recorder ? control.contract.match(request.method, request.pathname) : undefined;
      const key = matched && control.contract.needsKey(matched.operationId) ? acceptedKey(request.headers.authorization) : undefined;
      return { response, ...(matched ? { routed: { source: 'mockControl', operationId: matched.operationId, params: matched.params, ...(key !== undefined ? { key } : {}) } } : {}) };
    }
    if (request.method === 'OPTIONS') return { response: optionsAnswer(request, contract.methodsAt(request.pathname)) };
    const route = contract.match(request.method, request.pathname);
    if (!route) return { response: routeNotFound(request) };
    const { operationId } = route;
    // The key first, and once: no named answer, rule or gate verdict reaches a request the mock refuses (part 5.1).
    const needsKey = contract.needsKey(operationId);
    const key = needsKey ? acceptedKey(request.headers.authorization) : undefined;
    if (needsKey && key === undefined) return { response: unauthorized(contract, operationId, request.headers.authorization) };
    const refused = namesItsAnswer(request) ? preferRefusal(contract, operationId, request.headers.prefer ?? '') : undefined;
    if (refused) return { response: refused };
    // A body that could not be read is already a verdict; the gate judges the rest.
    if (gate && request.violations.length === 0) request.violations.push(...gate.check(operationId, request));
    return { response: responder.respond(request, route, key), operationId, routed: { source: 'numbersApi', operationId, params: route.params, ...(key !== undefined ? { key } : {}) } };
  }

  /** Prism's proxy: a path the contract lacks, a key and a `Prefer` are the upstream's to answer. */
  function forwarded({ forwarder, errors }: ForwardingParts, request: SimRequest): Step {
    if (request.method === 'OPTIONS') return { response: optionsAnswer(request, contract.methodsAt(request.pathname)) };
    const route = contract.match(request.method, request.pathname);
    if (route && gate && request.violations.length === 0) request.violations.push(...gate.check(route.operationId, request));
    // Not passed on: with `errors`, a request that breaks the contract; always, a body not read whole.
    if (request.violations.some((verdict) => errors || verdict.keyword === 'bodyTooLarge')) return { response: readableFieldErrors(request, request.violations) };
    return { response: forwarder.forward(request, route), ...(route ? { operationId: route.operationId } : {}) };
  }
}

/**
 * What happens to an answer that breaks the contract: `off` sends it as it is; `header` reports
 * the problems in an `sl-violations` header (as Prism reports its own) and in the answer's
 * `verdicts`; `strict` answers the check's refusal instead (the mock's: 500, so a test that
 * reached it fails; this package's tests run so).
 */
export type AnswerCheckMode = 'off' | 'header' | 'strict';

/** The mode `NUMBERS_API_MOCK_VALIDATE` asks for, where there is a `process` (never in a browser). */
export function answerCheckModeFromEnvironment(): AnswerCheckMode | undefined {
  const mode = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.NUMBERS_API_MOCK_VALIDATE;
  return mode === 'strict' || mode === 'header' ? mode : undefined;
}

/** The answer check: the last step of the pipeline. */
export interface AnswerCheck {
  /** `response` judged as an answer of `operationId`, reported with `earlier` (a forwarded request's verdicts). */
  check(operationId: string, response: SimResponse, earlier?: readonly Verdict[]): SimResponse;
}

/** What a `strict` check answers instead of an answer with `verdicts`; undefined: it goes on, reported. */
export type AnswerRefusal = (operationId: string, response: SimResponse, verdicts: readonly Verdict[]) => SimResponse | undefined;

const composedRefusal: AnswerRefusal = (operationId, response, verdicts) => ({ status: 500, body: { error: `The mock composed a ${response.status} answer to ${operationId} that breaks the contract: ${verdicts.map(describeVerdict).join('; ')}` } });

export function answerCheck(mode: AnswerCheckMode, validator: () => ContractValidator, refusal: AnswerRefusal = composedRefusal): AnswerCheck {
  return {
    check(operationId, response, earlier = []) {
      if (mode === 'off') return response;
      const found = answerVerdicts(validator(), operationId, response);
      const verdicts = [...earlier, ...found];
      if (verdicts.length === 0) return response;
      const answer = (mode === 'strict' && found.length > 0 ? refusal(operationId, response, found) : undefined) ?? response;
      return { ...answer, headers: { ...answer.headers, 'sl-violations': slViolationsHeader(verdicts) }, verdicts };
    },
  };
}

/** The validator's verdicts on an answer; one passed on as it came is read first (JSON that does not parse is a verdict too). */
function answerVerdicts(validator: ContractValidator, operationId: string, response: SimResponse): Verdict[] {
  const raw = response.bytes ?? response.text;
  if (response.body !== undefined || !raw?.length || !isJsonType(response.headers?.['content-type'])) return validator.response(operationId, response);
  let body: unknown;
  try {
    body = JSON.parse(typeof raw === 'string' ? raw : new TextDecoder().decode(raw));
  } catch (error) {
    return [ruleVerdict({ of: 'response', in: 'body', keyword: 'bodyNotJson', params: { reason: (error as Error).message } })];
  }
  return validator.response(operationId, { ...response, body });
}

/** An upstream a forwarder could not ask, or whose answer it does not pass on (past its cap): 502 in the `Error` shape. */
export class UpstreamFailure extends Error {}

/** `OPTIONS` (a browser's preflight is the HTTP door's): what the path allows, in `Allow`; a path the contract lacks is the 404. */
function optionsAnswer(request: Pick<SimRequest, 'method' | 'pathname'>, methods: readonly string[]): SimResponse {
  if (methods.length === 0) return routeNotFound(request);
  return { status: 204, headers: { Allow: [...methods, 'OPTIONS'].join(', ') } };
}

/**
 * The answer with its body written out now (`text`), while it shows what its own request did: a
 * rule answers the records it keeps, which a request served after this one (while this answer
 * waits for the disk, or for an MSW resolver's next turn) may change.
 */
function frozen(answer: SimResponse): SimResponse {
  return answer.body === undefined || answer.text !== undefined ? answer : { ...answer, text: JSON.stringify(answer.body) };
}
