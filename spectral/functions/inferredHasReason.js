// House rule (COMMON rules "never invent silently"; spec/EXTENSIONS.md): whatever is marked
// `x-inferred: true` carries a one-line `x-inferred-reason`, so a reader (and the conformance
// suite) can tell documented from inferred and why. A reason without the flag is a slip too.
//
// Given: the whole (unresolved) document; walks every object, including inside schemas.
export default function inferredHasReason(document) {
  const results = [];
  const visit = (node, path) => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index]));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const flagged = node['x-inferred'];
    const reason = node['x-inferred-reason'];
    if ('x-inferred' in node && typeof flagged !== 'boolean') {
      results.push({ message: '`x-inferred` must be a boolean.', path: [...path, 'x-inferred'] });
    }
    if (flagged === true && !(typeof reason === 'string' && reason.trim() !== '')) {
      results.push({ message: '`x-inferred: true` needs a one-line `x-inferred-reason` saying why the shape was needed.', path: [...path, 'x-inferred'] });
    }
    if (reason !== undefined && flagged !== true) {
      results.push({ message: '`x-inferred-reason` without `x-inferred: true`.', path: [...path, 'x-inferred-reason'] });
    }
    for (const [key, value] of Object.entries(node)) visit(value, [...path, key]);
  };
  visit(document, []);
  return results;
}
