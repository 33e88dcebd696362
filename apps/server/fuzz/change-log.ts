import type { TestApp } from '../test/helpers';

/**
 * The fuzz tier's record of every row change (this test database only): a trigger on each table logs
 * table, operation and changed columns, so "did this refused request change anything" is one indexed
 * read of the new log rows, whatever the size of the tables. (Comparing md5 pictures of every table
 * before and after each request cost ~35 queries and a scan of every row, most of the tier's time.)
 *
 * Not logged, because they move by themselves: the market walk's tables, the background jobs'
 * schedule, the runner's lease (leased_by, lease_until), row touch times (updated_at) and the session
 * touch time (last_seen_at). An update that changes nothing else is not a change.
 */
const UNWATCHED = ['sim_state', 'sim_candles', 'schema_migrations', 'scheduled_jobs', 'fuzz_changes'];
const MOVING = `- 'leased_by' - 'lease_until' - 'updated_at' - 'last_seen_at'`;

export interface Change {
  id: number;
  /** table:operation[:changed columns], e.g. `email_codes:UPDATE:attempts`. */
  what: string;
}

export async function installChangeLog(t: TestApp) {
  const sql = t.ctx.database.sql;
  await sql.exec(
    `CREATE TABLE fuzz_changes (id bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL, cols text)`,
  );
  await sql.exec(`
    CREATE FUNCTION fuzz_log() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE n jsonb; o jsonb; changed text;
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        n := to_jsonb(NEW) ${MOVING};
        o := to_jsonb(OLD) ${MOVING};
        IF n = o THEN RETURN NULL; END IF;
        SELECT string_agg(k, ',' ORDER BY k) INTO changed FROM jsonb_object_keys(n) AS k WHERE n -> k IS DISTINCT FROM o -> k;
      END IF;
      INSERT INTO fuzz_changes (tbl, op, cols) VALUES (TG_TABLE_NAME, TG_OP, changed);
      RETURN NULL;
    END $$`);
  const tables = await sql.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  for (const { tablename } of tables) {
    const name = String(tablename);
    if (UNWATCHED.includes(name)) continue;
    await sql.exec(
      `CREATE TRIGGER fuzz_log AFTER INSERT OR UPDATE OR DELETE ON "${name}" FOR EACH ROW EXECUTE FUNCTION fuzz_log()`,
    );
    await sql.exec(
      `CREATE TRIGGER fuzz_log_truncate AFTER TRUNCATE ON "${name}" FOR EACH STATEMENT EXECUTE FUNCTION fuzz_log()`,
    );
  }
  return {
    /** The id of the last change so far (0: none). */
    last: async (): Promise<number> =>
      Number((await sql.query(`SELECT coalesce(max(id), 0) AS id FROM fuzz_changes`))[0]?.id ?? 0),
    /** The changes after `id`, oldest first. */
    since: async (id: number): Promise<Change[]> =>
      (await sql.query(`SELECT id, tbl, op, cols FROM fuzz_changes WHERE id > $1 ORDER BY id`, [id])).map(
        (r) => ({
          id: Number(r.id),
          what: [r.tbl, r.op, r.cols]
            .filter((x) => x !== null && x !== undefined)
            .map(String)
            .join(':'),
        }),
      ),
  };
}
