// Until Ctrl-C (SIGINT) or SIGTERM: the one stop of every command that serves (mock, proxy,
// listen, mcp). The handlers go in before the command announces itself (a Ctrl-C right after its
// line stops cleanly) and stay until it has stopped (a second Ctrl-C does not kill it half-way).

export interface UntilSignal<T> {
  /** The first stop: the signal's name, or what `stop` was given. */
  stopped: Promise<NodeJS.Signals | T>;
  /** Stops as a signal would (a child gone, a failure); false when already stopping. */
  stop(reason: NodeJS.Signals | T): boolean;
  /** Takes the handlers out, once the command has stopped. */
  release(): void;
}

/** `abort` (a test's own stop) stands in for the process's signals. */
export function untilSignal<T = never>(abort?: AbortSignal): UntilSignal<T> {
  let settle!: (reason: NodeJS.Signals | T) => void;
  let settled = false;
  const stopped = new Promise<NodeJS.Signals | T>((resolve) => (settle = resolve));
  const stop = (reason: NodeJS.Signals | T): boolean => {
    if (settled) return false;
    settled = true;
    settle(reason);
    return true;
  };
  const onSignal = (signal: NodeJS.Signals): void => void stop(signal);
  if (abort) {
    if (abort.aborted) stop('SIGTERM');
    abort.addEventListener('abort', () => onSignal('SIGTERM'), { once: true });
    return { stopped, stop, release: () => undefined };
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    stop,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
