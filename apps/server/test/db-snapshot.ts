import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../src/db/client';
import { MIGRATIONS_DIR } from '../src/db/migrate';

/**
 * A migrated, empty embedded database, made once and copied into every test that needs a fresh one.
 * Creating a PGlite cluster costs about 4 s of CPU (initdb in WebAssembly) and the test run creates
 * some 200 of them; loading the 40 MB dump takes about 1 s, and copying the folder for a spawned
 * server less. The snapshot's name carries a hash of the migrations and PGlite's version, so a new
 * migration or PGlite makes a new one; a test that finds none (a run without the global setup)
 * creates its database from scratch as before. The migration tests themselves (database.test.ts,
 * schema-sync.test.ts) always start from an empty cluster.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
/** Changes the snapshot's name when the dump is made differently (old ones are simply not used). */
const DUMP_FORMAT = 'postgres database only';
const CACHE = path.join(ROOT, 'apps/server/node_modules/.cache/bytx-pglite');

function key(): string {
  const h = createHash('sha256');
  const pglite = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  h.update(pglite.version);
  // The dump's content: a new way of making it makes a new snapshot.
  h.update(DUMP_FORMAT);
  for (const f of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    h.update(f);
    h.update(fs.readFileSync(path.join(MIGRATIONS_DIR, f)));
  }
  return h.digest('hex').slice(0, 16);
}

const paths = () => {
  const k = key();
  return { dump: path.join(CACHE, `${k}.tar`), dir: path.join(CACHE, k, 'pglite') };
};

/** Makes the snapshot (the dump and the folder) unless this schema has one: about 6 s, once. */
export async function ensureDatabaseSnapshot(): Promise<void> {
  const { dump, dir } = paths();
  if (fs.existsSync(dump) && fs.existsSync(dir)) return;
  fs.mkdirSync(CACHE, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-snapshot-'));
  try {
    const database = await openDatabase({ dataDir: work });
    await database.close();
    const client = new PGlite(path.join(work, 'pglite'));
    await client.waitReady;
    // The other databases of the cluster (template0, template1) are no test's: PGlite opens `postgres`
    // and no test creates a database in PGlite.
    const others = (
      await client.query<{ oid: number }>(
        'SELECT oid::int AS oid FROM pg_database WHERE datname <> current_database()',
      )
    ).rows.map((r) => r.oid);
    const tar = withoutDatabases(Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()), others);
    await client.close();
    // Written beside, then renamed: a test starting meanwhile sees the whole snapshot or none.
    const tmpDump = `${dump}.${process.pid}.tmp`;
    fs.writeFileSync(tmpDump, tar);
    const tmpDir = `${path.dirname(dir)}.${process.pid}.tmp`;
    fs.cpSync(path.join(work, 'pglite'), path.join(tmpDir, 'pglite'), { recursive: true });
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    fs.renameSync(tmpDir, path.dirname(dir));
    fs.renameSync(tmpDump, dump);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The dump without the folders of the given databases (`base/<oid>`): a 27 MB dump instead of 42, and
 * each test database's load 0.45 s of CPU instead of 0.65 (measured on the 2-core machine): loading
 * copies every file of the dump into PGlite's in-memory file system. PGlite's dumps are ustar archives
 * (512-byte headers, data padded to 512 bytes, two zero blocks at the end).
 */
function withoutDatabases(tar: Buffer, oids: readonly number[]): Buffer {
  const drop = new RegExp(`^/?base/(?:${oids.join('|')})(?:/|$)`);
  const field = (h: Buffer, at: number, len: number) =>
    h.toString('utf8', at, at + len).replace(/\0.*$/s, '');
  const kept: Buffer[] = [];
  let dropped = 0;
  let off = 0;
  while (off + 512 <= tar.length) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const prefix = field(header, 345, 155);
    const name = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const end = off + 512 + Math.ceil(size / 512) * 512;
    if (oids.length > 0 && drop.test(name)) dropped++;
    else kept.push(tar.subarray(off, end));
    off = end;
  }
  // A dump whose entries were not read as expected is kept whole (slower to load, never wrong).
  if (oids.length > 0 && dropped === 0) return tar;
  return Buffer.concat([...kept, Buffer.alloc(1024)]);
}

let dumpBlob: Blob | null | undefined;

/** A fresh in-memory database: from the snapshot when there is one, else from an empty cluster. */
export async function openTestDatabase(): Promise<Database> {
  if (dumpBlob === undefined) {
    const { dump } = paths();
    dumpBlob = fs.existsSync(dump) ? new Blob([fs.readFileSync(dump)]) : null;
  }
  return openDatabase({ dataDir: 'memory://', snapshot: dumpBlob ?? undefined });
}

/** Puts the snapshot's folder into a new server's DATA_DIR (nothing when there is none). */
export function seedDataDir(dataDir: string): void {
  const { dir } = paths();
  if (fs.existsSync(dir)) fs.cpSync(dir, path.join(dataDir, 'pglite'), { recursive: true });
}
