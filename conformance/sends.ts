// The `writes` level's sends: every request that creates or changes something on the account (a
// message sent or injected, a call attempt, an account change and its restore) is taken from one
// budget per run (`--max-sends`), before it is sent. A check whose sends no longer fit is skipped
// with the reason, never sent in part. The run's report counts what was actually sent.
export class SendBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get spent(): number {
    return this.used;
  }

  /** Takes `count` sends if they all fit; false (and nothing taken) otherwise. */
  take(count: number): boolean {
    if (this.used + count > this.limit) return false;
    this.used += count;
    return true;
  }
}
