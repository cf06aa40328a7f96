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
