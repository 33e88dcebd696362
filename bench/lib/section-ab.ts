// Any bench's tables on two checkouts, alternated A B A B... in one session (as paper-ab.ts does for the
// 10,000-bot bench), so the machine's drift falls on both. Each run is a child process in its tree that
// imports that tree's bench file and prints its sections; the tables' rows are matched by their key
// columns and each measure's medians compared. Used for issue 39's "nothing else got slower": the
// backtest throughput and the HTTP read bench before and after the change.
//
//   node --import tsx bench/lib/section-ab.ts <treeA> <benchA> <treeB> <benchB> [pairs=2]
//   AB_KEY='year,bot'                       header names of the columns that name a row
//   AB_MEASURES='candles/s (CPU):+,wall ms:-'  header: + higher is better, - lower is better
//   AB_TITLE, AB_NOTE                       the section written to bench/RESULTS.md beside this file
//
// <benchA>/<benchB> are paths inside each tree (e.g. bench/backtest.bench.ts): the same file in both
// when the bench did not change, or the older tree's file copied into the newer tree.
import { execFile, execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../run';
import { writeResultsSection } from './results-section';

const [treeA, benchA, treeB, benchB, pairsArg] = process.argv.slice(2);
if (!treeA || !benchA || !treeB || !benchB)
  throw new Error('usage: section-ab.ts <treeA> <benchA> <treeB> <benchB> [pairs]');
const pairs = Number(pairsArg ?? 2);
const keyCols = (process.env.AB_KEY ?? '').split(',').filter(Boolean);
const measures = (process.env.AB_MEASURES ?? '')
  .split(',')
  .filter(Boolean)
  .map((m) => ({ name: m.slice(0, m.lastIndexOf(':')), higherBetter: m.endsWith(':+') }));
if (keyCols.length === 0 || measures.length === 0) throw new Error('AB_KEY and AB_MEASURES are required');
const MARK = '@@sections ';

function run(tree: string, bench: string): Promise<BenchSection[]> {
  const code = `const m = await import(process.argv[1]); const s = await m.default(); console.log(${JSON.stringify(MARK)} + JSON.stringify(s));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', code, path.join(tree, bench)],
      { cwd: tree, maxBuffer: 64 * 2 ** 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        const line = stdout.split('\n').find((l) => l.startsWith(MARK));
        if (!line) return reject(new Error(`no sections from ${tree}:\n${stdout.slice(-2000)}`));
        resolve(JSON.parse(line.slice(MARK.length)) as BenchSection[]);
      },
    );
  });
}

/** A markdown table cell as a number: bold, thousands commas, ×, units and trailing words dropped. */
const num = (cell: string) =>
  Number(
    cell
      .replace(/\*|,|×/g, '')
      .trim()
      .split(/\s+/)[0],
  );

/** Every row of every table in the sections that has the key and measure columns: key → measure → value. */
function rows(sections: BenchSection[]): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const s of sections) {
    const lines = s.markdown.split('\n');
    for (let i = 0; i + 1 < lines.length; i++) {
      if (!lines[i]!.startsWith('|') || !/^\|\s*-/.test(lines[i + 1]!)) continue;
      const cells = (l: string) =>
        l
          .slice(1, l.endsWith('|') ? -1 : undefined)
          .split('|')
          .map((c) => c.trim().replace(/\*\*/g, ''));
      const header = cells(lines[i]!);
      const k = keyCols.map((c) => header.indexOf(c));
      const m = measures.map((x) => header.indexOf(x.name));
      if (k.some((j) => j < 0) || m.every((j) => j < 0)) continue;
      for (let r = i + 2; r < lines.length && lines[r]!.startsWith('|'); r++) {
        const c = cells(lines[r]!);
        const values: Record<string, number> = {};
        measures.forEach((x, j) => {
          if (m[j]! >= 0 && Number.isFinite(num(c[m[j]!] ?? ''))) values[x.name] = num(c[m[j]!]!);
        });
        out.set(k.map((j) => c[j]).join(' / '), values);
      }
    }
  }
  return out;
}

const runs: { tree: 'A' | 'B'; load1: number; rows: Map<string, Record<string, number>> }[] = [];
for (let i = 0; i < pairs; i++) {
  for (const [name, tree, bench] of [
    ['A', treeA, benchA],
    ['B', treeB, benchB],
  ] as const) {
    const load1 = os.loadavg()[0]!;
    const r = rows(await run(tree, bench));
    runs.push({ tree: name, load1, rows: r });
    console.log(`@@ab ${JSON.stringify({ pair: i, tree: name, load1, rows: Object.fromEntries(r) })}`);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const keys = [...(runs[0]?.rows.keys() ?? [])].filter((k) => runs.every((r) => r.rows.has(k)));
const table: string[] = [];
let worst = 0;
for (const key of keys) {
  for (const m of measures) {
    const of = (tree: 'A' | 'B') =>
      runs
        .filter((r) => r.tree === tree)
        .map((r) => r.rows.get(key)![m.name])
        .filter((v): v is number => v !== undefined);
    const a = of('A');
    const b = of('B');
    if (a.length === 0 || b.length === 0) continue;
    const ratio = median(b) / median(a);
    // How much worse B is: a throughput that fell or a latency that rose.
    const worse = m.higherBetter ? 1 / ratio : ratio;
    worst = Math.max(worst, worse);
    const fmt = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en') : v.toFixed(2));
    table.push(
      `| ${key} | ${m.name} (${m.higherBetter ? 'higher' : 'lower'} is better) | ${fmt(median(a))} | ${fmt(median(b))} | ×${ratio.toFixed(3)} | ${worse <= 1.05 ? 'within 5 %' : '**slower**'} |`,
    );
  }
}

const commit = (tree: string) =>
  execFileSync('git', ['-C', tree, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 90);
const loads = runs.map((r) => r.load1);
const markdown = [
  `\`${benchA}\` of A and \`${benchB}\` of B, each run in its own checkout (its packages and server), alternated`,
  `A B A B... (${pairs} pairs) in one session by \`bench/lib/section-ab.ts\`; the median of each measure per checkout.`,
  `A = \`${commit(treeA)}\`,`,
  `B = \`${commit(treeB)}\`.`,
  `Load average (1 min) at the runs' starts: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)} (2 cores).`,
  ...(process.env.AB_NOTE ? ['', process.env.AB_NOTE] : []),
  '',
  '| row | measure | A | B | B / A | |',
  '| --- | --- | ---: | ---: | ---: | --- |',
  ...table,
  '',
  `Largest slowdown of B: ×${worst.toFixed(3)}: ${worst <= 1.05 ? 'within' : 'NOT within'} 5 %.`,
].join('\n');
console.log(markdown);

const title = process.env.AB_TITLE;
if (title) writeResultsSection(title, markdown);
