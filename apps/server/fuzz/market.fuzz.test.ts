import { fuzzGroup } from './harness';

/** The fuzz tier's market group: market data, exchange connections, wallet, spot and futures, chain and earnings (harness.ts, docs/limits.md). */
await fuzzGroup('market');
