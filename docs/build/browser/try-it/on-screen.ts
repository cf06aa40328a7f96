// Which operation of the reference the reader is on, however they got there. Redoc 3 moves with
// the History API (its menu and search call pushState, never firing `hashchange`), the back
// button fires `popstate`, and scrolling changes nothing in the address at all (Redoc renders a
// tag's operations one after another and leaves the address on the one the reader opened). So the
// address names where the reader went, and the page names what they are reading: the operation
// whose section crosses the reading line (a quarter down the screen, below the site's bar), else
// the one the address names, else the first that starts on screen.
import { catalog, operationByRoute, type CatalogOperation } from './catalog.js';

/** An operation's section on the page: Redoc gives it the route as its id (`messaging/sendmessage`). */
const sectionId = (op: CatalogOperation): string => op.route.slice(op.route.indexOf('#/') + 2);

/** Once per page: pushState and replaceState announce themselves, as `popstate` does for the back button. */
let patched = false;
function announceHistoryChanges(): void {
  if (patched) return;
  patched = true;
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      original.apply(this, args);
      dispatchEvent(new Event('try-it:location'));
    };
  }
}

/** The operation the reader is on: see the head of this file. */
export function operationOnScreen(): CatalogOperation | undefined {
  const routed = operationByRoute(location.hash);
  const navBottom = document.querySelector('.site-nav')?.getBoundingClientRect().bottom ?? 0;
  const line = navBottom + (innerHeight - navBottom) / 4;
  let reading: CatalogOperation | undefined;
  let readingTop = -Infinity;
  let routedTop: number | undefined;
  // Below the line, the first section that starts on screen (a tag's page opens on its introduction).
  let below: CatalogOperation | undefined;
  let belowTop = Infinity;
  for (const op of catalog.operations) {
    const section = document.getElementById(sectionId(op));
    if (!section) continue;
    const top = section.getBoundingClientRect().top;
    if (op === routed) routedTop = top;
    if (top <= line && top > readingTop) {
      reading = op;
      readingTop = top;
    } else if (top > line && top < innerHeight && top < belowTop) {
      below = op;
      belowTop = top;
    }
  }
  if (routed) {
    // Not rendered yet (Redoc is still drawing the route's page): the address says where the reader goes.
    if (routedTop === undefined) return routed;
    // At the end of the page a short last section cannot scroll up to the line; the reader opened it.
    const atEnd = scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
    if (atEnd && routedTop < innerHeight && routedTop > readingTop) return routed;
  }
  return reading ?? routed ?? below;
}

/** Calls `listener` with the operation on screen now, and again whenever it changes. */
export function followOperationOnScreen(listener: (op: CatalogOperation | undefined) => void): void {
  announceHistoryChanges();
  let shown: CatalogOperation | undefined | null = null;
  let queued = false;
  const check = (): void => {
    queued = false;
    const op = operationOnScreen();
    if (op === shown) return;
    shown = op;
    listener(op);
  };
  const soon = (): void => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(check);
  };
  // A move re-checks at once and on the next frame (Redoc draws and scrolls right after).
  const moved = (): void => {
    check();
    soon();
  };
  addEventListener('try-it:location', moved);
  addEventListener('popstate', moved);
  addEventListener('hashchange', moved);
  addEventListener('scroll', soon, { passive: true });
  addEventListener('resize', soon, { passive: true });
  check();
}
