// The try-it consoles of the docs site (assets/try-it.js): on a guide, one console where the guide
// says "Try it:" (docs/build/guides.mjs leaves a mount point); on the API reference (Redoc), a
// drawer that shows the console of the operation the reader is on.
import { catalog, operationById, type CatalogOperation } from './catalog.js';
import { onTargetChange, tryItConsole } from './console.js';
import { inPageMock } from './in-page-mock.js';
import { followOperationOnScreen } from './on-screen.js';
import { followPickedServers } from './reference-samples.js';
import { session } from './session.js';
import css from './style.css';
import { mountWorkflowRun } from './workflow-run.js';

function mountGuideConsoles(): void {
  for (const mount of document.querySelectorAll<HTMLElement>('[data-try-it]')) {
    const op = operationById(mount.dataset.tryIt!);
    if (!op) continue;
    const console = tryItConsole(op);
    console.dataset.mounted = 'true';
    mount.replaceChildren(console);
  }
}

/**
 * The reference's drawer: a button, and the console of the operation on screen (on-screen.ts).
 * Each operation keeps its console for the visit, so what the reader typed, and a wait still
 * running, are there again when they come back to it.
 */
function mountReferenceDrawer(): void {
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'try-it-toggle';
  const drawer = document.createElement('aside');
  drawer.className = 'try-it-drawer';
  drawer.setAttribute('aria-label', 'Try it');
  const body = document.createElement('div');
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'try-it-close';
  close.textContent = 'Close';
  close.addEventListener('click', () => session.update((d) => (d.drawer = false)));
  drawer.append(close, body);
  toggle.addEventListener('click', () => session.update((d) => (d.drawer = !d.drawer)));
  // The button goes in the site's bar (style.css floats it on a narrow screen).
  (document.querySelector('.site-nav') ?? document.body).append(toggle);
  document.body.append(drawer);

  const consoles = new Map<string, HTMLElement>();
  let op: CatalogOperation | undefined;
  const render = (): void => {
    toggle.textContent = op ? `Try it: ${op.summary}` : 'Try it';
    toggle.dataset.operation = op?.id ?? '';
    drawer.hidden = !session.data.drawer;
    toggle.setAttribute('aria-expanded', String(session.data.drawer));
    if (!session.data.drawer) return;
    if (!op) {
      const hint = document.createElement('p');
      hint.className = 'muted';
      hint.textContent = `Pick an operation in the menu: each of the ${catalog.operations.length} operations can be sent from here.`;
      body.replaceChildren(hint);
      return;
    }
    let console = consoles.get(op.id);
    if (!console) consoles.set(op.id, (console = tryItConsole(op)));
    if (body.firstElementChild !== console) body.replaceChildren(console);
  };
  session.subscribe(render);
  followOperationOnScreen((onScreen) => {
    op = onScreen;
    render();
  });
}

function start(): void {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
  if (document.querySelector('[data-try-it]')) mountGuideConsoles();
  for (const mount of document.querySelectorAll<HTMLElement>('[data-run-workflow]')) mountWorkflowRun(mount);
  const redoc = document.getElementById('redoc');
  if (redoc) {
    mountReferenceDrawer();
    followPickedServers(redoc);
  }
  // The in-page mock starts with the page, so the first answer does not wait for it.
  const follow = async (): Promise<void> => {
    if (session.data.target === 'page') await (await inPageMock()).pause(false);
    else if (document.querySelector('.try-it:not(.workflow-run-box)')) {
      // Another target: the service worker must let requests to 127.0.0.1:4010 through.
      const mock = await inPageMock();
      await mock.pause(true);
    }
  };
  void follow();
  onTargetChange(() => void follow());
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
