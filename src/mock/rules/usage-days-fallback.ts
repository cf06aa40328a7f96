// usage-days-fallback (part 4.3): `days` is one of 7, 30, 90, default 30, and any other value
// falls back to 30; `periodDays` of the answer says which window was used. The windows and the
// default are read from the `days` parameter's schema (its `enum`, else its `examples`, and its
// `default`); the body is Prism's documented example with `periodDays` set.
import { resolveRef, type JsonObject } from '../description.js';
import type { MockRule } from './rule.js';

const OPERATION_ID = 'getUsage';
const QUERY = 'days';
const FIELD = 'periodDays';

/** The window a `days` query value selects: itself when it is one of the windows, else the default. */
export function usageWindow(value: string | null, windows: readonly number[], fallback: number): number {
  const days = value !== null && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return windows.includes(days) ? days : fallback;
}

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
    const windows = ((schema?.enum ?? schema?.examples ?? []) as unknown[]).filter((v): v is number => Number.isInteger(v));
    const fallback = schema?.default;
    if (windows.length === 0 || !Number.isInteger(fallback)) return undefined;
    return {
      name: NAME,
      rewrite: {
        status: 200,
        apply(body, { query }) {
          if (body && typeof body === 'object' && FIELD in body) body[FIELD] = usageWindow(query.get(QUERY), windows, fallback as number);
          return body;
        },
      },
    };
  },
};
