import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { lockDownDataDir } from './lib/data-dir';
import { MasterKeyError } from './lib/master-key';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  // Secrets and the database live in DATA_DIR: readable by this account only (0700 / 0600).
  process.umask(0o077);
  lockDownDataDir(config.dataDir);
  const { app } = await buildApp(config);
  // PGlite writes a few files through its own C library with mode 0644, whatever our umask says.
  lockDownDataDir(config.dataDir);
  const close = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    lockDownDataDir(config.dataDir);
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  await app.listen({ port: config.PORT, host: config.HOST });
}

main().catch((err: unknown) => {
  // A master key problem (two differing key files, a key file inside DATA_DIR) is the operator's to fix:
  // its message says what to do, without a stack.
  if (err instanceof MasterKeyError) {
    console.error(`Failed to start: ${err.message}`);
    process.exit(1);
  }
  console.error('Failed to start:', err);
  process.exit(1);
});
