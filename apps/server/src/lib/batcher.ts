/**
 * Group commit: items added while a commit is running (or within the same turn of the event loop) are
 * committed together, in one transaction, and every caller's promise resolves only once that
 * transaction has committed. At 10,000 bots a price move of one pair makes ~400 bots and their paper
 * accounts write at once; one transaction for all of them instead of 400 keeps the database's (and,
 * for PGlite, the main thread's) per-transaction cost from queueing each write behind the others.
 *
 * Nothing is acknowledged before it is durable, so callers keep their ordering guarantees (the order
 * journal is written before the venue is called). A failed batch rolled back whole: its items are then
 * committed one by one, in order, so one bad item fails only its own caller.
 */
export class GroupCommit<T> {
  private waiting: { item: T | undefined; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private running: Promise<void> | null = null;
  private scheduled = false;

  constructor(
    private readonly opts: {
      /** Commits the items (in the order they were added) atomically. */
      commit: (items: T[]) => Promise<void>;
      /** Commits one item alone (after a batch failed). */
      one: (item: T) => Promise<void>;
      /** Items per transaction at most (a bound on its size and on the first caller's wait). */
      maxBatch?: number;
    },
  ) {}

  /** Resolves once `item` is committed (with the others of its batch). */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything added before the call is committed or has failed (reads wait for it). */
  barrier(): Promise<void> {
    if (this.waiting.length === 0 && this.running === null) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.push({ item: undefined, resolve, reject: () => resolve() });
      this.schedule();
    });
  }

  /** Items waiting or being committed (tests). */
  get pending(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the writes of one tick's fan-out are made in promise continuations,
    // all of which run before it, so they land in one batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    const batch = this.waiting.splice(0, this.opts.maxBatch ?? 2_000);
    if (batch.length === 0) return;
    const items: T[] = [];
    for (const e of batch) if (e.item !== undefined) items.push(e.item);
    this.running = (async () => {
      try {
        if (items.length > 0) await this.opts.commit(items);
        for (const e of batch) e.resolve();
      } catch {
        for (const e of batch) {
          if (e.item === undefined) {
            e.resolve();
            continue;
          }
          try {
            await this.opts.one(e.item);
            e.resolve();
          } catch (err) {
            e.reject(err);
          }
        }
      }
    })();
    try {
      await this.running;
    } finally {
      this.running = null;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}

/**
 * Read coalescing: lookups by key made within one turn of the event loop are answered by one query
 * (`WHERE key IN (...)`) instead of one each. Attaching 10,000 bots makes tens of thousands of
 * small reads otherwise, each a round trip (PGlite: a query on the main thread).
 */
export class ReadBatch<V> {
  private waiting = new Map<string, { resolve: (v: V) => void; reject: (err: unknown) => void }[]>();
  private scheduled = false;

  constructor(
    private readonly opts: {
      /** The values of these keys (a key missing from the map gets `missing()`). */
      fetch: (keys: string[]) => Promise<Map<string, V>>;
      missing: () => V;
      /** Keys per query at most. */
      maxKeys?: number;
    },
  ) {}

  get(key: string): Promise<V> {
    return new Promise((resolve, reject) => {
      let list = this.waiting.get(key);
      if (!list) this.waiting.set(key, (list = []));
      list.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.run());
    });
  }

  private async run(): Promise<void> {
    this.scheduled = false;
    const all = this.waiting;
    this.waiting = new Map();
    const keys = [...all.keys()];
    const max = this.opts.maxKeys ?? 500;
    for (let i = 0; i < keys.length; i += max) {
      const chunk = keys.slice(i, i + max);
      try {
        const got = await this.opts.fetch(chunk);
        for (const k of chunk) {
          // Each caller gets its own value when several asked for one key (callers may keep it).
          const list = all.get(k)!;
          for (const [j, w] of list.entries()) {
            const v = got.has(k) ? got.get(k)! : this.opts.missing();
            w.resolve(j === 0 ? v : structuredClone(v));
          }
        }
      } catch (err) {
        for (const k of chunk) for (const w of all.get(k)!) w.reject(err);
      }
    }
  }
}
