import type { Database, Db } from './client';

/**
 * Small read caches kept exact by the tables they are read from (docs/read-path.md): a value per key
 * (a user's 2FA flag, their sessions, a forum page), kept in memory until the next statement that
 * writes one of the cache's tables, whoever runs it (a repository, raw SQL, a transaction, a test).
 * The embedded database only, where this process is its only writer; on PostgreSQL every read goes
 * through (other processes write too).
 *
 * Exact: the database client is watched (as db/write-watch.ts does, with one wrapper for every table
 * cache of a client): after each statement that writes a watched table completes, and again when its
 * transaction ends, the caches naming that table drop everything, before the writer's own `await`
 * resumes. A value whose load was running while such a write landed is handed to its callers but not
 * kept, and requests arriving after the write never join that load.
 */

/** Statements that change rows: checked on every statement's text. */
const WRITE_SQL = /\b(insert\s+into|update|delete\s+from|truncate)\b/i;
/** At most this many values per cache (then it is emptied: a cache, not a store). */
const MAX_KEYS = 20_000;

interface SqlTarget {
  query: (...args: unknown[]) => Promise<unknown>;
  exec: (...args: unknown[]) => Promise<unknown>;
  transaction?: (fn: (tx: SqlTarget) => Promise<unknown>) => Promise<unknown>;
}

interface Listener {
  tables: RegExp;
  onWrite: () => void;
}

/** The listeners of each watched client (one wrapper per client, however many caches). */
const watched = new WeakMap<object, Listener[]>();

/** The listeners whose tables a statement writes (none for a read). */
function hit(listeners: readonly Listener[], text: unknown): Listener[] | null {
  if (typeof text !== 'string' || !WRITE_SQL.test(text)) return null;
  let out: Listener[] | null = null;
  for (const l of listeners) if (l.tables.test(text)) (out ??= []).push(l);
  return out;
}

/** Wraps `client` once; false when it cannot be watched (no `query` and `exec`). */
function listen(client: unknown, listener: Listener): boolean {
  if (!client || typeof client !== 'object') return false;
  const known = watched.get(client);
  if (known) {
    known.push(listener);
    return true;
  }
  const target = client as SqlTarget;
  if (typeof target.query !== 'function' || typeof target.exec !== 'function') return false;
  const listeners: Listener[] = [listener];
  watched.set(client, listeners);
  const wrap = (t: SqlTarget, seen: (ls: Listener[]) => void) => {
    for (const name of ['query', 'exec'] as const) {
      const orig = t[name].bind(t);
      // The original is called synchronously, as write-watch.ts does.
      t[name] = async (...args: unknown[]) => {
        const ls = hit(listeners, args[0]);
        try {
          return await orig(...args);
        } finally {
          if (ls) seen(ls);
        }
      };
    }
  };
  const fire = (ls: Iterable<Listener>) => {
    for (const l of ls) l.onWrite();
  };
  wrap(target, fire);
  if (typeof target.transaction === 'function') {
    const origTx = target.transaction.bind(target);
    target.transaction = async (fn) => {
      const wrote = new Set<Listener>();
      try {
        return await origTx((tx) => {
          wrap(tx, (ls) => {
            for (const l of ls) wrote.add(l);
            fire(ls);
          });
          return fn(tx);
        });
      } finally {
        fire(wrote);
      }
    };
  }
  return true;
}

interface Kept<V> {
  gen: number;
  value: Promise<V>;
  /** ms since the epoch after which the value is no longer served (a row that expires); Infinity. */
  until: number;
}

export interface TableCacheOptions<V> {
  /** When the loaded value stops being the answer by itself (ms since the epoch): reloaded after. */
  until?: (value: V) => number;
}

export class TableCache<V> {
  enabled = false;
  private gen = 0;
  private readonly kept = new Map<string, Kept<V>>();

  constructor(private readonly opts: TableCacheOptions<V> = {}) {}

  /** Turns the cache on, watching `client` for statements that write `tables`. */
  enable(client: unknown, tables: RegExp): void {
    if (this.enabled) return;
    this.enabled = listen(client, { tables, onWrite: () => this.touch() });
  }

  /** Drops every kept value. */
  touch(): void {
    this.gen++;
    this.kept.clear();
  }

  /** The value of `key`: the kept one while no write landed since it was loaded, else `load()`. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.enabled) return load();
    const hit = this.kept.get(key);
    if (hit && hit.gen === this.gen && Date.now() < hit.until) return hit.value;
    const gen = this.gen;
    const entry: Kept<V> = { gen, value: load(), until: Infinity };
    if (this.kept.size >= MAX_KEYS) this.kept.clear();
    this.kept.set(key, entry);
    const drop = () => {
      if (this.kept.get(key) === entry) this.kept.delete(key);
    };
    entry.value.then((v) => {
      if (this.gen !== gen) drop();
      else if (this.opts.until) entry.until = this.opts.until(v);
    }, drop);
    return entry.value;
  }
}

/**
 * A cache of values read from `tables` (a pattern of their names as they appear in SQL, e.g.
 * /\bforum_posts\b/i), on when the database is the embedded one. Values are shared by every caller:
 * read them, never change them.
 */
export function tableCache<V>(
  ctx: { db: Db; database: Pick<Database, 'driver'> },
  tables: RegExp,
  opts: TableCacheOptions<V> = {},
): TableCache<V> {
  const cache = new TableCache<V>(opts);
  if (ctx.database.driver === 'pglite') {
    cache.enable((ctx.db as unknown as { $client?: unknown }).$client, tables);
  }
  return cache;
}
