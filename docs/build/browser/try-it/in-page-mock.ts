// The stateful mock running in the page: this package's MSW handlers (numbers-api-contract/msw)
// under MSW's service worker, served with the site (mockServiceWorker.js). A request to the
// mock's address (http://127.0.0.1:4010, what `npm start` listens on) is answered in the page;
// nothing leaves it.
//
// The handlers run in the page, so a new page would start from the seed: the state (plain data)
// is kept in sessionStorage after every change and loaded on the next page of the same tab, so
// one visit is one mock. Its clock stands still until the reader moves it (the "advance" control):
// nothing happens behind the reader's back while they read, and a wait started on one page sees
// the delivery the reader sets off with one click.
import { getResponse } from 'msw';
import { setupWorker, type SetupWorker } from 'msw/browser';
import { createHandlers, manualClock, type MockHandlers } from '../../../../src/msw/index.js';

const STORE = 'numbers-api-docs:mock';

export interface InPageMock {
  handlers: MockHandlers;
  /** Answers a request in the page (through the service worker where there is one). */
  send(request: Request): Promise<Response>;
  /** Whether the service worker is answering (false on file://, where there is none). */
  readonly serviceWorker: boolean;
  /** Stops answering through the service worker (another target is chosen), or resumes. */
  pause(paused: boolean): Promise<void>;
  reset(): void;
  advance(seconds: number): { now: string };
  /** How many event waits of the account of `key` the mock is holding right now. */
  waitsHeld(key: string): number;
  now(): string;
}

interface Saved {
  now: number;
  state: unknown;
}

function readSaved(): Saved | undefined {
  try {
    const raw = sessionStorage.getItem(STORE);
    return raw ? (JSON.parse(raw) as Saved) : undefined;
  } catch {
    return undefined;
  }
}

let started: Promise<InPageMock> | undefined;

export function inPageMock(): Promise<InPageMock> {
  started ??= start();
  return started;
}

async function start(): Promise<InPageMock> {
  const saved = readSaved();
  const clock = manualClock(saved?.now ?? Date.now());
  const handlers = createHandlers({ clock });
  if (saved?.state && typeof saved.state === 'object') Object.assign(handlers.simulator.state, saved.state);

  let pending = false;
  const save = (): void => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      try {
        sessionStorage.setItem(STORE, JSON.stringify({ now: clock.now(), state: handlers.simulator.state }));
      } catch {
        // Memory only: the state lives as long as this page.
      }
    });
  };
  handlers.simulator.onChange(save);
  addEventListener('pagehide', save);

  let worker: SetupWorker | undefined;
  let workerOn = false;
  const canUseWorker = 'serviceWorker' in navigator && /^https?:$/.test(location.protocol) && window.isSecureContext;
  if (canUseWorker) {
    worker = setupWorker(...handlers.handlers);
    try {
      await worker.start({
        quiet: true,
        onUnhandledRequest: 'bypass',
        serviceWorker: { url: new URL('mockServiceWorker.js', document.baseURI).pathname },
      });
      workerOn = true;
    } catch (error) {
      console.warn('try it: the service worker did not start; answering in the page instead', error);
      worker = undefined;
    }
  }

  const mock: InPageMock = {
    handlers,
    get serviceWorker() {
      return workerOn;
    },
    async send(request) {
      if (workerOn) return fetch(request);
      const response = await getResponse(handlers.handlers, request);
      return response ?? new Response(JSON.stringify({ error: 'The in-page mock does not answer this address.' }), { status: 404, headers: { 'content-type': 'application/json' } });
    },
    async pause(paused) {
      if (!worker) return;
      if (paused && workerOn) {
        worker.stop();
        workerOn = false;
      } else if (!paused && !workerOn) {
        await worker.start({ quiet: true, onUnhandledRequest: 'bypass', serviceWorker: { url: new URL('mockServiceWorker.js', document.baseURI).pathname } });
        workerOn = true;
      }
    },
    reset() {
      handlers.control.reset();
      save();
    },
    advance(seconds) {
      const result = handlers.control.advanceClock(seconds);
      save();
      return result;
    },
    now: () => new Date(clock.now()).toISOString(),
    waitsHeld: (key) => handlers.simulator.heldWaits(handlers.simulator.accountForKey(key)),
  };
  // For a reader's devtools (and the docs' own browser test): the mock of this page.
  (window as unknown as { numbersApiMock?: InPageMock }).numbersApiMock = mock;
  return mock;
}
