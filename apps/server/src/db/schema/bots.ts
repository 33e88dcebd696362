import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const money = (name: string) => numeric(name, { mode: 'string' });

/** One bot per row; `kind` is its kind's id (contract kinds.ts; migration 0890), `state` is that strategy's state, persisted after every event. */
export const bots = pgTable(
  'bots',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull().default('grid-dca'),
    exchange: text('exchange').notNull(),
    /** The user's pair (BTC/USDT); the exchange's symbol is marketSymbol(symbol, marketType). */
    symbol: text('symbol').notNull(),
    /** Spot, Perpetual, Inverse or Margin (migration 0306). */
    marketType: text('market_type', { enum: ['Spot', 'Perpetual', 'Inverse', 'Margin'] })
      .notNull()
      .default('Spot'),
    /** Leverage of a derivatives bot's positions, set on the exchange before its first order. */
    leverage: integer('leverage').notNull().default(1),
    /** amount, tp, sep, os, apartado (market type), leverage, direction. */
    config: jsonb('config').notNull(),
    state: jsonb('state').notNull(),
    status: text('status', { enum: ['active', 'stopped', 'error'] })
      .notNull()
      .default('active'),
    stopReason: text('stop_reason'),
    /** Why an active bot cannot trade now (BOT_PROBLEMS in the contract); null when it can. */
    problem: text('problem', { enum: ['pair_delisted', 'auth_failed', 'cannot_run', 'key_can_withdraw'] }),
    problemDetail: text('problem_detail'),
    sl: money('sl'),
    tpPlus: money('tp_plus'),
    raEnabled: boolean('ra_enabled').notNull().default(false),
    pnl: money('pnl').notNull().default('0'),
    startedAt: ts('started_at').notNull().defaultNow(),
    stoppedAt: ts('stopped_at'),
    /** Runner process holding the bot (DESIGN.md principle 10) and until when. */
    leasedBy: text('leased_by'),
    leaseUntil: ts('lease_until'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('bots_user_idx').on(t.userId),
    // Manual orders (kind 'manual', the spot and futures screens) are many per pair (migration 0309).
    uniqueIndex('bots_one_active_per_pair')
      .on(t.userId, t.kind, t.exchange, t.symbol)
      .where(sql`status = 'active' AND kind <> 'manual'`),
    uniqueIndex('bots_one_derivatives_per_market')
      .on(t.userId, t.exchange, t.symbol, t.marketType)
      .where(sql`status = 'active' AND market_type <> 'Spot' AND kind <> 'manual'`),
    index('bots_manual_idx')
      .on(t.userId, t.exchange, t.status)
      .where(sql`kind = 'manual'`),
    uniqueIndex('bots_one_active_arbitrage')
      .on(t.userId)
      .where(sql`status = 'active' AND kind = 'arbitrage'`),
  ],
);

/** The orders journal: written BEFORE the venue is called (DESIGN.md principle 5). */
export const botOrders = pgTable(
  'bot_orders',
  {
    clientOrderId: text('client_order_id').primaryKey(),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    venueOrderId: text('venue_order_id'),
    /** The exchange it went to when not the bot's own (a strategy trading two markets); null: the bot's. */
    exchange: text('exchange'),
    symbol: text('symbol').notNull(),
    side: text('side', { enum: ['buy', 'sell'] }).notNull(),
    type: text('type', { enum: ['market', 'limit'] }).notNull(),
    price: money('price'),
    amount: money('amount').notNull(),
    role: text('role').notNull(),
    status: text('status', { enum: ['pending_submit', 'open', 'filled', 'cancelled', 'rejected'] })
      .notNull()
      .default('pending_submit'),
    /** The strategy asked to cancel it; a restart cancels it again if still open. */
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    filled: money('filled').notNull().default('0'),
    avgPrice: money('avg_price'),
    fee: money('fee').notNull().default('0'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('bot_orders_bot_status_idx').on(t.botId, t.status)],
);

/** Closed buy-to-sell trades (one per closed lot). */
export const botTrades = pgTable(
  'bot_trades',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    symbol: text('symbol').notNull(),
    /** Strategy's lot id: one history row per closed lot, idempotent across replays. */
    lotKey: text('lot_key').notNull(),
    buyTime: ts('buy_time').notNull(),
    sellTime: ts('sell_time').notNull(),
    qty: money('qty').notNull(),
    buyPrice: money('buy_price').notNull(),
    sellPrice: money('sell_price').notNull(),
    pnlNet: money('pnl_net').notNull(),
    fees: money('fees').notNull().default('0'),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** The lot this sale closed (a lot sold in parts has several rows; lot_key is unique per sale). */
    lotId: text('lot_id'),
    /** Deleted by the user from the history pages: hidden from every list and total, kept for replay. */
    deletedAt: ts('deleted_at'),
    /** Arbitrage: the exchange of the sell (`exchange` is the buy's); null: every other kind (both on `exchange`). */
    sellExchange: text('sell_exchange'),
    /**
     * A manual order's round trip (kind 'manual', the spot and futures screens): left out of the bot
     * histories and their rollups. Set from the bot's kind by a trigger on insert (migration 0309).
     */
    manual: boolean('manual').notNull().default(false),
  },
  (t) => [
    index('bot_trades_bot_idx').on(t.botId, t.sellTime),
    index('bot_trades_user_idx').on(t.userId, t.sellTime),
    uniqueIndex('bot_trades_lot_uq').on(t.botId, t.lotKey),
  ],
);

/** Every decision that skips, delays or changes something: rendered by the UI in en and es by `code`. */
export const botEvents = pgTable(
  'bot_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    ts: ts('ts').notNull().defaultNow(),
    level: text('level', { enum: ['info', 'warn', 'error'] })
      .notNull()
      .default('info'),
    code: text('code').notNull(),
    params: jsonb('params').notNull().default({}),
  },
  (t) => [index('bot_events_bot_idx').on(t.botId, t.id)],
);

/** Per-user bot settings: market type (apartado) and leverage per exchange + symbol ('' = any). */
export const botUserSettings = pgTable(
  'bot_user_settings',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull().default(''),
    symbol: text('symbol').notNull().default(''),
    apartado: text('apartado'),
    leverage: integer('leverage'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.exchange, t.symbol] })],
);

/**
 * User actions forwarded to the runner process holding a bot's lease (migration 0301): written by the
 * process that got the request, carried out by the holder. pending → running → done | failed.
 */
export const botActions = pgTable(
  'bot_actions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    runnerId: text('runner_id').notNull(),
    /** The StrategyEvent (set_sl, set_tp_plus, set_ra, relocate, stop). */
    event: jsonb('event').notNull(),
    /** For a stop: how long the holder waits for the strategy to report stopped (ms). */
    stopTimeoutMs: integer('stop_timeout_ms'),
    status: text('status', { enum: ['pending', 'running', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    /** A stop's outcome: stopped within the timeout. */
    ok: boolean('ok'),
    error: text('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    doneAt: ts('done_at'),
  },
  (t) => [
    index('bot_actions_pending_idx')
      .on(t.runnerId)
      .where(sql`status = 'pending'`),
  ],
);

/** Periodic server jobs (migration 0304): the next run survives restarts; one process claims a run. */
export const scheduledJobs = pgTable('scheduled_jobs', {
  name: text('name').primaryKey(),
  nextRunAt: ts('next_run_at').notNull(),
  claimedBy: text('claimed_by'),
  claimedUntil: ts('claimed_until'),
  lastRunAt: ts('last_run_at'),
  lastResult: jsonb('last_result'),
});
