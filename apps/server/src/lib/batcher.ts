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
 *
 * **The send lane** (`add(item, {key, urgent: true})`, issue 45 point 6). An item someone is about to
 * send an order on (a journal row: nothing reaches the venue before it commits) does not wait behind the
 * bulk of writes nobody waits for (log lines, states, `open` updates). When urgent items wait, the next
 * transaction holds only them and the items added before them under the same key (or under no key:
 * such an item may touch anything, so everything before it goes too), in the order they were added;
 * everything else waits for a later batch. So the items of one key still commit in the order they were
 * added, and a barrier still resolves only once everything added before it has committed. Bulk batches
 * hold at most `maxBulk` items, so an urgent item that arrives during one waits for little; once the
 * oldest item has waited `bulkWaitMs`, the oldest `maxBulk` go along with the next send-lane batch; with
 * `overlap` (several connections) it does not wait for it at all when no key is in both. Without keys or
 * urgent items this is the plain FIFO group commit.
 */
export class GroupCommit<T> {
  private waiting: Waiting<T>[] = [];
  /** The bulk (or only) transaction under way, with the keys of its items; null when none. */
  private bulk: Batch | null = null;
  /** The send-lane transaction under way beside `bulk` (`overlap` only). */
  private lane: Batch | null = null;
  private scheduled = false;
  /** Urgent items among `waiting`. */
  private urgent = 0;

  constructor(
    private readonly opts: {
      /** Commits the items (in the order they were added) atomically. */
      commit: (items: T[]) => Promise<void>;
      /** Commits one item alone (after a batch failed). */
      one: (item: T) => Promise<void>;
      /** Items per transaction at most (a bound on its size and on the first caller's wait). */
      maxBatch?: number;
      /** Items per bulk transaction (no urgent item in it) at most; default maxBatch. */
      maxBulk?: number;
      /** How long (ms) the oldest item may wait while urgent items go first; then a bulk batch goes. */
      bulkWaitMs?: number;
      /**
       * A send-lane transaction may run beside a bulk one when no key is in both (a database with
       * several connections: PostgreSQL). Never two bulk or two send-lane transactions at once.
       */
      overlap?: boolean;
    },
  ) {}

  /**
   * Resolves once `item` is committed (with the others of its batch). `key`: what the item writes
   * (items of one key commit in the order added; none = may touch anything). `urgent`: someone waits
   * for it to send (the send lane, above).
   */
  add(item: T, lane?: { key?: string | undefined; urgent?: boolean }): Promise<void> {
    return new Promise((resolve, reject) => {
      const urgent = lane?.urgent === true;
      this.waiting.push({ item, key: lane?.key, urgent, at: performance.now(), resolve, reject });
      if (urgent) this.urgent++;
      this.schedule();
    });
  }

  /** Resolves once everything added before the call is committed or has failed (reads wait for it). */
  barrier(): Promise<void> {
    if (this.waiting.length === 0 && this.bulk === null && this.lane === null) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.push({
        item: undefined,
        key: undefined,
        urgent: false,
        at: performance.now(),
        resolve,
        reject: () => resolve(),
      });
      this.schedule();
    });
  }

  /** Items waiting or being committed (tests). */
  get pending(): number {
    return this.waiting.length;
  }

  /** Whether a transaction could start now (nothing runs, or a send-lane batch may overlap the bulk one). */
  private canStart(): boolean {
    if (this.bulk === null && this.lane === null) return true;
    return (
      this.opts.overlap === true &&
      this.lane === null &&
      this.bulk !== null &&
      !this.bulk.all &&
      this.urgent > 0
    );
  }

  private schedule(): void {
    if (this.scheduled || !this.canStart()) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the writes of one tick's fan-out are made in promise continuations,
    // all of which run before it, so they land in one batch.
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /**
   * The next batch, taken out of `waiting`: the send lane's when urgent items wait, else the oldest.
   * `beside`: the bulk transaction under way; a send-lane batch sharing a key with it is not taken.
   */
  private take(beside: Batch | null): Waiting<T>[] {
    const max = this.opts.maxBatch ?? 2_000;
    const bulk = Math.min(max, this.opts.maxBulk ?? max);
    // The bulk's oldest `bulk` items go too when the oldest has waited too long (so a stream of urgent
    // items starves nothing), still with every urgent item: a prefix and the urgent items with what
    // they depend on are each complete, so together they are.
    const oldest = this.waiting[0];
    const starved = oldest !== undefined && performance.now() - oldest.at > (this.opts.bulkWaitMs ?? 250);
    if (this.urgent === 0) return this.waiting.splice(0, bulk);
    const taken = new Uint8Array(this.waiting.length);
    if (starved && beside === null) taken.fill(1, 0, bulk);
    // Backwards from the newest: an item goes when it is urgent, when a taken item after it has its key,
    // or when a taken item after it has no key (it may depend on anything before it). Barriers stay
    // (but those of a starved prefix): they resolve in the batch that takes everything before them.
    const keys = new Set<string>();
    let all = false;
    let anyTaken = false;
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const e = this.waiting[i]!;
      if (e.item === undefined) continue;
      if (taken[i] === 0 && !(e.urgent || all || (e.key === undefined ? anyTaken : keys.has(e.key))))
        continue;
      taken[i] = 1;
      anyTaken = true;
      if (e.key === undefined) all = true;
      else keys.add(e.key);
    }
    // Beside a bulk transaction only when no item of the batch waits for one of it (same key).
    if (beside !== null && (all || [...keys].some((k) => beside.keys.has(k)))) return [];
    // At most `max` of them, the oldest: what an item depends on is older, so they are complete.
    const batch: Waiting<T>[] = [];
    const rest: Waiting<T>[] = [];
    for (const [i, e] of this.waiting.entries()) {
      if (taken[i] === 1 && batch.length < max) batch.push(e);
      else rest.push(e);
    }
    this.waiting = rest;
    return batch;
  }

  private drain(): void {
    if (!this.canStart()) return;
    const beside = this.bulk;
    const batch = this.take(beside);
    if (batch.length === 0) return;
    const items: T[] = [];
    const run: Batch = { keys: new Set(), all: false };
    for (const e of batch) {
      if (e.urgent) this.urgent--;
      if (e.item === undefined) continue;
      items.push(e.item);
      if (e.key === undefined) run.all = true;
      else run.keys.add(e.key);
    }
    // Alone, it holds `bulk` (whatever it is); beside it, `lane`. Only a send-lane batch starts beside
    // another, never beside a batch with an item of no key, and nothing starts beside two.
    if (beside === null) this.bulk = run;
    else this.lane = run;
    void this.commitBatch(batch, items).finally(() => {
      if (this.bulk === run) this.bulk = null;
      if (this.lane === run) this.lane = null;
      if (this.waiting.length > 0) this.schedule();
    });
  }

  private async commitBatch(batch: Waiting<T>[], items: T[]): Promise<void> {
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
  }
}

/** A transaction under way: the keys of its items (`all`: one has none). */
interface Batch {
  keys: Set<string>;
  all: boolean;
}

interface Waiting<T> {
  item: T | undefined;
  key: string | undefined;
  urgent: boolean;
  /** When it was added (performance.now()). */
  at: number;
  resolve: () => void;
  reject: (err: unknown) => void;
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
