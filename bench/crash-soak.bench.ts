// The long SIGKILL campaigns that `npm test` runs in short form (each test file's top comment says which
// kills it keeps and why): bots-crash.test.ts with 20 kills (half while trading, half at a random moment
// of a start-up; the test: 3 chosen ones) and market-restart.test.ts with 20 restarts (the test: 2). The
// live path's campaign (every kind on the exchange emulators) is bench/live-crash.bench.ts. The files
// run through vitest as in `npm test` (their checks are the test's assertions), one after the other;
// the figures are pass/fail, duration and the file's own summary line. CRASH_SOAK_KILLS and
// CRASH_SOAK_RESTARTS change the counts.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { BenchSection } from './run';

const ROOT = path.resolve(import.meta.dirname, '..');
const KILLS = Number(process.env.CRASH_SOAK_KILLS ?? 20);
const RESTARTS = Number(process.env.CRASH_SOAK_RESTARTS ?? 20);

const CAMPAIGNS: { file: string; env: Record<string, string>; what: string; summary: RegExp }[] = [
  {
    file: 'apps/server/test/bots-crash.test.ts',
    env: { CRASH_KILLS: String(KILLS) },
    what: `bot runner, ${KILLS} SIGKILLs (CRASH_KILLS)`,
    summary: /\[crash\] .*/g,
  },
  {
    file: 'apps/server/test/market-restart.test.ts',
    env: { MARKET_RESTARTS: String(RESTARTS) },
    what: `simulated market, ${RESTARTS} SIGKILL restarts (MARKET_RESTARTS)`,
    summary: /\[market-restart\] .*/g,
  },
];

/** Runs one test file through vitest; its exit status, output and wall time (s). */
function vitest(file: string, env: Record<string, string>) {
  return new Promise<{ ok: boolean; out: string; seconds: number }>((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) =>
      resolve({ ok: code === 0, out, seconds: Math.round((performance.now() - t0) / 1000) }),
    );
  });
}

export default async function crashSoakBench(): Promise<BenchSection[]> {
  const rows: string[] = [];
  const failures: string[] = [];
  for (const c of CAMPAIGNS) {
    console.log(`[crash soak] ${c.file} (${c.what})`);
    const r = await vitest(c.file, c.env);
    // eslint-disable-next-line no-control-regex -- vitest's colours
    const plain = r.out.replace(/\u001b\[[0-9;]*m/g, '');
    const lines = plain.match(c.summary) ?? [];
    rows.push(
      `| \`${c.file}\` | ${c.what} | ${r.ok ? 'passed' : '**failed**'} | ${r.seconds} s | ${lines.join('; ')} |`,
    );
    if (!r.ok) failures.push(`${c.file}:\n\n\`\`\`\n${plain.slice(-3000)}\n\`\`\``);
  }
  return [
    {
      title: 'Crash soak: the long SIGKILL campaigns of bots-crash and market-restart',
      markdown: [
        'The test files `npm test` runs with a few chosen kills, run here with many (their own checks:',
        'nothing placed twice, no fill lost, journal = venue; a held price and the candles survive).',
        '',
        '| file | campaign | result | wall time | summary |',
        '| --- | --- | --- | ---: | --- |',
        ...rows,
        ...(failures.length > 0 ? ['', 'Failures (last lines):', '', ...failures] : []),
      ].join('\n'),
    },
  ];
}
