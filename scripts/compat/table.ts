// The compatibility tables of docs/guides/tool-compatibility.md, read back by the tests that
// hold each tool to them (test/generators.test.ts, test/browser/rendered-docs.test.ts), so the
// page cannot say a tool keeps what it loses, or the reverse.
//
// A table is the Markdown table under a heading; its first two columns are the tool and its
// version, each further column one rule. A cell is `kept`, or `lost: ` followed by the cases
// lost, each in backticks (a trailing `*` matches every case that starts with it), then `;` and
// why. Case names are the ones the checks report.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMPATIBILITY_PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/guides/tool-compatibility.md');

export interface Expectation {
  /** The cases the table says are lost (empty: kept). */
  lost: string[];
  /** The whole cell, for messages. */
  text: string;
}

export interface ToolRow {
  tool: string;
  version: string;
  cells: Record<string, Expectation>;
}

const split = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));

/** Parse one cell: `kept`, or `lost: \`a\`, \`b*\`; why`. */
export function parseCell(text: string): Expectation {
  if (text === 'kept') return { lost: [], text };
  const match = /^lost: ([^;]+);\s*\S/.exec(text);
  if (!match) throw new Error(`a cell must read "kept" or "lost: \`case\`, ...; why", not: ${text}`);
  const lost = [...match[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  if (lost.length === 0) throw new Error(`"lost:" names no case in backticks: ${text}`);
  return { lost, text };
}

/** The table under the heading `heading` (its text, without `#`s), rules keyed by their column header. */
export function readTable(heading: string, file = COMPATIBILITY_PAGE): { headers: string[]; rows: ToolRow[] } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, '').trim() === heading);
  if (at < 0) throw new Error(`${path.relative(process.cwd(), file)} has no heading "${heading}"`);
  const start = lines.findIndex((l, i) => i > at && l.startsWith('|'));
  const table: string[] = [];
  for (let i = start; i < lines.length && lines[i]!.startsWith('|'); i += 1) table.push(lines[i]!);
  const [header, , ...body] = table;
  const headers = split(header!);
  const rows = body.map((line) => {
    const cells = split(line);
    return {
      tool: cells[0]!.replace(/`/g, ''),
      version: cells[1]!.replace(/`/g, ''),
      cells: Object.fromEntries(headers.slice(2).map((h, i) => [h, parseCell(cells[i + 2] ?? '')])),
    };
  });
  return { headers, rows };
}

/** Whether the cases observed lost are exactly the ones the cell names. */
export function matches(expected: Expectation, observedLost: string[]): boolean {
  const claimed = (id: string) => expected.lost.some((p) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p));
  const used = (p: string) => observedLost.some((id) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p));
  return observedLost.every(claimed) && expected.lost.every(used);
}
