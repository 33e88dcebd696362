import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files in the order two workers finish soonest on the 2-core CI machines: longest first (LPT),
 * with at most one browser test file at a time (each starts a server and a Chromium; e2e/one-at-a-time.ts
 * holds the lock that makes it so). Without it the browser files ran one by one after everything else,
 * with the second worker idle (vitest 864 s measured; README "Tests").
 *
 * Seconds each file took on that machine (`npm test` output); a file not listed counts as 3 s.
 */
const SECONDS: Record<string, number> = {
  'apps/server/test/bots-crash.test.ts': 200,
  'apps/server/test/market-restart.test.ts': 170,
  'apps/server/fuzz/api.fuzz.test.ts': 115,
  'e2e/accounts.test.ts': 93,
  'e2e/earnings.test.ts': 60,
  'e2e/token.test.ts': 40,
  'apps/server/test/chain-restart.test.ts': 27,
  'apps/server/test/chain-api.test.ts': 18,
  'apps/server/test/chain-plans.test.ts': 10,
  'packages/chain/test/node.test.ts': 16,
  'packages/chain/test/compile.test.ts': 10,
  'e2e/grid-bot.test.ts': 76,
  'e2e/signal-bot.test.ts': 53,
  'e2e/bot-dca.test.ts': 54,
  'e2e/arbitrage.test.ts': 49,
  'apps/server/test/spot-crash.test.ts': 45,
  'apps/server/test/backtest-api.test.ts': 45,
  'apps/server/test/bots-runner.test.ts': 35,
  'apps/server/test/bots-forwarding.test.ts': 35,
  'e2e/dashboard.test.ts': 34,
  'e2e/spot.test.ts': 30,
  'e2e/futures.test.ts': 27,
  'e2e/shell.test.ts': 32,
  'apps/server/test/forum.test.ts': 29,
  'apps/server/test/bots-isolation.test.ts': 28,
  'e2e/exchanges.test.ts': 27,
  'apps/server/test/accounts.test.ts': 27,
  'apps/server/test/hardening.test.ts': 26,
  'e2e/global-pending.test.ts': 23,
  'apps/server/test/exchanges-paper.test.ts': 20,
  'apps/server/test/accounts-security.test.ts': 19,
  'apps/web/src/features/dashboard/components/DashboardPage.test.tsx': 18,
  'e2e/forum.test.ts': 18,
  'e2e/global-history.test.ts': 16,
  'apps/web/src/features/pending/components/GlobalPendingOrdersPage.test.tsx': 14,
  'apps/server/test/bots-runner-kinds.test.ts': 12,
  'apps/server/test/arbitrage-api.test.ts': 15,
  'apps/server/test/spot-api.test.ts': 20,
  'apps/server/test/signal-api.test.ts': 10,
  'apps/server/test/futures-api.test.ts': 8,
  'apps/server/test/spot-live.test.ts': 13,
  'apps/server/test/arbitrage-crash.test.ts': 10,
  'e2e/smoke.test.ts': 11,
  'apps/server/test/market.test.ts': 11,
  'apps/server/test/exchanges-live.test.ts': 11,
  'apps/server/test/database.test.ts': 10,
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
