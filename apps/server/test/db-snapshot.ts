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
const CACHE = path.join(ROOT, 'apps/server/node_modules/.cache/bytx-pglite');

function key(): string {
  const h = createHash('sha256');
  const pglite = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  h.update(pglite.version);
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
    const tar = Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
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
