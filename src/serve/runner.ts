// Runs a simulator in real time for a transport: a timer wakes it when the next simulated step
// falls due (a message delivered, a call ringing ...), and long polls are held until the event
// they wait for or their timeout. Every look at the state goes through the store (src/store/store.ts), so
// with a store shared by several processes a due step runs once, in whichever process claims it,
// and a long poll held here is answered by an event any process committed. Used by both
// transports; browser-safe (only setTimeout).
import type { SimWatch } from '../simulator/simulator.js';
import type { SimStore } from '../store/store.js';
import type { SimHold, SimResponse } from '../simulator/types.js';

export interface SimRunner {
  /** Reconsiders when to wake (after a request, a reset, a clock move). */
  reschedule(): void;
  /** Resolves with the final answer of a response that may hold. */
  settle(response: SimResponse, signal?: AbortSignal): Promise<SimResponse>;
  stop(): void;
}

/** How soon, at least, a due step runs (ms): steps due together run in one wake-up. */
const MIN_DELAY_MS = 5;
/** Longest single sleep: the simulated clock can be moved, so it is checked at least this often. */
const MAX_DELAY_MS = 60_000;

interface Waiting {
  hold: SimHold;
  resolve: (response: SimResponse) => void;
  done: () => void;
  /** A check is running (a store that answers later): another event asks again once it ends. */
  checking?: boolean;
  again?: boolean;
}

export function startRunner(simulator: SimWatch, store: SimStore): SimRunner {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wakeAt = Infinity;
  let stopped = false;
  let running = false;
  const holds = new Set<Waiting>();

  const wake = (): void => {
    timer = undefined;
    wakeAt = Infinity;
    if (running) return;
    running = true;
    const ran = (): void => {
      running = false;
      reschedule();
    };
    try {
      const done = store.runDue();
      if (done instanceof Promise) done.then(ran, ran);
      else ran();
    } catch {
      ran();
    }
  };

  function reschedule(): void {
    if (stopped) return;
    // A shared store always names a time (it looks for steps other processes planned).
    const due = store.nextDueAt();
    if (due === undefined) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, due - simulator.clock.now()));
    const at = Date.now() + delay;
    if (timer !== undefined && wakeAt <= at) return;
    if (timer !== undefined) clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(wake, delay);
    (timer as { unref?: () => void }).unref?.();
  }

  /** Asks a held answer again, in a run of the store; answers it when it is ready. */
  function recheck(waiting: Waiting): void {
    if (waiting.checking) {
      waiting.again = true;
      return;
    }
    const settled = (answer: SimResponse | undefined): void => {
      waiting.checking = false;
      if (!holds.has(waiting)) return;
      if (answer) {
        waiting.done();
        waiting.resolve(answer);
      } else if (waiting.again) {
        waiting.again = false;
        recheck(waiting);
      }
    };
    waiting.checking = true;
    try {
      const answer = store.run({ accountId: waiting.hold.accountId }, (sim) => waiting.hold.check(sim.state));
      if (answer instanceof Promise) answer.then(settled, () => settled(undefined));
      else settled(answer);
    } catch {
      settled(undefined);
    }
  }

  const eventsOf = (accountId: string): void => {
    for (const waiting of [...holds]) if (waiting.hold.accountId === accountId) recheck(waiting);
  };
  const unsubscribeChange = simulator.onChange(() => reschedule());
  const unsubscribeEvent = simulator.onEvent((_event, account) => eventsOf(account.id));
  const unsubscribeOthers = store.shared?.onOtherCommits((accountId) => {
    eventsOf(accountId);
    reschedule();
  });

  return {
    reschedule,
    settle(response, signal) {
      const hold = response.hold;
      if (!hold) return Promise.resolve(response);
      return new Promise<SimResponse>((resolve) => {
        // In place before the first look: an event committed from now on asks again.
        const entry: Waiting = {
          hold,
          resolve,
          done: () => {
            holds.delete(entry);
            clearTimeout(expiry);
            signal?.removeEventListener('abort', onAbort);
          },
        };
        const expiry = setTimeout(() => {
          entry.done();
          resolve(hold.expire());
        }, hold.timeoutMs);
        const onAbort = (): void => {
          entry.done();
          hold.cancel?.();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        holds.add(entry);
        recheck(entry);
      });
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      unsubscribeChange();
      unsubscribeEvent();
      unsubscribeOthers?.();
      for (const waiting of [...holds]) {
        waiting.done();
        waiting.resolve(waiting.hold.expire());
      }
    },
  };
}
