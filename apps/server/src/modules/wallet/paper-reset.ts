import { fillMessage, WALLET_RESET_MESSAGES, type ExchangeKey } from '@bytx/contract';
import { and, eq, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { bots, paperAccounts } from '../../db/schema/index';
import type { VenueRegistry } from '../../context';
import { HttpError } from '../../lib/errors';

/** The registry's `evict` (DbVenueRegistry has it): closes the cached venue so nothing saves over the reset. */
type Evictable = VenueRegistry & { evict(userId: string, exchange: ExchangeKey): Promise<void> };
const canEvict = (r: VenueRegistry): r is Evictable => typeof (r as { evict?: unknown }).evict === 'function';

/**
 * "Reset balances" of a paper account (issue 37 point 17): the account's row and its orders are
 * deleted, and the next use of the venue seeds it again (10,000 USDT spot, the derivatives seed),
 * exactly as on the first connect. The deposit addresses stay (they are derived, not stored state).
 *
 * Refused (409, nothing changed) while anything of the user runs on that account: an active bot of
 * any kind (Grid Bot DCA, classic DCA, grid, signal, the arbitrage bot on either of its exchanges) or
 * an open order or position of the spot and futures screens (kind 'manual'). Those hold orders and
 * lots whose funds the reset would take away; the user stops them first. The caller checks that the
 * connection is paper.
 */
export async function resetPaperAccount(
  db: Db,
  registry: VenueRegistry,
  userId: string,
  exchange: ExchangeKey,
): Promise<void> {
  const running = await db
    .select({ kind: bots.kind, n: sql<number>`count(*)::int` })
    .from(bots)
    .where(
      and(
        eq(bots.userId, userId),
        eq(bots.status, 'active'),
        or(
          eq(bots.exchange, exchange),
          // The arbitrage bot's row names one exchange; both are in its config.
          sql`${bots.config} -> 'exchanges' @> ${JSON.stringify([exchange])}::jsonb`,
        ),
      ),
    )
    .groupBy(bots.kind);
  const n = running.reduce((s, r) => s + Number(r.n), 0);
  if (n > 0) {
    throw new HttpError(
      409,
      fillMessage(WALLET_RESET_MESSAGES.botsRunning, {
        n,
        kinds: running.map((r) => (r.kind === 'manual' ? 'spot/futures orders' : r.kind)).join(', '),
      }),
      { code: 'bots_running', running: n },
    );
  }
  if (!canEvict(registry)) throw new Error('The venue registry cannot close a venue (evict)');
  // Closing waits for the venue's saves in flight, so none lands after the delete below.
  await registry.evict(userId, exchange);
  // paper_orders go with the account (foreign key ON DELETE CASCADE).
  await db
    .delete(paperAccounts)
    .where(and(eq(paperAccounts.userId, userId), eq(paperAccounts.exchange, exchange)));
}
