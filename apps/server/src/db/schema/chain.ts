import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The embedded chain's contracts (migration 0800, docs/chain.md), deployed again only when they have no code. */
export const chainDeployments = pgTable('chain_deployments', {
  chainId: integer('chain_id').primaryKey(),
  token: text('token').notNull(),
  sale: text('sale').notNull(),
  pool: text('pool').notNull(),
  plans: text('plans').notNull(),
  usdt: text('usdt').notNull(),
  usdc: text('usdc').notNull(),
  owner: text('owner').notNull(),
  deployedAt: ts('deployed_at').notNull().defaultNow(),
});

/** One earnings wallet per user, one user per wallet (checksummed address). */
export const chainWallets = pgTable('chain_wallets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  address: text('address').notNull().unique(),
  linkedAt: ts('linked_at').notNull().defaultNow(),
});

/** The sale's, pool's and plan payments' events as indexed; confirmed after CHAIN_CONFIRMATIONS blocks. */
export const chainEvents = pgTable(
  'chain_events',
  {
    chainId: integer('chain_id').notNull(),
    blockHash: text('block_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    blockTime: ts('block_time').notNull(),
    txHash: text('tx_hash').notNull(),
    contract: text('contract', { enum: ['sale', 'pool', 'plans'] }).notNull(),
    name: text('name').notNull(),
    args: jsonb('args').notNull(),
    account: text('account'),
    confirmed: boolean('confirmed').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.blockHash, t.logIndex] }),
    index('chain_events_block').on(t.chainId, t.blockNumber),
    index('chain_events_account').on(t.chainId, t.account, t.name, t.blockNumber),
    index('chain_events_tx').on(t.txHash),
  ],
);

/** How far the indexer has read, per chain and set of contracts. */
export const chainCursors = pgTable(
  'chain_cursors',
  {
    chainId: integer('chain_id').notNull(),
    contracts: text('contracts').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.contracts] })],
);

/** The bytes32 a user passes to payPlan: it names the user. */
export const chainPaymentRefs = pgTable('chain_payment_refs', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  ref: text('ref').notNull().unique(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/** Confirmed plan payments (one per PlanPaid event); a reorg that removes the event removes the row. */
export const chainPlans = pgTable(
  'chain_plans',
  {
    chainId: integer('chain_id').notNull(),
    blockHash: text('block_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    plan: smallint('plan').notNull(),
    txHash: text('tx_hash').notNull(),
    tokens: numeric('tokens').notNull(),
    usdCents: integer('usd_cents').notNull(),
    paidAt: ts('paid_at').notNull(),
    confirmedAt: ts('confirmed_at').notNull().defaultNow(),
    /** Why this payment did not activate its plan (paid below the price at its block); null: it did. */
    refused: text('refused'),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.blockHash, t.logIndex] }),
    index('chain_plans_user').on(t.userId, t.paidAt),
  ],
);

/** The pool's size every 10 minutes (the earnings chart). */
export const chainSnapshots = pgTable(
  'chain_snapshots',
  {
    chainId: integer('chain_id').notNull(),
    takenAt: ts('taken_at').notNull(),
    poolAvailable: numeric('pool_available').notNull(),
    totalStaked: numeric('total_staked').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.takenAt] })],
);

/** The faucet's last claim per user. */
export const chainFaucetClaims = pgTable('chain_faucet_claims', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  claimedAt: ts('claimed_at').notNull(),
});

/** The embedded chain's owner key (migration 0810): generated per install, sealed with the SecretBox. */
export const chainOwnerKeys = pgTable('chain_owner_keys', {
  chainId: integer('chain_id').primaryKey(),
  address: text('address').notNull(),
  keyEnc: text('key_enc').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/** Sign-in messages handed out to link an earnings wallet (EIP-4361 style): single use, 10 minutes. */
export const chainWalletNonces = pgTable(
  'chain_wallet_nonces',
  {
    nonce: text('nonce').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    message: text('message').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('chain_wallet_nonces_user').on(t.userId),
    index('chain_wallet_nonces_expiry').on(t.expiresAt),
  ],
);
