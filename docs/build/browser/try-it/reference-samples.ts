// The reference's code samples follow the server the reader picks in Redoc's server menu (the
// method and path above each sample open it). The page is built with the samples of the first
// server, the local mock (code-samples.mjs); for another server this writes the operation's samples
// again, by the same writer and from the same request (snippets.ts, the catalog's `sample`), into
// Redoc's code block, and back when the reader picks the mock again. Redoc's copy button copies the
// text the page was built with, so a copy of a rewritten sample is given the sample shown instead.
import { catalog, type CatalogOperation } from './catalog.js';
import { requestSamples } from './snippets.js';

/** The server the built samples address. */
const BUILT = catalog.servers[0] ?? catalog.mockUrl;

/** What this wrote into a code block, and Redoc's markup and text it stands in for. */
interface Rewrite {
  html: string;
  redocHtml: string;
  redocText: string;
}
const rewrites = new WeakMap<HTMLElement, Rewrite>();
/** The text of a built sample now shown rewritten → the text shown: what its copy button copies. */
const copies = new Map<string, string>();
const written = new Map<string, Promise<Record<string, string>>>();

function samplesFor(op: CatalogOperation, baseUrl: string): Promise<Record<string, string>> {
  const key = `${op.id} ${baseUrl}`;
  let samples = written.get(key);
  if (!samples) written.set(key, (samples = requestSamples({ ...op.sample, op, baseUrl, prefer: null })));
  return samples;
}

/** The operation of a samples panel, by the method and path its header shows (`POST/api/v1/messages`). */
function panelOperation(panel: Element): CatalogOperation | undefined {
  const header = panel.querySelector('[data-component-name="Panel/PanelHeader"] button')?.textContent?.trim() ?? '';
  return catalog.operations.find((op) => header === `${op.method}${op.path}`);
}

/** The server checked in the panel's server menu (its items show the server's URL and the path), or the built one. */
function pickedServer(panel: Element, op: CatalogOperation): string {
  const checked = panel.querySelector('[data-testid="panel-item-checkmark"]')?.parentElement?.textContent?.trim();
  if (!checked) return BUILT;
  return catalog.servers.filter((url) => checked.startsWith(url)).sort((a, b) => b.length - a.length)[0] ?? BUILT;
}

async function follow(panel: Element): Promise<void> {
  const pre = panel.querySelector<HTMLElement>('pre[data-testid="source-code"]');
  const op = panelOperation(panel);
  if (!pre || !op) return;
  let rewrite = rewrites.get(pre);
  // Redoc rendered the block anew (another language, another operation): what it shows is its own again.
  if (rewrite && pre.innerHTML !== rewrite.html) rewrite = undefined;
  const redocHtml = rewrite?.redocHtml ?? pre.innerHTML;
  const redocText = rewrite?.redocText ?? pre.textContent ?? '';
  const server = pickedServer(panel, op);
  if (server === BUILT) {
    if (rewrite) pre.innerHTML = redocHtml;
    delete pre.dataset.sampleServer;
    rewrites.delete(pre);
    copies.delete(redocText);
    return;
  }
  const built = await samplesFor(op, BUILT);
  const language = Object.keys(built).find((key) => built[key] === redocText);
  if (!language) return; // not one of the samples this page was built with
  const text = (await samplesFor(op, server))[language]!;
  // Only onto the block as it was before the awaits (a later pass handles any change since).
  if (pre.innerHTML !== (rewrite?.html ?? redocHtml) || pickedServer(panel, op) !== server) return;
  if (rewrite && pre.textContent === text) return;
  const code = document.createElement('code');
  code.textContent = text;
  pre.replaceChildren(code);
  pre.dataset.sampleServer = server;
  rewrites.set(pre, { html: pre.innerHTML, redocHtml, redocText });
  copies.set(redocText, text);
}

/** Keeps every samples panel of the reference on the server picked in it. */
export function followPickedServers(root: Element): void {
  let queued = false;
  const pass = (): void => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      for (const panel of document.querySelectorAll('.panel-request-samples')) void follow(panel);
    });
  };
  new MutationObserver(pass).observe(root, { subtree: true, childList: true, characterData: true });
  pass();
  // Redoc's copy button selects the text it was built with and copies the selection: give the one shown.
  document.addEventListener(
    'copy',
    (event) => {
      const text = copies.get(getSelection()?.toString() ?? '');
      if (text === undefined || !event.clipboardData) return;
      event.clipboardData.setData('text/plain', text);
      event.preventDefault();
    },
    true,
  );
}
