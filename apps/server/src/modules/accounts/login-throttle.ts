/**
 * Failed logins per client address across every email (password spraying: one password tried on
 * thousands of emails from one address). The route-level limit counts per address *and* email; this
 * one counts failures only, so a person who mistypes a few times is never touched. In memory: one
 * process's view (a restart forgets it; behind several processes each counts its own share).
 */
export class FailedLoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly maxFailures: number,
    readonly windowMs: number,
    /** Addresses tracked at most; the oldest are forgotten first (a flood of addresses cannot grow memory). */
    private readonly maxAddresses = 100_000,
  ) {}

  /** Seconds until this address may try again, or 0 when it may try now. */
  retryAfter(address: string, now = Date.now()): number {
    const list = this.recent(address, now);
    if (list.length < this.maxFailures) return 0;
    const oldest = list[list.length - this.maxFailures] ?? now;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }

  fail(address: string, now = Date.now()): void {
    const list = this.recent(address, now);
    list.push(now);
    // Only the newest maxFailures matter for the answer.
    if (list.length > this.maxFailures) list.splice(0, list.length - this.maxFailures);
    this.failures.delete(address);
    this.failures.set(address, list);
    if (this.failures.size > this.maxAddresses) {
      const first = this.failures.keys().next().value;
      if (first !== undefined) this.failures.delete(first);
    }
  }

  private recent(address: string, now: number): number[] {
    const list = this.failures.get(address);
    if (!list) return [];
    const from = now - this.windowMs;
    let i = 0;
    while (i < list.length && (list[i] ?? 0) <= from) i++;
    if (i > 0) list.splice(0, i);
    return list;
  }
}
