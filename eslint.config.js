import fs from 'node:fs';
import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import bytx from './scripts/eslint/no-import-cycle.mjs';

/**
 * The web app's features (apps/web/src/features/<name>/): each one imports only itself, shared/ and
 * packages, never another feature or app/ (bulletproof-react's unidirectional layout: app -> features ->
 * shared). docs/architecture.md "Lint".
 */
const WEB = 'apps/web/src';
const FEATURES = fs
  .readdirSync(`${import.meta.dirname}/${WEB}/features`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const FEATURE_ZONES = [
  ...FEATURES.map((name) => ({
    target: `${WEB}/features/${name}`,
    from: `${WEB}/features`,
    except: [`./${name}`],
    message: `A feature imports no other feature: move what both need into ${WEB}/shared/.`,
  })),
  {
    target: `${WEB}/features`,
    from: `${WEB}/app`,
    message:
      'A feature imports nothing from app/ (the shell imports features, not the reverse): use shared/.',
  },
];
/** shared/ is below the features and the shell (its tests may render pages: they are left out). */
const SHARED_ZONES = [
  {
    target: `${WEB}/shared`,
    from: [`${WEB}/features`, `${WEB}/app`],
    message: 'shared/ imports no feature and nothing from app/.',
  },
];

const PAGE_READS =
  '/^(textContent|innerText|innerHTML|inputValue|getAttribute|count|all|allTextContents|allInnerTexts|isVisible|isHidden|isChecked|isDisabled|isEnabled|evaluate|evaluateAll)$/';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    plugins: { bytx, 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.mjs', '.js', '.json'] })],
    },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      // No file reaches itself through its imports, type-only imports included (scripts/eslint/no-import-cycle.mjs).
      'bytx/no-import-cycle': ['error', { root: import.meta.dirname }],
    },
  },
  {
    // Plain JavaScript (*.mjs, *.js: scripts/, this file, the landing page's gate script): no type information.
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Loaded by the browser as it is (apps/web/public: copied, not bundled).
    files: ['apps/web/public/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: [`${WEB}/features/**`],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: FEATURE_ZONES, basePath: import.meta.dirname }],
    },
  },
  {
    files: [`${WEB}/shared/**`],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: SHARED_ZONES, basePath: import.meta.dirname }],
    },
  },
  {
    files: ['apps/web/**/*.tsx', 'apps/web/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', 'e2e/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // A page shows what it read after a render or a request, so a browser test reads it only through
    // a poll: a one-time read right after a click passes on an idle machine and fails on a busy one.
    files: ['e2e/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `CallExpression[callee.name='expect'] AwaitExpression > CallExpression > MemberExpression.callee[property.name=${PAGE_READS}]`,
          message: 'Read the page through a poll: await expect.poll(() => locator.textContent()).toBe(…)',
        },
      ],
    },
  },
);
