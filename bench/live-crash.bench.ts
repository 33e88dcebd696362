// The live path's long crash campaign (issue 38 #7): every bot kind and the spot screen's manual
// orders on an emulated live Binance account (packages/venues/src/emulator behind BINANCE_EMULATOR_URL;
// the arbitrage bot's other leg on the Bybit v5 emulator behind BYBIT_EMULATOR_URL),
// 20 % of the exchange's requests faulted, the platform (`apps/server/src/main.ts` in a child process,
// e2e/harness.ts) SIGKILLed at least 100 times at random moments, some right after an order call. The
// campaign is apps/server/test/live-crash/campaign.ts, whose short form (3 named kills) runs in `npm test`
// (apps/server/test/bots-live-emulator-crash.test.ts). Figures: kills, orders, faults by kind, problems
// found (must be 0), duration; baseline: the campaign's first, fresh start of the server, against which
// each restart after a kill (reconcile of every live order included) is a ratio.
import { buildServerBundle } from '../scripts/server-bundle';
import { ensureDatabaseSnapshot } from '../apps/server/test/db-snapshot';
import { PAIRS, runLiveCrashCampaign } from '../apps/server/test/live-crash/campaign';
import type { BenchSection } from './run';

const KILLS = Number(process.env.LIVE_CRASH_KILLS ?? 100);
const FAULT_RATE = 0.2;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] ?? 0;
};
const n = (x: number) => x.toLocaleString('en-US');

export default async function liveCrashBench(): Promise<BenchSection[]> {
  // The server as the tests start it: the bundle (2 s less per start) on the migrated snapshot.
  await ensureDatabaseSnapshot();
  process.env.BYTX_SERVER_BUNDLE = await buildServerBundle();
  const r = await runLiveCrashCampaign({ kills: KILLS, faultRate: FAULT_RATE, seed: 3838, log: console.log });
  const faults = Object.entries(r.faults);
  const totalFaults = faults.reduce((a, [, v]) => a + v, 0);
  const journaled = Object.values(r.journalByKind).reduce((a, v) => a + v, 0);
  const p50 = pct(r.restartMs, 0.5);
  const p95 = pct(r.restartMs, 0.95);
  const kinds = Object.entries(r.journalByKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${n(v)}`)
    .join(', ');
  return [
    {
      title:
        'Live path crash campaign: every bot kind on the Binance and Bybit emulators, 20 % faults, SIGKILLs',
      markdown: [
        `One user, one live Binance account that is the exchange emulator (\`packages/venues/src/emulator\`,`,
        `BINANCE_EMULATOR_URL), bots of every kind started through the API: Grid Bot DCA (${PAIRS.gridDca}),`,
        `classic DCA (${PAIRS.classicDca}), Grid (${PAIRS.grid}), Signal (${PAIRS.signal}, signals through its webhook)`,
        `and Arbitrage (${PAIRS.arbitrage}, against a live Bybit account that is the Bybit v5 emulator,`,
        'BYBIT_EMULATOR_URL, faulted and checked the same way), plus',
        `the spot screen's manual orders on ${PAIRS.manual} (market and limit, buy and sell, some cancelled).`,
        `Prices move every 100–300 ms; ${FAULT_RATE * 100} % of the exchanges' requests are faulted at random;`,
        'the server is SIGKILLed after 1.5–3.5 s of trading each time, at a random moment or right after an',
        'order call (answered, or still in flight). At the end the faults stop and the last server reconciles;',
        "then the emulator's ledger is compared with the journal (bot_orders: fate and fill of every order, none",
        'placed twice, none lost) and the balances with what GET /api/wallet shows and the journal’s fills.',
        `Campaign: apps/server/test/live-crash/campaign.ts (the short form runs in \`npm test\`).`,
        '',
        '| figure | value |',
        '| --- | ---: |',
        `| SIGKILLs | ${n(r.kills)} |`,
        `| … at a random moment | ${n(r.killsBy.random)} |`,
        `| … with a manual order in flight | ${n(r.killsBy['order-in-flight'])} |`,
        `| … right after a manual order's answer | ${n(r.killsBy['order-answered'])} |`,
        `| … with a signal in flight | ${n(r.killsBy['signal-in-flight'])} |`,
        `| orders on the exchanges (filled in part or whole) | ${n(r.exchangeOrders)} (${n(r.exchangeFilled)}) |`,
        `| journaled orders on the exchanges (kind@bybit: on Bybit) | ${n(journaled)} (${kinds}) |`,
        `| orders on Binance / Bybit (filled) | ${n(r.byExchange.binance.orders)} (${n(r.byExchange.binance.filled)}) / ${n(r.byExchange.bybit.orders)} (${n(r.byExchange.bybit.filled)}) |`,
        `| manual orders placed / refused (4xx) / failed (5xx, cut) / cancelled | ${n(r.manual.placed)} / ${n(r.manual.refused)} / ${n(r.manual.failed)} / ${n(r.manual.cancels)} |`,
        `| signals sent / accepted / failed | ${n(r.signals.sent)} / ${n(r.signals.accepted)} / ${n(r.signals.failed)} |`,
        `| exchange requests / faulted | ${n(r.requests)} / ${n(totalFaults)} |`,
        ...faults.map(([k, v]) => `| fault: ${k} | ${n(v)} |`),
        `| resends refused as duplicates (same client id, never executed) | ${n(r.duplicateAttempts)} |`,
        `| **problems found** (ledger ≠ journal, placed twice, lost, balances) | **${n(r.problems.length)}** |`,
        `| bots left with a problem | ${n(r.botProblems.length)} |`,
        `| duration | ${(r.durationMs / 60_000).toFixed(1)} min |`,
        '',
        `Restart after a kill, to /api/health answering: p50 ${n(p50)} ms, p95 ${n(p95)} ms; baseline: the`,
        `campaign's first start on a fresh data directory, ${n(r.firstStartMs)} ms; ratio p50 ${(p50 / r.firstStartMs).toFixed(2)}×.`,
        ...(r.problems.length > 0
          ? ['', 'Problems:', '', ...r.problems.slice(0, 20).map((p) => `- ${p}`)]
          : []),
        ...(r.botProblems.length > 0
          ? ['', 'Bots with a problem:', '', ...r.botProblems.map((p) => `- ${p}`)]
          : []),
      ].join('\n'),
    },
  ];
}
