// Which named example a console starts on. The contract's first example is the usual choice, but
// an example that names an id the reader cannot have (a group no account has, on the mock or
// made by the reader) answers 404 or, for a wait, waits for nothing: "Wait for an event" would
// start on `groupMessages`, whose group nobody sends to, and time out. So a console starts on the
// first example every id of which is one the reader has: an id of a kind this session's answers
// gave (the form fills the newest in), or an id of the account a fresh key opens on the mock (its
// demo seed, made from these same examples). When no example qualifies, the first one.
import { catalog, type CatalogExample } from './catalog.js';
import { ID } from './session.js';

const demoIds = new Set(catalog.demoIds);

/** Every id-like string in a value. */
function idsIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string') {
    if (ID.test(value)) found.push(value);
  } else if (Array.isArray(value)) value.forEach((v) => idsIn(v, found));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => idsIn(v, found));
  return found;
}

/** Whether the reader has every id `value` names (`known`: the prefixes this session's answers gave). */
export function namesOnlyIdsTheReaderHas(value: unknown, known: Record<string, unknown>): boolean {
  return idsIn(value).every((id) => demoIds.has(id) || ID.exec(id)![1]! in known);
}

/** The name of the example a console starts on (see the head of this file); '' without examples. */
export function startingExample(examples: CatalogExample[], known: Record<string, unknown>): string {
  return (examples.find((e) => namesOnlyIdsTheReaderHas(e.value, known)) ?? examples[0])?.name ?? '';
}
