// The mock's documented test values (`x-test-values` of the description, spec/test-values.yaml):
// inputs that reach an outcome only a carrier, a registry or a payment provider decides (an
// embargoed region, a recipient not on WhatsApp, a failed lookup ...). The real service gives them
// no special meaning, so the suite sends them only to the package's mock, once it has announced
// itself; on a deployment the coverage says so. Read by name, never restated here.
import type { Json } from './description.js';

export interface TestValue {
  name: string;
  operations: string[];
  /** `body.<path>`, `query.<name>` or `header.<name>`. */
  field: string;
  value: string;
  /** The documented answer it triggers, where it triggers one. */
  status?: number;
  example?: string;
  description?: string;
}

/** The test value named `name`, or undefined when the description no longer has it. */
export function testValue(document: Json, name: string): TestValue | undefined {
  return ((document['x-test-values'] ?? []) as TestValue[]).find((entry) => entry.name === name);
}

/** Why a provocation by test value is not sent to a deployment, in one line (the coverage gives it). */
export const TEST_VALUE_ONLY_ON_THE_MOCK = "provoked by a test value of the package's mock (spec/test-values.yaml), which the service gives no meaning; a deployment would act on it";
