// The 10,000-bot paper runner bench (bench/bots.bench.ts, one configuration per process, as `npm run
// bench` runs it) on two checkouts of the repository, alternated A B A B... in one session so the
// machine's drift (other processes, thermal, page cache) falls on both alike. Each checkout runs its own
// bench file and its own packages (tsx resolves them from the file's tree). Used for issue 38's "nothing
// about the paper path got slower": A = the commit before the issue's work, B = HEAD, in git worktrees.
//
//   node --import tsx bench/lib/paper-ab.ts <treeA> <treeB> [pairs=2]
//   (STORES=memory,pglite SCENARIO=stress BOTS=10000 TICKS=10 SEND_LANE=0|1)
//
// Prints one JSON line per run (`@@ab `) and the medians, B / A, and writes them as a section of the
// bench/RESULTS.md beside this file (AB_TITLE, AB_NOTE).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeResultsSection } from './results-section';

const [treeA, treeB, pairsArg] = process.argv.slice(2);
if (!treeA || !treeB) throw new Error('usage: paper-ab.ts <treeA> <treeB> [pairs]');
const pairs = Number(pairsArg ?? 2);
const stores = (process.env.STORES ?? 'memory,pglite').split(',');
const scenario = process.env.SCENARIO ?? 'stress';
const nBots = Number(process.env.BOTS ?? 10_000);
const ticks = Number(process.env.TICKS ?? 10);
const RESULT_LINE = '@@bots-bench-result ';

interface Result {
  p50: number;
  p99: number;
  orderP99: number;
  sendP99: number;
  cpuPct: number;
  rssMb: number;
  setupS: number;
}

function child(tree: string, args: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', path.join(tree, 'bench/bots.bench.ts')],
      { cwd: tree, env: { ...process.env, BOTS_BENCH_ONE: JSON.stringify(args) }, maxBuffer: 64 * 2 ** 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        const line = stdout.split('\n').find((l) => l.startsWith(RESULT_LINE));
        if (!line) return reject(new Error(`no result from ${tree}:\n${stdout}`));
        resolve(JSON.parse(line.slice(RESULT_LINE.length)) as Result);
      },
    );
  });
}

/** One measured run: the memory store in one process; PGlite seeded by one process, measured by the next. */
async function once(tree: string, storeKind: string): Promise<Result> {
  // SEND_LANE=0|1: the group commit's send lane (issue 45 #6) off or on in a tree whose bench knows it;
  // the server's default is off, so an A/B of the shipped path sets SEND_LANE=0.
  const lane = process.env.SEND_LANE ? { sendLane: process.env.SEND_LANE === '1' } : {};
  const base = { nBots, ticks, scenario, storeKind, ...lane };
  if (storeKind === 'memory') return child(tree, base);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-bench-ab-'));
  try {
    const at = { dataDir, url: undefined };
    const { seedMs } = (await child(tree, { ...base, at, phase: 'seed' })) as unknown as { seedMs: number };
    return await child(tree, { ...base, at, phase: 'measure', seedMs });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const runs: { tree: 'A' | 'B'; store: string; load1: number; r: Result }[] = [];
for (let i = 0; i < pairs; i++) {
  for (const store of stores) {
    for (const [name, tree] of [
      ['A', treeA],
      ['B', treeB],
    ] as const) {
      const load1 = os.loadavg()[0]!;
      const r = await once(tree, store);
      runs.push({ tree: name, store, load1, r });
      console.log(
        `@@ab ${JSON.stringify({ pair: i, tree: name, store, load1, p50: r.p50, p99: r.p99, fillP99: r.orderP99, sendP99: r.sendP99, cpuPct: r.cpuPct, rssMb: r.rssMb, setupS: r.setupS })}`,
      );
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const MEASURES = [
  ['p99', 'p99 tick → decision ms'],
  ['orderP99', 'fill p99 ms'],
  ['cpuPct', 'CPU %'],
  ['rssMb', 'peak RSS MB'],
] as const;
const summary: string[] = [];
let worst = 0;
for (const store of stores) {
  const of = (tree: 'A' | 'B', k: keyof Result) =>
    median(runs.filter((x) => x.tree === tree && x.store === store).map((x) => x.r[k]));
  for (const [k, name] of MEASURES) {
    const ratio = of('B', k) / of('A', k);
    worst = Math.max(worst, ratio);
    summary.push(
      `| ${store} | ${name} | ${of('A', k).toFixed(k === 'p99' ? 3 : 1)} | ${of('B', k).toFixed(k === 'p99' ? 3 : 1)} | ×${ratio.toFixed(3)} |`,
    );
  }
}
console.log(summary.join('\n'));

// The section in the RESULTS.md next to this file (AB_TITLE names it; AB_NOTE adds a paragraph).
const commit = (tree: string) =>
  execFileSync('git', ['-C', tree, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 90);
const loads = runs.map((x) => x.load1);
const markdown = [
  `The 10,000-bot paper runner bench (bench/bots.bench.ts, ${scenario} scenario, ${ticks} measured rounds after 1 warm-up, one`,
  'configuration per process as `npm run bench` runs it; PGlite seeded by one process and measured by the next) on two',
  'checkouts in git worktrees, each with its own bench file (the same in both) and packages, run alternately',
  `(A B A B..., ${pairs} pairs per store) in one session by \`bench/lib/paper-ab.ts\`, so the machine's drift falls on both:`,
  `A = \`${commit(treeA)}\`,`,
  `B = \`${commit(treeB)}\`.`,
  `Load average (1 min) at the runs' starts: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)} (2 cores, shared with other work).`,
  ...(process.env.AB_NOTE ? ['', process.env.AB_NOTE] : []),
  '',
  '| pair | tree | store | load | p50 ms | p99 ms | fill p99 ms | fill → order sent p99 ms | CPU | peak RSS MB | setup s |',
  '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...runs.map(
    (x, i) =>
      `| ${Math.floor(i / (2 * stores.length))} | ${x.tree} | ${x.store} | ${x.load1.toFixed(1)} | ${x.r.p50.toFixed(3)} | ${x.r.p99.toFixed(3)} | ${x.r.orderP99.toFixed(1)} | ${x.r.sendP99.toFixed(1)} | ${x.r.cpuPct.toFixed(0)}% | ${x.r.rssMb.toFixed(0)} | ${x.r.setupS.toFixed(1)} |`,
  ),
  '',
  'Medians per checkout, B / A:',
  '',
  '| store | measure | A | B | B / A |',
  '| --- | --- | ---: | ---: | ---: |',
  ...summary,
  '',
  `Largest ratio B / A: ×${worst.toFixed(3)}: ${worst <= 1.05 ? 'within' : 'NOT within'} 5 %.`,
].join('\n');
const title = process.env.AB_TITLE ?? 'Paper path A/B: 10,000 bots on two checkouts';
writeResultsSection(title, markdown);
