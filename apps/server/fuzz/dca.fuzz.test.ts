import { fuzzGroup } from './harness';

/** The fuzz tier's dca group: Grid Bot DCA, pending orders, bot histories and the dashboard's shared calls (harness.ts, docs/limits.md). */
await fuzzGroup('dca');
