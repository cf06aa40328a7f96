// Small HTML helpers shared by the page generators: escaping, Markdown of descriptions, slugs.
import { Marked } from 'marked';

/** Escape text for HTML element content and double-quoted attributes. */
export function escapeHtml(value) {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

// One Marked instance for descriptions taken from the contract (CommonMark + GFM tables).
const descriptionMarked = new Marked({ gfm: true });

/** A description from the contract (CommonMark), as block HTML. */
export function markdownBlock(text) {
  if (!text) return '';
  return descriptionMarked.parse(String(text));
}

/** A one-line description from the contract, as inline HTML (no wrapping paragraph). */
export function markdownInline(text) {
  if (!text) return '';
  return descriptionMarked.parseInline(String(text).trim());
}

/** A URL fragment for a heading or a name: lower case, runs of other characters become `-`. */
export function slug(text) {
  return String(text)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Pretty JSON in a code block. */
export function jsonBlock(value) {
  return `<pre class="code"><code class="language-json">${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;
}
