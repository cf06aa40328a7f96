// unknown-resource-404 (part 7: 404 is "Resource not on this account"): an id the description's
// examples do not use is not on the mock's account, so it gets the operation's documented 404.
import { pathParameterNames, resolveRef } from '../../contract/operations.js';
import { documentedIds } from './documented-ids.js';
import type { MockRule } from './rule.js';

const NAME = 'unknown-resource-404';

export const unknownResource404: MockRule = {
  name: NAME,
  part: '7',
  forOperation(document, { path, operation, pathItem }) {
    if (!path.includes('{') || !('404' in (operation.responses ?? {}))) return undefined;
    const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((raw) => resolveRef(document, raw));
    const names = pathParameterNames(path);
    // A parameter that documents no id at all cannot tell known from unknown: it is not checked.
    const known = names.map((name) => {
      const parameter = parameters.find((p) => p?.in === 'path' && p.name === name);
      return parameter ? documentedIds(document, parameter) : new Set<string>();
    });
    if (known.every((ids) => ids.size === 0)) return undefined;
    return {
      name: NAME,
      preferCode({ params }) {
        return names.some((name, i) => known[i]!.size > 0 && !known[i]!.has(params[name]!)) ? '404' : undefined;
      },
    };
  },
};
