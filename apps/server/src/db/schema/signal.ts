import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { bots } from './bots';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A Signal bot's webhook (migrations 0308, 0830): the hash of its secret and the last signal seq it gave
 * out. The secret itself is shown once (creation, rotation) and never stored.
 */
export const signalBots = pgTable('signal_bots', {
  botId: uuid('bot_id')
    .primaryKey()
    .references(() => bots.id, { onDelete: 'cascade' }),
  /** SHA-256 hex of the webhook secret (32 random bytes, base64url); null only before conversion. */
  secretHash: text('secret_hash'),
  /** Legacy: the sealed secret of migration 0308, hashed and cleared on start (secrets.ts). */
  secretEnc: text('secret_enc'),
  /** Seq of the last accepted signal; bumped in the transaction that records the next one. */
  lastSeq: integer('last_seq').notNull().default(0),
  secretRotatedAt: ts('secret_rotated_at'),
  secretRotatedReason: text('secret_rotated_reason', { enum: ['user', 'password_change'] }),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export type SignalEventStatus = 'accepted' | 'executed' | 'skipped' | 'rejected' | 'duplicate';

/** One order a signal produced, as the log shows it. */
export interface SignalEventOrder {
  client_order_id: string;
  side: 'buy' | 'sell';
  amount: number;
  price: number | null;
  status: string;
}

/** Every signal posted to a bot's webhook: accepted (then executed or skipped) or rejected and why. */
export const signalEvents = pgTable(
  'signal_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    botId: uuid('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    /** Per-bot sequence of accepted signals; null for rejected and duplicate rows. */
    seq: integer('seq'),
    /** The payload's `id`. */
    signalKey: text('signal_key'),
    receivedAt: ts('received_at').notNull().defaultNow(),
    sourceIp: text('source_ip'),
    /** The payload without its secret. */
    payload: jsonb('payload').$type<Record<string, unknown>>(),
    action: text('action'),
    amount: numeric('amount', { mode: 'string' }),
    status: text('status', { enum: ['accepted', 'executed', 'skipped', 'rejected', 'duplicate'] }).notNull(),
    /** A SIGNAL_REASONS code. */
    reason: text('reason'),
    reasonText: text('reason_text'),
    orders: jsonb('orders').$type<SignalEventOrder[]>().notNull().default([]),
    executedAt: ts('executed_at'),
  },
  (t) => [
    uniqueIndex('signal_events_seq_uq')
      .on(t.botId, t.seq)
      .where(sql`seq IS NOT NULL`),
    uniqueIndex('signal_events_key_uq')
      .on(t.botId, t.signalKey)
      .where(sql`seq IS NOT NULL AND signal_key IS NOT NULL`),
    index('signal_events_bot_idx').on(t.botId, t.id.desc()),
    index('signal_events_accepted_idx')
      .on(t.botId, t.seq)
      .where(sql`status = 'accepted'`),
  ],
);
