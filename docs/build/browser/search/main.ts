// One search across the whole site (assets/search.js, on every page): guides, the API reference,
// events, error codes and the mock's test values, from an index built with the site
// (assets/search-index.js, MiniSearch). Loaded as a plain script, so it works from disk (file://)
// as from any static server; nothing is fetched from elsewhere.
import MiniSearch from 'minisearch';
import { SEARCH_OPTIONS, type SearchDocument } from '../../search-options.mjs';

interface IndexFile {
  index: string;
  docs: SearchDocument[];
}
declare global {
  interface Window {
    __numbersApiSearchIndex?: IndexFile;
  }
}

let loading: Promise<{ search: MiniSearch<SearchDocument>; docs: Map<string, SearchDocument> }> | undefined;

/** The index, loaded on first use from the script beside this one. */
function loadIndex(): NonNullable<typeof loading> {
  loading ??= new Promise((resolve, reject) => {
    const done = (): void => {
      const file = window.__numbersApiSearchIndex;
      if (!file) return reject(new Error('the search index did not load'));
      resolve({ search: MiniSearch.loadJSON<SearchDocument>(file.index, SEARCH_OPTIONS), docs: new Map(file.docs.map((d) => [d.id, d])) });
    };
    if (window.__numbersApiSearchIndex) return done();
    const script = document.createElement('script');
    script.src = new URL('search-index.js', scriptBase).href;
    script.onload = done;
    script.onerror = () => reject(new Error('the search index did not load'));
    document.head.append(script);
  });
  return loading;
}
// Where this script was loaded from (assets/), for the index beside it.
const scriptBase = (document.currentScript as HTMLScriptElement | null)?.src ?? new URL('assets/search.js', document.baseURI).href;

function snippet(text: string, terms: string[]): string {
  const lower = text.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 60);
  return `${start > 0 ? '…' : ''}${text.slice(start, start + 180)}${start + 180 < text.length ? '…' : ''}`;
}

function start(): void {
  const form = document.querySelector<HTMLFormElement>('.site-search');
  const input = form?.querySelector<HTMLInputElement>('input');
  if (!form || !input) return;
  const list = document.createElement('ol');
  list.className = 'site-search-results';
  list.hidden = true;
  form.append(list);
  let active = -1;

  const select = (index: number): void => {
    const items = [...list.children] as HTMLElement[];
    active = Math.max(-1, Math.min(items.length - 1, index));
    items.forEach((item, i) => item.setAttribute('aria-selected', String(i === active)));
    items[active]?.scrollIntoView({ block: 'nearest' });
  };

  const run = async (): Promise<void> => {
    const query = input.value.trim();
    if (query.length < 2) {
      list.hidden = true;
      return;
    }
    let found;
    try {
      const { search, docs } = await loadIndex();
      found = search.search(query, { prefix: true, fuzzy: 0.15, boost: { title: 3, keywords: 2 } }).slice(0, 12).map((r) => ({ doc: docs.get(String(r.id))!, terms: r.terms }));
    } catch (error) {
      list.replaceChildren(Object.assign(document.createElement('li'), { textContent: (error as Error).message }));
      list.hidden = false;
      return;
    }
    if (input.value.trim() !== query) return;
    list.replaceChildren(
      ...(found.length
        ? found.map(({ doc, terms }) => {
            const li = document.createElement('li');
            const a = document.createElement('a');
            a.href = doc.url;
            a.dataset.kind = doc.kind;
            const kind = document.createElement('span');
            kind.className = 'site-search-kind';
            kind.textContent = doc.kind;
            const title = document.createElement('strong');
            title.textContent = doc.title;
            const text = document.createElement('span');
            text.className = 'site-search-text';
            text.textContent = snippet(doc.text, terms);
            a.append(kind, title, text);
            li.append(a);
            return li;
          })
        : [Object.assign(document.createElement('li'), { className: 'site-search-none', textContent: `Nothing found for “${query}”.` })]),
    );
    list.hidden = false;
    select(found.length ? 0 : -1);
  };

  input.addEventListener('input', () => void run());
  input.addEventListener('focus', () => void loadIndex().catch(() => undefined));
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') select(active + 1);
    else if (event.key === 'ArrowUp') select(active - 1);
    else if (event.key === 'Escape') {
      list.hidden = true;
      input.blur();
    } else return;
    event.preventDefault();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const link = (list.children[Math.max(0, active)] as HTMLElement | undefined)?.querySelector('a');
    if (link) link.click();
  });
  // A result on this same page (a reference route, an anchor) closes the list.
  list.addEventListener('click', () => setTimeout(() => (list.hidden = true), 0));
  document.addEventListener('click', (event) => {
    if (!form.contains(event.target as Node)) list.hidden = true;
  });
  // "/" anywhere, and Ctrl+K / ⌘K: the one search, on the Redoc pages too (caught before Redoc's
  // own shortcut, whose search box those pages hide).
  addEventListener(
    'keydown',
    (event) => {
      const typing = event.target instanceof HTMLElement && (event.target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName));
      const ctrlK = (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k';
      if ((event.key === '/' && !typing) || ctrlK) {
        event.preventDefault();
        event.stopImmediatePropagation();
        input.focus();
        input.select();
      }
    },
    { capture: true },
  );
}

/** The bar's Pages menu closes on a click elsewhere, on Escape, and when a page of it is chosen. */
function closeMenuWhenDone(): void {
  const menu = document.querySelector<HTMLDetailsElement>('.site-menu');
  if (!menu) return;
  document.addEventListener('click', (event) => {
    if (menu.open && !menu.contains(event.target as Node)) menu.open = false;
  });
  menu.addEventListener('click', (event) => {
    if ((event.target as HTMLElement).closest('a')) menu.open = false;
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && menu.open) {
      menu.open = false;
      menu.querySelector('summary')?.focus();
    }
  });
}

function startAll(): void {
  start();
  closeMenuWhenDone();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', startAll);
else startAll();
