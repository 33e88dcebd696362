import fs from 'node:fs';
import path from 'node:path';

export interface SqlRunner {
  /** Runs one or more statements with no parameters. */
  exec(text: string): Promise<void>;
  query(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../migrations');

/**
 * Applies every `migrations/NNNN_name.sql` not yet recorded, in file-name order, each in its own
 * transaction. Areas own number ranges (see docs/database.md) so parallel work never collides.
 * A cluster-wide advisory lock keeps two processes starting together on PostgreSQL from racing.
 */
export async function runMigrations(sql: SqlRunner, dir = MIGRATIONS_DIR): Promise<string[]> {
  await sql.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await sql.exec('SELECT pg_advisory_lock(727274)');
  try {
    const done = new Set((await sql.query('SELECT name FROM schema_migrations')).map((r) => String(r.name)));
    for (const file of files) {
      if (done.has(file)) continue;
      const body = fs.readFileSync(path.join(dir, file), 'utf8');
      await sql.exec(`BEGIN;\n${body}\n;INSERT INTO schema_migrations (name) VALUES ('${file}');\nCOMMIT;`);
      applied.push(file);
    }
  } catch (err) {
    await sql.exec('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await sql.exec('SELECT pg_advisory_unlock(727274)');
  }
  return applied;
}
