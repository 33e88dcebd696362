import { fuzzGroup } from './harness';

/** The fuzz tier's bots group: classic DCA, grid, arbitrage, signal bots, backtests, and any operation no other group names (harness.ts, docs/limits.md). */
await fuzzGroup('bots');
