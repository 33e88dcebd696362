import { bigint, doublePrecision, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The simulated market's walk (MARKET_DATA=simulated): one row, the MarketSimulator snapshot
 * (`SimulatorSnapshot`) as JSON text, written at most every 30 s and at once when a control price is
 * set, so a restart continues the price series where it was (docs/venues.md). Text, not jsonb: nothing
 * queries inside it, and a jsonb write cost PGlite's event loop about three times as much (migration
 * 0203); compressed since writes are rare (migration 0860, docs/database.md).
 */
export const simState = pgTable('sim_state', {
  id: smallint('id').primaryKey().default(1),
  state: text('state').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Candles of the simulated market that someone asked for; open time `ts` in ms since the epoch. */
export const simCandles = pgTable(
  'sim_candles',
  {
    exchange: text('exchange').notNull(),
    symbol: text('symbol').notNull(),
    timeframe: text('timeframe').notNull(),
    ts: bigint('ts', { mode: 'number' }).notNull(),
    open: doublePrecision('open').notNull(),
    high: doublePrecision('high').notNull(),
    low: doublePrecision('low').notNull(),
    close: doublePrecision('close').notNull(),
    volume: doublePrecision('volume').notNull(),
  },
  (t) => [primaryKey({ columns: [t.exchange, t.symbol, t.timeframe, t.ts] })],
);
