// The site's search index, built with the site: one document per guide section, per operation of
// the reference, per event type, per error code and per test value of the mock, indexed with
// MiniSearch and written as assets/search-index.js (a plain script, so that it loads from disk
// too). The page's search (browser/search/main.ts) loads it on first use.
import MiniSearch from 'minisearch';
import { documentedEventTypes } from './events-page.mjs';
import { errorCodeCatalog } from './error-codes.mjs';
import { listOperations, referenceRoute } from './contract.mjs';
import { slug } from './html.mjs';
import { SEARCH_OPTIONS } from './search-options.mjs';

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/** Text of an HTML fragment: tags dropped, entities decoded, white space folded. */
export function plainText(html) {
  return String(html)
    .replace(/<(script|style|svg)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m) => ENTITIES[m])
    .replace(/\s+/g, ' ')
    .trim();
}

/** Markdown of a description as text (code ticks and link syntax dropped). */
function markdownText(text) {
  return String(text ?? '').replace(/`/g, '').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replace(/\s+/g, ' ').trim();
}

/** One document per section (h1 to the first h2, then each h2 and h3) of a rendered page. */
export function sectionDocuments(file, pageTitle, html, kind = 'guide') {
  const docs = [];
  const parts = html.split(/(?=<h[23] id=")/);
  for (const part of parts) {
    const heading = /^<h([23]) id="([^"]+)">([\s\S]*?)<\/h\1>/.exec(part);
    const text = plainText(heading ? part.slice(heading[0].length) : part.replace(/<h1[^>]*>[\s\S]*?<\/h1>/, ''));
    if (!text) continue;
    const title = heading ? `${pageTitle} › ${plainText(heading[3])}` : pageTitle;
    docs.push({ id: `${file}#${heading?.[2] ?? ''}`, kind, title, keywords: '', text, url: heading ? `${file}#${heading[2]}` : file });
  }
  return docs;
}

/** The documents of the contract itself: operations, event types, error codes, test values. */
export function contractDocuments({ openapi, asyncapi }) {
  const docs = [];
  for (const op of listOperations(openapi).filter((o) => o.path)) {
    docs.push({
      id: `op:${op.operationId}`,
      kind: 'operation',
      title: `${op.summary} (${op.method.toUpperCase()} ${op.path})`,
      keywords: `${op.operationId} ${op.method.toUpperCase()} ${op.path} ${op.tag}`,
      text: markdownText(op.operation.description),
      url: referenceRoute(op),
    });
  }
  for (const { type, description } of documentedEventTypes(asyncapi)) {
    docs.push({ id: `event:${type}`, kind: 'event', title: type, keywords: `${type} event`, text: markdownText(description), url: `events.html#event-${slug(type)}` });
  }
  for (const { code, status, description, action } of errorCodeCatalog(openapi).codes) {
    docs.push({ id: `code:${code}`, kind: 'error code', title: `${code} (${status})`, keywords: `${code} ${status} error code`, text: `${markdownText(description)} What to do: ${markdownText(action)}`, url: `errors.html#code-${code}` });
  }
  for (const entry of openapi['x-test-values'] ?? []) {
    docs.push({
      id: `test-value:${entry.name}`,
      kind: 'test value',
      title: `${entry.value} (${entry.field})`,
      keywords: `${entry.name} ${entry.value} ${entry.operations.join(' ')} test value`,
      text: markdownText(entry.description),
      url: `mock.html#test-value-${slug(entry.name)}`,
    });
  }
  return docs;
}

/** assets/search-index.js: the serialized index and the documents it shows. */
export function searchIndexScript(documents) {
  const ids = new Set();
  for (const doc of documents) {
    if (ids.has(doc.id)) throw new Error(`two search documents share the id ${doc.id}`);
    ids.add(doc.id);
  }
  const search = new MiniSearch({ ...SEARCH_OPTIONS, idField: 'id' });
  search.addAll(documents);
  const file = { index: JSON.stringify(search), docs: documents.map((d) => ({ ...d, text: d.text.slice(0, 600) })) };
  return { script: `window.__numbersApiSearchIndex = ${JSON.stringify(file)};\n`, count: documents.length };
}
