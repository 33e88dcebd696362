/**
 * A read shared by every request that asks within one interval (issue 17: "one read per address per
 * interval, cached and shared, not per request"). The first caller of a key starts the read; callers
 * meanwhile get the same promise; the value is kept `ttlMs`. A failed read is remembered for
 * `errorTtlMs` so a chain that does not answer is not asked again by every request.
 */
export class SharedCache<V> {
  private readonly entries = new Map<
    string,
    { at: number; value?: V; error?: unknown; pending?: Promise<V> }
  >();
  /** Reads started (tests and docs: how many times the chain was asked). */
  reads = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly opts: { errorTtlMs?: number; maxEntries?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.now();
    const e = this.entries.get(key);
    if (e?.pending) return e.pending;
    if (e && 'value' in e && now - e.at < this.ttlMs) return Promise.resolve(e.value as V);
    if (e && e.error !== undefined && now - e.at < (this.opts.errorTtlMs ?? 2_000)) {
      return Promise.reject(e.error instanceof Error ? e.error : new Error('read failed'));
    }
    this.reads++;
    const pending = load().then(
      (value) => {
        this.entries.set(key, { at: this.now(), value });
        return value;
      },
      (error: unknown) => {
        this.entries.set(key, { at: this.now(), error });
        throw error;
      },
    );
    this.entries.set(key, { at: now, pending });
    this.sweep(now);
    return pending;
  }

  /** The kept value of `key`, fresh or not (for what may be a little old: the chart's last point). */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Drops expired entries once the map is large (addresses nobody asks for any more). */
  private sweep(now: number) {
    const max = this.opts.maxEntries ?? 10_000;
    if (this.entries.size <= max) return;
    for (const [k, e] of this.entries) {
      if (!e.pending && now - e.at >= this.ttlMs) this.entries.delete(k);
    }
    // Still too many fresh ones: drop the oldest (Map keeps insertion order).
    for (const k of this.entries.keys()) {
      if (this.entries.size <= max) break;
      if (!this.entries.get(k)?.pending) this.entries.delete(k);
    }
  }
}
