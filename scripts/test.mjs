// `npm test`: typecheck, lint and every vitest project (packages, server, fuzz, web, e2e) in one run.
// Ends with the plain line 'N passed, N failed, N skipped' so CI can read the outcome.
//
// The static checks (tsc, eslint, prettier: ~150 s of one core) run beside the tests at a lower CPU
// priority instead of before them: the tests keep both cores, and the checks take what the tests leave
// idle (the global setup's single-threaded build, the browser files' waits, the tail of the run).
// Their output is kept and printed after the tests; a failed check fails the run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

/** Runs one command with its output kept; resolves to its exit status and output. */
function quiet(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // Lower priority (niceness 10): the tests come first. Raising one's own niceness needs no privilege.
      os.setPriority(child.pid, 10);
    } catch {
      // The child already exited, or the platform refuses: the check runs at normal priority.
    }
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (err) => resolve({ status: 1, out: `${out}${String(err)}\n` }));
    child.on('close', (code) => resolve({ status: code ?? 1, out }));
  });
}

const STEPS = [
  ['typecheck (server, packages)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['typecheck (web)', bin('tsc'), ['-p', 'apps/web/tsconfig.json', '--noEmit']],
  ['lint', bin('eslint'), ['.', '--max-warnings=0']],
  ['format', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
];

/** The static checks one after the other (each is one core's work); stops at the first failure. */
async function staticChecks() {
  const started = Date.now();
  for (const [name, cmd, args] of STEPS) {
    const r = await quiet(cmd, args);
    if (r.status !== 0) return { ok: false, report: `== ${name}: FAILED\n${r.out}` };
  }
  return {
    ok: true,
    report: `== typecheck, lint, format: passed (${Math.round((Date.now() - started) / 1000)} s)`,
  };
}

const checks = process.env.SKIP_STATIC_CHECKS === '1' ? null : staticChecks();
if (checks) console.log('== typecheck, lint and format: running beside the tests (reported at the end)');

console.log('\n== tests');
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-vitest-')), 'results.json');
// Spawned, not spawnSync: the static checks' steps start from this process's event loop meanwhile.
const status = await new Promise((resolve) => {
  const child = spawn(
    bin('vitest'),
    ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)],
    { cwd: root, stdio: 'inherit' },
  );
  child.on('error', () => resolve(1));
  child.on('close', (code) => resolve(code ?? 1));
});

const staticResult = checks
  ? await checks
  : { ok: true, report: '== typecheck, lint, format: skipped (SKIP_STATIC_CHECKS=1)' };
console.log(`\n${staticResult.report}`);

let summary = '';
try {
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  const failed = r.numFailedTests + (staticResult.ok ? 0 : 1);
  summary = `${r.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
} catch {
  summary = status === 0 && staticResult.ok ? '' : '0 passed, 1 failed';
}
if (summary) console.log(`\n${summary}`);
process.exit(status !== 0 ? status : staticResult.ok ? 0 : 1);
