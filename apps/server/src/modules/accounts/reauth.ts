import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { sessions } from '../../db/schema/index';
import { HttpError, unauthorized } from '../../lib/errors';

/**
 * Re-authentication for what cannot be undone (issue 37 point 8; docs/accounts.md, "Re-authentication"):
 * deleting the account, turning 2FA on or off, rotating a webhook secret (shown once; there is no reveal). A session is
 * "recently authenticated" for REAUTH_WINDOW_MS after its login (created_at) or after its last
 * `POST /api/reauth {password, code?}` (reauth_at). The spec's body-less calls keep their shape: the
 * app confirms the password first, then retries the call.
 */

/** 5 minutes, in ms. */
export const REAUTH_WINDOW_MS = 5 * 60_000;

export const REAUTH_REQUIRED_MESSAGE = 'Confirm your password to continue';
/** Machine-readable marker in the 403 body (`error_code`), which the web app answers with its password modal. */
export const REAUTH_REQUIRED_CODE = 'reauth_required';

/** A 403 whose body carries `error_code: 'reauth_required'` (a 401 would log the app out). */
export const reauthRequired = () =>
  new HttpError(403, REAUTH_REQUIRED_MESSAGE, { error_code: REAUTH_REQUIRED_CODE });

/** ms since the epoch of the session's last authentication (login or reauth), or null when it is gone. */
export async function lastAuthenticatedAt(db: Db, sessionId: string): Promise<number | null> {
  // Always read from the database (not the session cache): a sensitive action is rare and must see
  // a reauth made a moment ago, possibly by another process.
  const [row] = await db
    .select({ createdAt: sessions.createdAt, reauthAt: sessions.reauthAt })
    .from(sessions)
    .where(eq(sessions.id, sessionId))
    .limit(1);
  if (!row) return null;
  return Math.max(row.createdAt.getTime(), row.reauthAt?.getTime() ?? 0);
}

/** Throws 403 'Confirm your password to continue' unless the session authenticated in the last 5 minutes. */
export async function assertRecentAuth(
  ctxOrDb: AppContext | Db,
  sessionId: string,
  now = Date.now(),
): Promise<void> {
  const db = 'db' in ctxOrDb && 'config' in ctxOrDb ? ctxOrDb.db : ctxOrDb;
  const at = await lastAuthenticatedAt(db, sessionId);
  if (at === null) throw unauthorized('Session expired or invalid. Please log in again.');
  if (now - at > REAUTH_WINDOW_MS) throw reauthRequired();
}

/**
 * A Fastify preHandler for a route that already has `onRequest: app.authenticate`:
 * `preHandler: requireRecentAuth(ctx)`. 401 without a session user, 403 reauth_required when stale.
 */
export function requireRecentAuth(ctx: AppContext): preHandlerAsyncHookHandler {
  return async function recentAuth(request: FastifyRequest, _reply: FastifyReply) {
    if (!request.user) throw unauthorized();
    await assertRecentAuth(ctx.db, request.user.sessionId);
  };
}

/**
 * True when the session confirmed the password (and the code, with 2FA on) through POST /api/reauth
 * in the last 5 minutes — not merely logged in.
 */
export async function confirmedRecently(db: Db, sessionId: string, now = Date.now()): Promise<boolean> {
  const [row] = await db
    .select({ reauthAt: sessions.reauthAt })
    .from(sessions)
    .where(eq(sessions.id, sessionId))
    .limit(1);
  const at = row?.reauthAt?.getTime();
  return at !== undefined && now - at <= REAUTH_WINDOW_MS;
}

/** Records a successful password (+ TOTP) confirmation on the session. */
export async function markReauthenticated(db: Db, sessionId: string, at = new Date()): Promise<void> {
  await db.update(sessions).set({ reauthAt: at }).where(eq(sessions.id, sessionId));
}
