import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import * as schema from '../src/db/schema/index';

/** Maps Drizzle's SQL type names to information_schema's data_type. */
function expectedDataType(sqlType: string): string {
  const t = sqlType.toLowerCase();
  if (t.startsWith('timestamp'))
    return t.includes('with time zone') ? 'timestamp with time zone' : 'timestamp without time zone';
  if (t.startsWith('numeric')) return 'numeric';
  if (t.startsWith('varchar')) return 'character varying';
  if (t === 'serial') return 'integer';
  if (t === 'bigserial') return 'bigint';
  if (t.startsWith('char')) return 'character';
  if (t.endsWith('[]')) return 'ARRAY';
  return t;
}

describe('Drizzle schema matches the SQL migrations', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: 'memory://' });
  });
  afterAll(async () => database.close());

  const tables = (Object.values(schema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));

  it('declares at least the core tables', () => {
    expect(tables.map((t) => getTableConfig(t).name)).toEqual(expect.arrayContaining(['users', 'sessions']));
  });

  it('has every Drizzle column in the migrated database with a compatible type and nullability', async () => {
    const rows = await database.sql.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const actual = new Map(rows.map((r) => [`${String(r.table_name)}.${String(r.column_name)}`, r]));
    const problems: string[] = [];
    for (const table of tables) {
      const cfg = getTableConfig(table);
      for (const col of cfg.columns) {
        const key = `${cfg.name}.${col.name}`;
        const row = actual.get(key);
        if (!row) {
          problems.push(`${key}: missing in the migrations`);
          continue;
        }
        const want = expectedDataType(col.getSQLType());
        if (String(row.data_type) !== want)
          problems.push(`${key}: SQL has ${String(row.data_type)}, Drizzle ${want}`);
        if (col.notNull !== (row.is_nullable === 'NO')) problems.push(`${key}: nullability differs`);
      }
    }
    expect(problems).toEqual([]);
  });
});
