// The state machines of part 3, drawn FROM `x-state-machines` of the bundled description (never
// by hand) as static SVG at build time.
//
// Why Graphviz through @viz-js/viz: it is Graphviz compiled to WebAssembly and shipped inside the
// npm package, so rendering needs no browser, no native binary and no download (Mermaid's CLI
// needs a headless browser through puppeteer; nomnoml/dagre-d3 need a DOM). Graphviz's `dot`
// layout is made for exactly this kind of directed state graph, and its SVG output is static
// and self-contained, so the pages load nothing else.
import { instance } from '@viz-js/viz';
import { escapeHtml, markdownInline, slug } from './html.mjs';

let vizPromise;
function viz() {
  vizPromise ??= instance();
  return vizPromise;
}

/** Break a label into lines of at most `width` characters, on spaces. */
function wrap(text, width = 26) {
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** A DOT double-quoted string; lines joined with DOT's centred line break. */
function dotString(lines) {
  return `"${lines.map((l) => l.replaceAll('\\', '\\\\').replaceAll('"', '\\"')).join('\\n')}"`;
}

/** Drop Markdown code ticks: diagrams show plain text. */
function plain(text) {
  return String(text ?? '').replaceAll('`', '');
}

/** The states of a machine, in order of first appearance in its transitions. */
export function statesOf(machine) {
  const states = [];
  for (const t of machine.transitions) {
    for (const s of [t.from, t.to]) if (!states.includes(s)) states.push(s);
  }
  return states;
}

/**
 * The DOT source of one machine: a node per state and an edge per (from, to) pair. Transitions
 * between the same two states share one edge whose label lists each trigger (Graphviz draws
 * several labelled self-loops on top of each other). Top to bottom, so that a diagram fits the
 * text column without shrinking its labels.
 */
export function machineToDot(machine) {
  const states = statesOf(machine);
  const id = new Map(states.map((s, i) => [s, `s${i}`]));
  const out = [
    'digraph {',
    '  rankdir=TB; bgcolor="transparent"; pad=0.2; nodesep=0.6; ranksep=0.45;',
    '  node [shape=box, style="rounded,filled", fillcolor="#eef4fb", color="#0b5cad", fontname="Helvetica", fontsize=13, margin="0.15,0.06"];',
    '  edge [color="#59636e", fontname="Helvetica", fontsize=11, fontcolor="#1f2328"];',
  ];
  for (const s of states) {
    const start = s === 'none';
    out.push(
      `  ${id.get(s)} [label=${dotString(wrap(s, 22))}${start ? ', shape=ellipse, style="dashed", fillcolor="white", color="#59636e"' : ''}];`,
    );
  }
  const edges = new Map();
  for (const t of machine.transitions) {
    const key = `${id.get(t.from)} -> ${id.get(t.to)}`;
    const label = wrap(plain(t.trigger), 34);
    if (t.condition) label.push(...wrap(`[${plain(t.condition)}]`, 34));
    edges.set(key, [...(edges.get(key) ?? []), label]);
  }
  for (const [key, labels] of edges) {
    // One blank line between the triggers of a shared edge.
    out.push(`  ${key} [label=${dotString(labels.flatMap((l, i) => (i ? ['', ...l] : l)))}];`);
  }
  out.push('}');
  return out.join('\n');
}

/** Render one machine to an inline SVG element (no XML prolog, no doctype). */
export async function machineToSvg(name, machine) {
  const v = await viz();
  const svg = v.renderString(machineToDot(machine), { format: 'svg', engine: 'dot' });
  return svg
    .replace(/^[\s\S]*?(<svg\b)/, '$1')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace('<svg ', `<svg role="img" aria-label="${escapeHtml(`State diagram: ${machine.title}`)}" data-machine="${escapeHtml(name)}" `);
}

/**
 * The HTML of one machine for a guide: heading, description, the SVG, and the transition table
 * it was drawn from. `linkOperation` turns a trigger such as `POST /api/v1/auth/signup` into a
 * link to the reference, or returns null.
 */
export async function machineSection(name, machine, { linkOperation }) {
  const svg = await machineToSvg(name, machine);
  const id = `state-${slug(name)}`;
  const inferred = machine['x-inferred']
    ? `<p class="inferred-note"><span class="badge inferred">inferred</span> ${markdownInline(machine['x-inferred-reason'])}</p>`
    : '';
  const rows = machine.transitions
    .map((t) => {
      const link = linkOperation(t.trigger);
      const trigger = link
        ? `<a href="${escapeHtml(link)}"><code>${escapeHtml(t.trigger)}</code></a>`
        : markdownInline(t.trigger);
      return `<tr><td>${escapeHtml(t.from)}</td><td>${trigger}</td><td>${markdownInline(t.condition ?? '')}</td><td>${escapeHtml(t.to)}</td><td>${markdownInline(t.also ?? '')}</td></tr>`;
    })
    .join('\n');
  return `<section class="state-machine">
<h2 id="${id}">${escapeHtml(machine.title)}</h2>
<p class="muted">Interface specification part ${escapeHtml(machine.source ?? '3')} · <code>x-state-machines.${escapeHtml(name)}</code></p>
${machine.description ? `<p>${markdownInline(machine.description)}</p>` : ''}
${inferred}
<figure class="diagram">${svg}<figcaption>${escapeHtml(machine.title)}: states and transitions, drawn from the contract.</figcaption></figure>
<table class="transitions"><thead><tr><th>From</th><th>Trigger</th><th>Condition</th><th>To</th><th>Also</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`;
}
