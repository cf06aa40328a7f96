// House rule (spec/EXTENSIONS.md, `x-effects`): every operation says what it does to the world, so
// the MCP server, the conformance suite, the recorder and the client read one answer instead of
// guessing from the method. Well formed means: the four booleans and a `reason`, nothing unknown;
// a GET or HEAD changes nothing (part 7.1); whatever charges, deletes, reaches a person or takes an
// idempotency key changes something; `idempotencyKey` names a header parameter of the operation.
//
// Given: an operation object (resolved), at paths.<path>.<method>.
const FLAGS = ['changesState', 'charges', 'deletes', 'reachesPerson'];
const KNOWN = new Set([...FLAGS, 'idempotencyKey', 'mockOnly', 'reason', 'x-inferred', 'x-inferred-reason']);

export default function operationEffects(operation, _options, context) {
  if (operation === null || typeof operation !== 'object') return;
  const effects = operation['x-effects'];
  const at = ['x-effects'];
  if (effects === null || typeof effects !== 'object' || Array.isArray(effects)) {
    return [{ message: 'Every operation needs an `x-effects` object: changesState, charges, deletes, reachesPerson and a reason (spec/EXTENSIONS.md).', path: [...context.path] }];
  }
  const results = [];
  for (const key of Object.keys(effects)) if (!KNOWN.has(key)) results.push({ message: `\`x-effects\` has no key \`${key}\`.`, path: [...context.path, ...at, key] });
  for (const flag of FLAGS) if (typeof effects[flag] !== 'boolean') results.push({ message: `\`x-effects.${flag}\` must be a boolean.`, path: [...context.path, ...at] });
  if ('mockOnly' in effects && typeof effects.mockOnly !== 'boolean') results.push({ message: '`x-effects.mockOnly` must be a boolean.', path: [...context.path, ...at, 'mockOnly'] });
  if (typeof effects.reason !== 'string' || effects.reason.trim() === '') results.push({ message: '`x-effects.reason` must say, in a line, what the operation does and the part it rests on.', path: [...context.path, ...at] });
  const method = String(context.path.at(-1)).toLowerCase();
  if ((method === 'get' || method === 'head') && effects.changesState !== false) results.push({ message: 'A GET changes nothing (part 7.1): `changesState` must be false.', path: [...context.path, ...at, 'changesState'] });
  for (const effect of ['charges', 'deletes', 'reachesPerson', 'idempotencyKey']) {
    if (effects[effect] !== undefined && effects[effect] !== false && effects.changesState !== true) results.push({ message: `\`${effect}\` is an effect: \`changesState\` must be true too.`, path: [...context.path, ...at, effect] });
  }
  if (effects.idempotencyKey !== undefined) {
    const pathItem = context.path.slice(0, -1).reduce((node, key) => node?.[key], context.document?.data);
    const headers = [...(pathItem?.parameters ?? []), ...(operation.parameters ?? [])].filter((p) => p?.in === 'header').map((p) => String(p.name).toLowerCase());
    if (typeof effects.idempotencyKey !== 'string' || !headers.includes(effects.idempotencyKey.toLowerCase())) {
      results.push({ message: '`x-effects.idempotencyKey` must name a header parameter of the operation.', path: [...context.path, ...at, 'idempotencyKey'] });
    }
  }
  return results;
}
