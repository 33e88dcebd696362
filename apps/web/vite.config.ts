import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Writes `.br` and `.gz` beside every text asset of the build, which the server sends as they are
 * (`preCompressed` in apps/server/src/app.ts): the first page's 230 KB of gzip script would otherwise
 * travel as 750 KB, and compressing per request would cost the server's one core.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'bytx-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
          const p = path.join(dir, e.name);
          return e.isDirectory() ? walk(p) : [p];
        });
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json|txt)$/.test(file)) continue;
        const raw = fs.readFileSync(file);
        if (raw.length < 1024) continue;
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(raw, { level: 9 }));
        fs.writeFileSync(
          `${file}.br`,
          zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

/**
 * The shipped build runs on Preact's React-compatible layer instead of React DOM: the same components
 * and libraries, about 57 KB gzip less in the first script (docs/web-shell.md "The runtime").
 * `WEB_RUNTIME=react` builds with React itself.
 */
function preactRuntime(): Plugin {
  const runtime = path.join(import.meta.dirname, 'runtime/react.js');
  return {
    name: 'bytx-preact-runtime',
    apply: () => process.env.WEB_RUNTIME !== 'react',
    config: () => ({
      resolve: {
        // ES builds before CommonJS ones (react-router's CommonJS build would require React under vitest).
        conditions: ['module', 'browser', 'development|production'],
        alias: [
          { find: /^react$/, replacement: runtime },
          { find: /^react-dom$/, replacement: 'preact/compat' },
          { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
          { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
          { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-runtime' },
          { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
          // CommonJS builds require React, which no alias reaches under vitest: their ES builds import it.
          { find: /^react-transition-group$/, replacement: 'react-transition-group/esm/index.js' },
          {
            find: /^react-number-format$/,
            replacement: 'react-number-format/dist/react-number-format.es.js',
          },
          {
            find: /^@testing-library\/react$/,
            replacement: '@testing-library/react/dist/@testing-library/react.esm.js',
          },
          // react-i18next's React 17 shim (CommonJS requiring React); the layer has the hook itself.
          { find: /^use-sync-external-store\/shim(\/index\.js)?$/, replacement: runtime },
        ],
      },
    }),
  };
}

/** The first page's catalogs, bundled into the first script (shared/i18n/index.ts). */
const FIRST_PAGE_CATALOG = /\/(?:features\/(?:landing|auth)\/i18n|app\/i18n|shared\/i18n)\/[a-z]+\.json$/;

export default defineConfig({
  plugins: [react(), preactRuntime(), precompress()],
  server: { proxy: { '/api': 'http://localhost:3000' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    // dist/.vite/manifest.json: the entry's static imports and CSS, read by bench/web.bench.ts.
    manifest: true,
    rolldownOptions: {
      onLog(level, log, handler) {
        // React Router reads React 19's useOptimistic by name and falls back when it is absent, as it is
        // in Preact's layer: the expected absence is not worth a warning in every build.
        if (log.code === 'IMPORT_IS_UNDEFINED' && log.message.includes('`useOptimistic`')) return;
        handler(level, log);
      },
      // @bytx/contract is schemas and constants without side effects (it does not say so in its
      // package.json): the shell takes TICKER_ASSETS from it, and without this every zod schema of the
      // package (and zod, ~26 KB gzip) would stay in the first script.
      treeshake: { moduleSideEffects: (id: string) => !id.includes('/packages/contract/') },
      output: {
        codeSplitting: {
          groups: [
            // The other pages' catalogs: one chunk a language (`en`, `es`) instead of 40 small files.
            {
              debugName: 'i18n catalogs',
              name: (id: string) => {
                const m = /\/i18n\/(en|es)\.json$/.exec(id);
                return m && !FIRST_PAGE_CATALOG.test(id) ? `i18n-${m[1]}` : null;
              },
            },
          ],
        },
      },
    },
  },
  test: {
    name: 'web',
    root: import.meta.dirname,
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    setupFiles: ['./test/setup.ts'],
    // Component tests run on the shipped runtime: every dependency goes through Vite and so through the
    // runtime's aliases (a library Node loaded as it is would bring React itself beside Preact).
    server: { deps: { inline: process.env.WEB_RUNTIME === 'react' ? [] : true } },
    // Page tests click through whole screens; beside the API and browser tiers on 2 cores they take longer than 5 s.
    testTimeout: 20_000,
  },
});
