// The interface specification part by part, in the contract's own words: for each part, every
// operation whose `x-source` names it and every sentence of the contract (OpenAPI and AsyncAPI)
// that cites it, grouped by the numbered sections of `x-interface-specification`. The docs render
// one page per part (docs/guides/part-*.md); every "part N" citation of the repository points to
// one of its anchors (test/part-citations.test.ts).
import { listOperations } from '../../src/contract/operations.ts';

/** `part 4.5`, `parts 2 and 4.5`, `parts 3, 4.4 and 7`: the numbers cited. */
export const CITATION = /\bparts? (\d(?:\.\d+)?(?!\d)(?:(?:,? and |, )\d(?:\.\d+)?(?!\d))*)/gi;

/** Every part or section number a text cites. */
export function citedNumbers(text) {
  const found = [];
  for (const match of String(text).matchAll(CITATION)) found.push(...match[1].split(/,? and |, /));
  return found;
}

/** The anchor of a part (`part-4`) or a section (`section-4-5`) on its page. */
export const anchorOf = (number) => (number.includes('.') ? `section-${number.replace('.', '-')}` : `part-${number}`);
/** The page of a part: its guide (`part-4.md`) and its site page (`part-4.html`). */
export const guideOf = (number) => `part-${number.split('.')[0]}.md`;

const PROSE = new Set(['description', 'summary', 'x-inferred-reason', 'x-client-action']);

/** The sentences of a text (prose: a period, question or exclamation mark, then a space). */
const sentences = (text) => String(text).replace(/\s*\n\s*/g, ' ').split(/(?<=[.!?])\s+(?=[A-Z`(])/);

/** Every prose string under a node (no `$ref` followed), with where it stands. */
function* proseOf(node, where) {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* proseOf(item, where);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (PROSE.has(key) && typeof value === 'string') yield { where, text: value };
    else if (key !== 'value' && key !== 'examples' && key !== 'example') yield* proseOf(value, where);
  }
}

/** The places of the contract that cite each part or section: number → [{where, text}]. */
export function contractCitations({ openapi, asyncapi }) {
  const cited = new Map();
  const add = (number, entry) => {
    const list = cited.get(number) ?? [];
    if (!list.some((e) => e.where === entry.where && e.text === entry.text)) list.push(entry);
    cited.set(number, list);
  };
  const addProse = (where, node) => {
    for (const { text } of proseOf(node, where)) {
      for (const sentence of sentences(text)) for (const number of citedNumbers(sentence)) add(number, { where, text: sentence.trim() });
    }
  };
  for (const op of listOperations(openapi, ['paths', 'webhooks'])) {
    const where = op.section === 'paths' ? `${op.method.toUpperCase()} ${op.path}` : `webhook ${op.path}`;
    for (const number of String(op.operation['x-source'] ?? '').split(/,\s*/).filter(Boolean)) add(number, { where, text: op.operation.summary ?? '', source: true });
    addProse(where, op.operation);
  }
  for (const [kind, components] of Object.entries(openapi.components ?? {})) {
    for (const [name, node] of Object.entries(components)) addProse(`${kind.replace(/s$/, '')} ${name}`, node);
  }
  for (const [name, machine] of Object.entries(openapi['x-state-machines'] ?? {})) {
    for (const number of String(machine.source ?? '').split(/,\s*/).filter(Boolean)) add(number, { where: `state machine ${name}`, text: machine.title ?? name, source: true });
    addProse(`state machine ${name}`, machine);
  }
  for (const entry of openapi['x-test-values'] ?? []) addProse(`test value ${entry.name}`, entry);
  addProse('the description (info)', openapi.info);
  for (const tag of openapi.tags ?? []) addProse(`tag ${tag.name}`, tag);
  if (asyncapi) {
    addProse('AsyncAPI (info)', asyncapi.info);
    for (const [name, channel] of Object.entries(asyncapi.channels ?? {})) addProse(`channel ${name}`, channel);
    for (const [name, operation] of Object.entries(asyncapi.operations ?? {})) addProse(`AsyncAPI operation ${name}`, operation);
    for (const [kind, components] of Object.entries(asyncapi.components ?? {})) {
      if (kind === 'schemas') continue; // the OpenAPI components, shared: cited above
      for (const [name, node] of Object.entries(components)) addProse(`AsyncAPI ${kind.replace(/s$/, '')} ${name}`, node);
    }
  }
  return cited;
}

/** The parts and their sections, as `x-interface-specification` gives them. */
export function interfaceParts(openapi) {
  const parts = openapi['x-interface-specification']?.parts;
  if (!Array.isArray(parts)) throw new Error('generated/openapi.json has no x-interface-specification: run `npm run bundle`');
  return parts;
}

const cell = (text) => String(text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/** The Markdown of one part's page (the generated region of docs/guides/part-N.md). */
export function partMarkdown(contract, number) {
  const part = interfaceParts(contract.openapi).find((p) => p.number === String(number));
  if (!part) throw new Error(`x-interface-specification has no part ${number}`);
  const cited = contractCitations(contract);
  const block = (id, heading, level) => {
    const entries = cited.get(id) ?? [];
    const operations = entries.filter((e) => e.source);
    const prose = entries.filter((e) => !e.source);
    const lines = [`<a id="${anchorOf(id)}"></a>`, '', `${'#'.repeat(level)} ${heading}`, ''];
    if (operations.length) lines.push(`Operations and state tables whose \`x-source\` names ${id}:`, '', ...operations.map((e) => `- \`${e.where}\`${e.text ? `: ${cell(e.text)}` : ''}`), '');
    if (prose.length) lines.push(`What the contract says where it cites ${id}:`, '', '| Where | In the contract\'s words |', '| --- | --- |', ...prose.map((e) => `| ${cell(e.where)} | ${cell(e.text)} |`), '');
    if (!entries.length) lines.push(`Nothing in the contract cites ${id} on its own; it is cited by the code and tests that keep it.`, '');
    return lines.join('\n');
  };
  return [
    block(part.number, `Part ${part.number}: ${part.title}`, 2),
    ...(part.sections ?? []).map((section) => block(section.number, `${section.number} ${section.title}`, 3)),
  ].join('\n').trim();
}

/** The Markdown index of the parts (the generated region of docs/guides/interface-specification.md). */
export function partsIndexMarkdown(contract) {
  const cited = contractCitations(contract);
  const count = (number) => [...cited.entries()].filter(([id]) => id === number || id.startsWith(`${number}.`)).reduce((sum, [, list]) => sum + list.length, 0);
  return [
    '| Part | Sections | Places of the contract citing it |',
    '| --- | --- | --- |',
    ...interfaceParts(contract.openapi).map((part) => `| [Part ${part.number}: ${cell(part.title)}](${guideOf(part.number)}) | ${(part.sections ?? []).map((s) => `[${s.number}](${guideOf(part.number)}#${anchorOf(s.number)})`).join(', ') || ''} | ${count(part.number)} |`),
  ].join('\n');
}
