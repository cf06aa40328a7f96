// The search index's options, shared by the build (docs/build/search-index.mjs) and the page
// (browser/search/main.ts): MiniSearch loads an index only with the options it was built with.
// Browser-safe.

/** @typedef {{ id: string, kind: string, title: string, keywords: string, text: string, url: string }} SearchDocument */

export const SEARCH_OPTIONS = {
  fields: ['title', 'keywords', 'text'],
  storeFields: [],
  // Codes, paths and option names are searched whole and by their parts: `call_limit_reached`,
  // `POST /api/v1/calls`, `--strict-keys`.
  tokenize: (text) => {
    const words = String(text).toLowerCase().match(/[a-z0-9_.+@-]+/g) ?? [];
    const parts = [];
    for (const word of words) {
      parts.push(word);
      if (/[_.\-/]/.test(word)) parts.push(...word.split(/[_.\-/]+/).filter(Boolean));
    }
    return parts;
  },
  processTerm: (term) => (term.length > 1 ? term.replace(/^[-_.]+|[-_.]+$/g, '') || null : null),
};
