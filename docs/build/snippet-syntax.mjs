// How a value is spelled in a code sample: a TypeScript literal, a shell-quoted string. Shared by
// the reference's generated samples (code-samples.mjs, at build time) and the try-it consoles'
// snippets of what was sent (try-it/snippets.ts, in the page), so both spell a request alike.
// Browser-safe: no imports.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value as a TypeScript literal: identifier keys unquoted, two-space indents. */
export function tsLiteral(value, indent = '') {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = indent + '  ';
    return `[\n${value.map((v) => inner + tsLiteral(v, inner)).join(',\n')},\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = indent + '  ';
    const lines = entries.map(([k, v]) => `${inner}${IDENTIFIER.test(k) ? k : `'${k.replaceAll("'", "\\'")}'`}: ${tsLiteral(v, inner)}`);
    return `{\n${lines.join(',\n')},\n${indent}}`;
  }
  if (typeof value === 'string') {
    // Single quotes, or double quotes when the text has an apostrophe (reads better than \').
    if (value.includes("'") && !value.includes('"')) return JSON.stringify(value);
    return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  }
  return JSON.stringify(value);
}

/** A shell-quoted single-quoted string. */
export function shellQuote(text) {
  return `'${String(text).replaceAll("'", `'\\''`)}'`;
}
