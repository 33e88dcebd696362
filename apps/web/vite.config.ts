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
        let hints = /^(?:<link [^>]*\/>)*/.exec(body)?.[0] ?? '';
        body = body.slice(hints.length);
        const index = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
        // The logo's preload is in index.html already.
        if (index.includes('<link rel="preload" as="image" href="/logo.svg"'))
          hints = hints.replace('<link rel="preload" as="image" href="/logo.svg"/>', '');
        const page = index
          // `/` has no lazy page to hint (routeHints below): no request for the hints script.
          .replace(/<script defer src="\/assets\/route-hints-[^"]+"><\/script>\s*/, '')
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

/**
 * Pages import `notifications` from '@mantine/notifications' to show a toast. The package's index also
 * re-exports the toasts' container (with react-transition-group and Mantine's Portal and scroll lock,
 * about 14 KB gzip), and a module a page imports statically is downloaded with the page even where
 * tree-shaking leaves nothing of it to run: `/bot-dca`'s first visit fetched the container before the
 * page could render (issue 39). So in the build every importer but the one that mounts the container
 * (app/providers.tsx) gets the store module itself, the same module the container uses: one store.
 */
function toastStoreForPages(): Plugin {
  return {
    name: 'bytx-toast-store',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (source !== '@mantine/notifications' || !importer || importer.endsWith('/src/app/providers.tsx'))
        return null;
      const index = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!index || !index.id.endsWith('/esm/index.mjs')) return null;
      return path.join(path.dirname(index.id), 'notifications.store.mjs');
    },
  };
}

/** What a route's first visit downloads beyond the first script (`routeHints` below). */
interface RouteHint {
  /** The route's path as a pattern (`:param` segments), from app/router.tsx. */
  path: string;
  /** Only for a logged-in visitor (`guard(...)` in app/router.tsx): hinted only with a stored token. */
  guarded: boolean;
  /** Script chunks (modulepreload) and stylesheets (preload), output file names. */
  files: string[];
}

/**
 * The pages of app/router.tsx: each `lazyPage(() => import('…'))` constant and the route paths that
 * render it (`{ path: '/x', ...open(Page) }` / `...guard(Page)`). A route whose page is not found, or a
 * lazy page no route renders, fails the build: the hints would silently miss it.
 */
function routerPages(routerFile: string): { path: string; guarded: boolean; module: string }[] {
  const text = fs.readFileSync(routerFile, 'utf8');
  const modules = new Map<string, string>();
  for (const m of text.matchAll(/const (\w+) = lazyPage\(\s*\(\) => import\('([^']+)'\)/g)) {
    modules.set(m[1]!, path.resolve(path.dirname(routerFile), `${m[2]!}.tsx`));
  }
  const pages: { path: string; guarded: boolean; module: string }[] = [];
  const used = new Set<string>();
  for (const m of text.matchAll(/\{ path: '([^']+)', \.\.\.(open|guard)\((\w+)/g)) {
    const module = modules.get(m[3]!);
    if (!module) throw new Error(`routeHints: no lazyPage constant ${m[3]} in ${routerFile}`);
    used.add(m[3]!);
    pages.push({ path: m[1]!, guarded: m[2] === 'guard', module });
  }
  const unused = [...modules.keys()].filter((k) => !used.has(k));
  if (pages.length < 10 || unused.length > 0)
    throw new Error(
      `routeHints: app/router.tsx not understood (${pages.length} routes; unused: ${unused.join(', ')})`,
    );
  return pages;
}

/**
 * Route hints: a small script in index.html's <head> (`defer`, 2 KB: it holds back no paint) that asks
 * for the URL's page at once — its chunks as `modulepreload`, its stylesheets and the catalogs as
 * `preload` — where the app's own preload (app/router.tsx `preloadPage`, from main.tsx) can ask only once
 * the first script has downloaded and run: on a phone's link that script is ~1 s of download, and the
 * page's chunks came one round trip and their own download after it (issue 39, `/bot-dca`'s LCP). What
 * it asks for is what `lazyPage` (app/lazyPage.tsx) loads for that page, and the app's own requests
 * find it there (Vite's preload helper skips a file a `<link>` already asked for; the stylesheets it
 * still links, from the cache). Like `preloadPage`: nothing for `/` (dist/landing.html has no hints),
 * for an unknown path, or for a logged-in page without a stored token; the catalogs of the stored
 * language (English always, the fallback). It also makes the first script's first two calls, GET
 * /api/me (with a stored token) and GET /api/ticker, which the app then takes instead of asking
 * (shared/api/client.ts `takeEarlyAnswer`): the page waits for the session check, and both came a
 * round trip after the first script's download. A script file, not inline: the server's CSP allows
 * only 'self' scripts. Written in the build only (the dev server has no chunks).
 */
function routeHints(): Plugin {
  let fileName: string | null = null;
  return {
    name: 'bytx-route-hints',
    apply: 'build',
    generateBundle: {
      // Before vite:build-html's generateBundle, which runs transformIndexHtml below.
      order: 'pre',
      handler(options, bundle) {
        fileName = null;
        if (options.format !== 'es') return;
        const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
        // The first script (index.html's, main.tsx): the one entry of the app's build.
        const entry = chunks.find((c) => c.isEntry);
        if (!entry) return;
        const byFile = new Map(chunks.map((c) => [c.fileName, c]));
        const closure = (file: string, into = new Set<string>()) => {
          if (into.has(file)) return into;
          into.add(file);
          for (const next of byFile.get(file)?.imports ?? []) closure(next, into);
          return into;
        };
        const initial = closure(entry.fileName);
        const cssOf = (file: string) => byFile.get(file)?.viteMetadata?.importedCss ?? new Set<string>();
        // A chunk of stylesheets only (app/styles/pages.ts): Vite drops its empty script after this hook.
        const cssOnly = (file: string) => {
          const chunk = byFile.get(file);
          return !!chunk && chunk.exports.length === 0 && chunk.code.trim() === '';
        };
        // index.html links the first script's stylesheets itself.
        const initialCss = new Set([...initial].flatMap((f) => [...cssOf(f)]));
        /** The file an `import()` of `id` fetches: its own chunk (a facade) or the chunk holding it. */
        const chunkOf = (id: string) => {
          const chunk =
            chunks.find((c) => c.isDynamicEntry && c.facadeModuleId === id) ??
            chunks.find((c) => c.moduleIds.includes(id));
          if (!chunk) throw new Error(`routeHints: no chunk holds ${id}`);
          return chunk.fileName;
        };
        /** Script and CSS files `import()` of these modules loads beyond the first script. */
        const filesOf = (ids: string[]) => {
          const js = new Set<string>();
          for (const id of ids) closure(chunkOf(id), js);
          const css = new Set<string>();
          for (const file of js) for (const c of cssOf(file)) if (!initialCss.has(c)) css.add(c);
          return [...js].filter((f) => !initial.has(f) && !cssOnly(f)).concat([...css]);
        };
        // What every lazy page loads with it (app/lazyPage.tsx: Query, Mantine's provider, the pages' CSS),
        // and the toasts' store watcher app/providers.tsx loads once a page has (app/toastStore.ts).
        const kit = [...(this.getModuleInfo(LAZY_PAGE)?.dynamicallyImportedIds ?? []), TOAST_STORE];
        if (kit.length < 4) throw new Error('routeHints: app/lazyPage.tsx imports nothing dynamically');
        const catalog = (lng: string) => chunks.find((c) => c.name === `i18n-${lng}`)?.fileName ?? null;
        const hints: RouteHint[] = routerPages(ROUTER).map((page) => ({
          path: page.path,
          guarded: page.guarded,
          files: filesOf([page.module, ...kit]),
        }));
        // Each file once, the routes by index: the same dozen files recur in every route.
        const files = [...new Set(hints.flatMap((h) => h.files))];
        const data = {
          files: files.map((f) => `/${f}`),
          routes: hints.map((h) => [
            `^${h.path.replace(/:[^/]+/g, '[^/]+').replace(/[.]/g, '\\.')}/?$`,
            h.guarded ? 1 : 0,
            h.files.map((f) => files.indexOf(f)),
          ]),
          catalogs: { en: catalog('en'), es: catalog('es') },
        };
        const source = `// Route hints (apps/web/vite.config.ts \`routeHints\`): the URL's page asked for before the first script has run.
(function (H) {
  try {
    var path = location.pathname, ls = window.localStorage, token = ls.getItem('token'), want = [];
    // The calls the first script makes first, as api() makes them (shared/api/client.ts takeEarlyAnswer):
    // the session check (shared/session/session.tsx prefetchSession) and the ticker's prices.
    var early = { token: token, answers: {} };
    var ask = function (p) {
      var headers = { accept: 'application/json' };
      if (token) headers.authorization = 'Bearer ' + token;
      var answer = fetch(p, { headers: headers });
      answer.catch(function () {});
      early.answers[p] = answer;
    };
    if (token) ask('/api/me');
    ask('/api/ticker');
    window.__bytxEarly = early;
    for (var i = 0; i < H.routes.length; i++) {
      var r = H.routes[i];
      if (!new RegExp(r[0], 'i').test(path)) continue;
      if (r[1] && !token) return;
      for (var j = 0; j < r[2].length; j++) want.push(H.files[r[2][j]]);
      if (H.catalogs.en) want.push('/' + H.catalogs.en);
      if (ls.getItem('lang') === 'es' && H.catalogs.es) want.push('/' + H.catalogs.es);
      break;
    }
    for (var k = 0; k < want.length; k++) {
      var link = document.createElement('link'), css = /\\.css$/.test(want[k]);
      link.rel = css ? 'preload' : 'modulepreload';
      if (css) link.as = 'style';
      link.crossOrigin = '';
      link.href = want[k];
      document.head.appendChild(link);
    }
  } catch (e) {
    // No storage (blocked) or an old browser: the app asks for its page itself.
  }
})(${JSON.stringify(data)});
`;
        const ref = this.emitFile({ type: 'asset', name: 'route-hints.js', source });
        fileName = this.getFileName(ref);
      },
    },
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        if (!fileName) return;
        // `defer`, before the first script: it runs once the document is parsed, and always before
        // main.tsx (deferred and module scripts run in document order), which takes its GET /api/me.
        const at = html.indexOf('<script type="module"');
        if (at < 0) throw new Error('routeHints: no module script in index.html');
        return `${html.slice(0, at)}<script defer src="/${fileName}"></script>\n    ${html.slice(at)}`;
      },
    },
  };
}

/**
 * Mantine's `useId` (@mantine/hooks) returns React's id on a component's first render and then, from a
 * layout effect, sets a random one: every Mantine input, switch, tabs or popover renders twice on mount,
 * the second time synchronously inside the commit that mounted it, and that synchronous render flushes
 * the commit's effects (the page's queries) before the browser may paint. On `/bot-dca`'s first visit it
 * made the screen's commit one task of ~70 ms on a phone's CPU (issue 39, Lighthouse's TBT). In the
 * build, the hook keeps the first render's id: React's `useId`, unique within the app's one root and
 * stable, as Mantine's own server render uses it.
 */
function mantineStableIds(): Plugin {
  return {
    name: 'bytx-mantine-stable-ids',
    apply: 'build',
    enforce: 'pre',
    load(id) {
      if (!id.endsWith('/@mantine/hooks/esm/use-id/use-id.mjs')) return null;
      return `import { useId as useReactId } from 'react';
export function useId(staticId) {
  const reactId = useReactId();
  return typeof staticId === 'string' ? staticId : \`mantine-\${reactId.replace(/:/g, '')}\`;
}
`;
    },
  };
}

const SRC = path.join(import.meta.dirname, 'src');
/** The app's routes (routeHints) and the lazy page loader. */
const ROUTER = path.join(SRC, 'app/router.tsx');
const LAZY_PAGE = path.join(SRC, 'app/lazyPage.tsx');
const TOAST_STORE = path.join(SRC, 'app/toastStore.ts');

/** The first script's root (index.html). */
const MAIN = path.join(SRC, 'main.tsx');
/** What every page renders with (app/lazyPage.tsx: Mantine's provider, TanStack Query's). */
const PAGE_KIT = [path.join(SRC, 'app/mantine.tsx'), path.join(SRC, 'app/query.tsx')];
/** The logged-in page issue 39 measures: its libraries and the bot screens' shared code. */
const BOT_PAGE = path.join(SRC, 'features/grid-dca/components/BotDcaPage.tsx');

interface ModuleGraph {
  getModuleInfo(id: string): { importedIds: readonly string[]; code: string | null } | null;
}

/**
 * A package's index that only re-exports its modules (Mantine's core and hooks, TanStack Query's):
 * which of them a module uses follows from the names it imports, not from the index's own imports
 * (all of Mantine).
 */
const BARREL =
  /\/node_modules\/(?:(@mantine\/(?:core|hooks))\/esm\/index\.mjs|(@tanstack\/(?:react-query|query-core))\/build\/modern\/index\.js)$/;

/** `import { a, b as c } from "x"` and `export { a } from "x"`: the names taken from each source. */
function namedImports(code: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of code.matchAll(
    /(?:import|export)\s*(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*["']([^"']+)["']/g,
  )) {
    const names = m[1]!
      .split(',')
      .map((n) => n.trim().split(/\s+as\s+/)[0]!)
      .filter(Boolean);
    out.set(m[2]!, [...(out.get(m[2]!) ?? []), ...names]);
  }
  return out;
}

/**
 * Every module reached from `roots` by static imports (`import()` is not followed), through a barrel
 * only to the modules of the names imported from it. Unknown shapes (a namespace import of a barrel, a
 * name not found in it) count the barrel's every module: more in a chunk, never a module missing.
 */
function staticallyUsed(graph: ModuleGraph, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const barrels = new Map<string, { names: Map<string, string>; stars: string[] }>();
  const barrelOf = (id: string) => {
    let b = barrels.get(id);
    if (b) return b;
    const info = graph.getModuleInfo(id);
    b = { names: new Map(), stars: [] };
    for (const [from, names] of namedImports(info?.code ?? '')) {
      if (!from.startsWith('.')) continue;
      for (const n of names) b.names.set(n, path.resolve(path.dirname(id), from));
    }
    for (const m of (info?.code ?? '').matchAll(/export\s*\*\s*from\s*["']([^"']+)["']/g)) {
      const target = info?.importedIds.find((i) => i.includes(`/node_modules/${m[1]}/`) && BARREL.test(i));
      if (target) b.stars.push(target);
    }
    barrels.set(id, b);
    return b;
  };
  const queue = [...roots];
  const fromBarrel = (barrel: string, names: string[]) => {
    const b = barrelOf(barrel);
    for (const n of names) {
      const target = b.names.get(n);
      if (target) queue.push(target);
      else if (b.stars.length > 0) for (const star of b.stars) fromBarrel(star, [n]);
      else queue.push(...(graph.getModuleInfo(barrel)?.importedIds ?? []));
    }
  };
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const info = graph.getModuleInfo(id);
    if (!info) continue;
    const imports = namedImports(info.code ?? '');
    for (const dep of info.importedIds) {
      const pkg = BARREL.exec(dep);
      if (!pkg) {
        queue.push(dep);
        continue;
      }
      const names = imports.get(pkg[1] ?? pkg[2]!);
      if (names) fromBarrel(dep, names);
      else queue.push(dep);
    }
  }
  return seen;
}

/**
 * The chunks of what a page loads statically beyond the first script: `page-libs` for the libraries
 * the pages render with as the bot screens use them (Mantine's core and hooks, TanStack Query, the
 * providers of app/mantine.tsx and app/query.tsx), `bot-screens` for the bot screens' shared code
 * (shared/bots, shared/backtest). Left to the bundler, one chunk per set of pages that share a module,
 * `/bot-dca`'s first visit was 53 chunks after the first script, most of them under 2 KB: on HTTP/1.1's
 * six connections a phone at 150 ms RTT waited about nine round trips for them (issue 39). Another page
 * takes these chunks whole where it uses part of them; the libraries' part is what most pages need.
 */
function pageChunks() {
  // Computed once per chunking pass (the graph's objects are that pass's own).
  let pass: unknown = null;
  let initial = new Set<string>();
  let kit = new Set<string>();
  let bot = new Set<string>();
  const sets = (ctx: ModuleGraph) => {
    const root = ctx.getModuleInfo(MAIN);
    if (root !== pass) {
      pass = root;
      initial = staticallyUsed(ctx, [MAIN]);
      kit = staticallyUsed(ctx, [...PAGE_KIT, BOT_PAGE]);
      bot = staticallyUsed(ctx, [BOT_PAGE]);
    }
    return { initial, kit, bot };
  };
  return {
    libs: (id: string, ctx: ModuleGraph) => {
      const { initial, kit } = sets(ctx);
      if (initial.has(id) || !kit.has(id)) return null;
      return id.includes('/node_modules/') || PAGE_KIT.includes(id) ? 'page-libs' : null;
    },
    botScreens: (id: string, ctx: ModuleGraph) => {
      const { initial, bot } = sets(ctx);
      return !initial.has(id) && bot.has(id) && id.startsWith(path.join(SRC, 'shared/'))
        ? 'bot-screens'
        : null;
    },
  };
}
const PAGE_CHUNKS = pageChunks();

/** React, React DOM, the router and i18next: what every page needs (bench/web.bench.ts's floor). */
const RUNTIME_LIBRARIES =
  /\/node_modules\/(react|react-dom|scheduler|react-router|i18next|react-i18next|use-sync-external-store)\//;

/** The first page's catalogs, bundled into the first script (shared/i18n/index.ts). */
const FIRST_PAGE_CATALOG = /\/(?:features\/(?:landing|auth)\/i18n|app\/i18n|shared\/i18n)\/[a-z]+\.json$/;

export default defineConfig({
  plugins: [
    toastStoreForPages(),
    mantineStableIds(),
    react(),
    routeHints(),
    precompress(),
    prerenderLanding(),
  ],
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
            { debugName: 'page libraries', name: PAGE_CHUNKS.libs },
            // Not the dependencies too: the bot screens' code imports the first script's modules.
            { debugName: 'bot screens', name: PAGE_CHUNKS.botScreens, includeDependenciesRecursively: false },
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
