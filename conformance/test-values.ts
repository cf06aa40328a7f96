// The mock's documented test values (`x-test-values` of the description, spec/test-values.yaml):
// inputs that reach an outcome only a carrier, a registry or a payment provider decides (an
// embargoed region, a recipient not on WhatsApp, a failed lookup ...). The real service gives them
// no special meaning, so the suite sends them only to the package's mock, once it has announced
// itself; on a deployment the coverage says so. Read by name, never restated here.
import type { TestValue } from '../src/simulator/contract.js';
import type { Json } from './description.js';

export type { TestValue };

/** The test value named `name`, or undefined when the description no longer has it. */
export function testValue(document: Json, name: string): TestValue | undefined {
  return ((document['x-test-values'] ?? []) as TestValue[]).find((entry) => entry.name === name);
}

/** Why a provocation by test value is not sent to a deployment, in one line (the coverage gives it). */
export const TEST_VALUE_ONLY_ON_THE_MOCK = "provoked by a test value of the package's mock (spec/test-values.yaml), which the service gives no meaning; a deployment would act on it";
