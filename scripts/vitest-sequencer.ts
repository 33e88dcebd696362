import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files in the order two workers finish soonest on the 2-core CI machines: longest first (LPT),
 * with at most one browser test file at a time (each starts a server and a Chromium; e2e/one-at-a-time.ts
 * holds the lock that makes it so). Without it the browser files ran one by one after everything else,
 * with the second worker idle (vitest 864 s measured; README "Tests").
 *
 * Seconds each file took in a full `npm test` on the 2-core machine (its JSON report, 2026-12-07: the
 * file's run plus ~2 s of its import; quiet machine, static checks beside); a file not listed counts as
 * 3 s. Refresh it from a full run's report when files grow: a long file taken as short ends the run late.
 * Estimated, not measured in a full run (old value x the file's CPU after / before, side by side on the
 * loaded machine, after the crash campaigns moved to the bench): bots-live-emulator-crash 131 -> 100,
 * bots-crash 101 -> 46, market-restart 66 -> 38, database 44 -> 31, sim-store 36 -> 22; e2e/accounts
 * 85 -> 64 (its CPU did not change: the ~19 s it waited on average for the TOTP clock is what went);
 * browser files whose waits for the page's timers went (docs/performance.md "Browser tests: waits for the
 * page's timers"; old x wall time alone after / before, load 8-19): bot-dca 51 -> 18, arbitrage 39 -> 22,
 * shell 36 -> 27, spot 27 -> 21, dashboard 27 -> 12, signal-bot 20 -> 15, grid-bot 19 -> 14.
 */
const SECONDS: Record<string, number> = {
  'apps/server/test/bots-live-emulator-crash.test.ts': 100,
  // Issue 40's route walks (helpers' own runs on a loaded machine, not yet from a full run's report):
  // every route at 2 widths x 2 languages x logged out/in with axe; every route in both languages.
  'e2e/a11y-layout.test.ts': 100,
  'e2e/one-language.test.ts': 50,
  'e2e/bot-row-chart.test.ts': 15,
  'e2e/accounts.test.ts': 64,
  'apps/server/test/bots-forwarding.test.ts': 48,
  'apps/server/test/bots-crash.test.ts': 46,
  'apps/server/test/market-restart.test.ts': 38,
  'e2e/earnings.test.ts': 37,
  'packages/venues/test/emulator/bybit-v5.test.ts': 37,
  'apps/server/test/database.test.ts': 31,
  'apps/server/test/secrets-master-key.test.ts': 31,
  'apps/server/test/bots-runner.test.ts': 27,
  'e2e/shell.test.ts': 27,
  'apps/server/test/chain-restart.test.ts': 25,
  'apps/web/src/shared/trading/TradingScreen.test.tsx': 25,
  'apps/server/test/bots-group-commit.test.ts': 24,
  'apps/server/test/exchanges-paper.test.ts': 24,
  'apps/server/test/hardening.test.ts': 23,
  'apps/server/test/sim-store.test.ts': 22,
  'e2e/arbitrage.test.ts': 22,
  'apps/server/test/accounts.test.ts': 21,
  'apps/server/test/restart.test.ts': 21,
  'e2e/spot.test.ts': 21,
  'packages/venues/test/emulator/binance-usdm.test.ts': 21,
  'apps/server/test/spot-crash.test.ts': 20,
  'e2e/exchanges.test.ts': 20,
  'apps/web/src/features/classic-dca/components/DashboardPage.test.tsx': 18,
  'e2e/bot-dca.test.ts': 18,
  'e2e/forum.test.ts': 18,
  'apps/server/test/backtest-api.test.ts': 17,
  'e2e/global-pending.test.ts': 16,
  'apps/server/test/exchanges-withdraw-check.test.ts': 15,
  'apps/server/test/readme.test.ts': 15,
  'e2e/backtest.test.ts': 15,
  'e2e/signal-bot.test.ts': 15,
  'apps/server/test/arbitrage-api.test.ts': 14,
  'apps/server/test/bots-client-ids.test.ts': 14,
  'apps/server/test/spot-api.test.ts': 14,
  'apps/web/src/features/earnings/components/EarningsPoolsPage.test.tsx': 14,
  'apps/web/src/features/pending/components/GlobalPendingOrdersPage.test.tsx': 14,
  'e2e/grid-bot.test.ts': 14,
  'e2e/token.test.ts': 14,
  'packages/chain/test/node.test.ts': 14,
  'apps/server/test/forum.test.ts': 13,
  'e2e/futures.test.ts': 13,
  'apps/server/fuzz/market.fuzz.test.ts': 12,
  'e2e/dashboard.test.ts': 12,
  'apps/web/src/features/grid/components/GridBotPage.test.tsx': 11,
  'e2e/global-history.test.ts': 11,
  'packages/venues/test/ccxt-derivatives.test.ts': 11,
  'packages/venues/test/conformance/errors.test.ts': 11,
  'packages/venues/test/emulator/binance-spot.test.ts': 11,
  'apps/server/test/accounts-security.test.ts': 10,
  'apps/server/test/backtest-uploads.test.ts': 10,
  'apps/server/test/bots-runner-kinds.test.ts': 10,
  'apps/server/test/chain-api.test.ts': 10,
  'apps/server/test/chain-plans.test.ts': 10,
  'apps/server/test/kind-ids.test.ts': 10,
  'apps/server/test/retention.test.ts': 10,
  'apps/server/test/spot-live.test.ts': 10,
  'apps/web/src/features/arbitrage/components/ArbitragePage.test.tsx': 10,
  'apps/web/src/features/token/components/BuyTokenModal.test.tsx': 10,
  'apps/web/src/features/wallet/components/WalletPage.test.tsx': 10,
  'apps/web/test/accounts-security.test.tsx': 10,
  'packages/venues/test/conformance/order-lookups.test.ts': 10,
  'apps/server/fuzz/accounts.fuzz.test.ts': 9,
  'apps/server/test/accounts-limits.test.ts': 9,
  'apps/server/test/bots-isolation.test.ts': 9,
  'apps/server/test/load-shedding.test.ts': 9,
  'apps/web/src/shared/backtest/BacktestDialog.test.tsx': 9,
  'apps/server/fuzz/bots.fuzz.test.ts': 8,
  'apps/server/test/arbitrage-crash.test.ts': 8,
  'apps/server/test/chain-security.test.ts': 8,
  'apps/web/src/features/grid-dca/components/BotDcaPage.test.tsx': 8,
  'apps/web/src/features/signal/components/SignalBotPage.test.tsx': 8,
  'apps/server/fuzz/dca.fuzz.test.ts': 7,
  'apps/server/test/bots-cap.test.ts': 7,
  'apps/server/test/bots-kind-module.test.ts': 7,
  'apps/server/test/health.test.ts': 7,
  'apps/web/src/shared/backtest/wiring.test.tsx': 7,
  'e2e/landing-prerender.test.ts': 7,
  'packages/chain/test/compile.test.ts': 7,
  'packages/engine/test/classic-dca/classic-dca.property.test.ts': 7,
  'packages/venues/test/ccxt-venue.test.ts': 7,
  'apps/server/test/bots-lease.test.ts': 6,
  'apps/server/test/bots-unmapped-error.test.ts': 6,
  'apps/server/test/bybit-emulator.test.ts': 6,
  'apps/server/test/exchanges-key-recheck.test.ts': 6,
  'apps/server/test/session-cache.test.ts': 6,
  'apps/web/src/features/history/components/GlobalHistoryPage.test.tsx': 6,
  'apps/web/src/features/settings/components/ExchangeSection.test.tsx': 6,
  'packages/engine/test/grid-dca/dca.property.test.ts': 6,
  'packages/engine/test/grid-dca/dca.quiet.property.test.ts': 6,
  'packages/engine/test/manual/manual.property.test.ts': 6,
  'packages/venues/test/conformance/positions.test.ts': 6,
  'packages/venues/test/simulator-arbitrage.test.ts': 6,
  'apps/server/test/bots-order-lost.test.ts': 5,
  'apps/server/test/market.test.ts': 5,
  'apps/server/test/platform.test.ts': 5,
  'apps/server/test/signal-api.test.ts': 5,
  'apps/web/src/shared/bots/PendingActions.test.tsx': 5,
  'apps/web/test/first-page-split.test.ts': 5,
  'packages/venues/test/conformance/derivatives.test.ts': 5,
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
