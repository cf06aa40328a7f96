// The mock's control surface (spec/mock-control.yaml, bundled to generated/mock-control.json):
// what no operation of the service can drive. Both transports route `/__mock/...` here, after
// validating the request against that description.
import { bearerKey } from '../contract/api-key.js';
import { contractValidator, type ContractValidator } from '../contract/contract-validator.js';
import { operationMatcher, type JsonObject } from '../contract/operations.js';
import { simContract, type SimContract } from './contract.js';
import { completeCheckout } from './resources/billing.js';
import { readableFieldErrors } from './field-errors.js';
import { unauthorized } from './respond.js';
import type { Simulator } from './simulator.js';
import type { SimRequest, SimResponse } from './types.js';

export interface ControlSurface {
  readonly contract: SimContract;
  /** The answer to a `/__mock/...` request, or undefined when the path is not the control surface's. */
  handle(request: SimRequest): SimResponse | undefined;
}

/** The per-key recording switch (`/__mock/recording`), where the mock records (src/recording/). */
export interface RecordingSwitch {
  /** Starts (or renames) the key's recording; its name and steps, or undefined when no more may be kept. */
  start(key: string, name: string | undefined): { recording: string; steps: number } | undefined;
  /** The key's recording as an Arazzo document, or undefined when it is not recorded. */
  document(key: string): unknown;
  /** Ends the key's recording and gives its document, or undefined. */
  stop(key: string): unknown;
}

export function controlSurface(simulator: Simulator, document: JsonObject, recordings?: RecordingSwitch): ControlSurface {
  const contract = simContract(document);
  const match = operationMatcher(document);
  let validator: ContractValidator | undefined;

  const clock = (): SimResponse => ({
    status: 200,
    body: { now: new Date(simulator.clock.now()).toISOString(), offsetSeconds: simulator.clock.offset() / 1000 },
  });

  return {
    contract,
    handle(request) {
      const matched = match(request.method, request.pathname);
      if (!matched) return request.pathname.startsWith('/__mock/') ? { status: 404, body: { error: `No control operation ${request.method} ${request.pathname}.` } } : undefined;
      validator ??= contractValidator(document);
      const violations = [...request.violations, ...validator.request(matched.operationId, request)];
      const body = (request.body ?? {}) as JsonObject;
      const account = contract.needsKey(matched.operationId) ? simulator.accountForKey(bearerKey(request.headers.authorization)) : undefined;
      if (contract.needsKey(matched.operationId) && !account) return unauthorized(contract, matched.operationId, request.headers.authorization);
      if (violations.length > 0) return readableFieldErrors(request, violations);
      switch (matched.operationId) {
        case 'mockAbout':
          // The announcement the conformance suite reads: what accepts a key is said, not guessed.
          return { status: 200, body: { mock: 'numbers-api', keys: simulator.options.strictKeys ? 'strict' : 'any' } };
        case 'mockReset':
          simulator.reset();
          return { status: 200, body: { reset: true } };
        case 'mockGetClock':
          return clock();
        case 'mockAdvanceClock':
          simulator.advance(Number(body.seconds) * 1000);
          return clock();
        case 'mockCompleteCheckout': {
          const done = simulator.withContext((ctx) => completeCheckout(ctx, account!, { clientSecret: body.clientSecret, amount: body.amount }));
          return done.status === 404 ? { status: 404, body: contract.example('mockCompleteCheckout', 404, 'noCheckout') } : done;
        }
        case 'mockSetWallet':
          return simulator.withContext(() => {
            account!.balance = Number(body.balance);
            return { status: 200, body: { balance: account!.balance } };
          });
        case 'mockStartRecording':
        case 'mockGetRecording':
        case 'mockStopRecording': {
          const key = bearerKey(request.headers.authorization)!;
          if (!recordings) return { status: 404, body: { error: 'This mock does not record.' } };
          if (matched.operationId === 'mockStartRecording') {
            const started = recordings.start(key, typeof body.name === 'string' ? body.name : undefined);
            return started ? { status: 200, body: started } : { status: 400, body: { error: 'The mock keeps no more recordings (at most 1,000 accounts at once).' } };
          }
          const recorded = matched.operationId === 'mockGetRecording' ? recordings.document(key) : recordings.stop(key);
          return recorded ? { status: 200, body: recorded } : { status: 404, body: contract.example(matched.operationId, 404, 'notRecording') };
        }
        default:
          return { status: 404, body: { error: `No control operation ${matched.operationId}.` } };
      }
    },
  };
}
