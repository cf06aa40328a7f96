// Documented inputs (the contract's `x-test-values`, spec/EXTENSIONS.md): values a request can
// carry to reach an outcome only a carrier or a registry decides in the real service (an embargoed
// region, a recipient not on WhatsApp, a failed lookup ...), the way test card numbers work
// elsewhere. The simulator matches them here; the contract lists them.
import type { SimContract, TestValue } from './contract.js';
import type { JsonObject, SimRequest } from './types.js';

/** The value at `field` (`body.to`, `query.number`, `body.brand.vertical`) of the request, as a string. */
export function readField(request: SimRequest, field: string): string | undefined {
  const [where, ...path] = field.split('.');
  if (where === 'query') return request.query.get(path.join('.')) ?? undefined;
  if (where === 'header') return request.headers[path.join('.').toLowerCase()];
  if (where !== 'body') return undefined;
  let value: unknown = request.body;
  for (const key of path) value = value && typeof value === 'object' ? (value as JsonObject)[key] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/** The first test value of `operationId` the request carries (limited to the `only` names when given). */
export function matchTestValue(contract: SimContract, operationId: string, request: SimRequest, only?: string[]): TestValue | undefined {
  return contract
    .testValues(operationId)
    .find((entry) => (!only || only.includes(entry.name)) && readField(request, entry.field) === entry.value);
}
