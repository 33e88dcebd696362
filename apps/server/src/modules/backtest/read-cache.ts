import type { Db } from '../../db/client';
import { watchWrites } from '../../db/write-watch';

/**
 * Statements after which nothing kept here may be served: any write naming the table (the repository's
 * inserts, progress, results, deletes and purges, raw SQL), and a user's deletion (their backtests go
 * by the foreign key's cascade, a statement that names `users`).
 */
const BACKTEST_WRITES = /\bbacktests\b|\bdelete\s+from\s+"?users\b/i;
/** Answers kept at most (then the oldest go: a cache, not a store). */
const MAX_ENTRIES = 10_000;
/** Bytes of kept answers at most (a finished backtest's answer is up to a few MB). */
const MAX_BYTES = 64 * 1024 * 1024;

/** A serialized answer, or the rows of a list, and what it was read at. */
interface Entry<T> {
  gen: number;
  /** The expiry cutoff (ms) the rows were read with: a read with an earlier one reads again. */
  since: number;
  value: Promise<T>;
  bytes: number;
}

/**
 * The backtest reads kept in memory (docs/read-path.md): `GET /api/backtest/{id}` of a finished
 * backtest (its stored result parsed from the database and serialized again on every request: its cost,
 * and an answer of tens of KB to MBs), and the rows of `GET /api/backtest`.
 *
 * Exact: the database client is watched (db/write-watch.ts), so a write by anyone to `backtests` drops
 * everything kept as soon as it completes, and a load that ran while a write landed is handed to its
 * caller and not kept (the generation is compared when it settles). Expiry (24 h) moves with the clock
 * alone: the callers check the cutoff on every request. A queued or running backtest's answer reads
 * its progress from the worker's messages (memory, not the table): it is never kept. Enabled on the
 * embedded database only, where this process is the only writer.
 */
export class BacktestReadCache {
  enabled = false;
  private gen = 0;
  private bytes = 0;
  private readonly kept = new Map<string, Entry<unknown>>();

  /** Turns the cache on, watching `client` (the embedded database's client) for writes. */
  enable(client: unknown): void {
    if (this.enabled) return;
    this.enabled = watchWrites(client, BACKTEST_WRITES, () => this.touch());
  }

  /** Drops everything kept. */
  touch(): void {
    this.gen++;
    this.kept.clear();
    this.bytes = 0;
  }

  /**
   * The value of `key`: the kept one when no write landed since it was read and it was read with a
   * cutoff at or before `since`, else `load()`'s. `keep(value)` says whether the value may be kept and
   * what it weighs (null: not kept, e.g. a running backtest's answer).
   */
  get<T>(key: string, since: number, load: () => Promise<T>, keep: (value: T) => number | null): Promise<T> {
    if (!this.enabled) return load();
    const hit = this.kept.get(key) as Entry<T> | undefined;
    if (hit && hit.gen === this.gen && hit.since <= since) return hit.value;
    if (hit) this.drop(key, hit);
    const gen = this.gen;
    const entry: Entry<T> = { gen, since, value: load(), bytes: 0 };
    if (this.kept.size >= MAX_ENTRIES) this.evict();
    this.kept.set(key, entry);
    entry.value.then(
      (v) => {
        if (this.kept.get(key) !== entry) return;
        const bytes = this.gen === gen ? keep(v) : null;
        if (bytes === null) {
          this.kept.delete(key);
          return;
        }
        entry.bytes = bytes;
        this.bytes += bytes;
        while (this.bytes > MAX_BYTES && this.kept.size > 1) this.evict();
      },
      () => {
        if (this.kept.get(key) === entry) this.kept.delete(key);
      },
    );
    return entry.value;
  }

  /** Forgets one kept value (its caller found it expired). */
  forget(key: string): void {
    const e = this.kept.get(key);
    if (e) this.drop(key, e);
  }

  private drop(key: string, e: Entry<unknown>): void {
    this.kept.delete(key);
    this.bytes -= e.bytes;
  }

  /** Drops the oldest kept value. */
  private evict(): void {
    const first = this.kept.entries().next();
    if (!first.done) this.drop(first.value[0], first.value[1]);
  }
}

const caches = new WeakMap<Db, BacktestReadCache>();

/** The cache of a database: every backtest service on it shares it. */
export function backtestReadsFor(db: Db): BacktestReadCache {
  let c = caches.get(db);
  if (!c) {
    c = new BacktestReadCache();
    caches.set(db, c);
  }
  return c;
}
