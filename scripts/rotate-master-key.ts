// `npm run rotate-master-key`: a new master key, every sealed secret re-encrypted under it in one transaction,
// then the old key removed from MASTER_KEY_FILE (docs/limits.md "Secrets"). Stop every server of the install
// first: a running server keeps sealing with the key it loaded. Reads the same environment as `npm start`
// (DATA_DIR, DATABASE_URL, MASTER_KEY, MASTER_KEY_FILE); with MASTER_KEY set, the new key is NEW_MASTER_KEY.
import { ConfigError, loadConfig } from '../apps/server/src/config';
import { openDatabase } from '../apps/server/src/db/client';
import { MasterKeyError, rotateMasterKey } from '../apps/server/src/lib/master-key';

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  process.umask(0o077);
  // A running server keeps sealing with the key it loaded (and the embedded database must not be opened
  // by two processes): refuse while this install's server answers on its port.
  if (await serverAnswers(config.PORT)) {
    console.error(
      `A server answers on port ${config.PORT}: stop every server of this install before rotating the master key.`,
    );
    return 1;
  }
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  try {
    const r = await rotateMasterKey(database.db, { ...config, newKeyHex: process.env.NEW_MASTER_KEY });
    console.log(`Re-encrypted ${r.resealed} secrets under the new master key ${r.newKeyId}.`);
    if (config.MASTER_KEY) {
      console.log('Now set MASTER_KEY to the value of NEW_MASTER_KEY before starting the server again.');
    } else {
      console.log(
        `${config.masterKeyFile} now holds only the new key` +
          (r.droppedKeyIds.length ? ` (removed: ${r.droppedKeyIds.join(', ')})` : '') +
          '. Back it up again, apart from the data folder.',
      );
    }
    return 0;
  } catch (err) {
    if (err instanceof MasterKeyError) {
      console.error(`Rotation failed, nothing was re-encrypted: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await database.close();
  }
}

/** Whether something answers GET /api/health on this machine's port (1 s at most). */
async function serverAnswers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1_000) });
    return res.ok;
  } catch {
    return false;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('Rotation failed:', err);
    process.exit(1);
  },
);
