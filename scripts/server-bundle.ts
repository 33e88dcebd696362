// The server as one ES module for the tests that start it as a child process (e2e, SIGKILL tests).
// `node --import tsx main.ts` compiles some 300 TypeScript files at every start: 6.3 s and 8.7 s of CPU
// on the 2-core CI machine, against 4.4 s and 5.7 s for this bundle, and the test run starts the
// server some 60 times. Built once per test run (a vitest globalSetup) so it never lags the sources,
// and by `npm start` (scripts/start.mjs), which runs it (issue 45 point 5: no compile at a restart).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
/**
 * In the server's node_modules: the bundle's bare imports resolve as the server's own would. Each
 * build is a folder named by its content's hash (main.mjs and its chunks), so a server starting from
 * one never sees another build's chunks, and two builds at once (test runs of several sessions)
 * cannot mix their files.
 */
export const SERVER_BUNDLES = path.join(root, 'apps/server/node_modules/.cache/bytx-server');
/** The last build's main.mjs is named in this file (`SKIP_BUILD=1 npm start` runs it). */
export const CURRENT_BUNDLE = path.join(SERVER_BUNDLES, 'current');
/** Builds older than this (ms) are removed by the next build (a run started from one has long loaded it). */
const KEEP_MS = 24 * 3_600_000;

/**
 * npm packages bundled with our sources (issue 45 point 5): viem and what it imports are some 500 ES
 * modules of the ~770 a start loaded, each resolved, read and compiled on its own, although the server
 * uses a small part of them (the chain module's imports). Bundled, esbuild keeps only that part, in a
 * few chunks. Pure JavaScript that looks no file up beside its own code, and imported by no package
 * that stays outside (a second copy would break its `instanceof` checks). @noble and @scure are
 * bundled with them (viem and ox pin their own versions: an import left outside found the top-level
 * one); otplib, outside, loads its own copy as before. drizzle-orm (~110 modules) and zod (~95) too,
 * zod with the one package outside our code that imports it (fastify-type-provider-zod).
 */
export const BUNDLED_PACKAGES =
  /^(viem|ox|abitype|@noble\/(hashes|curves)|@scure\/(base|bip32|bip39)|drizzle-orm|zod|fastify-type-provider-zod)(\/|$)/;

/**
 * Our sources are bundled; every package from npm stays an import (PGlite, ccxt and anvil find their
 * files beside their own code). `import.meta.dirname` and `url` keep each source file's own values, so
 * paths the server derives from them (migrations, the web build, the backtest worker) are unchanged.
 */
const keepSourceLocation: Plugin = {
  name: 'keep-source-location',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@bytx/') || path.isAbsolute(args.path) || BUNDLED_PACKAGES.test(args.path)
        ? undefined
        : { path: args.path, external: true },
    );
    b.onLoad({ filter: /\.[cm]?tsx?$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await fs.promises.readFile(args.path, 'utf8');
      const contents = text
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

/**
 * Builds the bundle (about 1 s) into its own folder and returns its main.mjs. `main.ts` loads the app
 * with `import()` once its early listener answers; code splitting keeps that app (and the npm packages
 * it imports) in chunks loaded only then, so the listener is up after main's few small modules.
 */
export async function buildServerBundle(): Promise<string> {
  fs.mkdirSync(SERVER_BUNDLES, { recursive: true });
  const tmp = path.join(SERVER_BUNDLES, `tmp-${process.pid}-${Date.now()}`);
  try {
    await build({
      entryPoints: { main: path.join(root, 'apps/server/src/main.ts') },
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      chunkNames: 'chunk-[hash]',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // Beside the code, not inside it: `--enable-source-maps` reads them, a plain start parses less.
      sourcemap: 'linked',
      // Without the sources' text: Node reads and parses every map at load with `--enable-source-maps`
      // (as `npm start` runs it), and a stack trace needs only the mappings (the sources are on disk).
      sourcesContent: false,
      logLevel: 'warning',
      plugins: [keepSourceLocation],
      banner: {
        js: "import { createRequire as __bytxRequire } from 'node:module'; const require = __bytxRequire(import.meta.url);",
      },
    });
    const hash = createHash('sha256');
    for (const name of fs.readdirSync(tmp).sort()) {
      hash.update(name).update(fs.readFileSync(path.join(tmp, name)));
    }
    const dir = path.join(SERVER_BUNDLES, hash.digest('hex').slice(0, 16));
    if (!fs.existsSync(dir)) {
      try {
        fs.renameSync(tmp, dir);
      } catch (err) {
        // Another process moved the same build into place first: theirs is ours.
        if (!fs.existsSync(path.join(dir, 'main.mjs'))) throw err;
      }
    }
    const main = path.join(dir, 'main.mjs');
    const now = Date.now();
    fs.utimesSync(dir, new Date(now), new Date(now));
    const pointer = `${CURRENT_BUNDLE}.${process.pid}.tmp`;
    fs.writeFileSync(pointer, main);
    fs.renameSync(pointer, CURRENT_BUNDLE);
    for (const name of fs.readdirSync(SERVER_BUNDLES)) {
      const old = path.join(SERVER_BUNDLES, name);
      const stat = fs.statSync(old);
      if (stat.isDirectory() && old !== dir && now - stat.mtimeMs > KEEP_MS) {
        fs.rmSync(old, { recursive: true, force: true });
      }
    }
    return main;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** CLI (`node --import tsx scripts/server-bundle.ts`): builds, and prints the main.mjs path. */
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  console.log(await buildServerBundle());
}
