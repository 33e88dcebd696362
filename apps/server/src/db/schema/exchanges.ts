import { jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
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
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [unique('exchange_connections_user_exchange_key').on(t.userId, t.exchange)],
);

/** The DB-backed PaperStore: one JSON state per simulated account (balances, orders, sequence). */
export const paperAccounts = pgTable(
  'paper_accounts',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    state: jsonb('state').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.exchange] })],
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
