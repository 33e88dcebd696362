// `npm test`: typecheck, lint, then every vitest project (packages, server, web, e2e) in one run.
// Ends with the plain line 'N passed, N failed, N skipped' so CI can read the outcome.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const steps = [
  [
    'typecheck',
    () => run(bin('tsc'), ['-p', 'tsconfig.json']) || run(bin('tsc'), ['-p', 'apps/web/tsconfig.json']),
  ],
  [
    'lint',
    () =>
      run(bin('eslint'), ['.', '--max-warnings=0']) ||
      run(bin('prettier'), ['--check', '.', '--log-level', 'warn']),
  ],
];
if (process.env.SKIP_STATIC_CHECKS !== '1') {
  for (const [name, step] of steps) {
    console.log(`\n== ${name}`);
    if (step() !== 0) {
      console.error(`${name} failed`);
      console.log('0 passed, 1 failed');
      process.exit(1);
    }
  }
}

console.log('\n== tests');
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-vitest-')), 'results.json');
const status = run(bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out}`,
  ...process.argv.slice(2),
]);
let summary = '';
try {
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`;
} catch {
  summary = status === 0 ? '' : '0 passed, 1 failed';
}
if (summary) console.log(`\n${summary}`);
process.exit(status);
