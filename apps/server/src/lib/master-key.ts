import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sealContext, SecretBox } from './crypto';

/**
 * Where the master keys come from (docs/limits.md "Secrets"): `MASTER_KEY` encrypts when set; the key file
 * (`MASTER_KEY_FILE`, default `<DATA_DIR>.master.key`, beside the data folder and never inside it) holds one
 * key per line, the first encrypting when MASTER_KEY is unset, every other one only decrypting (a rotation
 * in progress). Without MASTER_KEY the file is created with a fresh key on first start, mode 0600, so
 * `npm install && npm start` works on a fresh machine. A backup of the data folder alone decrypts nothing.
 */
export interface MasterKeyOptions {
  MASTER_KEY?: string | undefined;
  dataDir: string;
  masterKeyFile: string;
}

export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

const KEY_LINE = /^[0-9a-f]{64}$/i;
const FILE_HEADER =
  '# BYTX master keys (docs/limits.md "Secrets"). The first line encrypts; any other line only decrypts.\n' +
  '# Back this file up apart from the data folder: the two together open every stored secret.\n';

/** The key file's keys, in order; throws a clear error on anything but 64-hex lines and # comments. */
export function readKeyFile(file: string): Buffer[] {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0 || lines.some((l) => !KEY_LINE.test(l))) {
    throw new MasterKeyError(`${file} must hold one 64-hex-character key per line`);
  }
  return lines.map((l) => Buffer.from(l, 'hex'));
}

/** Writes the key file whole or not at all: a temporary file (0600), fsync, rename, fsync of the folder. */
export function writeKeyFile(file: string, keys: readonly Buffer[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, FILE_HEADER + keys.map((k) => k.toString('hex')).join('\n') + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const isInside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

const sameKeys = (a: readonly Buffer[], b: readonly Buffer[]) =>
  a.length === b.length && a.every((k, i) => k.equals(b[i] as Buffer));

/**
 * Moves `DATA_DIR/master.key` (where versions before issue 37 made it) to the key file: a rename, or across
 * file systems copy + fsync + unlink. When both exist they must hold the same keys (the old one is then
 * deleted); else starting is refused, since either may be the key the stored secrets need.
 */
export function moveLegacyKeyFile(opts: MasterKeyOptions): 'moved' | 'removed-duplicate' | null {
  const legacy = path.join(path.resolve(opts.dataDir), 'master.key');
  if (!fs.existsSync(legacy)) return null;
  const target = path.resolve(opts.masterKeyFile);
  if (fs.existsSync(target)) {
    if (!sameKeys(readKeyFile(legacy), readKeyFile(target))) {
      throw new MasterKeyError(
        `Both ${legacy} (the old place, inside DATA_DIR) and ${target} (MASTER_KEY_FILE) exist and hold ` +
          'different keys. Keep the one that opens your stored secrets as MASTER_KEY_FILE, move the other ' +
          'out of DATA_DIR, and start again.',
      );
    }
    fs.unlinkSync(legacy);
    return 'removed-duplicate';
  }
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  try {
    fs.renameSync(legacy, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    writeKeyFile(target, readKeyFile(legacy));
    fs.unlinkSync(legacy);
  }
  fs.chmodSync(target, 0o600);
  fsyncDir(path.dirname(target));
  fsyncDir(path.dirname(legacy));
  return 'moved';
}

export interface LoadedKeys {
  /** The current key first, then the keys that only decrypt. */
  keys: Buffer[];
  /** What happened to an old key file inside DATA_DIR (for the start-up log). */
  legacy: 'moved' | 'removed-duplicate' | null;
  created: boolean;
}

/** MASTER_KEY and/or the key file, as described above; moves an old in-DATA_DIR key file out first. */
export function loadMasterKeys(opts: MasterKeyOptions): LoadedKeys {
  const file = path.resolve(opts.masterKeyFile);
  if (isInside(file, path.resolve(opts.dataDir))) {
    throw new MasterKeyError(
      `MASTER_KEY_FILE (${file}) is inside DATA_DIR: a copy of the data folder would then decrypt every ` +
        'stored secret. Put the key file outside the data folder.',
    );
  }
  const legacy = moveLegacyKeyFile(opts);
  let created = false;
  let fileKeys: Buffer[] = [];
  if (fs.existsSync(file)) {
    fs.chmodSync(file, 0o600);
    fileKeys = readKeyFile(file);
  } else if (!opts.MASTER_KEY) {
    fileKeys = [randomBytes(32)];
    writeKeyFile(file, fileKeys);
    created = true;
  }
  const keys = opts.MASTER_KEY ? [Buffer.from(opts.MASTER_KEY, 'hex'), ...fileKeys] : fileKeys;
  return { keys, legacy, created };
}

/**
 * Every sealed column: its table, the columns naming its row, and the associated data of its values
 * (sealContext, as the code that seals them uses it). A column that does not exist (yet, or any more) is
 * skipped.
 */
interface SealedColumn {
  table: string;
  column: string;
  idColumns: readonly string[];
  context: (row: Record<string, unknown>) => string;
}
const s = (v: unknown) => String(v);
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    table: 'exchange_connections',
    column: 'api_key_enc',
    idColumns: ['user_id', 'exchange'],
    context: (r) => sealContext.exchangeApiKey(s(r.user_id), s(r.exchange)),
  },
  {
    table: 'exchange_connections',
    column: 'api_secret_enc',
    idColumns: ['user_id', 'exchange'],
    context: (r) => sealContext.exchangeSecret(s(r.user_id), s(r.exchange)),
  },
  {
    table: 'exchange_connections',
    column: 'api_password_enc',
    idColumns: ['user_id', 'exchange'],
    context: (r) => sealContext.exchangePassword(s(r.user_id), s(r.exchange)),
  },
  {
    table: 'user_totp',
    column: 'secret_enc',
    idColumns: ['user_id'],
    context: (r) => sealContext.totp(s(r.user_id)),
  },
  {
    table: 'user_totp',
    column: 'pending_secret_enc',
    idColumns: ['user_id'],
    context: (r) => sealContext.totp(s(r.user_id)),
  },
  {
    table: 'signal_bots',
    column: 'secret_enc',
    idColumns: ['bot_id'],
    context: (r) => sealContext.signalWebhook(s(r.bot_id)),
  },
  {
    table: 'chain_owner_keys',
    column: 'key_enc',
    idColumns: ['chain_id'],
    context: (r) => sealContext.chainOwnerKey(s(r.chain_id)),
  },
];

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];

/**
 * Re-seals every stored value that is not v2 under the box's current key (v1 values, values under an older
 * key) with the current key and its context, in one transaction: either every value moves or none does.
 * Run on start (v1 values and an interrupted rotation: `skipUnreadable`, a value no loaded key opens is left
 * as it is and counted, so one damaged row does not stop the server) and by `npm run rotate-master-key` (any
 * unreadable value fails the whole rotation, and the old keys stay).
 */
export async function resealStale(
  db: Db,
  box: SecretBox,
  opts: { skipUnreadable?: boolean } = {},
): Promise<{ resealed: number; unreadable: string[] }> {
  // pg_attribute, not information_schema: this runs on every start (and every test app), and the
  // information_schema view costs a few hundred ms on the embedded database.
  const tables = [...new Set(SEALED_COLUMNS.map((c) => c.table))];
  const present = new Set(
    rowsOf<{ t: string; c: string }>(
      await db.execute(
        sql`SELECT c.relname AS t, a.attname AS c FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
              AND c.relname IN (${sql.join(
                tables.map((t) => sql`${t}`),
                sql`, `,
              )}) AND a.attnum > 0 AND NOT a.attisdropped`,
      ),
    ).map((r) => `${r.t}.${r.c}`),
  );
  const columns = SEALED_COLUMNS.filter((c) => present.has(`${c.table}.${c.column}`));
  const current = `v2:${box.currentKeyId}:%`;
  if (columns.length === 0) return { resealed: 0, unreadable: [] };
  // One cheap look first: the usual start has nothing to rewrite and takes no row locks.
  const probes = sql.join(
    columns.map(
      (c) =>
        sql`(SELECT 1 AS x FROM ${sql.identifier(c.table)} WHERE ${sql.identifier(c.column)} IS NOT NULL AND ${sql.identifier(c.column)} NOT LIKE ${current} LIMIT 1)`,
    ),
    sql` UNION ALL `,
  );
  if (rowsOf(await db.execute(sql`SELECT x FROM (${probes}) p LIMIT 1`)).length === 0) {
    return { resealed: 0, unreadable: [] };
  }
  return db.transaction(async (tx) => {
    let resealed = 0;
    const unreadable: string[] = [];
    for (const c of columns) {
      const col = sql.identifier(c.column);
      const table = sql.identifier(c.table);
      const ids = sql.join(
        c.idColumns.map((i) => sql`${sql.identifier(i)}::text AS ${sql.identifier(i)}`),
        sql`, `,
      );
      // FOR UPDATE: a value sealed meanwhile by another process waits for this transaction.
      const rows = rowsOf<Record<string, unknown>>(
        await tx.execute(
          sql`SELECT ${ids}, ${col} AS sealed FROM ${table} WHERE ${col} IS NOT NULL AND ${col} NOT LIKE ${current} FOR UPDATE`,
        ),
      );
      for (const row of rows) {
        const context = c.context(row);
        const sealed = s(row.sealed);
        // Only sealed values: a column another version turned into something else is left alone.
        if (!/^v[12]:/.test(sealed)) continue;
        let plain: string;
        try {
          plain = box.open(sealed, context);
        } catch (err) {
          const where = `${c.table}.${c.column} (${c.idColumns.map((i) => s(row[i])).join(', ')})`;
          if (!opts.skipUnreadable) {
            throw new MasterKeyError(`${where}: ${err instanceof Error ? err.message : String(err)}`);
          }
          unreadable.push(where);
          continue;
        }
        const fresh = box.seal(plain, context);
        const where = sql.join(
          c.idColumns.map((i) => sql`${sql.identifier(i)}::text = ${s(row[i])}`),
          sql` AND `,
        );
        await tx.execute(sql`UPDATE ${table} SET ${col} = ${fresh} WHERE ${where} AND ${col} = ${sealed}`);
        resealed++;
      }
    }
    return { resealed, unreadable };
  });
}

export interface RotationResult {
  resealed: number;
  newKeyId: string;
  droppedKeyIds: string[];
}

/**
 * Rotation (`npm run rotate-master-key`, docs/limits.md "Secrets"), with every server of the install stopped:
 * a new key is put first in the key file while the old keys stay in it, every sealed value is re-sealed with
 * the new key in one transaction, and only then are the old keys removed from the file. A crash at any point
 * leaves a file that opens every value (the next start re-seals what is left). With MASTER_KEY set the new
 * key comes from NEW_MASTER_KEY (the operator then sets MASTER_KEY to it): the file is not touched.
 */
export async function rotateMasterKey(
  db: Db,
  opts: MasterKeyOptions & { newKeyHex?: string | undefined },
): Promise<RotationResult> {
  const { keys: oldKeys } = loadMasterKeys(opts);
  if (opts.newKeyHex !== undefined && !KEY_LINE.test(opts.newKeyHex)) {
    throw new MasterKeyError('NEW_MASTER_KEY must be 64 hex characters (a 256-bit key)');
  }
  if (opts.MASTER_KEY && !opts.newKeyHex) {
    throw new MasterKeyError(
      'MASTER_KEY is set: give the new key as NEW_MASTER_KEY (e.g. NEW_MASTER_KEY=$(openssl rand -hex 32)), ' +
        'then set MASTER_KEY to it once the rotation has finished.',
    );
  }
  const newKey = opts.newKeyHex ? Buffer.from(opts.newKeyHex, 'hex') : randomBytes(32);
  const file = path.resolve(opts.masterKeyFile);
  const usesFile = !opts.MASTER_KEY;
  if (usesFile) writeKeyFile(file, [newKey, ...oldKeys]);
  const box = new SecretBox([newKey, ...oldKeys]);
  let resealed: number;
  try {
    ({ resealed } = await resealStale(db, box));
  } catch (err) {
    // The transaction rolled back: every value is still under the old keys; so is the file again.
    if (usesFile) writeKeyFile(file, oldKeys);
    throw err;
  }
  if (usesFile) writeKeyFile(file, [newKey]);
  return {
    resealed,
    newKeyId: box.currentKeyId,
    droppedKeyIds: box.keyIds.filter((id) => id !== box.currentKeyId),
  };
}
