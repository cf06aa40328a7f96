// The page "What the specification leaves unshown": every `x-inferred` of the bundled OpenAPI and
// AsyncAPI documents, with its `x-inferred-reason` and where it is, generated (never hand-kept).
import { childPointer, pointerSegments } from '../../src/contract/json-pointer.ts';
import { listOperations, referenceRoute } from './contract.mjs';
import { escapeHtml, markdownInline, slug } from './html.mjs';

/** Every node marked `x-inferred: true` in `doc`, as `{ pointer, node }` in document order. */
export function findInferred(doc) {
  const found = [];
  const walk = (node, pointer) => {
    if (!node || typeof node !== 'object') return;
    if (node['x-inferred'] === true) found.push({ pointer, node });
    for (const [key, value] of Object.entries(node)) {
      walk(value, childPointer(pointer, key));
    }
  };
  walk(doc, '#');
  return found;
}

/** A readable name for a JSON pointer of an OpenAPI or AsyncAPI document. */
export function describePointer(pointer) {
  const parts = pointerSegments(pointer);
  const [section, ...rest] = parts;
  switch (section) {
    case 'paths': {
      const [path, method, ...more] = rest;
      const base = method ? `${method.toUpperCase()} ${path}` : path;
      return more.length ? `${base} → ${more.join(' ')}` : base;
    }
    case 'webhooks':
      return `webhook ${rest.join(' ')}`;
    case 'components': {
      const [kind, name, ...more] = rest;
      const label = { schemas: 'schema', examples: 'example', responses: 'response', parameters: 'parameter', messages: 'message', headers: 'header' }[kind] ?? kind;
      const path = more.filter((p) => p !== 'properties').join('.');
      return `${label} ${name}${path ? ` → ${path}` : ''}`;
    }
    case 'x-state-machines':
      return `state machine ${rest.join(' ')}`;
    case 'channels':
      return `channel ${rest.join(' ')}`;
    case 'servers':
      return `server ${rest.join(' ')}`;
    default:
      return parts.join(' ');
  }
}

/** Which section of the page an entry belongs to. */
function groupOf(pointer) {
  if (pointer.startsWith('#/paths/') || pointer.startsWith('#/webhooks/')) return 'Operations';
  if (pointer.startsWith('#/components/schemas/')) return 'Schemas and fields';
  if (pointer.startsWith('#/x-state-machines/')) return 'State machines';
  if (pointer.startsWith('#/components/examples/')) return 'Examples';
  return 'Other';
}

/**
 * All entries of both documents, one row per (document, pointer); a schema the two documents
 * share (the event schemas) is one row naming both.
 */
export function inferredEntries({ openapi, asyncapi }) {
  const rows = new Map();
  for (const [docName, doc] of [
    ['OpenAPI', openapi],
    ['AsyncAPI', asyncapi],
  ]) {
    for (const { pointer, node } of findInferred(doc)) {
      const reason = node['x-inferred-reason'];
      if (!reason) throw new Error(`${docName} ${pointer} has x-inferred without x-inferred-reason`);
      const key = `${pointer}\u0000${reason}`;
      const row = rows.get(key) ?? { pointer, reason, documents: [], group: docName === 'AsyncAPI' && !pointer.startsWith('#/components/schemas/') ? 'Event channels and servers' : groupOf(pointer) };
      row.documents.push(docName);
      rows.set(key, row);
    }
  }
  return [...rows.values()];
}

export function inferredPage({ openapi, asyncapi }) {
  const entries = inferredEntries({ openapi, asyncapi });
  const operations = listOperations(openapi);
  const linkFor = (row) => {
    if (!row.documents.includes('OpenAPI')) return row.group === 'Event channels and servers' ? 'events.html#channels' : null;
    if (row.pointer.startsWith('#/x-state-machines/')) {
      const name = pointerSegments(row.pointer)[1];
      return `state-machines.html#state-${slug(name)}`;
    }
    const op = operations.find((o) => row.pointer === o.pointer || row.pointer.startsWith(`${o.pointer}/`));
    return op ? referenceRoute(op) : null;
  };
  const order = ['Operations', 'Schemas and fields', 'Examples', 'State machines', 'Event channels and servers', 'Other'];
  const sections = order
    .map((group) => {
      const rows = entries.filter((e) => e.group === group);
      if (!rows.length) return '';
      const id = `unshown-${group.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
      return `<h2 id="${id}">${escapeHtml(group)} <span class="badge">${rows.length}</span></h2>
<table class="inferred"><thead><tr><th>What</th><th>How this contract treats it</th><th>Location</th></tr></thead><tbody>
${rows
  .map((row) => {
    const link = linkFor(row);
    const what = escapeHtml(describePointer(row.pointer));
    return `<tr data-pointer="${escapeHtml(row.pointer)}"><td>${link ? `<a href="${escapeHtml(link)}">${what}</a>` : what}</td><td>${markdownInline(row.reason)}</td><td><code>${escapeHtml(row.documents.join(' + '))} ${escapeHtml(row.pointer)}</code></td></tr>`;
  })
  .join('\n')}
</tbody></table>`;
    })
    .join('\n');
  const body = `<h1>What the specification leaves unshown</h1>
<p>Where the interface specification says a detail is "not shown", this contract keeps schemas open and value sets open to other strings. Where a concrete shape, path or value was still needed (for the mock, the types, the conformance suite or these docs), it is marked <code>x-inferred: true</code> with an <code>x-inferred-reason</code>. This page lists every such mark of the bundled descriptions (${entries.length} in all), generated from them at build time.</p>
<p class="inferred-note"><span class="badge inferred">inferred</span> Inferred parts are advisory: the conformance suite reports a mismatch on them without failing, and the versioning diff never calls a change to them breaking. Build against the documented parts; treat these as a best guess that a real service may answer differently.</p>
${sections}`;
  return { title: 'What the specification leaves unshown', body, count: entries.length };
}
