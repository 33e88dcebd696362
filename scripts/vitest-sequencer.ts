import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files in the order two workers finish soonest on the 2-core CI machines: longest first (LPT),
 * with at most one browser test file at a time (each starts a server and a Chromium; e2e/one-at-a-time.ts
 * holds the lock that makes it so). Without it the browser files ran one by one after everything else,
 * with the second worker idle (vitest 864 s measured; README "Tests").
 *
 * Seconds each file took on that machine (a CI run's JSON report, 2026-11-24); a file not listed counts as 3 s.
 */
const SECONDS: Record<string, number> = {
  // 8 kills (was 12: 117 s) and 5 restarts (was 10: 71 s) since 2026-12-07.
  'apps/server/test/bots-crash.test.ts': 80,
  'apps/server/test/market-restart.test.ts': 36,
  // Every bot kind, 5 kills: 132 s on a loaded dev machine (load average 14), not yet in a CI report.
  'apps/server/test/bots-live-emulator-crash.test.ts': 130,
  'e2e/accounts.test.ts': 53,
  'e2e/bot-dca.test.ts': 41,
  'e2e/earnings.test.ts': 31,
  'e2e/arbitrage.test.ts': 30,
  'apps/server/test/backtest-api.test.ts': 22,
  // The fuzz tier, one file per group (was one file of 152 s): measured on the 2-core machine with
  // its load average at 14 (2026-12-01), so on the long side.
  'apps/server/fuzz/bots.fuzz.test.ts': 31,
  'apps/server/fuzz/accounts.fuzz.test.ts': 27,
  'apps/server/fuzz/dca.fuzz.test.ts': 15,
  'apps/server/fuzz/market.fuzz.test.ts': 14,
  'e2e/dashboard.test.ts': 21,
  'apps/server/test/bots-forwarding.test.ts': 19,
  'e2e/shell.test.ts': 19,
  'apps/web/src/shared/trading/TradingScreen.test.tsx': 17,
  'apps/server/test/chain-restart.test.ts': 16,
  'e2e/exchanges.test.ts': 16,
  'e2e/grid-bot.test.ts': 15,
  'apps/server/test/arbitrage-api.test.ts': 14,
  'e2e/signal-bot.test.ts': 14,
  'apps/server/test/spot-crash.test.ts': 13,
  'e2e/global-pending.test.ts': 12,
  'e2e/spot.test.ts': 11,
  'apps/web/src/features/classic-dca/components/DashboardPage.test.tsx': 11,
  'apps/server/test/accounts.test.ts': 10,
  'packages/chain/test/node.test.ts': 10,
  'apps/server/test/forum.test.ts': 9,
  'e2e/forum.test.ts': 9,
  'packages/venues/test/ccxt-derivatives.test.ts': 9,
  'apps/web/src/features/pending/components/GlobalPendingOrdersPage.test.tsx': 9,
  'apps/server/test/hardening.test.ts': 8,
  'apps/server/test/restart.test.ts': 8,
  'apps/server/test/spot-api.test.ts': 8,
  'apps/server/test/bots-group-commit.test.ts': 7,
  'apps/server/test/bots-runner.test.ts': 7,
  'apps/server/test/chain-plans.test.ts': 7,
  'apps/web/src/features/earnings/components/EarningsPoolsPage.test.tsx': 7,
  'apps/web/src/features/arbitrage/components/ArbitragePage.test.tsx': 7,
  'apps/server/test/database.test.ts': 6,
  'apps/server/test/spot-live.test.ts': 6,
  'e2e/futures.test.ts': 6,
  'apps/web/src/features/grid/components/GridBotPage.test.tsx': 6,
  'apps/web/src/shared/backtest/BacktestDialog.test.tsx': 6,
  'apps/server/test/accounts-security.test.ts': 5,
  'apps/server/test/exchanges-paper.test.ts': 5,
  'e2e/backtest.test.ts': 5,
  'e2e/global-history.test.ts': 5,
  'e2e/token.test.ts': 5,
  'packages/chain/test/compile.test.ts': 5,
  'apps/web/test/first-page-split.test.ts': 5,
  'apps/server/test/bots-isolation.test.ts': 4,
  'apps/server/test/chain-api.test.ts': 4,
  'packages/venues/test/simulator-arbitrage.test.ts': 4,
  'apps/web/src/features/grid-dca/components/BotDcaPage.test.tsx': 4,
};
const WORKERS = 2;

export default class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rel = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join('/');
    const cost = (f: TestSpecification) => SECONDS[rel(f)] ?? 3;
    const isE2e = (f: TestSpecification) => f.project.name === 'e2e';
    const left = [...files].sort((a, b) => cost(b) - cost(a) || rel(a).localeCompare(rel(b)));
    // Simulate the workers: whichever frees first takes the longest file it may run.
    const workers = Array.from({ length: WORKERS }, () => ({ until: 0, e2e: false }));
    const order: TestSpecification[] = [];
    while (left.length > 0) {
      const w = workers.reduce((a, b) => (b.until < a.until ? b : a));
      const otherE2e = workers.some((o) => o !== w && o.e2e && o.until > w.until);
      let i = left.findIndex((f) => !(otherE2e && isE2e(f)));
      if (i < 0) i = 0; // only browser files left: the lock serializes them
      const [f] = left.splice(i, 1) as [TestSpecification];
      order.push(f);
      w.until += cost(f);
      w.e2e = isE2e(f);
    }
    return Promise.resolve(order);
  }
}
