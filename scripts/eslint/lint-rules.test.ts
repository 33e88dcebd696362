import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The architecture rules of eslint.config.js (docs/architecture.md "Lint"): no import cycle, type-only
 * imports included, and no web feature importing another feature or app/.
 */

const root = path.resolve(import.meta.dirname, '../..');

describe('bytx/no-import-cycle', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-cycle-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  write('package.json', JSON.stringify({ name: 'fixture', workspaces: ['pkgs/*'] }));
  write('pkgs/rows/package.json', JSON.stringify({ name: '@fx/rows', exports: { '.': './src/index.ts' } }));
  // repository -> cache -> runner -(type only)-> rows package -(type only)-> repository: the shape of
  // the modules/bots cycle that issue 39 broke.
  write(
    'src/repository.ts',
    "import { cache } from './cache';\nexport type Row = { id: string };\nexport const repo = cache;\n",
  );
  write('src/cache.ts', "import { run } from './runner';\nexport const cache = run;\n");
  write(
    'src/runner.ts',
    "import type { RowView } from '@fx/rows';\nexport const run = (r?: RowView) => r;\n",
  );
  write(
    'pkgs/rows/src/index.ts',
    "import type { Row } from '../../../src/repository';\nexport type RowView = Row;\n",
  );
  write('src/leaf.ts', "import { repo } from './repository';\nexport const leaf = repo;\n");
  write('scripts/a.mjs', "export const a = () => import('./b.mjs');\n");
  write('scripts/b.mjs', "import { a } from './a.mjs';\nexport const b = a;\n");
  const rule = pathToFileURL(path.join(root, 'scripts/eslint/no-import-cycle.mjs')).href;
  const parser = pathToFileURL(path.join(root, 'node_modules/typescript-eslint/dist/index.js')).href;
  write(
    'eslint.config.mjs',
    `import bytx from '${rule}';\nimport tseslint from '${parser}';\n` +
      "export default [{ files: ['**/*.ts', '**/*.mjs'], languageOptions: { parser: tseslint.parser }, plugins: { bytx }, rules: { 'bytx/no-import-cycle': 'error' } }];\n",
  );

  it('reports every file of a cycle closed through type imports and a workspace package, and only those', async () => {
    const eslint = new ESLint({ cwd: dir, overrideConfigFile: path.join(dir, 'eslint.config.mjs') });
    const results = await eslint.lintFiles(['src/**/*.ts', 'pkgs/**/*.ts']);
    const byFile = Object.fromEntries(
      results.map((r) => [path.relative(dir, r.filePath), r.messages.map((m) => m.message)]),
    );
    expect(byFile['src/leaf.ts']).toEqual([]);
    expect(byFile['src/repository.ts']).toEqual([
      'Import cycle: src/repository.ts -> src/cache.ts -> src/runner.ts -> pkgs/rows/src/index.ts -> src/repository.ts. Move what both sides need into a module that imports neither.',
    ]);
    for (const f of ['src/cache.ts', 'src/runner.ts', 'pkgs/rows/src/index.ts'])
      expect(byFile[f]).toHaveLength(1);
  });

  it('follows import() in plain JavaScript', async () => {
    const eslint = new ESLint({ cwd: dir, overrideConfigFile: path.join(dir, 'eslint.config.mjs') });
    const [a] = await eslint.lintFiles(['scripts/a.mjs']);
    expect(a!.messages.map((m) => m.message)).toEqual([
      'Import cycle: scripts/a.mjs -> scripts/b.mjs -> scripts/a.mjs. Move what both sides need into a module that imports neither.',
    ]);
  });
});

// The first lint loads the project's configuration and reads the web app's import graph.
describe('web feature boundaries (the repository eslint.config.js)', { timeout: 60_000 }, () => {
  // The project's own configuration, without the rules that need type information (they are not the subject).
  const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });
  const lint = async (file: string, code: string) => {
    const [r] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return r!.messages.map((m) => `${m.line} ${m.ruleId}`);
  };

  it('refuses another feature and app/, statically or through import(); allows its own feature and shared/', async () => {
    const code = [
      "import { DCA_SCREEN } from './screen';",
      "import { api } from '../../../shared/api/client';",
      "import { gridApi } from '../../grid/api/grid';",
      "import { canTrade } from '../../../app/shell/navGuards';",
      "const later = () => import('../../token/components/BuyTokenModal');",
      'export const all = [DCA_SCREEN, api, gridApi, canTrade, later];',
      '',
    ].join('\n');
    expect(await lint('apps/web/src/features/grid-dca/components/Probe.ts', code)).toEqual([
      '3 import-x/no-restricted-paths',
      '4 import-x/no-restricted-paths',
      '5 import-x/no-restricted-paths',
    ]);
  });

  it('refuses a feature or app/ in shared/', async () => {
    const code =
      "import { DCA_SCREEN } from '../../features/grid-dca/components/screen';\nexport const s = DCA_SCREEN;\n";
    expect(await lint('apps/web/src/shared/bots/Probe.ts', code)).toEqual(['1 import-x/no-restricted-paths']);
  });
});
