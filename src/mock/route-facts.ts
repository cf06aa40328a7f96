// What the example server's front (example-front.ts) needs to know about the operation a request is
// for, worked out once per operation over the one route table (src/contract/operations.ts):
// whether it needs a key (part 5.1: all but the four sign-up operations), the status to ask Prism
// for where Prism's own choice is not the operation's default, and the rules of src/mock/rules/.
import { defaultStatus, listOperations, lowestSuccessStatus, needsApiKey, operationMatcher, type JsonObject, type Operation } from '../contract/operations.js';
import { rulesFor, type OperationRule } from './rules/index.js';

export interface RouteFacts {
  operationId: string;
  /** The operation needs an API key (part 5.1). */
  secured: boolean;
  /**
   * The status the front asks Prism for when the request names none: Prism answers the lowest
   * documented 2xx, which is not the default where a fresh creation (201) is documented beside a
   * 200 replay (`POST /api/v1/calls`, part 7.2).
   */
  preferCode: string | undefined;
  /** The rules of the interface specification the mock keeps on this operation (src/mock/rules/). */
  rules: OperationRule[];
  /** The request's decoded path parameters. */
  params: Record<string, string>;
}

/** The operations that need a key, in document order. */
export function listSecuredOperations(document: JsonObject): Operation[] {
  return listOperations(document).filter(({ operation }) => needsApiKey(document, operation));
}

/** A function giving the facts of the operation `METHOD /path` is for, or undefined when it matches none. */
export function routeFacts(document: JsonObject): (method: string, pathname: string) => RouteFacts | undefined {
  const match = operationMatcher(document);
  const facts = new Map<string, Omit<RouteFacts, 'params'>>();
  return (method, pathname) => {
    const route = match(method, pathname);
    if (!route) return undefined;
    let known = facts.get(route.operationId);
    if (!known) {
      const { operation } = route.entry;
      const status = defaultStatus(operation);
      known = {
        operationId: route.operationId,
        secured: needsApiKey(document, operation),
        preferCode: status !== lowestSuccessStatus(operation) ? String(status) : undefined,
        rules: rulesFor(document, route.entry),
      };
      facts.set(route.operationId, known);
    }
    return { ...known, params: route.params };
  };
}
