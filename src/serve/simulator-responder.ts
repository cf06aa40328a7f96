// The stateful mock's `Responder` (pipeline.ts): the example a request names (`Prefer`, touching no
// state), else the simulator's rule in a run of the store; a held answer settles by the runner.
import type { JsonObject } from '../contract/operations.js';
import { resolveRef } from '../contract/json-pointer.js';
import type { SimContract } from '../simulator/contract.js';
import { unauthorized } from '../simulator/respond.js';
import type { SimStore } from '../store/store.js';
import { namedAnswer, namesItsAnswer } from './named-answers.js';
import type { Responder } from './pipeline.js';
import type { SimRunner } from './runner.js';

export function simulatorResponder(contract: SimContract, store: SimStore, runner: SimRunner): Responder {
  return {
    respond(request, route, key) {
      // A store of one process has said whether the key opens an account (the pipeline asked the
      // simulator); a shared one says it in the run, where the keys of every process are seen.
      const local = !store.shared;
      if (namesItsAnswer(request)) {
        if (local || key === undefined) return namedAnswer(contract, request, route);
        return Promise.resolve(store.run({ key }, (sim) => sim.acceptedKey(request.headers.authorization))).then((accepted) =>
          accepted === undefined ? unauthorized(contract, route.operationId, request.headers.authorization) : namedAnswer(contract, request, route),
        );
      }
      const idempotencyKey = request.headers['idempotency-key'];
      if (store.shared && key !== undefined && idempotencyKey && takesIdempotencyKey(contract, route.operationId)) {
        // Part 7.2 across processes: a duplicate waits while the original runs elsewhere, then
        // replays it (the run sees its call); past the wait window it is told to retry (409).
        return store.shared
          .claimIdempotency(key, idempotencyKey)
          .then(async (lease) => {
            if (!lease) return { status: 409, body: contract.example(route.operationId, 409) };
            try {
              return await store.run({ key, lease }, (sim) => sim.handle(request, route, undefined));
            } finally {
              await lease.release();
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

/** Whether the operation takes an `Idempotency-Key` header (part 7.2), as the contract says. */
function takesIdempotencyKey(contract: SimContract, operationId: string): boolean {
  const parameters = (contract.operation(operationId).parameters ?? []) as unknown[];
  return parameters.some((parameter) => {
    const resolved = resolveRef<JsonObject>(contract.document, parameter);
    return resolved?.in === 'header' && String(resolved.name).toLowerCase() === 'idempotency-key';
  });
}
