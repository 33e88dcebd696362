// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line) and writes
// bench/RESULTS.md. Each bench compares against a baseline measured in the same process, so results
// are ratios as well as absolute figures on this machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machineCheck } from './lib/machine-check';

export interface BenchSection {
  title: string;
  /** Markdown body: what was measured, how, the table of figures and the ratio to the baseline. */
  markdown: string;
}

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const machine = await machineCheck(os.loadavg()[0]!);
console.log(
  `machine check: argon2id ${machine.argon2Ms.toFixed(1)} ms, walk ${machine.walkMs.toFixed(0)} ms, load ${machine.load1.toFixed(2)}`,
);

const sections: BenchSection[] = [];
for (const file of files) {
  console.log(`== ${file}`);
  const mod = (await import(path.join(dir, file))) as { default: () => Promise<BenchSection[]> };
  const out = await mod.default();
  for (const s of out) console.log(`${s.title}\n${s.markdown}\n`);
  sections.push(...out);
}

// A partial run (`npm run bench -- paper`) replaces only its own sections and keeps the others.
// BENCH_RESULTS: another file (a probe run by hand that must not touch the committed results).
const resultsFile = process.env.BENCH_RESULTS
  ? path.resolve(process.env.BENCH_RESULTS)
  : path.join(dir, 'RESULTS.md');
const kept = new Map<string, string>();
if (only.length > 0 && fs.existsSync(resultsFile)) {
  const previous = fs.readFileSync(resultsFile, 'utf8').split(/^## /m).slice(1);
  for (const block of previous) {
    const title = block.slice(0, block.indexOf('\n')).trim();
    kept.set(title, block.slice(block.indexOf('\n') + 1).trim());
  }
}
for (const s of sections) kept.set(s.title, s.markdown.trim());
const all = only.length > 0 ? [...kept] : sections.map((s) => [s.title, s.markdown.trim()] as const);

const header = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` on ${new Date().toISOString()}; node ${process.version}, ${os.cpus().length} cores`,
  `(${os.cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB. Machine check at the start`,
  `(\`bench/lib/machine-check.ts\`): the login's argon2id check ${machine.argon2Ms.toFixed(1)} ms (median of 21), a`,
  `shuffled walk over 1,000,000 objects ${machine.walkMs.toFixed(0)} ms (best of 5); load average ${machine.load1.toFixed(2)}.`,
  '',
].join('\n');
fs.writeFileSync(resultsFile, header + all.map(([title, body]) => `\n## ${title}\n\n${body}\n`).join(''));
console.log(
  `wrote ${path.relative(process.cwd(), resultsFile)} (${sections.length} sections run, ${all.length} in the file)`,
);
