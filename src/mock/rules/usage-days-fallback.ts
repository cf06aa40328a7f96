// usage-days-fallback (part 4.3): `days` is one of 7, 30, 90, default 30, and any other value
// falls back to 30; `periodDays` of the answer says which window was used. The windows and the
// default are read from the `days` parameter's schema (its `enum`, else its `examples`, and its
// `default`, by the stateful mock's own `usageWindow`); the body is Prism's documented example
// with `periodDays` set.
import { resolveRef, type JsonObject } from '../../contract/operations.js';
import { usageWindow } from '../../simulator/resources/usage.js';
import type { MockRule } from './rule.js';

const OPERATION_ID = 'getUsage';
const QUERY = 'days';
const FIELD = 'periodDays';

const NAME = 'usage-days-fallback';

export const usageDaysFallback: MockRule = {
  name: NAME,
  part: '4.3',
  forOperation(document, { operation, pathItem }) {
    if (operation.operationId !== OPERATION_ID) return undefined;
    const parameter = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]
      .map((raw) => resolveRef(document, raw))
      .find((p) => p?.in === 'query' && p.name === QUERY);
    const schema: JsonObject | undefined = parameter && resolveRef(document, parameter.schema ?? {});
    if (!Number.isInteger(schema?.default)) return undefined;
    return {
      name: NAME,
      // A repeated `days` falls back like any other value; Prism would refuse it (a list where
      // its schema says integer), so it is not asked with one.
      forwardQuery(query) {
        if (query.getAll(QUERY).length <= 1) return undefined;
        const forwarded = new URLSearchParams(query);
        forwarded.delete(QUERY);
        return forwarded;
      },
      rewrite: {
        status: 200,
        apply(body, { query }) {
          if (body && typeof body === 'object' && FIELD in body) body[FIELD] = usageWindow(schema, query.getAll(QUERY));
          return body;
        },
      },
    };
  },
};
