// Prism's own request validator in-process, as the pipeline's Gate: what `prism mock` runs
// (@stoplight/prism-http `validateInput`), without its router, its mocker or an HTTP hop. The
// stateful mock's default gate is the compiled ajv gate (src/simulator/gate.ts), which gives the
// same verdicts (test/gate-parity.test.ts) at a fraction of the start-up and CPU; this one is the
// reference the parity test and `npm run bench` hold it to, and `--gate prism` runs the mock on it.
import type { Gate } from '../simulator/gate.js';
import type { SimRequest, Violation } from '../simulator/types.js';
import { requireFromPrism, skipUnusedPrismModules } from './prism-modules.js';

interface PrismDiagnostic {
  path?: Array<string | number>;
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

/** Prism's verdicts of severity Error, placed as the `sl-violations` header places them (minus its `request` prefix). */
export function prismVerdicts(diagnostics: readonly PrismDiagnostic[]): Violation[] {
  const ERROR = 0; // @stoplight/types DiagnosticSeverity.Error
  return diagnostics.filter((d) => d.severity === ERROR).map((d) => ({ location: (d.path ?? []).map(String), message: d.message }));
}

/** Prism's validator over the description at `documentPath` (the dereferenced bundle, as `--stateless` serves). */
export async function prismGate(documentPath: string): Promise<Gate> {
  skipUnusedPrismModules();
  const { getHttpOperationsFromSpec } = requireFromPrism('@stoplight/prism-http');
  const { validateInput } = requireFromPrism(requireFromPrism.resolve('@stoplight/prism-http').replace(/index\.js$/, 'validator/index.js'));
  const operations = new Map<string, unknown>();
  for (const operation of await getHttpOperationsFromSpec(documentPath)) operations.set(operation.iid, operation);
  return {
    check(operationId: string, request: SimRequest): Violation[] {
      const resource = operations.get(operationId);
      if (!resource) return [];
      const element = {
        method: request.method.toLowerCase(),
        url: { path: request.pathname, query: prismQuery(request.query) },
        headers: request.headers,
        body: request.body,
      };
      const verdict = validateInput({ resource, element }) as { _tag: 'Left' | 'Right'; left?: PrismDiagnostic[] };
      return verdict._tag === 'Left' ? prismVerdicts(verdict.left ?? []) : [];
    },
  };
}
