// What the simulator reads from the contract (the bundled OpenAPI description, as parsed JSON):
// operations, their documented examples, the documented test values (`x-test-values`) and the
// state tables (`x-state-machines`). Everything a rule answers that is not computed from state is
// one of these examples: the simulator never restates a message or a shape of the contract.
import { listOperations, needsApiKey, operationMatcher, pathMethods, resolveRef, type JsonObject, type MatchedOperation } from '../contract/operations.js';
import type { BodyOf, OperationId, StatusOf } from './records.js';

/** One documented test value (`x-test-values`, spec/EXTENSIONS.md): an input that triggers a documented outcome. */
export interface TestValue {
  name: string;
  /** The operations it applies to. */
  operations: string[];
  /** Where the value is read: `body.to`, `query.number`, `body.code`, ... */
  field: string;
  value: string;
  /** The documented answer it triggers, when it triggers one: the status and the example name. */
  status?: number;
  example?: string;
  description: string;
}

export interface SimContract {
  document: JsonObject;
  match(method: string, pathname: string): MatchedOperation | undefined;
  /** The methods the contract has operations for at `pathname` (upper case). */
  methodsAt(pathname: string): string[];
  operation(operationId: string): JsonObject;
  needsKey(operationId: string): boolean;
  /** A deep copy of the named example of `operationId`'s `status` answer (the first one without a name), typed by the contract. */
  example<Op extends OperationId, S extends StatusOf<Op>>(operationId: Op, status: S, name?: string): BodyOf<Op, S>;
  /** The same for an operation of another description (the control surface's). */
  example(operationId: string, status: number, name?: string): unknown;
  /** The example names of `operationId`'s `status` answer, in document order. */
  exampleNames(operationId: string, status: number): string[];
  /** A deep copy of a component example's value (`#/components/examples/<name>`). */
  componentExample(name: string): unknown;
  testValues(operationId?: string): TestValue[];
  stateMachine(name: string): JsonObject | undefined;
}

const clone = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

export function simContract(document: JsonObject): SimContract {
  const match = operationMatcher(document);
  const byId = new Map(listOperations(document).map((entry) => [String(entry.operation.operationId), entry.operation]));
  const operation = (operationId: string): JsonObject => {
    const found = byId.get(operationId);
    if (!found) throw new Error(`The contract has no operation ${operationId}`);
    return found;
  };
  const examplesOf = (operationId: string, status: number): JsonObject =>
    resolveRef(document, operation(operationId).responses?.[String(status)])?.content?.['application/json']?.examples ?? {};
  const testValues: TestValue[] = (document['x-test-values'] ?? []) as TestValue[];

  return {
    document,
    match,
    methodsAt: pathMethods(document),
    operation,
    needsKey: (operationId) => needsApiKey(document, operation(operationId)),
    example(operationId: string, status: number, name?: string): never {
      const examples = examplesOf(operationId, status);
      const key = name ?? Object.keys(examples)[0];
      if (key === undefined || !(key in examples)) {
        throw new Error(`The contract has no example ${name ?? '(any)'} for ${operationId} ${status}`);
      }
      return clone(resolveRef(document, examples[key]).value) as never;
    },
    exampleNames: (operationId, status) => Object.keys(examplesOf(operationId, status)),
    componentExample(name) {
      const example = document.components?.examples?.[name];
      if (!example) throw new Error(`The contract has no component example ${name}`);
      return clone(resolveRef(document, example).value);
    },
    testValues: (operationId) => (operationId ? testValues.filter((entry) => entry.operations.includes(operationId)) : testValues),
    stateMachine: (name) => (document['x-state-machines'] as JsonObject | undefined)?.[name],
  };
}
