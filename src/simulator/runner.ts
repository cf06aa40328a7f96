// Runs a simulator in real time for a transport: a timer wakes it when the next simulated step
// falls due (a message delivered, a call ringing ...), and long polls are held until the event
// they wait for or their timeout. Used by both transports; browser-safe (only setTimeout).
import type { Simulator } from './simulator.js';
import type { SimHold, SimResponse } from './types.js';

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

export function startRunner(simulator: Simulator): SimRunner {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wakeAt = Infinity;
  let stopped = false;
  const holds = new Set<{ hold: SimHold; resolve: (response: SimResponse) => void; done: () => void }>();

  const wake = (): void => {
    timer = undefined;
    wakeAt = Infinity;
    simulator.tick();
    reschedule();
  };

  function reschedule(): void {
    if (stopped) return;
    const due = simulator.nextDueAt();
    if (due === undefined) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, due - simulator.clock.now()));
    const at = Date.now() + delay;
    if (timer !== undefined && wakeAt <= at) return;
    if (timer !== undefined) clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(wake, delay);
    (timer as { unref?: () => void }).unref?.();
  }

  const unsubscribeChange = simulator.onChange(() => reschedule());
  const unsubscribeEvent = simulator.onEvent((_event, account) => {
    for (const waiting of [...holds]) {
      if (waiting.hold.accountId !== account.id) continue;
      const answer = waiting.hold.check();
      if (answer) {
        waiting.done();
        waiting.resolve(answer);
      }
    }
  });

  return {
    reschedule,
    settle(response, signal) {
      const hold = response.hold;
      if (!hold) return Promise.resolve(response);
      const ready = hold.check();
      if (ready) return Promise.resolve(ready);
      return new Promise<SimResponse>((resolve) => {
        const entry = {
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
      });
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      unsubscribeChange();
      unsubscribeEvent();
      for (const waiting of [...holds]) {
        waiting.done();
        waiting.resolve(waiting.hold.expire());
      }
    },
  };
}
