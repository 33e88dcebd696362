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
  let write = true;
  return {
    name: 'bytx-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      // An in-memory build (`write: false`, test/first-page-split.test.ts) has no files to compress.
      write = config.build.write;
    },
    closeBundle() {
      if (!write) return;
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

/** React, React DOM, the router and i18next: what every page needs (bench/web.bench.ts's floor). */
const RUNTIME_LIBRARIES =
  /\/node_modules\/(react|react-dom|scheduler|react-router|i18next|react-i18next|use-sync-external-store)\//;

/** The first page's catalogs, bundled into the first script (shared/i18n/index.ts). */
const FIRST_PAGE_CATALOG = /\/(?:features\/(?:landing|auth)\/i18n|app\/i18n|shared\/i18n)\/[a-z]+\.json$/;

export default defineConfig({
  plugins: [react(), precompress()],
  server: { proxy: { '/api': 'http://localhost:3000' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    // dist/.vite/manifest.json: the entry's static imports and CSS, read by bench/web.bench.ts.
    manifest: true,
    rolldownOptions: {
      // @bytx/contract is schemas and constants without side effects (it does not say so in its
      // package.json): the shell takes TICKER_ASSETS from it, and without this every zod schema of the
      // package (and zod, ~26 KB gzip) would stay in the first script.
      treeshake: { moduleSideEffects: (id: string) => !id.includes('/packages/contract/') },
      output: {
        codeSplitting: {
          groups: [
            // The libraries every page runs on, whole in the first script anyway: one chunk instead of
            // seven, which gzip compresses better together (a file's own dictionary, header and
            // trailer each; about 4 KB gzip of the first script).
            {
              debugName: 'runtime libraries',
              name: (id: string) => (RUNTIME_LIBRARIES.test(id) ? 'runtime' : null),
            },
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
    // Page tests click through whole screens; beside the API and browser tiers on 2 cores they take longer than 5 s.
    testTimeout: 20_000,
  },
});
