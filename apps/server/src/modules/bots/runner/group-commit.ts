import { and, asc, inArray, sql } from 'drizzle-orm';
import { insertRows, updateRows } from '../../../db/bulk';
import type { Db } from '../../../db/client';
import { botEvents, botOrders, bots, botTrades } from '../../../db/schema/index';
import type { BotsRepository } from '../bots.repository';
import {
  LIVE_ORDER_STATUSES,
  type BotOrderRow,
  type BotRow,
  type BotWrite,
  type NewBotEventRow,
  type NewBotOrderRow,
  type NewBotTradeRow,
} from '../bots.rows';
import { GroupCommit, ReadBatch } from '../../../lib/batcher';
import type { ActionStore, BotActionRow, RunnerStore } from './types';

/** One write the runner made: a step's (BotWrite), an order's journal row alone, or one log line. */
type Entry =
  | { kind: 'write'; w: BotWrite }
  | { kind: 'order'; clientOrderId: string; patch: Partial<NewBotOrderRow>; botId?: string | undefined }
  | { kind: 'event'; e: NewBotEventRow };

/**
 * Entries per bulk transaction with the send lane on: ~one pair's fan-out of writes at 10,000 bots
 * (~400 bots a pair). In one FIFO queue the bench's batches held 800 entries on average (up to 2,000)
 * and took p99 6.0 s on PGlite on a loaded machine, and every journal row arriving meanwhile waited.
 */
export const SEND_LANE_MAX_BULK = 500;

/** Whether `db` runs on a pool of connections (node-postgres: `pg.Pool` has `totalCount`; PGlite not). */
function onPool(db: Db): boolean {
  const client = (db as { $client?: unknown }).$client;
  return typeof client === 'object' && client !== null && 'totalCount' in client;
}

/** The fields of a BotWrite that are columns of `bots`. */
const BOT_FIELDS = ['state', 'pnl', 'status', 'stopReason', 'stoppedAt', 'problem', 'problemDetail'] as const;

/**
 * The runner's store with group commit: the writes of every bot that arrive together (one tick's
 * fan-out, one pair's fills) are committed in one transaction — each bot row updated, journal rows
 * inserted and updated, trades and log lines inserted, a few statements for all of them — instead of
 * one transaction each. `write` resolves only once its transaction has committed, so the journal row
 * of an order is durable before the venue is called, as with BotsRepository.write. Reads (and leases)
 * first wait for the writes made before them, so the runner always reads what it wrote.
 */
export class GroupCommitStore implements RunnerStore, ActionStore {
  private readonly batch: GroupCommit<Entry>;
  // The reads of bots attaching together (32 at a time, see BotRunner.scan) are coalesced: one query
  // for all of them rather than one each; same rows and order as BotsRepository's.
  private readonly rows: ReadBatch<BotRow | null>;
  private readonly live: ReadBatch<BotOrderRow[]>;
  private readonly known: ReadBatch<Set<string>>;

  /** Whether writes an order waits for go by the send lane (GroupCommit; `sendLane: false`: one FIFO). */
  private readonly sendLane: boolean;

  constructor(
    private readonly repo: BotsRepository,
    private readonly db: Db,
    opts: {
      /**
       * Journal rows an order waits for go first (the send lane, issue 45 point 6). Off by default (one
       * FIFO queue, as before) until the SIGKILL campaigns pass on it: on the loaded machine where it was
       * built they did not pass with or without reaching their checks (docs/bots/runner.md).
       */
      sendLane?: boolean;
      /**
       * The send lane commits beside a bulk transaction; default: when `db` has a pool of connections
       * (PostgreSQL; PGlite has one connection, where two transactions would only queue).
       */
      overlap?: boolean;
    } = {},
  ) {
    this.sendLane = opts.sendLane ?? false;
    this.batch = new GroupCommit<Entry>({
      commit: (entries) => this.commit(entries),
      one: (e) => this.one(e),
      // Bulk transactions (log lines, states, `open` updates) stay short, so a journal row an order waits
      // for, arriving meanwhile, waits for little (issue 45 point 6; see docs/bots/runner.md).
      ...(this.sendLane ? { maxBulk: SEND_LANE_MAX_BULK, overlap: opts.overlap ?? onPool(db) } : {}),
    });
    this.rows = new ReadBatch<BotRow | null>({
      fetch: async (ids) => {
        const found = await this.db.select().from(bots).where(inArray(bots.id, ids));
        return new Map(found.map((r) => [r.id, r]));
      },
      missing: () => null,
    });
    this.live = new ReadBatch<BotOrderRow[]>({
      fetch: async (ids) => {
        const found = await this.db
          .select()
          .from(botOrders)
          .where(and(inArray(botOrders.botId, ids), inArray(botOrders.status, [...LIVE_ORDER_STATUSES])))
          .orderBy(asc(botOrders.createdAt));
        const by = new Map<string, BotOrderRow[]>();
        for (const r of found) {
          let list = by.get(r.botId);
          if (!list) by.set(r.botId, (list = []));
          list.push(r);
        }
        return by;
      },
      missing: () => [],
    });
    this.known = new ReadBatch<Set<string>>({
      fetch: async (ids) => {
        const found = await this.db
          .select({ botId: botOrders.botId, id: botOrders.clientOrderId })
          .from(botOrders)
          .where(inArray(botOrders.botId, ids));
        const by = new Map<string, Set<string>>();
        for (const r of found) {
          let set = by.get(r.botId);
          if (!set) by.set(r.botId, (set = new Set()));
          set.add(r.id);
        }
        return by;
      },
      missing: () => new Set(),
    });
  }

  /** Writes waiting or being committed (tests). */
  get pending(): number {
    return this.batch.pending;
  }

  /**
   * `send`: an order is sent once this commits (journal before send): it goes by the send lane, ahead
   * of the writes nobody waits for, with the bot's earlier writes (a bot's writes keep their order).
   */
  write(w: BotWrite, opts?: { send?: boolean }): Promise<void> {
    return this.batch.add({ kind: 'write', w }, this.lane(w.botId, opts?.send === true));
  }

  /** `botId`: the order's bot (its writes keep their order); without it the update waits for every write before it. */
  updateOrder(clientOrderId: string, patch: Partial<NewBotOrderRow>, botId?: string): Promise<void> {
    return this.batch.add({ kind: 'order', clientOrderId, patch, botId }, this.lane(botId, false));
  }

  event(e: NewBotEventRow): Promise<void> {
    return this.batch.add({ kind: 'event', e }, this.lane(e.botId, false));
  }

  private lane(key: string | undefined, urgent: boolean) {
    return this.sendLane ? { key, urgent } : undefined;
  }

  /** Waits for the writes made before the call. */
  flushed(): Promise<void> {
    return this.batch.barrier();
  }

  private one(e: Entry): Promise<void> {
    if (e.kind === 'write') return this.repo.write(e.w);
    if (e.kind === 'order') return this.repo.updateOrder(e.clientOrderId, e.patch);
    return this.repo.event(e.e);
  }

  /** Everything of the entries in one transaction, as if they had been committed one after another. */
  private async commit(entries: Entry[]): Promise<void> {
    const botPatches = new Map<string, Record<string, unknown>>();
    const orderPatches = new Map<string, Record<string, unknown>>();
    const newOrders: NewBotOrderRow[] = [];
    const trades: NewBotTradeRow[] = [];
    const events: NewBotEventRow[] = [];
    const patchOrder = (id: string, patch: Partial<NewBotOrderRow>) => {
      const merged = orderPatches.get(id) ?? {};
      for (const [k, v] of Object.entries(patch)) if (v !== undefined && k !== 'updatedAt') merged[k] = v;
      orderPatches.set(id, merged);
    };
    for (const e of entries) {
      if (e.kind === 'order') patchOrder(e.clientOrderId, e.patch);
      else if (e.kind === 'event') events.push(e.e);
      else {
        const w = e.w;
        // Later writes of a bot override earlier ones field by field, as sequential updates would.
        const patch = botPatches.get(w.botId) ?? {};
        for (const f of BOT_FIELDS) if (w[f] !== undefined) patch[f] = w[f];
        // A bot that ends has no problem left to show (BotsRepository.write).
        if (w.status !== undefined && w.status !== 'active') {
          patch.problem = null;
          patch.problemDetail = null;
        }
        botPatches.set(w.botId, patch);
        if (w.newOrders?.length) newOrders.push(...w.newOrders);
        for (const u of w.orderUpdates ?? []) patchOrder(u.clientOrderId, u.patch);
        if (w.trades?.length) trades.push(...w.trades);
        if (w.events?.length) events.push(...w.events);
      }
    }
    // The read cache of the polled lists (BotsRepository.reads) drops the answers of the users written
    // to, as the repository's own writes do; the statements run attributed so its client hook does not
    // also drop every user's answers.
    const reads = this.repo.reads;
    const touch = () => {
      for (const id of botPatches.keys()) reads.touchBot(id);
      for (const e of events) if (!botPatches.has(e.botId)) reads.touchBot(e.botId);
      for (const id of orderPatches.keys()) reads.touchOrder(id);
    };
    try {
      await reads.attributed(() =>
        this.db.transaction(async (tx) => {
          // One statement per table and shape, with the rows as one JSON parameter (db/bulk.ts).
          await updateRows(tx, bots, 'id', botPatches, 'updatedAt');
          // Inserted before the updates: an order journaled and answered within one batch gets both.
          await insertRows(tx, botOrders, newOrders, sql`ON CONFLICT DO NOTHING`);
          await updateRows(tx, botOrders, 'clientOrderId', orderPatches, 'updatedAt');
          await insertRows(tx, botTrades, trades, sql`ON CONFLICT DO NOTHING`);
          await insertRows(tx, botEvents, events);
        }),
      );
    } finally {
      touch();
      // Again after the callers' continuations: an answer computed while the write landed is not kept.
      setImmediate(touch);
    }
  }

  // Reads and leases wait for the writes made before them.

  async byId(id: string): Promise<BotRow | null> {
    await this.flushed();
    return this.rows.get(id);
  }

  async liveOrders(botId: string): Promise<BotOrderRow[]> {
    await this.flushed();
    return this.live.get(botId);
  }

  async knownClientIds(botId: string): Promise<Set<string>> {
    await this.flushed();
    return this.known.get(botId);
  }

  async lease(runnerId: string, ttlMs: number, takeAll: boolean): Promise<string[]> {
    await this.flushed();
    return this.repo.lease(runnerId, ttlMs, takeAll);
  }

  async releaseLeases(runnerId: string): Promise<void> {
    await this.flushed();
    return this.repo.releaseLeases(runnerId);
  }

  async withProblem(
    problem: NonNullable<BotRow['problem']>,
    pair?: { exchange: string; symbol: string },
  ): Promise<BotRow[]> {
    await this.flushed();
    return this.repo.withProblem(problem, pair);
  }

  async claim(botId: string, runnerId: string, ttlMs: number, takeAll: boolean) {
    await this.flushed();
    return this.repo.claim(botId, runnerId, ttlMs, takeAll);
  }

  async releaseLease(botId: string, runnerId: string): Promise<void> {
    await this.flushed();
    return this.repo.releaseLease(botId, runnerId);
  }

  addAction(a: { botId: string; runnerId: string; event: unknown; stopTimeoutMs: number | null }) {
    return this.repo.addAction(a);
  }

  pendingActions(runnerId: string): Promise<BotActionRow[]> {
    return this.repo.pendingActions(runnerId);
  }

  moveAction(
    id: string,
    from: 'pending' | 'running',
    to: 'running' | 'done' | 'failed',
    outcome?: { ok?: boolean; error?: string },
  ): Promise<boolean> {
    return this.repo.moveAction(id, from, to, outcome);
  }

  actionById(id: string): Promise<BotActionRow | null> {
    return this.repo.actionById(id);
  }
}
