// What the example server's responder (prism-responder.ts) needs to know about the operation a
// request was routed to, worked out once per operation: the status to ask Prism for where Prism's
// own choice is not the operation's default, and the rules of src/mock/rules/.
import { defaultStatus, listOperations, lowestSuccessStatus, needsApiKey, type JsonObject, type MatchedOperation, type Operation } from '../contract/operations.js';
import { rulesFor, type OperationRule } from './rules/index.js';

export interface OperationFacts {
  /**
   * The status the responder asks Prism for when the request names none: Prism answers the lowest
   * documented 2xx, which is not the default where a fresh creation (201) is documented beside a
   * 200 replay (`POST /api/v1/calls`, part 7.2).
   */
  preferCode: string | undefined;
  /** The rules of the interface specification the mock keeps on this operation (src/mock/rules/). */
  rules: OperationRule[];
}

/** The operations that need a key, in document order. */
export function listSecuredOperations(document: JsonObject): Operation[] {
  return listOperations(document).filter(({ operation }) => needsApiKey(document, operation));
}

/** A function giving the facts of the operation a request was routed to. */
export function operationFacts(document: JsonObject): (route: MatchedOperation) => OperationFacts {
  const facts = new Map<string, OperationFacts>();
  return (route) => {
    let known = facts.get(route.operationId);
    if (!known) {
      const { operation } = route.entry;
      const status = defaultStatus(operation);
      known = { preferCode: status !== lowestSuccessStatus(operation) ? String(status) : undefined, rules: rulesFor(document, route.entry) };
      facts.set(route.operationId, known);
    }
    return known;
  };
}
