import type { Db } from '../../db/client';
import { watchWrites } from '../../db/write-watch';

/**
 * Statements after which no kept connection row may be served: any write naming the table, and a
 * user's deletion (its connections go by the foreign key's cascade, a statement that names `users`).
 */
const CONNECTION_WRITES = /\bexchange_connections\b|\bdelete\s+from\s+"?users\b/i;
/** Users whose rows are kept at most (then the map is emptied: a cache, not a store). */
const MAX_USERS = 20_000;

/**
 * The users' exchange connection rows, kept in memory until the next write to `exchange_connections`
 * (docs/read-path.md, "Wallet and connections"). Every wallet call read them twice (the chosen
 * connection, then the venue registry's check that it is still there): two PGlite queries of ~1 ms on
 * the main thread held `GET /api/wallet` at a few hundred answers a second.
 *
 * Exact: the database client is watched (db/write-watch.ts), so a write by anyone drops every kept row
 * as soon as it completes; a load that was running while a write landed is handed to its caller and not
 * kept (the generation is compared when it settles). Enabled on the embedded database only, where this
 * process is the only writer.
 */
export class ConnectionRowsCache {
  enabled = false;
  private gen = 0;
  private readonly kept = new Map<string, { gen: number; rows: Promise<readonly Row[]> }>();

  /** Turns the cache on, watching `client` (the embedded database's client) for writes. */
  enable(client: unknown): void {
    if (this.enabled) return;
    this.enabled = watchWrites(client, CONNECTION_WRITES, () => this.touch());
  }

  /** Drops every kept row (also called by the repository after its own writes). */
  touch(): void {
    this.gen++;
    this.kept.clear();
  }

  rows<R extends Row>(userId: string, load: () => Promise<R[]>): Promise<readonly R[]> {
    if (!this.enabled) return load();
    const hit = this.kept.get(userId);
    if (hit && hit.gen === this.gen) return hit.rows as Promise<readonly R[]>;
    const gen = this.gen;
    const rows = load().then((list) => Object.freeze(list.map((r) => Object.freeze(r))));
    const entry = { gen, rows };
    if (this.kept.size >= MAX_USERS) this.kept.clear();
    this.kept.set(userId, entry);
    const drop = () => {
      if (this.kept.get(userId) === entry) this.kept.delete(userId);
    };
    rows.then(() => {
      if (this.gen !== gen) drop();
    }, drop);
    return rows;
  }
}

type Row = object;

const caches = new WeakMap<Db, ConnectionRowsCache>();

/** The cache of a database: every ConnectionsRepository on it shares it. */
export function connectionRowsFor(db: Db): ConnectionRowsCache {
  let c = caches.get(db);
  if (!c) {
    c = new ConnectionRowsCache();
    caches.set(db, c);
  }
  return c;
}
