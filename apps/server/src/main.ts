// Only what the early listener needs is imported here; the app (~300 modules) is loaded once the port
// answers (issue 45 point 5, docs/performance.md "Back after a crash").
import { ConfigError, loadConfig } from './config';
import { createEarlyServer, listen } from './early-server';
import { lockDownDataDir } from './lib/data-dir';
import { markStart, startPhasesLine } from './lib/start-phases';
import { APP_VERSION } from './version';

/** How often (ms) and how long main.ts looks for the runner's first reconcile, to time it. */
const WATCH_MS = 10;
const WATCH_LIMIT_MS = 300_000;

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
  markStart('config');
  // Secrets and the database live in DATA_DIR: readable by this account only (0700 / 0600).
  process.umask(0o077);
  lockDownDataDir(config.dataDir);
  // Alive at once: /api/health answers from here while the rest starts; everything else answers 503 +
  // Retry-After until the app takes over the same socket.
  const early = createEarlyServer(config, {
    version: APP_VERSION,
    db: config.DATABASE_URL ? 'postgres' : 'pglite',
  });
  await listen(early.server, config.PORT, config.HOST);
  markStart('listening');

  const [{ buildApp }, { MasterKeyError }, { runners }, { chainModules }] = await Promise.all([
    import('./app'),
    import('./lib/master-key'),
    import('./modules/bots/routes'),
    import('./modules/chain/routes'),
  ]);
  markStart('import');
  let app, ctx;
  try {
    ({ app, ctx } = await buildApp(config, { serverFactory: (handler) => early.adopt(handler) }));
    await app.ready();
  } catch (err) {
    if (err instanceof MasterKeyError) {
      // A master key problem (two differing key files, a key file inside DATA_DIR) is the operator's
      // to fix: its message says what to do, without a stack.
      console.error(`Failed to start: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  early.handOver();
  markStart('app ready');
  // PGlite writes a few files through its own C library with mode 0644, whatever our umask says.
  lockDownDataDir(config.dataDir);
  const server = early.server;
  const close = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    // No new connection, then the app's own close (requests in progress end, bots stop), then the
    // idle keep-alive sockets (the app never called listen, so its close does not close the server).
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    server.closeAllConnections();
    await closed;
    lockDownDataDir(config.dataDir);
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  app.log.info({ address: `http://${config.HOST}:${config.PORT}` }, 'server ready');

  // The runner's first reconcile runs after the app serves: timed here, then one line with every
  // phase's ms (bench/restart.bench.ts reads it). The chain's start, also in the background, says its
  // own time when it is over.
  const runner = runners.get(ctx);
  const limit = performance.now() + WATCH_LIMIT_MS;
  const watch = setInterval(() => {
    if (runner?.status.started || performance.now() > limit) {
      clearInterval(watch);
      if (runner) markStart('first reconcile', 'runner');
      app.log.info({ phases: startPhasesLine() }, 'start phases');
    }
  }, WATCH_MS);
  watch.unref();
  if (config.chain.mode !== 'off') {
    void chainModules
      .get(ctx)
      ?.started.then(() => app.log.info({ phases: startPhasesLine() }, 'start phases: chain started'));
  }
}

main().catch((err: unknown) => {
  console.error('Failed to start:', err);
  process.exit(1);
});
