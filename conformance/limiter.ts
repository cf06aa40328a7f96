// Bounded concurrency: at most `limit` requests in flight against the deployment at once.
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/**
 * One holder at a time per name: scenarios that change the same state (the account's call cap)
 * run one after another, so one never reads another's temporary value as the original.
 */
export class NamedLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(name) ?? Promise.resolve();
    const result = previous.then(task, task);
    this.tails.set(name, result.catch(() => undefined));
    return result;
  }
}
