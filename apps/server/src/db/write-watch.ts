/**
 * Watches the embedded database's client for statements that write some tables, so an in-memory copy of
 * those tables' rows can be dropped the moment anything changes them, whoever wrote (a repository, raw
 * SQL, a foreign key's cascade named by its parent table, a test). Used where this process is the
 * database's only writer (PGlite): on PostgreSQL other processes write too and nothing is kept.
 *
 * `onWrite` runs after every such statement completes and again when its transaction ends (committed or
 * rolled back), before the writer's own `await` resumes: a read that starts after a write returned never
 * sees a copy taken before it.
 */

/** Statements that change rows: checked on every statement's text. */
const WRITE_SQL = /\b(insert\s+into|update|delete\s+from|truncate)\b/i;

interface SqlTarget {
  query: (...args: unknown[]) => Promise<unknown>;
  exec: (...args: unknown[]) => Promise<unknown>;
  transaction?: (fn: (tx: SqlTarget) => Promise<unknown>) => Promise<unknown>;
}

/** True when the client could be watched (it has `query` and `exec`). */
export function watchWrites(client: unknown, tables: RegExp, onWrite: () => void): boolean {
  if (!client || typeof client !== 'object') return false;
  const target = client as SqlTarget;
  if (typeof target.query !== 'function' || typeof target.exec !== 'function') return false;
  const writes = (text: unknown) => typeof text === 'string' && WRITE_SQL.test(text) && tables.test(text);
  const wrap = (t: SqlTarget, seen: () => void) => {
    for (const name of ['query', 'exec'] as const) {
      const orig = t[name].bind(t);
      // The original is called synchronously (a caller that flags the statement it starts, as the bots'
      // read cache does, still sees it run from its own call).
      t[name] = async (...args: unknown[]) => {
        const w = writes(args[0]);
        try {
          return await orig(...args);
        } finally {
          if (w) seen();
        }
      };
    }
  };
  wrap(target, onWrite);
  if (typeof target.transaction === 'function') {
    const origTx = target.transaction.bind(target);
    target.transaction = async (fn) => {
      let wrote = false;
      try {
        return await origTx((tx) => {
          wrap(tx, () => {
            wrote = true;
            onWrite();
          });
          return fn(tx);
        });
      } finally {
        if (wrote) onWrite();
      }
    };
  }
  return true;
}
