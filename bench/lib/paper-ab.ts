// The 10,000-bot paper runner bench (bench/bots.bench.ts, one configuration per process, as `npm run
// bench` runs it) on two checkouts of the repository, alternated A B A B... in one session so the
// machine's drift (other processes, thermal, page cache) falls on both alike. Each checkout runs its own
// bench file and its own packages (tsx resolves them from the file's tree). Used for issue 38's "nothing
// about the paper path got slower": A = the commit before the issue's work, B = HEAD, in git worktrees.
//
//   node --import tsx bench/lib/paper-ab.ts <treeA> <treeB> [pairs=2]
//   (STORES=memory,pglite SCENARIO=stress BOTS=10000 TICKS=10)
//
// Prints one JSON line per run (`@@ab `) and a summary of medians, B / A.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
  const base = { nBots, ticks, scenario, storeKind };
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
for (const store of stores) {
  const of = (tree: 'A' | 'B', k: keyof Result) =>
    median(runs.filter((x) => x.tree === tree && x.store === store).map((x) => x.r[k]));
  const line = (['p99', 'orderP99', 'cpuPct', 'rssMb'] as const)
    .map(
      (k) =>
        `${k} A ${of('A', k).toFixed(2)} B ${of('B', k).toFixed(2)} B/A ×${(of('B', k) / of('A', k)).toFixed(3)}`,
    )
    .join(' | ');
  console.log(`summary ${store}: ${line}`);
}
