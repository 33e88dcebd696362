import { bigint, boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Mailed 6-digit codes (sign-up and password change). Only an HMAC of the code is stored; a code is
 * good for 10 minutes, once, and for at most 5 wrong tries.
 */
export const emailCodes = pgTable(
  'email_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    purpose: text('purpose', { enum: ['register', 'password_change'] }).notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** null for a send that mailed no code (sign-up asked for an email that already has an account). */
    codeHash: text('code_hash'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
  },
  (t) => [index('email_codes_email_purpose_idx').on(t.email, t.purpose, t.createdAt)],
);

/** A user's TOTP two-factor state; the secrets are sealed with the master key (SecretBox). */
export const userTotp = pgTable('user_totp', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretEnc: text('secret_enc'),
  enabled: boolean('enabled').notNull().default(false),
  /** A secret shown by /api/generate_2fa and not yet confirmed with a code. */
  pendingSecretEnc: text('pending_secret_enc'),
  /** The RFC 6238 time step of the last accepted code: a code is accepted once only. */
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  lockedUntil: ts('locked_until'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Per-account login backoff (migration 0841; accounts/login-backoff.ts): failed logins per normalized
 * email across every address, the time before which no password is checked, and the last warning mail.
 */
export const loginBackoff = pgTable(
  'login_backoff',
  {
    email: text('email').primaryKey(),
    failures: integer('failures').notNull().default(0),
    lastFailureAt: ts('last_failure_at').notNull(),
    blockedUntil: ts('blocked_until'),
    notifiedAt: ts('notified_at'),
  },
  (t) => [index('login_backoff_last_failure_idx').on(t.lastFailureAt)],
);
