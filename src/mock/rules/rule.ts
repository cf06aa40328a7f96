// What a rule of the interface specification that the mock keeps looks like. Prism serves the
// documented examples as they are; a rule adjusts, for one operation, either what the example server asks
// Prism for (a `Prefer: code=`) or Prism's JSON answer, and nothing else.
import type { JsonObject, Operation } from '../../contract/generated-files.js';

/** What a rule sees of a request: its decoded path parameters and its query. */
export interface RuleRequest {
  params: Record<string, string>;
  query: URLSearchParams;
}

/** A rule bound to one operation, with everything it needs from the description worked out once. */
export interface OperationRule {
  /** The rule's name, as in the conformance suite (`usage-days-fallback`, ...). */
  name: string;
  /** The status to ask Prism for (`Prefer: code=<status>`), or undefined to leave the request as it is. */
  preferCode?(request: RuleRequest): string | undefined;
  /** The query to ask Prism with instead, where the rule reads a value itself that Prism would refuse; undefined to keep it. */
  forwardQuery?(query: URLSearchParams): URLSearchParams | undefined;
  /** Rewrites Prism's JSON answer of status `status`, in place or as a new value. */
  rewrite?: { status: number; apply(body: JsonObject, request: RuleRequest): JsonObject };
}

export interface MockRule {
  name: string;
  /** The part of the interface specification the rule comes from. */
  part: string;
  /** The rule bound to an operation, or undefined where it does not apply. */
  forOperation(document: JsonObject, operation: Operation): OperationRule | undefined;
}
