import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import react from '@vitejs/plugin-react';
import { build, type Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Writes `.br` and `.gz` beside every text asset of the build, which the server sends as they are
 * (`preCompressed` in apps/server/src/app.ts): the first page's 230 KB of gzip script would otherwise
 * travel as 750 KB, and compressing per request would cost the server's one core.
 */
function compressFile(file: string): void {
  const raw = fs.readFileSync(file);
  if (raw.length < 1024) return;
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(raw, { level: 9 }));
  fs.writeFileSync(
    `${file}.br`,
    zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
}

/**
 * Writes dist/landing.html: index.html with the landing route (`/`) already rendered into #root by
 * React DOM's server renderer (src/prerender/landing.tsx, the same components, English, logged out),
 * which the server sends for `/` (apps/server/src/app.ts). The page paints from the HTML and its CSS,
 * before the script arrives; main.tsx then hydrates it. Rendered after the client build from an SSR
 * build of that one module into node_modules/.bytx-prerender (not shipped).
 */
function prerenderLanding(): Plugin {
  let root = '';
  let outDir = '';
  let write = true;
  return {
    name: 'bytx-prerender-landing',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
      write = config.build.write && !config.build.ssr;
    },
    // After precompress's walk of dist/ (closeBundle hooks run in parallel otherwise).
    closeBundle: {
      sequential: true,
      handler: async () => {
        if (!write) return;
        const ssrDir = path.join(root, 'node_modules/.bytx-prerender');
        await build({
          configFile: false,
          root,
          logLevel: 'warn',
          mode: 'production',
          plugins: [react()],
          // Everything bundled: the module runs once in this process, from a folder outside the workspace.
          ssr: { noExternal: true },
          build: {
            ssr: 'src/prerender/landing.tsx',
            outDir: ssrDir,
            emptyOutDir: true,
            rolldownOptions: {
              output: { entryFileNames: 'landing.mjs', chunkFileNames: '[name]-[hash].mjs' },
            },
          },
        });
        const mod = (await import(
          `${pathToFileURL(path.join(ssrDir, 'landing.mjs')).href}?t=${Date.now()}`
        )) as {
          renderLanding: () => string;
        };
        // React DOM puts its resource hints (the logo's image preload) before the first element; they
        // belong in <head>, and #root holds exactly what the browser's first render draws.
        let body = mod.renderLanding();
        const hints = /^(?:<link [^>]*\/>)*/.exec(body)?.[0] ?? '';
        body = body.slice(hints.length);
        const index = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
        const page = index
          // Hides the English, logged-out HTML from a visitor who will not see it (public/landing-gate.js).
          .replace(
            '</head>',
            `  ${hints}\n    <style>.bytx-no-prerender #root{display:none}</style>\n    <script src="/landing-gate.js"></script>\n  </head>`,
          )
          .replace('<div id="root"></div>', `<div id="root">${body}</div>`);
        if (!page.includes('landing-gate.js') || page.includes('<div id="root"></div>')) {
          throw new Error('prerenderLanding: index.html no longer has the expected </head> and empty #root');
        }
        const file = path.join(outDir, 'landing.html');
        fs.writeFileSync(file, page);
        compressFile(file);
      },
    },
  };
}

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
        compressFile(file);
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
  plugins: [react(), precompress(), prerenderLanding()],
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
