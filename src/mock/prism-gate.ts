// Prism's own request validator in-process, as the pipeline's Gate: what `prism mock` runs
// (@stoplight/prism-http `validateInput`), without its router, its mocker or an HTTP hop. The
// stateful mock's default gate is the compiled ajv gate (src/serve/gate.ts), which refuses
// the same requests (test/gate-parity.test.ts) at a fraction of the start-up and CPU; this one is
// the reference the parity test and `npm run bench` hold it to, and `--gate prism` runs the mock
// on it. Prism decides; each of its diagnostics is then the contract validator's verdict of the
// same place and keyword (Prism's diagnostic carries its path and ajv keyword, not the keyword's
// params), so every answer renders verdicts the same way, whichever gate refused.
import type { ContractValidator } from '../contract/contract-validator.js';
import { prismViolation } from '../contract/prism-wording.js';
import { ruleVerdict, type VerdictPlace } from '../contract/verdict.js';
import { ajvGate, type Gate } from '../serve/gate.js';
import type { SimRequest, Verdict } from '../simulator/types.js';
import { requireFromPrism, skipUnusedPrismModules } from './prism-modules.js';

interface PrismDiagnostic {
  path?: Array<string | number>;
  code?: string | number;
  message: string;
  severity: number;
}

/** The query as Prism's server hands it to its validator: a repeated name becomes a list. */
function prismQuery(query: URLSearchParams): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    params[name] = values.length === 1 ? values[0]! : values;
  }
  return params;
}

const placeKey = (location: readonly string[], keyword: string): string => `${location.join('/')}|${keyword}`;
const PLACES: readonly string[] = ['body', 'query', 'header', 'path'];

/**
 * Prism's diagnostics of severity Error as verdicts: for each, the validator's verdict Prism would
 * place and key the same (in order, where several share a place), else one with what Prism gives.
 */
export function verdictsFromPrism(diagnostics: readonly PrismDiagnostic[], ours: readonly Verdict[]): Verdict[] {
  const ERROR = 0; // @stoplight/types DiagnosticSeverity.Error
  const waiting = new Map<string, Verdict[]>();
  for (const verdict of ours) {
    const key = placeKey(prismViolation(verdict).location, verdict.keyword === 'bodyRequired' ? 'required' : verdict.keyword);
    waiting.set(key, [...(waiting.get(key) ?? []), verdict]);
  }
  return diagnostics
    .filter((diagnostic) => diagnostic.severity === ERROR)
    .map((diagnostic) => {
      const location = (diagnostic.path ?? []).map(String);
      const keyword = String(diagnostic.code ?? '');
      const found = waiting.get(placeKey(location, keyword))?.shift();
      if (found) return found;
      const where = (PLACES.includes(location[0] ?? '') ? location[0] : 'body') as VerdictPlace;
      return ruleVerdict({ in: where, keyword, field: location.slice(1), ...(where !== 'body' && location[1] ? { parameter: location[1] } : {}) });
    });
}

/** Prism's validator over the description at `documentPath` (the dereferenced bundle, as `--stateless` serves), given the contract validator. */
export async function prismGate(documentPath: string): Promise<(validator: ContractValidator) => Gate> {
  skipUnusedPrismModules();
  const { getHttpOperationsFromSpec } = requireFromPrism('@stoplight/prism-http');
  const { validateInput } = requireFromPrism(requireFromPrism.resolve('@stoplight/prism-http').replace(/index\.js$/, 'validator/index.js'));
  const operations = new Map<string, unknown>();
  for (const operation of await getHttpOperationsFromSpec(documentPath)) operations.set(operation.iid, operation);
  return (validator) => {
    const ours = ajvGate(validator);
    return {
      check(operationId: string, request: SimRequest): Verdict[] {
        const resource = operations.get(operationId);
        if (!resource) return [];
        const element = {
          method: request.method.toLowerCase(),
          url: { path: request.pathname, query: prismQuery(request.query) },
          headers: request.headers,
          body: request.body,
        };
        const verdict = validateInput({ resource, element }) as { _tag: 'Left' | 'Right'; left?: PrismDiagnostic[] };
        return verdict._tag === 'Left' ? verdictsFromPrism(verdict.left ?? [], ours.check(operationId, request)) : [];
      },
    };
  };
}
