import { spawn, spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../src/app';
import type { Config } from '../src/config';
import { openDatabase, type Database } from '../src/db/client';
import { keyIdOf, sealContext, SecretBox } from '../src/lib/crypto';
import { loadMasterKeys, MasterKeyError, readKeyFile, rotateMasterKey } from '../src/lib/master-key';
import { defaultVenueFactory } from '../src/modules/exchanges/venue-factory';
import { unreadableKeysMessage, type DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { serverArgs } from '../../../e2e/harness';
import { openTestDatabase, seedDataDir } from './db-snapshot';
import { binanceExchangeInfo, createTestUser, tempDir, testConfig } from './helpers';

/** Issue 37 point 5: the master key outside DATA_DIR, ciphertexts bound to their owner, key rotation. */

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const json = (b: unknown, status = 200) =>
  new Response(JSON.stringify(b), { status, headers: { 'content-type': 'application/json' } });

/** Binance's balance call behind ccxt's fetch; each key has its own USDT balance, so a test sees whose key went out. */
function fakeBinance(balances: Record<string, number>) {
  const keysSeen: string[] = [];
  const fetchImplementation = async (url: string, init: Record<string, unknown>): Promise<Response> => {
    await Promise.resolve();
    const u = new URL(url);
    if (u.pathname === '/api/v3/exchangeInfo') return json(binanceExchangeInfo());
    const headers = (init.headers ?? {}) as Record<string, string>;
    const key = headers['X-MBX-APIKEY'] ?? '';
    keysSeen.push(key);
    if (!(key in balances))
      return json({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }, 401);
    if (u.pathname === '/api/v3/account') {
      return json({ balances: [{ asset: 'USDT', free: String(balances[key]), locked: '0' }] });
    }
    if (u.pathname === '/sapi/v1/account/apiRestrictions') return json({ enableWithdrawals: false });
    return json({ code: -1000, msg: `not recorded: ${u.pathname}` }, 404);
  };
  return { fetchImplementation, keysSeen };
}

/** The format every version before issue 37 wrote: `v1:iv:tag:data`, no key id, no associated data. */
function sealV1(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(
    ':',
  );
}

const envWithout = (...names: string[]) =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !names.includes(k)));

/** A config that uses the key file (no MASTER_KEY), its data folder and key file in a fresh temp folder. */
function fileKeyConfig(): Config {
  const base = testConfig();
  const root = tempDir('bytx-mk-');
  const dataDir = path.join(root, 'data');
  return { ...base, MASTER_KEY: undefined, dataDir, masterKeyFile: `${dataDir}.master.key` };
}

async function start(config: Config, database: Database, fake: ReturnType<typeof fakeBinance>) {
  const built = await buildApp(config, { database, logger: false });
  await built.app.ready();
  (built.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(built.ctx, {
    fetchImplementation: fake.fetchImplementation,
  });
  return built;
}

const wallet = (t: BuiltApp, auth: { authorization: string }) =>
  t.app.inject({ method: 'GET', url: '/api/wallet?exchange=binance', headers: auth });

describe('master key file', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());

  it('is created on first start beside DATA_DIR, not inside it, with mode 0600; secrets sealed v2 under it', async () => {
    const config = fileKeyConfig();
    const fake = fakeBinance({ keyA1234567: 42 });
    let t = await start(config, database, fake);
    expect(fs.existsSync(config.masterKeyFile)).toBe(true);
    expect(path.relative(config.dataDir, config.masterKeyFile).startsWith('..')).toBe(true);
    expect(fs.statSync(config.masterKeyFile).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(config.dataDir, 'master.key'))).toBe(false);
    const [key] = readKeyFile(config.masterKeyFile);

    const user = await createTestUser(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      headers: user.auth,
      payload: { exchange: 'binance', apiKey: 'keyA1234567', apiSecret: 'secretA1234567' },
    });
    expect(res.statusCode).toBe(200);
    const [row] = await database.sql.query(
      `SELECT api_secret_enc FROM exchange_connections WHERE user_id = $1`,
      [user.id],
    );
    expect(String(row?.api_secret_enc)).toMatch(new RegExp(`^v2:${keyIdOf(key as Buffer)}:`));
    await t.app.close();

    // A restart reads the same file: the stored key still opens.
    t = await start(config, database, fake);
    expect((await wallet(t, user.auth)).json<{ balances: Record<string, number> }>().balances.USDT).toBe(42);
    await t.app.close();
  });

  it('moves an old DATA_DIR/master.key out on start; its v1 secrets still open and are re-sealed as v2', async () => {
    const config = fileKeyConfig();
    const old = randomBytes(32);
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(path.join(config.dataDir, 'master.key'), old.toString('hex') + '\n', { mode: 0o600 });
    const fake = fakeBinance({ legacyKey987654: 7.5 });
    // A user and a live connection as an older version stored them.
    const user = await createTestUser({ ctx: { db: database.db } } as unknown as BuiltApp);
    await database.sql.query(
      `INSERT INTO exchange_connections (user_id, exchange, mode, api_key_enc, api_secret_enc) VALUES ($1, 'binance', 'live', $2, $3)`,
      [user.id, sealV1(old, 'legacyKey987654'), sealV1(old, 'legacySecret987654')],
    );

    const t = await start(config, database, fake);
    expect(fs.existsSync(path.join(config.dataDir, 'master.key'))).toBe(false);
    expect(readKeyFile(config.masterKeyFile)[0]?.equals(old)).toBe(true);
    expect(fs.statSync(config.masterKeyFile).mode & 0o777).toBe(0o600);
    const [row] = await database.sql.query(
      `SELECT api_key_enc, api_secret_enc FROM exchange_connections WHERE user_id = $1`,
      [user.id],
    );
    expect(String(row?.api_key_enc)).toMatch(new RegExp(`^v2:${keyIdOf(old)}:`));
    expect(
      t.ctx.secretBox.open(String(row?.api_secret_enc), sealContext.exchangeSecret(user.id, 'binance')),
    ).toBe('legacySecret987654');
    expect((await wallet(t, user.auth)).json<{ balances: Record<string, number> }>().balances.USDT).toBe(7.5);
    await t.app.close();
  });

  it('refuses to start when the old and the new key file both exist and differ; removes an identical old one', () => {
    const config = fileKeyConfig();
    fs.mkdirSync(config.dataDir, { recursive: true });
    const legacy = path.join(config.dataDir, 'master.key');
    fs.writeFileSync(legacy, randomBytes(32).toString('hex') + '\n');
    fs.writeFileSync(config.masterKeyFile, randomBytes(32).toString('hex') + '\n');
    expect(() => loadMasterKeys(config)).toThrow(/exist and hold different keys/);
    expect(fs.existsSync(legacy)).toBe(true);

    fs.copyFileSync(config.masterKeyFile, legacy);
    expect(loadMasterKeys(config).legacy).toBe('removed-duplicate');
    expect(fs.existsSync(legacy)).toBe(false);
  });

  it('the server refuses to start with a clear message (no stack) when both key files differ', () => {
    const config = fileKeyConfig();
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(path.join(config.dataDir, 'master.key'), randomBytes(32).toString('hex') + '\n');
    fs.writeFileSync(config.masterKeyFile, randomBytes(32).toString('hex') + '\n');
    // The server as the other tests spawn it: the run's bundle (a third of the CPU of main.ts through tsx).
    const run = spawnSync(process.execPath, serverArgs(), {
      cwd: repoRoot,
      env: {
        ...envWithout('MASTER_KEY', 'DATABASE_URL', 'MASTER_KEY_FILE'),
        NODE_ENV: 'test',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: config.dataDir,
        LOG_LEVEL: 'silent',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^Failed to start: Both .*master\.key .* exist and hold different keys/m);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // Nothing was created: the key check comes before the database opens.
    expect(fs.existsSync(path.join(config.dataDir, 'pglite'))).toBe(false);
  }, 150_000);

  it('refuses a MASTER_KEY_FILE inside DATA_DIR', () => {
    const config = fileKeyConfig();
    expect(() => loadMasterKeys({ ...config, masterKeyFile: path.join(config.dataDir, 'k.key') })).toThrow(
      /inside DATA_DIR/,
    );
  });
});

describe('ciphertexts are bound to their owner and purpose', () => {
  it('a secret copied from one connection into another does not open there', async () => {
    const database = await openTestDatabase();
    const fake = fakeBinance({ aliceKey12345: 1000, bobKey1234567: 1 });
    const t = await start(testConfig(), database, fake);
    try {
      const alice = await createTestUser(t);
      const bob = await createTestUser(t);
      for (const [u, k] of [
        [alice, 'aliceKey12345'],
        [bob, 'bobKey1234567'],
      ] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/conectar_exchange',
          headers: u.auth,
          payload: { exchange: 'binance', apiKey: k, apiSecret: `${k}-secret` },
        });
        expect(res.statusCode).toBe(200);
      }
      // Someone with write access to the database copies Alice's sealed key and secret into Bob's row.
      await database.sql.query(
        `UPDATE exchange_connections b SET api_key_enc = a.api_key_enc, api_secret_enc = a.api_secret_enc
         FROM exchange_connections a WHERE a.user_id = $1 AND b.user_id = $2`,
        [alice.id, bob.id],
      );
      fake.keysSeen.length = 0;
      const res = await wallet(t, bob.auth);
      expect(res.statusCode).toBe(409);
      expect(res.json<{ error: string }>().error).toBe(unreadableKeysMessage('binance'));
      expect(res.body).not.toContain('1000');
      expect(fake.keysSeen).not.toContain('aliceKey12345');
      // The key's column is part of the purpose too: the key's ciphertext does not open as the secret.
      const [row] = await database.sql.query(
        `SELECT api_key_enc FROM exchange_connections WHERE user_id = $1`,
        [alice.id],
      );
      expect(() =>
        t.ctx.secretBox.open(String(row?.api_key_enc), sealContext.exchangeSecret(alice.id, 'binance')),
      ).toThrow();
      expect(
        t.ctx.secretBox.open(String(row?.api_key_enc), sealContext.exchangeApiKey(alice.id, 'binance')),
      ).toBe('aliceKey12345');
    } finally {
      await t.app.close();
      await database.close();
    }
  });

  it('old v1 values (no associated data) still open, under whichever loaded key sealed them', () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const box = new SecretBox([k2, k1]);
    expect(box.open(sealV1(k1, 'seed'), sealContext.totp('u1'))).toBe('seed');
    expect(box.isCurrent(sealV1(k1, 'seed'))).toBe(false);
    expect(() => new SecretBox(k2).open(sealV1(k1, 'seed'), 'x')).toThrow();
  });
});

describe('rotation', () => {
  it('npm run rotate-master-key re-encrypts everything under a new key; the old key can then be dropped', async () => {
    const config = fileKeyConfig();
    fs.mkdirSync(config.dataDir, { recursive: true });
    seedDataDir(config.dataDir);
    const fake = fakeBinance({ rotKey1234567: 99 });
    let database = await openDatabase({ dataDir: config.dataDir });
    let t = await start(config, database, fake);
    const user = await createTestUser(t);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/conectar_exchange',
          headers: user.auth,
          payload: { exchange: 'binance', apiKey: 'rotKey1234567', apiSecret: 'rotSecret1234567' },
        })
      ).statusCode,
    ).toBe(200);
    // A TOTP seed too (pending), as the accounts module seals it.
    await database.sql.query(`INSERT INTO user_totp (user_id, pending_secret_enc) VALUES ($1, $2)`, [
      user.id,
      t.ctx.secretBox.seal('JBSWY3DPEHPK3PXP', sealContext.totp(user.id)),
    ]);
    await t.app.close();
    await database.close();
    const [oldKey] = readKeyFile(config.masterKeyFile);

    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/rotate-master-key.ts'], {
      cwd: repoRoot,
      env: {
        ...envWithout('MASTER_KEY', 'DATABASE_URL', 'NEW_MASTER_KEY'),
        NODE_ENV: 'test',
        DATA_DIR: config.dataDir,
        MASTER_KEY_FILE: config.masterKeyFile,
        // Nothing listens there: the command's "is a server running?" check passes.
        PORT: '1',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Re-encrypted 3 secrets under the new master key [0-9a-f]{8}/);
    const keys = readKeyFile(config.masterKeyFile);
    expect(keys).toHaveLength(1);
    const newKey = keys[0] as Buffer;
    expect(newKey.equals(oldKey as Buffer)).toBe(false);
    expect(fs.statSync(config.masterKeyFile).mode & 0o777).toBe(0o600);

    database = await openDatabase({ dataDir: config.dataDir });
    const rows = await database.sql.query(
      `SELECT api_key_enc AS v FROM exchange_connections UNION ALL SELECT api_secret_enc FROM exchange_connections
       UNION ALL SELECT pending_secret_enc FROM user_totp`,
    );
    expect(rows.map((r) => String(r.v).split(':').slice(0, 2).join(':'))).toEqual(
      Array(3).fill(`v2:${keyIdOf(newKey)}`),
    );
    // The server starts with the new key alone and the secrets open.
    t = await start(config, database, fake);
    expect((await wallet(t, user.auth)).json<{ balances: Record<string, number> }>().balances.USDT).toBe(99);
    await t.app.close();
    await database.close();
  }, 180_000);

  it('refuses to rotate while a server of the install answers on its port', async () => {
    const config = fileKeyConfig();
    const server = http.createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      // Not spawnSync: this process's event loop must stay free to answer the health check.
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/rotate-master-key.ts'], {
        cwd: repoRoot,
        env: {
          ...envWithout('MASTER_KEY', 'DATABASE_URL', 'NEW_MASTER_KEY'),
          NODE_ENV: 'test',
          DATA_DIR: config.dataDir,
          MASTER_KEY_FILE: config.masterKeyFile,
          PORT: String(port),
        },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      const run = { status, stderr };
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`A server answers on port ${port}: stop every server`);
      expect(fs.existsSync(config.masterKeyFile)).toBe(false);
    } finally {
      server.close();
    }
  }, 150_000);

  it('with MASTER_KEY set, needs NEW_MASTER_KEY and leaves everything as it was without it', async () => {
    const database = await openTestDatabase();
    try {
      const config = testConfig();
      await expect(rotateMasterKey(database.db, config)).rejects.toThrow(MasterKeyError);
      await expect(rotateMasterKey(database.db, { ...config, newKeyHex: 'zz' })).rejects.toThrow(/64 hex/);
      const r = await rotateMasterKey(database.db, { ...config, newKeyHex: 'ef'.repeat(32) });
      expect(r.newKeyId).toBe(keyIdOf(Buffer.from('ef'.repeat(32), 'hex')));
      expect(fs.existsSync(config.masterKeyFile)).toBe(false);
    } finally {
      await database.close();
    }
  });
});
