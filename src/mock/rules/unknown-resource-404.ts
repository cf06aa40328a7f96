// unknown-resource-404 (part 7: 404 is "Resource not on this account"): an id the description's
// examples do not use is not on the mock's account, so it gets the operation's documented 404.
import { resolveRef } from '../description.js';
import { documentedIds } from './documented-ids.js';
import type { MockRule } from './rule.js';

/** `/a/{id}/b` → a regular expression capturing each path parameter, and their names in order. */
function pathTemplateCaptures(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (part.startsWith('{') && part.endsWith('}')) {
        names.push(part.slice(1, -1));
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { regex: new RegExp(`^${pattern}/?$`), names };
}

const NAME = 'unknown-resource-404';

export const unknownResource404: MockRule = {
  name: NAME,
  part: '7',
  forOperation(document, { path, operation, pathItem }) {
    if (!path.includes('{') || !('404' in (operation.responses ?? {}))) return undefined;
    const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((raw) => resolveRef(document, raw));
    const { regex, names } = pathTemplateCaptures(path);
    // A parameter that documents no id at all cannot tell known from unknown: it is not checked.
    const known = names.map((name) => {
      const parameter = parameters.find((p) => p?.in === 'path' && p.name === name);
      return parameter ? documentedIds(document, parameter) : new Set<string>();
    });
    if (known.every((ids) => ids.size === 0)) return undefined;
    return {
      name: NAME,
      preferCode({ pathname }) {
        const match = regex.exec(pathname);
        if (!match) return undefined;
        for (let i = 0; i < names.length; i++) {
          const ids = known[i]!;
          if (ids.size === 0) continue;
          let value: string;
          try {
            value = decodeURIComponent(match[i + 1]!);
          } catch {
            value = match[i + 1]!;
          }
          if (!ids.has(value)) return '404';
        }
        return undefined;
      },
    };
  },
};
