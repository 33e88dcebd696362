import {
  bigint,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A user's connection to one exchange: `live` (API key and secret, both sealed with the SecretBox,
 * AES-256-GCM) or `paper` (no keys; the account lives in paper_accounts). One per (user, exchange).
 */
export const exchangeConnections = pgTable(
  'exchange_connections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    mode: text('mode', { enum: ['paper', 'live'] }).notNull(),
    apiKeyEnc: text('api_key_enc'),
    apiSecretEnc: text('api_secret_enc'),
    /** The passphrase of OKX, KuCoin and Bitget keys, sealed too (migration 0201). */
    apiPasswordEnc: text('api_password_enc'),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** What the last re-check of a live key found (migration 0880): null = working and trade-only. */
    keyProblem: text('key_problem', { enum: ['revoked', 'can_withdraw'] }),
    /** When a live key was last re-checked (daily job, resume); null before the first re-check. */
    keyCheckedAt: ts('key_checked_at'),
  },
  (t) => [unique('exchange_connections_user_exchange_key').on(t.userId, t.exchange)],
);

/** The DB-backed PaperStore: one row per simulated account (balances and order sequence)... */
export const paperAccounts = pgTable(
  'paper_accounts',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    /** coin -> { free, used }, as PaperVenue keeps it. */
    balances: jsonb('balances').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    /** PaperDerivativesState (migration 0306), saved whole; null before derivatives existed. */
    derivatives: jsonb('derivatives'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.exchange] })],
);

/** ...and one row per order: every open order, and the closed ones for lookups and history. */
export const paperOrders = pgTable(
  'paper_orders',
  {
    userId: uuid('user_id').notNull(),
    exchange: text('exchange').notNull(),
    orderId: text('order_id').notNull(),
    clientOrderId: text('client_order_id'),
    symbol: text('symbol').notNull(),
    status: text('status').notNull(),
    /** The venue's Order object as is. */
    data: jsonb('data').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.exchange, t.orderId] }),
    foreignKey({
      columns: [t.userId, t.exchange],
      foreignColumns: [paperAccounts.userId, paperAccounts.exchange],
    }).onDelete('cascade'),
    index('paper_orders_status_idx').on(t.userId, t.exchange, t.status),
  ],
);

/** Deposit addresses already known for a connection (live: from the exchange; paper: generated). */
export const walletAddresses = pgTable(
  'wallet_addresses',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    coin: text('coin').notNull(),
    address: text('address').notNull(),
    tag: text('tag'),
    network: text('network'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.exchange, t.coin] })],
);
