// The server as one ES module for the tests that start it as a child process (e2e, SIGKILL tests).
// `node --import tsx main.ts` compiles some 300 TypeScript files at every start: 6.3 s and 8.7 s of CPU
// on the 2-core CI machine, against 4.4 s and 5.7 s for this bundle, and the test run starts the
// server some 60 times. Built once per test run (a vitest globalSetup) so it never lags the sources.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
/** In the server's node_modules: the bundle's bare imports resolve as the server's own would. */
export const SERVER_BUNDLE = path.join(root, 'apps/server/node_modules/.cache/bytx-server/main.mjs');

/**
 * Our sources are bundled; every package from npm stays an import (PGlite, ccxt and anvil find their
 * files beside their own code). `import.meta.dirname` and `url` keep each source file's own values, so
 * paths the server derives from them (migrations, the web build, the backtest worker) are unchanged.
 */
const keepSourceLocation: Plugin = {
  name: 'keep-source-location',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@bytx/') || path.isAbsolute(args.path)
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

/** Builds the bundle (about 1 s) and moves it into place in one step: a reader never sees half a file. */
export async function buildServerBundle(): Promise<string> {
  fs.mkdirSync(path.dirname(SERVER_BUNDLE), { recursive: true });
  const tmp = `${SERVER_BUNDLE}.${process.pid}.tmp.mjs`;
  await build({
    entryPoints: [path.join(root, 'apps/server/src/main.ts')],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [keepSourceLocation],
    banner: {
      js: "import { createRequire as __bytxRequire } from 'node:module'; const require = __bytxRequire(import.meta.url);",
    },
  });
  fs.renameSync(tmp, SERVER_BUNDLE);
  return SERVER_BUNDLE;
}
