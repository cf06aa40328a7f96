// A field table for an object schema of the bundled documents (local `$ref`s resolved), used by
// the events page for the envelope and each event type's `data`.
import { resolveRefShown } from '../../src/contract/json-pointer.ts';
import { escapeHtml, markdownInline } from './html.mjs';

/** A schema with its local `$ref`s followed, keywords beside a `$ref` winning (the repository's one helper). */
export const resolve = resolveRefShown;

/** The name a `$ref` points at (its last segment), or null. */
function refName(schema) {
  return typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : null;
}

/** A short type label: `string`, `integer or null`, `"event"`, `MediaItem[]`, `RelatedObject or null`. */
export function typeLabel(doc, schema) {
  if (!schema || typeof schema !== 'object') return 'any';
  const name = refName(schema);
  const s = resolve(doc, schema);
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) {
    const labels = variants.map((v) => (v.type === 'null' ? 'null' : v.const !== undefined ? JSON.stringify(v.const) : typeLabel(doc, v)));
    return [...new Set(labels)].join(' or ');
  }
  if (name && s.type !== 'array') return name;
  // `allOf: [{$ref: X}, {refinements}]` reads as X.
  const base = (s.allOf ?? []).map(refName).find(Boolean);
  if (base) return base;
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return (
    types
      .map((t) => (t === 'array' ? `${s.items ? typeLabel(doc, s.items) : 'any'}[]` : t))
      .join(' or ') ||
    (s.allOf ? 'object' : 'any')
  );
}

/** The merged `properties` and `required` of an object schema, following `allOf`. */
export function objectFields(doc, schema) {
  const s = resolve(doc, schema);
  const properties = {};
  const required = new Set(s.required ?? []);
  for (const part of s.allOf ?? []) {
    const sub = objectFields(doc, part);
    for (const [k, v] of Object.entries(sub.properties)) properties[k] = { ...(properties[k] ?? {}), ...v };
    for (const r of sub.required) required.add(r);
  }
  for (const [k, v] of Object.entries(s.properties ?? {})) properties[k] = { ...(properties[k] ?? {}), ...v };
  return { properties, required: [...required] };
}

/** The HTML table of an object schema's fields. */
export function fieldTable(doc, schema) {
  const { properties, required } = objectFields(doc, schema);
  const rows = Object.entries(properties).map(([name, prop]) => {
    const resolved = resolve(doc, prop);
    const description = prop.description ?? resolved.description ?? '';
    return `<tr><td><code>${escapeHtml(name)}</code></td><td><code>${escapeHtml(typeLabel(doc, prop))}</code></td><td>${required.includes(name) ? 'yes' : 'no'}</td><td>${markdownInline(description)}</td></tr>`;
  });
  if (!rows.length) return '<p class="muted">No fields are documented (an open object).</p>';
  return `<table class="fields"><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
