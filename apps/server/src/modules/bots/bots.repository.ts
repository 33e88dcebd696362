import { MANUAL_KIND } from '@bytx/engine';
import { and, asc, count, desc, eq, inArray, isNull, ne, notInArray, sql, sum } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { botActions, botEvents, botOrders, bots, botTrades, botUserSettings } from '../../db/schema/index';
import {
  LIVE_ORDER_STATUSES,
  type BotEventRow,
  type BotOrderRow,
  type BotRow,
  type BotTradeRow,
  type BotWrite,
  type NewBotEventRow,
  type NewBotOrderRow,
  type NewBotRow,
} from './bots.rows';
import { readCacheFor, type ReadCache } from './read-cache';
import { strategyIdOf } from './strategy-id';

// The row types moved to bots.rows.ts (so the runner need not import the repository); re-exported here
// for the modules that read them with the repository.
export {
  LIVE_ORDER_STATUSES,
  type BotEventRow,
  type BotOrderRow,
  type BotRow,
  type BotTradeRow,
  type BotWrite,
  type NewBotEventRow,
  type NewBotOrderRow,
  type NewBotRow,
  type NewBotTradeRow,
} from './bots.rows';

/**
 * Manual orders of the spot and futures screens run as bots of this kind (modules/trading): they
 * are not bots to the user, so the lists and counts below leave them out unless asked for them.
 */
const notManual = ne(bots.kind, MANUAL_KIND);

/**
 * Bots, their orders, trades, events and settings. Every write here also drops the read cache of the
 * bot's user (read-cache.ts; docs/read-path.md), after it completes; rows read teach the cache whose
 * bot is whose.
 */
export class BotsRepository {
  /** The read cache of this database (shared by every repository on it). */
  readonly reads: ReadCache;

  constructor(private readonly db: Db) {
    this.reads = readCacheFor(db, strategyIdOf);
  }

  /** Notes the owners of rows read (so a later write to one of them drops only its user's answers). */
  private owned<T extends { id: string; userId: string } | null>(row: T): T {
    if (row) this.reads.noteOwner(row.id, row.userId);
    return row;
  }
  private ownedAll<T extends { id: string; userId: string }>(rows: T[]): T[] {
    for (const r of rows) this.reads.noteOwner(r.id, r.userId);
    return rows;
  }

  /** Runs a write of the user's bot data, then drops the user's cached answers (also when it failed). */
  private async forUser<T>(userId: string, fn: () => PromiseLike<T>): Promise<T> {
    try {
      return await this.reads.attributed(fn);
    } finally {
      this.reads.touchUser(userId);
    }
  }
  /** The same for a write known by its bot id. */
  private async forBot<T>(botId: string, fn: () => PromiseLike<T>): Promise<T> {
    try {
      return await this.reads.attributed(fn);
    } finally {
      this.reads.touchBot(botId);
      // The runner sets its in-memory state right after the write resolves: answers computed in between
      // may have read the state before it, so they are dropped once more on the next turn.
      setImmediate(() => this.reads.touchBot(botId));
    }
  }

  /**
   * Inserts a bot. With `cap`, only while the user has fewer than `cap.max` active bots (kinds in
   * `cap.except` and manual orders not counted), else `cap.full()` is thrown: counted and inserted under
   * a per-user transaction lock, so starts arriving at once cannot pass the cap together.
   */
  async insertBot(
    row: NewBotRow,
    cap?: { max: number; except: string[]; full: () => Error },
  ): Promise<BotRow> {
    const bot = await this.forUser(row.userId, () => this.insertBotRow(row, cap));
    return this.owned(bot);
  }

  private async insertBotRow(
    row: NewBotRow,
    cap?: { max: number; except: string[]; full: () => Error },
  ): Promise<BotRow> {
    if (!cap) {
      const [bot] = await this.db.insert(bots).values(row).returning();
      if (!bot) throw new Error('bot insert returned nothing');
      return bot;
    }
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`bots:${row.userId}`}))`);
      const [active] = await tx
        .select({ n: count() })
        .from(bots)
        .where(
          and(
            eq(bots.userId, row.userId),
            eq(bots.status, 'active'),
            notManual,
            cap.except.length ? notInArray(bots.kind, cap.except) : undefined,
          ),
        );
      if ((active?.n ?? 0) >= cap.max) throw cap.full();
      const [bot] = await tx.insert(bots).values(row).returning();
      if (!bot) throw new Error('bot insert returned nothing');
      return bot;
    });
  }

  async byId(id: string): Promise<BotRow | null> {
    const [row] = await this.db.select().from(bots).where(eq(bots.id, id)).limit(1);
    return this.owned(row ?? null);
  }

  /** The user's active bot of `kind` on (exchange, symbol). */
  async activeFor(userId: string, exchange: string, symbol: string, kind: string): Promise<BotRow | null> {
    const [row] = await this.db
      .select()
      .from(bots)
      .where(
        and(
          eq(bots.userId, userId),
          eq(bots.kind, kind),
          eq(bots.exchange, exchange),
          eq(bots.symbol, symbol),
          eq(bots.status, 'active'),
        ),
      )
      .limit(1);
    return this.owned(row ?? null);
  }

  /** Active bots of a user, every kind but `except` and manual orders (MAX_BOTS_PER_USER). */
  async countActive(userId: string, except: string[] = []): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(bots)
      .where(
        and(
          eq(bots.userId, userId),
          eq(bots.status, 'active'),
          notManual,
          except.length ? notInArray(bots.kind, except) : undefined,
        ),
      );
    return row?.n ?? 0;
  }

  /**
   * A user's bots (every kind unless `kind` is given), active or closed. Manual orders only when asked
   * for by kind, or with `withManual` (what must stop with the connection or the account).
   */
  async listByUser(
    userId: string,
    status: BotRow['status'] | 'closed',
    kind?: string,
    withManual = false,
  ): Promise<BotRow[]> {
    const where = and(
      eq(bots.userId, userId),
      status === 'closed' ? inArray(bots.status, ['stopped', 'error']) : eq(bots.status, status),
      kind !== undefined ? eq(bots.kind, kind) : withManual ? undefined : notManual,
    );
    return this.ownedAll(
      await this.db
        .select()
        .from(bots)
        .where(where)
        .orderBy(status === 'active' ? asc(bots.startedAt) : desc(bots.stoppedAt)),
    );
  }

  /**
   * Closed bots of `kind` whose state kept a position (`state.residual`) not yet handed over
   * (`config.vnc_handed`): the classic DCA's VNC handover. Filtered in SQL: it runs on every list poll.
   */
  async closedWithResidual(userId: string, kind: string): Promise<BotRow[]> {
    return this.ownedAll(
      await this.db
        .select()
        .from(bots)
        .where(
          and(
            eq(bots.userId, userId),
            eq(bots.kind, kind),
            inArray(bots.status, ['stopped', 'error']),
            sql`jsonb_typeof(${bots.state} -> 'residual') = 'object'`,
            sql`coalesce((${bots.config} ->> 'vnc_handed')::boolean, false) = false`,
          ),
        ),
    );
  }

  /** Active bots with this problem (optionally on one pair): the ones to try again. */
  async withProblem(
    problem: NonNullable<BotRow['problem']>,
    pair?: { exchange: string; symbol: string },
  ): Promise<BotRow[]> {
    const where = [eq(bots.status, 'active'), eq(bots.problem, problem)];
    if (pair) where.push(eq(bots.exchange, pair.exchange), eq(bots.symbol, pair.symbol));
    return this.ownedAll(
      await this.db
        .select()
        .from(bots)
        .where(and(...where)),
    );
  }

  async allActive(): Promise<BotRow[]> {
    return this.ownedAll(
      await this.db.select().from(bots).where(eq(bots.status, 'active')).orderBy(asc(bots.startedAt)),
    );
  }

  async updateBot(id: string, patch: Partial<NewBotRow>): Promise<void> {
    await this.forBot(id, () =>
      this.db
        .update(bots)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(bots.id, id)),
    );
  }

  /** Applies one step's writes atomically: state, journal rows, trades and events together. */
  async write(w: BotWrite): Promise<void> {
    await this.forBot(w.botId, () => this.writeStep(w));
  }

  private async writeStep(w: BotWrite): Promise<void> {
    await this.db.transaction(async (tx) => {
      const patch: Partial<NewBotRow> = { updatedAt: new Date() };
      if (w.state !== undefined) patch.state = w.state;
      if (w.pnl !== undefined) patch.pnl = w.pnl;
      if (w.status !== undefined) patch.status = w.status;
      if (w.stopReason !== undefined) patch.stopReason = w.stopReason;
      if (w.stoppedAt !== undefined) patch.stoppedAt = w.stoppedAt;
      if (w.problem !== undefined) patch.problem = w.problem;
      if (w.problemDetail !== undefined) patch.problemDetail = w.problemDetail;
      // A bot that ends has no problem left to show.
      if (w.status !== undefined && w.status !== 'active') {
        patch.problem = null;
        patch.problemDetail = null;
      }
      await tx.update(bots).set(patch).where(eq(bots.id, w.botId));
      if (w.newOrders?.length) await tx.insert(botOrders).values(w.newOrders).onConflictDoNothing();
      for (const u of w.orderUpdates ?? []) {
        await tx
          .update(botOrders)
          .set({ ...u.patch, updatedAt: new Date() })
          .where(eq(botOrders.clientOrderId, u.clientOrderId));
      }
      if (w.trades?.length) await tx.insert(botTrades).values(w.trades).onConflictDoNothing();
      if (w.events?.length) await tx.insert(botEvents).values(w.events);
    });
  }

  async updateOrder(clientOrderId: string, patch: Partial<NewBotOrderRow>): Promise<void> {
    try {
      await this.reads.attributed(() =>
        this.db
          .update(botOrders)
          .set({ ...patch, updatedAt: new Date() })
          .where(eq(botOrders.clientOrderId, clientOrderId)),
      );
    } finally {
      this.reads.touchOrder(clientOrderId);
    }
  }

  async order(clientOrderId: string): Promise<BotOrderRow | null> {
    const [row] = await this.db
      .select()
      .from(botOrders)
      .where(eq(botOrders.clientOrderId, clientOrderId))
      .limit(1);
    return row ?? null;
  }

  async liveOrders(botId: string): Promise<BotOrderRow[]> {
    return this.db
      .select()
      .from(botOrders)
      .where(and(eq(botOrders.botId, botId), inArray(botOrders.status, [...LIVE_ORDER_STATUSES])))
      .orderBy(asc(botOrders.createdAt));
  }

  async ordersOf(botId: string): Promise<BotOrderRow[]> {
    return this.db
      .select()
      .from(botOrders)
      .where(eq(botOrders.botId, botId))
      .orderBy(asc(botOrders.createdAt));
  }

  async knownClientIds(botId: string): Promise<Set<string>> {
    const rows = await this.db
      .select({ id: botOrders.clientOrderId })
      .from(botOrders)
      .where(eq(botOrders.botId, botId));
    return new Set(rows.map((r) => r.id));
  }

  async event(e: NewBotEventRow): Promise<void> {
    await this.forBot(e.botId, () => this.db.insert(botEvents).values(e));
  }

  async events(botId: string, limit: number): Promise<BotEventRow[]> {
    return this.db
      .select()
      .from(botEvents)
      .where(eq(botEvents.botId, botId))
      .orderBy(desc(botEvents.id))
      .limit(limit);
  }

  async tradesPage(
    botId: string,
    page: number,
    perPage: number,
  ): Promise<{ rows: BotTradeRow[]; total: number; totalPnl: string }> {
    const rows = await this.db
      .select()
      .from(botTrades)
      .where(and(eq(botTrades.botId, botId), isNull(botTrades.deletedAt)))
      .orderBy(desc(botTrades.sellTime), desc(botTrades.id))
      .limit(perPage)
      .offset((page - 1) * perPage);
    const [agg] = await this.db
      .select({ n: count(), pnl: sum(botTrades.pnlNet) })
      .from(botTrades)
      .where(and(eq(botTrades.botId, botId), isNull(botTrades.deletedAt)));
    return { rows, total: Number(agg?.n ?? 0), totalPnl: agg?.pnl ?? '0' };
  }

  async tradesOf(botId: string): Promise<BotTradeRow[]> {
    return this.db.select().from(botTrades).where(eq(botTrades.botId, botId)).orderBy(asc(botTrades.id));
  }

  async pnlOf(botId: string): Promise<string> {
    const [agg] = await this.db
      .select({ pnl: sum(botTrades.pnlNet) })
      .from(botTrades)
      .where(eq(botTrades.botId, botId));
    return agg?.pnl ?? '0';
  }

  async settings(
    userId: string,
    exchange = '',
    symbol = '',
  ): Promise<{ apartado: string | null; leverage: number | null }> {
    const [row] = await this.db
      .select()
      .from(botUserSettings)
      .where(
        and(
          eq(botUserSettings.userId, userId),
          eq(botUserSettings.exchange, exchange),
          eq(botUserSettings.symbol, symbol),
        ),
      )
      .limit(1);
    return { apartado: row?.apartado ?? null, leverage: row?.leverage ?? null };
  }

  async saveSetting(
    userId: string,
    key: { exchange?: string; symbol?: string },
    patch: { apartado?: string; leverage?: number },
  ): Promise<void> {
    await this.forUser(userId, () =>
      this.db
        .insert(botUserSettings)
        .values({ userId, exchange: key.exchange ?? '', symbol: key.symbol ?? '', ...patch })
        .onConflictDoUpdate({
          target: [botUserSettings.userId, botUserSettings.exchange, botUserSettings.symbol],
          set: { ...patch, updatedAt: new Date() },
        }),
    );
  }

  /**
   * Leases active bots to a runner (DESIGN.md principle 10): free or expired leases, or its own,
   * locked with SKIP LOCKED so two runners never take the same bot. `takeAll` ignores other
   * holders (the embedded database is single-process: a lease there is a dead process's).
   * Answers every bot the runner holds; a row is written only when its lease changes hands or has less
   * than half its time left: a heartbeat that rewrote every row each time rewrote the whole bots row,
   * ~42 MB of write-ahead log an hour with 100 bots on the embedded database (docs/database.md).
   */
  async lease(runnerId: string, ttlMs: number, takeAll: boolean, limit = 100000): Promise<string[]> {
    const now = Date.now();
    const until = new Date(now + ttlMs).toISOString();
    const renewBefore = new Date(now + ttlMs / 2).toISOString();
    // No answer shows a lease: the lease writes leave the read cache alone. The outer SELECT sees the
    // rows as they were before the UPDATE, so the two halves of the answer never name a bot twice.
    const rows = await this.reads.attributed(() =>
      this.db.execute(sql`
      WITH taken AS (
        UPDATE bots SET leased_by = ${runnerId}, lease_until = ${until}
        WHERE id IN (
          SELECT id FROM bots
          WHERE status = 'active' AND problem IS NULL
            AND (${takeAll} OR leased_by IS NULL OR leased_by = ${runnerId} OR lease_until < now())
            AND (leased_by IS DISTINCT FROM ${runnerId} OR lease_until IS NULL OR lease_until < ${renewBefore})
          ORDER BY started_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING id
      )
      SELECT id FROM taken
      UNION ALL
      SELECT id FROM bots
      WHERE status = 'active' AND problem IS NULL AND leased_by = ${runnerId} AND lease_until >= ${renewBefore}`),
    );
    const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { id: string }[];
    return list.map((r) => r.id);
  }

  /**
   * Takes the lease of one bot for this runner when it is free, expired or already ours (or `takeAll`);
   * a bot that is not active needs no lease. Otherwise answers who holds it.
   */
  async claim(
    botId: string,
    runnerId: string,
    ttlMs: number,
    takeAll: boolean,
  ): Promise<{ ok: true } | { ok: false; holder: string }> {
    const until = new Date(Date.now() + ttlMs).toISOString();
    const rows = await this.reads.attributed(() =>
      this.db.execute(sql`
      UPDATE bots SET leased_by = ${runnerId}, lease_until = ${until}
      WHERE id = ${botId} AND status = 'active'
        AND (${takeAll} OR leased_by IS NULL OR leased_by = ${runnerId} OR lease_until < now())
      RETURNING id`),
    );
    const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as unknown[];
    if (list.length > 0) return { ok: true };
    const [row] = await this.db
      .select({ status: bots.status, leasedBy: bots.leasedBy })
      .from(bots)
      .where(eq(bots.id, botId));
    if (!row || row.status !== 'active' || !row.leasedBy) return { ok: true };
    return { ok: false, holder: row.leasedBy };
  }

  /** Gives one bot's lease back (an API-only process that took it for one action). */
  async releaseLease(botId: string, runnerId: string): Promise<void> {
    await this.reads.attributed(() =>
      this.db
        .update(bots)
        .set({ leasedBy: null, leaseUntil: null })
        .where(and(eq(bots.id, botId), eq(bots.leasedBy, runnerId))),
    );
  }

  async addAction(a: {
    botId: string;
    runnerId: string;
    event: unknown;
    stopTimeoutMs: number | null;
  }): Promise<string> {
    const [row] = await this.reads.attributed(() =>
      this.db.insert(botActions).values(a).returning({ id: botActions.id }),
    );
    return row!.id;
  }

  async pendingActions(runnerId: string) {
    return this.db
      .select()
      .from(botActions)
      .where(and(eq(botActions.runnerId, runnerId), eq(botActions.status, 'pending')))
      .orderBy(asc(botActions.createdAt));
  }

  /** Moves an action from `from` to `to` only if it is still in `from` (one side wins a race). */
  async moveAction(
    id: string,
    from: 'pending' | 'running',
    to: 'running' | 'done' | 'failed',
    outcome: { ok?: boolean; error?: string } = {},
  ): Promise<boolean> {
    const done = to === 'running' ? {} : { doneAt: new Date() };
    const rows = await this.reads.attributed(() =>
      this.db
        .update(botActions)
        .set({ status: to, ...done, ...outcome })
        .where(and(eq(botActions.id, id), eq(botActions.status, from)))
        .returning({ id: botActions.id }),
    );
    return rows.length > 0;
  }

  async actionById(id: string) {
    const [row] = await this.db.select().from(botActions).where(eq(botActions.id, id));
    return row ?? null;
  }

  async releaseLeases(runnerId: string): Promise<void> {
    await this.reads.attributed(() =>
      this.db.update(bots).set({ leasedBy: null, leaseUntil: null }).where(eq(bots.leasedBy, runnerId)),
    );
  }
}
