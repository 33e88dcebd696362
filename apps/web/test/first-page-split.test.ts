// @vitest-environment node
/**
 * Guards the first page's size (docs/web-shell.md "First page size"): walks the static import graph
 * from `src/main.tsx` (what the first script is built from; `import()` is not followed) and fails if
 * a chart, the wallet library or a page other than the landing got into it, and checks that the
 * Mantine CSS split covers every component the app uses. Then builds the app (in memory) and checks
 * the same on what the bundler made: the entry chunk and its static imports hold no module of
 * lightweight-charts, viem, zod (zod is reached in the sources through @bytx/contract and left out
 * only by tree-shaking, vite.config.ts), floating-ui, TanStack Query, the toasts' container or any
 * code of Mantine's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build, type Rolldown } from 'vite';
import { describe, expect, it } from 'vitest';

const WEB = path.resolve(import.meta.dirname, '..');
const SRC = path.join(WEB, 'src');
const PACKAGES = path.resolve(WEB, '../../packages');
const MANTINE_STYLES = path.join(WEB, 'node_modules/@mantine/core/styles');

/** Static `import ... from 'x'`, `import 'x'` and `export ... from 'x'`; not `import type`, not `import()`. */
const STATIC_IMPORT = /^import\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const STATIC_REEXPORT = /^export\s+(?!type\s)(?:\*|\{[^}]*\})\s*from\s+['"]([^'"]+)['"]/gm;

function resolveFile(base: string): string | null {
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function specifiers(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(STATIC_IMPORT), ...text.matchAll(STATIC_REEXPORT)].map((m) => m[1]!);
}

/** Every source file and every bare package reached by static imports from `entry`. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!/\.tsx?$/.test(file)) continue;
    for (const spec of specifiers(file)) {
      let target: string | null = null;
      if (spec.startsWith('.')) target = resolveFile(path.resolve(path.dirname(file), spec));
      else if (spec.startsWith('@bytx/'))
        target = resolveFile(path.join(PACKAGES, spec.slice(6), 'src/index'));
      else packages.add(spec);
      if (spec.startsWith('.') || spec.startsWith('@bytx/')) {
        expect(target, `${spec} imported by ${file}`).not.toBeNull();
        queue.push(target!);
      }
    }
  }
  return { files, packages };
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'testing' ? [] : sourceFiles(p);
    return /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) ? [p] : [];
  });
}

/** The Mantine components a file imports from @mantine/core. */
function mantineComponents(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s+\{([^}]*)\}\s*from\s+'@mantine\/core'/gm)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith('type ')),
  );
}

/** The CSS files a styles module imports (`@mantine/core/styles/Button.css` → `Button`). */
function cssImported(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8');
  return new Set(
    [...text.matchAll(/^import '@mantine\/core\/styles\/([A-Za-z]+)\.css';/gm)].map((m) => m[1]!),
  );
}

/** Components drawn by another component's styles that have no file of their own name. */
const CSS_OF: Record<string, string[]> = {
  TextInput: ['Input'],
  Textarea: ['Input'],
  NativeSelect: ['Input'],
  PasswordInput: ['Input', 'PasswordInput'],
  NumberInput: ['Input', 'NumberInput'],
  Select: ['Input', 'Combobox', 'Popover', 'ScrollArea'],
  Checkbox: ['InlineInput', 'CheckboxIndicator', 'Checkbox'],
  Radio: ['InlineInput', 'RadioIndicator', 'Radio'],
  Switch: ['InlineInput', 'Switch'],
  Menu: ['Popover', 'Menu'],
  Tooltip: ['Tooltip'],
  Drawer: ['ModalBase', 'Drawer'],
  Modal: ['ModalBase', 'Modal'],
};
const cssFilesOf = (component: string): string[] =>
  CSS_OF[component] ?? (fs.existsSync(path.join(MANTINE_STYLES, `${component}.css`)) ? [component] : []);

/** The app built in memory once for the tests below (about 10 s of CPU): its chunks by file name. */
let built: Promise<Map<string, Rolldown.OutputChunk>> | null = null;
function builtChunks(): Promise<Map<string, Rolldown.OutputChunk>> {
  built ??= (async () => {
    const out = (await build({
      root: WEB,
      configFile: path.join(WEB, 'vite.config.ts'),
      logLevel: 'silent',
      build: { write: false, manifest: false },
    })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
    const output = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output);
    return new Map(
      output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk').map((c) => [c.fileName, c]),
    );
  })();
  return built;
}

/** The chunk `name` and every chunk it imports statically, transitively. */
function withStaticImports(chunks: Map<string, Rolldown.OutputChunk>, name: string): Set<string> {
  const seen = new Set<string>();
  const walk = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const next of chunks.get(n)?.imports ?? []) walk(next);
  };
  walk(name);
  return seen;
}

describe('first page split', () => {
  const main = path.join(SRC, 'main.tsx');
  const { files, packages } = staticGraph(main);
  const rel = (f: string) => path.relative(WEB, f);

  it('keeps charts and the wallet library out of the first script', () => {
    // Sanity: the walk reached the shell and the landing, so an empty graph cannot pass.
    expect([...files].map(rel)).toEqual(
      expect.arrayContaining(['src/app/shell/Header.tsx', 'src/features/landing/components/LandingPage.tsx']),
    );
    const heavy = [...packages].filter((p) => /^(lightweight-charts|viem|abitype|ox)(\/|$)/.test(p));
    expect(heavy).toEqual([]);
  });

  it('loads every page but the landing lazily', () => {
    const pages = sourceFiles(path.join(SRC, 'features')).filter((f) =>
      /components\/[A-Za-z]+Page\.tsx$/.test(f),
    );
    expect(pages.length).toBeGreaterThan(15);
    const eager = pages.filter((f) => files.has(f)).map(rel);
    expect(eager).toEqual(['src/features/landing/components/LandingPage.tsx']);
    // The purchase modal (and its wallet code) too: it opens on a click.
    expect(files.has(path.join(SRC, 'features/token/components/BuyTokenModal.tsx'))).toBe(false);
  });

  it('draws the first page without Mantine components (shared/ui/plain.tsx)', () => {
    const drawn = [...files]
      .filter((f) => /\.tsx?$/.test(f) && f.startsWith(SRC))
      .flatMap((f) => mantineComponents(f).map((c) => `${c} (${rel(f)})`));
    expect(drawn).toEqual([]);
    // Its stylesheets only (app/styles/shell.ts).
    expect([...packages].filter((p) => p.startsWith('@mantine/') && !p.endsWith('.css'))).toEqual([]);
  });

  it('has the CSS of every Mantine component the first page draws in the shell styles', () => {
    const shellCss = cssImported(path.join(SRC, 'app/styles/shell.ts'));
    const missing = [...files]
      .filter((f) => /\.tsx?$/.test(f) && f.startsWith(SRC))
      .flatMap((f) => mantineComponents(f).flatMap((c) => cssFilesOf(c).map((css) => `${css} (${rel(f)})`)))
      .filter((entry) => !shellCss.has(entry.split(' ')[0]!));
    expect(missing).toEqual([]);
  });

  it('has the CSS of every Mantine component any page draws in the shell or pages styles', () => {
    const css = new Set([
      ...cssImported(path.join(SRC, 'app/styles/shell.ts')),
      ...cssImported(path.join(SRC, 'app/styles/pages.ts')),
    ]);
    const missing = sourceFiles(SRC)
      .flatMap((f) => mantineComponents(f).flatMap((c) => cssFilesOf(c).map((file) => `${file} (${rel(f)})`)))
      .filter((entry) => !css.has(entry.split(' ')[0]!));
    expect(missing).toEqual([]);
  });

  it(
    'builds a first script on React DOM without charts, viem, zod, Query, floating parts or other pages',
    { timeout: 180_000 },
    async () => {
      const chunks = await builtChunks();
      const entry = [...chunks.values()].find((c) => c.isEntry);
      expect(entry).toBeDefined();
      const initial = new Set<string>();
      const walk = (name: string) => {
        if (initial.has(name)) return;
        initial.add(name);
        for (const next of chunks.get(name)?.imports ?? []) walk(next);
      };
      walk(entry!.fileName);
      const modules = [...initial].flatMap((name) => Object.keys(chunks.get(name)?.modules ?? {}));
      // Sanity: React DOM, the router, i18next and our shell are there (about 100 modules).
      expect(modules.length).toBeGreaterThan(60);
      // Modules of which some code is in the first script (the bundler lists tree-shaken ones too).
      const rendered = [...initial].flatMap((name) =>
        Object.entries(chunks.get(name)?.modules ?? {})
          .filter(([, m]) => m.renderedLength > 0)
          .map(([id]) => id),
      );
      expect(
        modules.filter((id) => /node_modules\/(lightweight-charts|viem|zod|ox|abitype)\//.test(id)),
      ).toEqual([]);
      // The header's floating parts and the toasts' container load after the first paint
      // (app/shell/Deferred.tsx, app/providers.tsx): no floating-ui or transition group. (The modals'
      // scroll lock, react-remove-scroll, stays: it declares a side effect and comes with @mantine/core.)
      expect(
        rendered.filter((id) =>
          /node_modules\/(@floating-ui\/[^/]+|react-remove-scroll|react-transition-group)\//.test(id),
        ),
      ).toEqual([]);
      // No Mantine code: the shell and the landing draw Mantine's markup with shared/ui/plain.tsx, and
      // Mantine's provider comes with the pages and the header's later parts (app/mantine.tsx).
      expect(rendered.filter((id) => /node_modules\/@mantine\/.*(?<!\.css)$/.test(id))).toEqual([]);
      // The build renders with React DOM itself (docs/web-shell.md "The runtime"), no compatibility layer.
      expect(rendered.some((id) => /node_modules\/react-dom\//.test(id))).toBe(true);
      expect(rendered.filter((id) => /node_modules\/preact\//.test(id))).toEqual([]);
      // TanStack Query comes with the pages (app/query.tsx); the ticker bar polls on its own timer.
      expect(rendered.filter((id) => /node_modules\/@tanstack\//.test(id))).toEqual([]);
      expect(rendered.filter((id) => /@mantine\/notifications\/esm\/Notifications\.mjs$/.test(id))).toEqual(
        [],
      );
      expect(
        modules.filter((id) => /\/features\/(?!landing\/)[^/]+\/components\/[A-Za-z]+Page\.tsx$/.test(id)),
      ).toEqual([]);
      // The page chunks exist and are loaded by import(): the split happened, not a deletion.
      expect(entry!.dynamicImports.length).toBeGreaterThan(15);
    },
  );

  it(
    "loads /bot-dca's page in a few chunks, without floating-ui or the toasts' container",
    { timeout: 180_000 },
    async () => {
      const chunks = await builtChunks();
      const entry = [...chunks.values()].find((c) => c.isEntry)!;
      const initial = withStaticImports(chunks, entry.fileName);
      const page = [...chunks.values()].find((c) =>
        Object.keys(c.modules).some((id) => id.endsWith('/features/grid-dca/components/BotDcaPage.tsx')),
      );
      expect(page).toBeDefined();
      // What the page's import() fetches beyond the first script (vite.config.ts `pageChunks`): on
      // HTTP/1.1's six connections each chunk more is a round trip more for a phone (issue 39). Left to
      // the bundler it was 53.
      const pageOnly = [...withStaticImports(chunks, page!.fileName)].filter((n) => !initial.has(n));
      expect(pageOnly.length).toBeGreaterThan(1);
      expect(pageOnly.length).toBeLessThanOrEqual(8);
      const rendered = pageOnly.flatMap((n) =>
        Object.entries(chunks.get(n)!.modules)
          .filter(([, m]) => m.renderedLength > 0)
          .map(([id]) => id),
      );
      // Sanity: the page's Mantine and Query code is in these chunks.
      expect(rendered.some((id) => id.includes('/@mantine/core/esm/components/Button/Button.mjs'))).toBe(
        true,
      );
      expect(rendered.some((id) => id.includes('/@tanstack/query-core/'))).toBe(true);
      // A tooltip shows only in a bot's row (shared/ui/LazyTooltip.tsx); the toasts' container mounts
      // later (app/providers.tsx), the page needs only their store (vite.config.ts `toastStoreForPages`).
      expect(
        rendered.filter((id) =>
          /node_modules\/(@floating-ui\/[^/]+|react-remove-scroll|react-transition-group)\/|@mantine\/notifications\/esm\/Notifications\.mjs$/.test(
            id,
          ),
        ),
      ).toEqual([]);
    },
  );
});
