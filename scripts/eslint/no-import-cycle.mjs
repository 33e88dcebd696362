// ESLint rule `bytx/no-import-cycle`: a file may not reach itself through its imports.
//
// Every import counts: `import type` too (import-x/no-cycle skips those, and the 11-file cycle of
// modules/bots that issue 39 names closed only through type imports), re-exports and `import()`.
// The graph is read from disk once per ESLint run (TypeScript's preProcessFile, no type checking):
// relative paths with the extensions TypeScript and Vite accept, and the workspace packages
// (`@bytx/contract` -> packages/contract/src/index.ts through their package.json `exports`).
// Anything else (node_modules, node: builtins) is outside the graph. docs/architecture.md "Lint".
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs', '.js', '.cjs'];
const SOURCE = /\.(ts|tsx|mts|cts|mjs|js|cjs)$/;

const isFile = (p) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** `@scope/name` -> { dir, exports } for the workspaces of the package.json at `root`. */
function workspacePackages(root) {
  const out = new Map();
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  } catch {
    return out;
  }
  for (const pattern of manifest.workspaces ?? []) {
    // Only the `folder/*` form the repository uses.
    const base = path.join(root, pattern.replace(/\/\*$/, ''));
    const dirs = pattern.endsWith('/*')
      ? fs.existsSync(base)
        ? fs
            .readdirSync(base, { withFileTypes: true })
            .filter((d) => d.isDirectory())
            .map((d) => path.join(base, d.name))
        : []
      : [base];
    for (const dir of dirs) {
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
        if (pkg.name) out.set(pkg.name, { dir, exports: pkg.exports, main: pkg.main });
      } catch {
        // not a package
      }
    }
  }
  return out;
}

function probe(base) {
  if (isFile(base)) return base;
  for (const ext of EXTENSIONS) if (isFile(base + ext)) return base + ext;
  // `./x.js` written for a `./x.ts` (TypeScript's NodeNext style)
  const bare = base.replace(/\.(m?js|cjs)$/, '');
  if (bare !== base) for (const ext of EXTENSIONS) if (isFile(bare + ext)) return bare + ext;
  for (const ext of EXTENSIONS)
    if (isFile(path.join(base, 'index' + ext))) return path.join(base, 'index' + ext);
  return null;
}

function exportTarget(exportsField, subpath) {
  if (exportsField == null) return null;
  if (typeof exportsField === 'string') return subpath === '.' ? exportsField : null;
  let entry = exportsField[subpath];
  if (entry === undefined && subpath === '.' && !Object.keys(exportsField).some((k) => k.startsWith('.')))
    entry = exportsField;
  while (entry && typeof entry === 'object') entry = entry.import ?? entry.default ?? entry.types ?? null;
  return typeof entry === 'string' ? entry : null;
}

class ImportGraph {
  constructor(root) {
    this.root = root;
    this.packages = workspacePackages(root);
    this.edges = new Map();
    // Tarjan's strongly connected components, grown as files are asked about.
    this.sccOf = new Map();
    this.counter = 0;
  }

  resolve(from, spec) {
    if (spec.startsWith('.') || spec.startsWith('/')) {
      const target = probe(path.resolve(path.dirname(from), spec));
      return target && !target.split(path.sep).includes('node_modules') ? target : null;
    }
    const parts = spec.split('/');
    const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    const pkg = this.packages.get(name);
    if (!pkg) return null;
    const rest = spec.slice(name.length);
    const subpath = rest ? '.' + rest : '.';
    const target = exportTarget(pkg.exports, subpath) ?? (subpath === '.' ? (pkg.main ?? 'index') : subpath);
    return probe(path.resolve(pkg.dir, target));
  }

  importsOf(file) {
    let deps = this.edges.get(file);
    if (deps) return deps;
    deps = [];
    this.edges.set(file, deps);
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return deps;
    }
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      const target = this.resolve(file, ref.fileName);
      if (target && SOURCE.test(target)) deps.push({ spec: ref.fileName, target });
    }
    return deps;
  }

  /** The files of `file`'s cycle (its strongly connected component), or null when it is in none. */
  cycleOf(file) {
    if (!this.sccOf.has(file)) this.tarjan(file);
    return this.sccOf.get(file) ?? null;
  }

  tarjan(start) {
    const index = new Map();
    const low = new Map();
    const onStack = new Set();
    const stack = [];
    // Iterative depth-first search: [file, next import to look at].
    const work = [[start, 0]];
    const enter = (v) => {
      index.set(v, this.counter);
      low.set(v, this.counter);
      this.counter += 1;
      stack.push(v);
      onStack.add(v);
    };
    enter(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      const deps = this.importsOf(v);
      if (i < deps.length) {
        frame[1] = i + 1;
        const w = deps[i].target;
        if (this.sccOf.has(w)) continue; // finished in an earlier run: not on this path
        if (!index.has(w)) {
          enter(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v), index.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const members = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          members.push(w);
        } while (w !== v);
        const selfLoop = deps.some((d) => d.target === v);
        const scc = members.length > 1 || selfLoop ? new Set(members) : null;
        for (const m of members) this.sccOf.set(m, scc);
      }
    }
  }

  /** The shortest way back from `target` to `file` inside their cycle. */
  pathBack(target, file, scc) {
    const prev = new Map([[target, null]]);
    const queue = [target];
    while (queue.length) {
      const v = queue.shift();
      if (v === file) break;
      for (const { target: w } of this.importsOf(v)) {
        if (!scc.has(w) || prev.has(w)) continue;
        prev.set(w, v);
        queue.push(w);
      }
    }
    const chain = [];
    for (let v = file; v !== null && v !== undefined; v = prev.get(v)) chain.unshift(v);
    return chain;
  }
}

const graphs = new Map();
const graphFor = (root) => {
  let g = graphs.get(root);
  if (!g) graphs.set(root, (g = new ImportGraph(root)));
  return g;
};

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, counting type-only imports, re-exports and import().' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' } },
        additionalProperties: false,
      },
    ],
    messages: {
      cycle: 'Import cycle: {{chain}}. Move what both sides need into a module that imports neither.',
    },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!path.isAbsolute(file) || !SOURCE.test(file)) return {};
    const root = context.options[0]?.root ?? context.cwd;
    const graph = graphFor(root);
    const scc = graph.cycleOf(file);
    if (!scc) return {};
    const rel = (p) => path.relative(root, p).split(path.sep).join('/');
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      const target = graph.resolve(file, spec);
      if (!target || !scc.has(target)) return;
      const chain = [file, ...graph.pathBack(target, file, scc)].map(rel).join(' -> ');
      context.report({ node, messageId: 'cycle', data: { chain } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' &&
        check(node.moduleReference.expression, node.moduleReference.expression.value),
    };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
