/**
 * A fixed-window request counter per key (the RPC proxy's per-session limit). @fastify/rate-limit runs
 * one limiter per request (the first marks the request as limited and the others skip it), so the
 * proxy's second limit, per session on top of the route's per address, is counted here. In memory, per
 * process, as the plugin's default store.
 */
export class WindowCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private sweptAt = 0;

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts one request of `key`; the seconds to wait when it is over the limit, else null. */
  hit(key: string, now = Date.now()): number | null {
    if (now - this.sweptAt > this.windowMs) {
      // Forget ended windows at most once a window: the map holds only the keys of the last one.
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
      this.sweptAt = now;
    }
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return w.count > this.max ? Math.max(1, Math.ceil((w.resetAt - now) / 1000)) : null;
  }
}
