import {
  inRange,
  isQuietTick,
  quietBand,
  stepDca,
  type DcaQuietBand,
  type DcaState,
  type PlaceOrderCommand,
  type RejectReason,
  type StopMode,
  type StrategyCommand,
  type StepResult,
  type StrategyEvent,
} from '@bytx/engine';
import {
  AuthenticationError,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  VenueError,
  type Order,
  type Venue,
} from '@bytx/venues';
import type { FastifyBaseLogger } from 'fastify';
import type { MarketHub, VenueRegistry } from '../../context';
import { HttpError } from '../../lib/errors';
import type {
  BotOrderRow,
  BotRow,
  BotWrite,
  NewBotEventRow,
  NewBotOrderRow,
  NewBotTradeRow,
} from './bots.repository';

/** What the runner needs from the database (BotsRepository; the benchmark passes an in-memory one). */
export interface RunnerStore {
  byId(id: string): Promise<BotRow | null>;
  write(w: BotWrite): Promise<void>;
  updateOrder(clientOrderId: string, patch: Partial<NewBotOrderRow>): Promise<void>;
  liveOrders(botId: string): Promise<BotOrderRow[]>;
  knownClientIds(botId: string): Promise<Set<string>>;
  event(e: NewBotEventRow): Promise<void>;
  lease(runnerId: string, ttlMs: number, takeAll: boolean): Promise<string[]>;
  releaseLeases(runnerId: string): Promise<void>;
  /** Active bots with a problem, to try again (BotsRepository; a store without it never retries). */
  withProblem?(
    problem: NonNullable<BotRow['problem']>,
    pair?: { exchange: string; symbol: string },
  ): Promise<BotRow[]>;
}

/** A user action forwarded to the lease holder (BotsRepository; table bot_actions). */
export interface BotActionRow {
  id: string;
  botId: string;
  event: unknown;
  stopTimeoutMs: number | null;
  status: 'pending' | 'running' | 'done' | 'failed';
  ok: boolean | null;
  error: string | null;
}

/**
 * What several runner processes on one database need (BotsRepository has it): one bot's lease, and
 * user actions forwarded to the process holding it. A store without it is a single process.
 */
export interface ActionStore {
  claim(
    botId: string,
    runnerId: string,
    ttlMs: number,
    takeAll: boolean,
  ): Promise<{ ok: true } | { ok: false; holder: string }>;
  releaseLease(botId: string, runnerId: string): Promise<void>;
  addAction(a: {
    botId: string;
    runnerId: string;
    event: unknown;
    stopTimeoutMs: number | null;
  }): Promise<string>;
  pendingActions(runnerId: string): Promise<BotActionRow[]>;
  moveAction(
    id: string,
    from: 'pending' | 'running',
    to: 'running' | 'done' | 'failed',
    outcome?: { ok?: boolean; error?: string },
  ): Promise<boolean>;
  actionById(id: string): Promise<BotActionRow | null>;
}

function hasActions(store: RunnerStore): store is RunnerStore & ActionStore {
  return 'claim' in store && 'addAction' in store;
}

/** The holder no longer runs the bot (lease lost, bot stopped): the sender routes the action again. */
const NOT_HERE = 'not_here';

export interface RunnerDeps {
  store: RunnerStore;
  market: () => MarketHub;
  venues: () => VenueRegistry;
  log: FastifyBaseLogger;
  runnerId: string;
  /** Embedded database: one process only, so leases left by a killed process are taken at once. */
  takeAllLeases: boolean;
  /** Trade the leased bots continuously (BOT_RUNNER=1); otherwise bots are attached only for a user action. */
  autoRun: boolean;
  now?: () => number;
  /** Backoff base for venue retries (ms); tests shorten it. */
  retryBaseMs?: number;
  /** Lease heartbeat (ms). */
  heartbeatMs?: number;
  /** How often a runner looks for actions forwarded to it, and a sender for their outcome (ms). */
  actionPollMs?: number;
  /** How long a sender waits for the holder to start a forwarded action before acting itself (ms). */
  forwardTimeoutMs?: number;
  /** How often bots paused by a refused API key try the key again (ms, default 30,000). */
  problemCheckMs?: number;
  /**
   * Called after every strategy decision (bench): `ms` from the event's arrival at the runner (a pair's
   * tick, or an order update pushed by the venue) to the decision; 'other' events are timed from the
   * step's start.
   */
  onStep?: (botId: string, ms: number, commands: number, source: StepSource) => void;
}

export type StepSource = 'tick' | 'order' | 'other';

/** When and how an event reached the runner (for the latency the bench reports). */
interface Arrival {
  at: number;
  source: StepSource;
}

/** The short strategy id of a bot: client order ids are `${shortId}-${seq}` (fits every venue's limit). */
export function strategyIdOf(botId: string): string {
  return `b${botId.replace(/-/g, '').slice(0, 20)}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FINAL = new Set(['filled', 'cancelled', 'rejected']);
const MAX_PLACE_ATTEMPTS = 4;

function num(v: string | null | undefined): number {
  return v === null || v === undefined ? 0 : Number(v);
}

/** What the journal knows about one order; used to turn venue snapshots into strategy events once. */
interface JournalEntry {
  status: BotOrderRow['status'];
  filled: number;
  role: string;
}

/** The bot's exchange connection is gone (the registry has no venue for it): the bot was halted. */
class ConnectionGoneError extends Error {}

function rejectReasonOf(err: unknown): RejectReason {
  if (err instanceof InsufficientFundsError) return 'insufficient_funds';
  if (err instanceof InvalidOrderError) {
    if (err.reason === 'min_cost' || err.reason === 'min_amount') return 'min_cost';
    if (err.reason === 'precision') return 'precision';
    return 'unknown';
  }
  return 'exchange_error';
}

/**
 * One bot in this process: its state, its venue, and a promise queue that serializes every event
 * (ticks, order updates, user actions) so the strategy sees them one at a time.
 */
class BotHandle {
  /** The strategy state as of the last step; quiet ticks since then are held in `quiet*` below. */
  private cur: DcaState;
  /**
   * The last quiet tick not yet written into `cur` (see onPairTick). Numbers from the start, so V8
   * keeps them as in-place doubles: a quiet tick allocates nothing and stores no new object.
   */
  private quietPrice = 0;
  private quietTs = 0;
  private quietPending = false;
  venue: Venue | null = null;
  private queue: Promise<void> = Promise.resolve();
  private journal = new Map<string, JournalEntry>();
  private unsubscribers: (() => void)[] = [];
  /** Unsubscribes from the current venue's order updates (moved when the venue is replaced). */
  private venueUnsub: (() => void) | null = null;
  private pendingTick: { price: number; ts: number; at: number } | null = null;
  /** Tasks queued or running; a quiet tick is applied synchronously only when this is 0. */
  private busy = 0;
  private band: DcaQuietBand | null = null;
  private bandOf: DcaState | null = null;
  /** The state last written (or loaded): what `sameAsPersisted` compares a tick's result with. */
  private persisted: DcaState;
  private stoppedWaiters: ((ok: boolean) => void)[] = [];
  private pending: StrategyCommand[] = [];
  private draining = false;
  readonly prefix: string;
  detached = false;
  stopped = false;
  /** Being paused (pair delisted, key refused): no further order is sent. */
  pausing = false;
  /** The pause under way (written to the bot row once it resolves). */
  pauseDone: Promise<void> | null = null;
  /** Attached to trade (ticks and order updates), not just for one user action. */
  trading = false;

  constructor(
    readonly row: BotRow,
    private readonly runner: BotRunner,
  ) {
    this.cur = row.state as DcaState;
    this.prefix = `${this.cur.botId}-`;
    this.persisted = this.cur;
  }

  /** The current strategy state, with the last quiet tick applied (engine `quietTick`, in place). */
  get state(): DcaState {
    if (this.quietPending) {
      this.quietPending = false;
      if (this.cur.status !== 'stopped') {
        this.cur.lastPrice = this.quietPrice;
        this.cur.lastTs = this.quietTs;
      }
    }
    return this.cur;
  }

  private set state(s: DcaState) {
    this.quietPending = false;
    this.cur = s;
  }

  get id() {
    return this.row.id;
  }
  private get deps() {
    return this.runner.deps;
  }
  private now() {
    return this.deps.now?.() ?? Date.now();
  }

  /** Runs `fn` after everything queued before it; errors are logged, never thrown into the queue. */
  enqueue<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++;
    const run = this.queue.then(fn);
    this.queue = run.then(
      () => {
        this.busy--;
      },
      (err: unknown) => {
        this.busy--;
        this.deps.log.error({ err, botId: this.id }, 'bot task failed');
        void this.logEvent('error', 'error', { message: err instanceof Error ? err.message : String(err) });
      },
    );
    return run;
  }

  async idle(): Promise<void> {
    await this.queue;
  }

  /** Whether anything is queued or running for this bot. */
  get isBusy(): boolean {
    return this.busy > 0;
  }

  /** Loads the venue, reconciles journal and venue, then (when trading) subscribes to ticks and order updates. */
  async attach(subscribe: boolean): Promise<void> {
    this.trading = subscribe;
    this.useVenue(await this.deps.venues().forUser(this.row.userId, this.row.exchange));
    await this.enqueue(() => this.reconcile());
    if (subscribe && !this.stopped) {
      this.unsubscribers.push(this.runner.joinPair(this));
      // Resume (or start) from the current price at once.
      const t = await this.deps.market().ticker(this.row.exchange, this.row.symbol);
      this.onTick(t.last);
    }
  }

  /** Takes `venue` as the bot's venue and listens to its order updates (and no longer to the old one's). */
  private useVenue(venue: Venue): void {
    this.venueUnsub?.();
    this.venue = venue;
    const pushedBy = venue;
    this.venueUnsub = venue.onOrderUpdate((order) => {
      if (!order.clientOrderId?.startsWith(this.prefix)) return;
      const arrived: Arrival = { at: performance.now(), source: 'order' };
      void this.enqueue(async () => {
        // A fill pushed on a price move: let the venue save it first (paper accounts save
        // asynchronously), so our record of the fill is never ahead of the venue's.
        await this.venueSettled(pushedBy);
        await this.applySnapshot(order, false, false, arrived);
      });
    });
  }

  /**
   * The venue to call now. The registry closes a venue when the connection is replaced or removed
   * (after the beforeConnectionChange hook stopped the bots on it) or when its keys changed elsewhere:
   * a closed instance is never used again; the registry's current one is taken instead. When the
   * connection is gone the bot is halted (`exchange_disconnected`) and ConnectionGoneError thrown.
   */
  private async currentVenue(): Promise<Venue> {
    if (this.venue && !this.venue.closed) return this.venue;
    let fresh: Venue;
    try {
      fresh = await this.deps.venues().forUser(this.row.userId, this.row.exchange);
    } catch (err) {
      this.venueUnsub?.();
      this.venueUnsub = null;
      if (!this.stopped) {
        await this.halt('stopped', 'exchange_disconnected', err instanceof Error ? err.message : String(err));
      }
      throw new ConnectionGoneError('the exchange connection of this bot is gone');
    }
    if (fresh !== this.venue) this.useVenue(fresh);
    return fresh;
  }

  /**
   * The venue was closed under the bot (evicted by the registry): take the current one and reconcile,
   * since order updates pushed by the new instance before we listened to it would otherwise be missed.
   */
  private async replaceClosedVenue(): Promise<void> {
    try {
      await this.currentVenue();
    } catch (err) {
      if (err instanceof ConnectionGoneError) return;
      throw err;
    }
    await this.reconcile();
  }

  /** Waits until the venue has saved everything it did so far (PaperVenue.flush; live venues have none). */
  private async venueSettled(venue: Venue | null = this.venue): Promise<void> {
    if (venue?.flush) await venue.flush();
  }

  detach(): void {
    this.detached = true;
    for (const u of this.unsubscribers.splice(0)) u();
    this.venueUnsub?.();
    this.venueUnsub = null;
  }

  /**
   * A pair tick (`at`: when it reached the runner). A tick inside the strategy's quiet band
   * (engine `quietBand`: provably no command and no change but the last price) is applied at once,
   * without the queue, when the bot has nothing queued; every other tick is stepped through the queue.
   */
  onPairTick(price: number, at: number): void {
    if (this.detached || this.stopped) return;
    if (this.busy === 0 && this.pendingTick === null && !this.venue?.closed) {
      if (this.bandOf !== this.cur) {
        this.band = quietBand(this.state);
        this.bandOf = this.cur;
      }
      const ts = this.now();
      if (isQuietTick(this.band, price, ts)) {
        // A quiet tick changes only lastPrice and lastTs (engine `quietTick`, property-tested). It is
        // only noted here and written into the state when the state is next read or stepped: storing a
        // fresh number into 10,000 state objects a second gave every young-generation GC 20,000
        // old-to-new pointers and survivors to copy (4-8 ms pauses at 10,000 bots). The band stays cached.
        this.quietPrice = price;
        this.quietTs = ts;
        this.quietPending = true;
        this.deps.onStep?.(this.id, performance.now() - at, 0, 'tick');
        return;
      }
      // Outside the band the (pure) step is decided here, in the price callback. When it issues no
      // command and changes nothing that is persisted (the test commit() uses to skip the write), its
      // state is taken at once. Otherwise it is persisted and carried out through the queue, which is
      // empty, so nothing can come between the decision and its commit. Deciding in the callback
      // instead of in a microtask keeps the tick from waiting behind every other listener of the price
      // (each paper account matching its resting orders: ~400 per pair at 10,000 bots).
      if (Number.isFinite(price) && price > 0) {
        const event: StrategyEvent = { type: 'tick', price, ts };
        const result = stepDca(this.state, event);
        this.deps.onStep?.(this.id, performance.now() - at, result.commands.length, 'tick');
        if (result.commands.length === 0 && this.sameAsPersisted(result.state)) {
          this.state = result.state;
          return;
        }
        void this.enqueue(async () => {
          if (this.stopped) return; // Dropped meanwhile (its connection went away): nothing to carry out.
          if (this.venue?.closed) {
            // Replaced meanwhile: reconcile with the new venue first, then decide again.
            await this.replaceClosedVenue();
            if (!this.stopped) await this.step(event);
            return;
          }
          await this.commit(event, result);
        });
        return;
      }
    }
    this.onTick(price, at);
  }

  /** Ticks are coalesced: while one waits in the queue, later prices replace it. */
  onTick(price: number, at = performance.now()): void {
    if (this.detached || this.stopped || !Number.isFinite(price) || price <= 0) return;
    if (this.pendingTick) {
      this.pendingTick.price = price;
      this.pendingTick.ts = this.now();
      return;
    }
    this.pendingTick = { price, ts: this.now(), at };
    void this.enqueue(async () => {
      const tick = this.pendingTick;
      this.pendingTick = null;
      if (!tick || this.stopped) return;
      if (this.venue?.closed) await this.replaceClosedVenue();
      if (this.stopped) return;
      await this.step({ type: 'tick', price: tick.price, ts: tick.ts }, {}, { at: tick.at, source: 'tick' });
    });
  }

  /** Feeds a user action through the queue and waits for it. */
  action(event: StrategyEvent): Promise<void> {
    return this.enqueue(() => this.step(event));
  }

  /** Resolves true when the strategy reports `stopped`, false on timeout. */
  waitStopped(timeoutMs: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.stoppedWaiters.push((ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
  }

  /**
   * Whether `a` and `b` differ only in what a tick may change without being written (the last price,
   * the ladder position): a tick whose step issues no command and leaves these the same is not written
   * (every other event always is). Compared field by field: it runs on ticks, so it allocates nothing.
   */
  private sameAsPersisted(a: DcaState): boolean {
    const b = this.persisted;
    return (
      a.status === b.status &&
      a.anchor === b.anchor &&
      a.epoch === b.epoch &&
      a.seq === b.seq &&
      a.inRange === b.inRange &&
      a.buyRetryAt === b.buyRetryAt &&
      a.buyBackoffMs === b.buyBackoffMs &&
      a.lots.length === b.lots.length &&
      a.waitingBuys.length === b.waitingBuys.length &&
      a.skippedLevels.length === b.skippedLevels.length &&
      a.realizedPnl === b.realizedPnl &&
      a.closePhase === b.closePhase &&
      a.lastRangeLogTs === b.lastRangeLogTs &&
      (a.entry?.clientOrderId ?? '') === (b.entry?.clientOrderId ?? '')
    );
  }

  async logEvent(level: 'info' | 'warn' | 'error', code: string, params: Record<string, unknown> = {}) {
    await this.deps.store.event({ botId: this.id, level, code, params });
  }

  /**
   * One strategy step: compute, persist (state + journal rows + trades + log in one transaction),
   * then carry out the venue commands in order. Follow-up events (fills of a market order,
   * rejections) are stepped at once, inside the same queue slot.
   */
  async step(event: StrategyEvent, extra: Partial<BotWrite> = {}, arrived?: Arrival): Promise<void> {
    if (this.stopped && event.type !== 'order_filled' && event.type !== 'order_cancelled') {
      // The strategy is done; still record what happened to the order.
      if (extra.orderUpdates?.length || extra.events?.length) {
        await this.deps.store.write({
          botId: this.id,
          orderUpdates: extra.orderUpdates ?? [],
          events: extra.events ?? [],
        });
      }
      return;
    }
    const t0 = arrived?.at ?? performance.now();
    const result = stepDca(this.state, event);
    this.deps.onStep?.(this.id, performance.now() - t0, result.commands.length, arrived?.source ?? 'other');
    await this.commit(event, result, extra);
  }

  /** The second half of a step: persist what the strategy decided (one write), then carry out its commands. */
  private async commit(
    event: StrategyEvent,
    { state, commands }: StepResult<DcaState>,
    extra: Partial<BotWrite> = {},
  ): Promise<void> {
    const w: BotWrite = { botId: this.id, ...extra };
    const newOrders: NewBotOrderRow[] = [];
    const cancelIds: string[] = [];
    const trades: NewBotTradeRow[] = [];
    const events: NewBotEventRow[] = [...(extra.events ?? [])];
    let stoppedReason: string | null = null;
    for (const c of commands) {
      switch (c.type) {
        case 'place_order':
          newOrders.push({
            clientOrderId: c.clientOrderId,
            botId: this.id,
            symbol: this.row.symbol,
            side: c.side,
            type: c.orderType,
            price: c.price === undefined ? null : String(c.price),
            amount: String(c.amount ?? 0),
            role: c.role,
            status: 'pending_submit',
          });
          break;
        case 'cancel_order':
          cancelIds.push(c.clientOrderId);
          break;
        case 'record_trade':
          trades.push({
            botId: this.id,
            userId: this.row.userId,
            exchange: this.row.exchange,
            symbol: this.row.symbol,
            lotKey: c.trade.lotId,
            buyTime: new Date(c.trade.buyTime),
            sellTime: new Date(c.trade.sellTime),
            qty: String(c.trade.qty),
            buyPrice: String(c.trade.buyPrice),
            sellPrice: String(c.trade.sellPrice),
            pnlNet: String(c.trade.pnlNet),
            fees: String(c.trade.buyFee + c.trade.sellFee),
          });
          break;
        case 'log':
          events.push({ botId: this.id, level: c.level, code: c.code, params: c.params });
          break;
        case 'stopped':
          stoppedReason = c.reason;
          break;
        default:
          break;
      }
    }
    const changed = !this.sameAsPersisted(state);
    const mustWrite =
      changed ||
      event.type !== 'tick' ||
      newOrders.length > 0 ||
      cancelIds.length > 0 ||
      trades.length > 0 ||
      events.length > 0 ||
      stoppedReason !== null ||
      (extra.orderUpdates?.length ?? 0) > 0 ||
      extra.state !== undefined;
    if (mustWrite) {
      w.state = state;
      w.pnl = state.realizedPnl;
      w.newOrders = newOrders;
      w.trades = trades;
      w.events = events;
      w.orderUpdates = [
        ...(extra.orderUpdates ?? []),
        ...cancelIds.map((id) => ({ clientOrderId: id, patch: { cancelRequested: true } })),
      ];
      if (stoppedReason !== null) {
        w.status = stoppedReason === 'entry_failed' ? 'error' : 'stopped';
        w.stopReason = stoppedReason;
        w.stoppedAt = new Date(this.now());
        w.events.push({ botId: this.id, level: 'info', code: 'stopped', params: { reason: stoppedReason } });
      }
      await this.deps.store.write(w);
      this.persisted = state;
    }
    this.state = state;
    // The quiet band of the new state is computed here, between ticks, rather than in the next tick's
    // fan-out, where every bot of the pair waits for it.
    this.band = quietBand(state);
    this.bandOf = state;
    for (const o of newOrders)
      this.journal.set(o.clientOrderId, { status: 'pending_submit', filled: 0, role: o.role });
    if (stoppedReason !== null) this.markStopped();
    await this.execute(commands);
  }

  private markStopped() {
    this.stopped = true;
    this.runner.forget(this);
    for (const w of this.stoppedWaiters.splice(0)) w(true);
  }

  /**
   * Venue commands run in the order the strategy issued them, across steps: a step caused by the
   * answer to a command (a market or crossing order filling at once) appends its commands behind the
   * ones still waiting, so a cancel never overtakes the placing of the same order.
   */
  private async execute(commands: StrategyCommand[]): Promise<void> {
    for (const c of commands) if (c.type === 'cancel_order' || c.type === 'place_order') this.pending.push(c);
    if (this.draining) return;
    this.draining = true;
    try {
      for (let c = this.pending.shift(); c; c = this.pending.shift()) {
        if (this.pausing) {
          // Orders not sent stay pending_submit in the journal; the reconcile after the pause settles them.
          this.pending.length = 0;
          break;
        }
        if (c.type === 'cancel_order') await this.cancel(c.clientOrderId);
        else if (c.type === 'place_order') await this.place(c);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Looks an order up by client id, retrying transient errors; null when the venue has none. */
  private async lookup(clientOrderId: string): Promise<Order | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        const venue = await this.currentVenue();
        return await venue.fetchOrderByClientId(clientOrderId, this.row.symbol);
      } catch (err) {
        if (err instanceof VenueError && err.action === 'retry' && attempt < MAX_PLACE_ATTEMPTS) {
          await sleep(this.backoff(attempt));
          continue;
        }
        throw err;
      }
    }
  }

  private backoff(attempt: number) {
    return (this.deps.retryBaseMs ?? 500) * 2 ** attempt;
  }

  /** Sends a journaled order. Never retried blindly: after a transient error it is looked up first. */
  private async place(c: PlaceOrderCommand): Promise<void> {
    for (let attempt = 0; attempt < MAX_PLACE_ATTEMPTS; attempt++) {
      try {
        const venue = await this.currentVenue();
        const order = await venue.createOrder({
          symbol: this.row.symbol,
          side: c.side,
          type: c.orderType,
          amount: c.amount ?? 0,
          ...(c.orderType === 'limit' && c.price !== undefined ? { price: c.price } : {}),
          clientOrderId: c.clientOrderId,
        });
        await this.applySnapshot(order, true);
        return;
      } catch (err) {
        if (err instanceof ConnectionGoneError) return;
        if (err instanceof VenueError && err.action === 'retry') {
          const delay = this.backoff(attempt);
          await this.logEvent('warn', 'exchange_error', {
            message: err.message,
            delay: Math.round(delay / 100) / 10,
            clientOrderId: c.clientOrderId,
          });
          await sleep(delay);
          const found = await this.lookup(c.clientOrderId).catch(() => null);
          if (found) {
            await this.applySnapshot(found, true);
            return;
          }
          continue;
        }
        await this.rejected(c.clientOrderId, err);
        return;
      }
    }
    await this.rejected(c.clientOrderId, new Error('exchange unreachable'));
  }

  /** The venue refused an order: journal it, tell the strategy, and stop the bot on key problems. */
  private async rejected(clientOrderId: string, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    const events: NewBotEventRow[] = [];
    if (err instanceof InvalidOrderError && err.reason !== 'min_cost' && err.reason !== 'min_amount') {
      events.push({
        botId: this.id,
        level: 'warn',
        code: 'invalid_order',
        params: { message, clientOrderId },
      });
    }
    this.journal.set(clientOrderId, {
      status: 'rejected',
      filled: 0,
      role: this.journal.get(clientOrderId)?.role ?? '',
    });
    await this.step(
      { type: 'order_rejected', clientOrderId, reason: rejectReasonOf(err), message, ts: this.now() },
      { orderUpdates: [{ clientOrderId, patch: { status: 'rejected' } }], events },
    );
    if (err instanceof AuthenticationError) {
      this.pauseFor('auth_failed', message);
    } else if (err instanceof NotSupportedError) {
      await this.halt('error', 'auth_error', message);
    } else if (err instanceof InvalidOrderError && err.reason === 'bad_symbol') {
      if (!(await this.pairListed())) this.pauseFor('pair_delisted', message);
    } else if (!(err instanceof VenueError)) {
      this.deps.log.warn({ err, botId: this.id }, 'order failed with an unexpected error');
    }
  }

  /** Hands the bot to the runner to pause once its current task is done (never awaited from inside it). */
  private pauseFor(problem: 'auth_failed' | 'pair_delisted', detail: string): void {
    // Only a trading bot pauses; one attached for a user action (a stop) just carries the action out.
    if (this.pausing || this.stopped || !this.trading) return;
    this.pausing = true;
    this.pauseDone = this.runner
      .pause(this.id, problem, detail)
      .catch((err: unknown) => this.deps.log.error({ err, botId: this.id }, 'could not pause bot'));
  }

  /** Whether the exchange lists the bot's pair now (the market list read afresh). */
  private async pairListed(): Promise<boolean> {
    const market = this.deps.market();
    market.invalidateMarkets?.(this.row.exchange);
    return (await market.listedSymbol(this.row.exchange, this.row.symbol).catch(() => null)) !== null;
  }

  /**
   * A tick's step threw (a strategy bug or a corrupt stored state): rather than failing every second,
   * the bot stops with status error and the reason in its log. Its orders stay where they are.
   */
  failTick(err: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    const message = err instanceof Error ? err.message : String(err);
    void this.enqueue(() => this.halt('error', 'internal_error', message));
  }

  /** Stops the bot without the strategy (the venue refuses our key): status error with the reason. */
  private async halt(status: 'error' | 'stopped', code: string, message: string) {
    await this.deps.store.write({
      botId: this.id,
      status,
      stopReason: `${code}: ${message}`,
      stoppedAt: new Date(this.now()),
      events: [{ botId: this.id, level: 'error', code, params: { message } }],
    });
    this.markStopped();
  }

  private async cancel(clientOrderId: string): Promise<void> {
    const entry = this.journal.get(clientOrderId);
    if (entry && FINAL.has(entry.status)) {
      // Already settled: the strategy heard about it (or will ignore it); nothing to send.
      return;
    }
    for (let attempt = 0; attempt < MAX_PLACE_ATTEMPTS; attempt++) {
      try {
        const found = await this.lookup(clientOrderId);
        if (!found) {
          await this.settleMissing(clientOrderId);
          return;
        }
        if (found.status !== 'open') {
          await this.applySnapshot(found, false);
          return;
        }
        const venue = await this.currentVenue();
        const order = await venue.cancelOrder(found.id, this.row.symbol);
        await this.applySnapshot(order, false);
        return;
      } catch (err) {
        if (err instanceof ConnectionGoneError) return;
        if (err instanceof OrderNotFoundError) continue;
        if (err instanceof VenueError && err.action === 'retry') {
          await sleep(this.backoff(attempt));
          continue;
        }
        if (err instanceof AuthenticationError) {
          this.pauseFor('auth_failed', err.message);
          return;
        }
        throw err;
      }
    }
  }

  /** A journaled order the venue does not know: it never got there. Cancelled, so the strategy re-plans. */
  private async settleMissing(clientOrderId: string): Promise<void> {
    this.journal.set(clientOrderId, {
      status: 'cancelled',
      filled: 0,
      role: this.journal.get(clientOrderId)?.role ?? '',
    });
    // Fed as a cancel with nothing filled: the strategy re-plans at once (a rejection would back off).
    await this.step(
      { type: 'order_cancelled', clientOrderId, ts: this.now() },
      {
        orderUpdates: [{ clientOrderId, patch: { status: 'cancelled' } }],
        events: [
          { botId: this.id, level: 'warn', code: 'reconcile_never_placed', params: { clientOrderId } },
        ],
      },
    );
  }

  private async cancelOrphan(order: Order): Promise<void> {
    try {
      await (await this.currentVenue()).cancelOrder(order.id, this.row.symbol);
    } catch (err) {
      this.deps.log.warn({ err, botId: this.id }, 'could not cancel an orphan order');
    }
    await this.logEvent('warn', 'reconcile_unknown_order', { clientOrderId: order.clientOrderId ?? '' });
  }

  private feeInQuote(order: Order): number {
    if (!order.fee) return 0;
    const [base, quote] = this.row.symbol.split('/');
    if (order.fee.currency === quote) return order.fee.cost;
    if (order.fee.currency === base) return order.fee.cost * (order.average ?? order.price ?? 0);
    return order.fee.cost;
  }

  /**
   * Turns a venue snapshot of one of our orders into strategy events, at most once per change:
   * the journal remembers what was already applied (createOrder's answer and the pushed update
   * carry the same fill).
   */
  async applySnapshot(
    order: Order,
    fromPlace: boolean,
    reconciled = false,
    arrived?: Arrival,
  ): Promise<void> {
    const cid = order.clientOrderId;
    if (!cid) return;
    let entry = this.journal.get(cid);
    if (!entry) {
      const rows = await this.deps.store.liveOrders(this.id);
      for (const r of rows) {
        if (!this.journal.has(r.clientOrderId)) {
          this.journal.set(r.clientOrderId, { status: r.status, filled: num(r.filled), role: r.role });
        }
      }
      entry = this.journal.get(cid);
      if (!entry) return; // Not live in our journal: already final, or not ours.
    }
    if (FINAL.has(entry.status)) {
      // Settled for us but open on the venue: never leave it there.
      if (order.status === 'open' && entry.status !== 'filled') await this.cancelOrphan(order);
      return;
    }
    const ts = order.lastUpdateTimestamp ?? order.timestamp ?? this.now();
    const price = order.average ?? order.price ?? 0;
    const fee = this.feeInQuote(order);
    const base: Partial<NewBotOrderRow> = {
      venueOrderId: order.id,
      filled: String(order.filled),
      avgPrice: order.average === null ? null : String(order.average),
      fee: String(fee),
    };
    const events: NewBotEventRow[] = [];
    if (reconciled && order.status !== 'open') {
      events.push({
        botId: this.id,
        level: 'info',
        code: 'reconcile_fill',
        params: { clientOrderId: cid, status: order.status, filled: order.filled },
      });
    }
    if (order.status === 'closed') {
      entry.status = 'filled';
      entry.filled = order.filled;
      await this.step(
        { type: 'order_filled', clientOrderId: cid, price, amount: order.filled, fee, ts },
        { orderUpdates: [{ clientOrderId: cid, patch: { ...base, status: 'filled' } }], events },
        arrived,
      );
    } else if (order.status === 'canceled' || order.status === 'expired') {
      entry.status = 'cancelled';
      entry.filled = order.filled;
      await this.step(
        {
          type: 'order_cancelled',
          clientOrderId: cid,
          ts,
          ...(order.filled > 0 ? { filled: order.filled, price, fee } : {}),
        },
        { orderUpdates: [{ clientOrderId: cid, patch: { ...base, status: 'cancelled' } }], events },
        arrived,
      );
    } else if (order.status === 'rejected') {
      entry.status = 'rejected';
      await this.step(
        {
          type: 'order_rejected',
          clientOrderId: cid,
          reason: 'unknown',
          message: 'rejected by the venue',
          ts,
        },
        { orderUpdates: [{ clientOrderId: cid, patch: { ...base, status: 'rejected' } }], events },
        arrived,
      );
    } else {
      const wasPending = entry.status === 'pending_submit';
      entry.status = 'open';
      if (order.filled > entry.filled) {
        entry.filled = order.filled;
        await this.step(
          { type: 'order_partially_filled', clientOrderId: cid, filled: order.filled, price, fee, ts },
          { orderUpdates: [{ clientOrderId: cid, patch: { ...base, status: 'open' } }] },
          arrived,
        );
      } else if (wasPending || fromPlace) {
        await this.deps.store.updateOrder(cid, { ...base, status: 'open' });
      }
    }
  }

  /**
   * Before trading again after a restart: every journaled order not final is looked up on the
   * venue by its client id and its fate applied; orders that never reached the venue are settled
   * as cancelled (the strategy re-plans them); cancels asked before the crash are sent again; open
   * orders with our prefix that the journal does not know are cancelled.
   */
  async reconcile(): Promise<void> {
    const live = await this.deps.store.liveOrders(this.id);
    for (const r of live)
      this.journal.set(r.clientOrderId, { status: r.status, filled: num(r.filled), role: r.role });
    for (const r of live) {
      const found = await this.lookup(r.clientOrderId);
      if (!found) {
        await this.settleMissing(r.clientOrderId);
        continue;
      }
      await this.applySnapshot(found, r.status === 'pending_submit', true);
      if (found.status === 'open' && r.cancelRequested) await this.cancel(r.clientOrderId);
    }
    const known = await this.deps.store.knownClientIds(this.id);
    const venue = await this.currentVenue();
    const open = await venue.fetchOpenOrders(this.row.symbol);
    for (const o of open) {
      if (!o.clientOrderId?.startsWith(this.prefix) || known.has(o.clientOrderId)) continue;
      try {
        await venue.cancelOrder(o.id, this.row.symbol);
      } catch (err) {
        this.deps.log.warn({ err, botId: this.id }, 'could not cancel an unknown order');
      }
      await this.logEvent('warn', 'reconcile_unknown_order', { clientOrderId: o.clientOrderId });
    }
    if (live.length > 0) await this.logEvent('info', 'resumed', { orders: live.length });
  }

  inRangeAt(price: number): boolean {
    return inRange(this.state, price);
  }
}

/**
 * Runs bots: leases active bots, feeds them ticks from the market hub and order updates from their
 * venue, carries out their commands and persists every change (DESIGN.md principles 4, 5, 10).
 */
export class BotRunner {
  private handles = new Map<string, BotHandle>();
  /** One market subscription per (exchange, symbol), fanned out to the bots trading it. */
  private pairs = new Map<string, { bots: Set<BotHandle>; unsubscribe: () => void }>();
  private attaching = new Map<string, Promise<BotHandle>>();
  private heartbeat: NodeJS.Timeout | null = null;
  private actionTimer: NodeJS.Timeout | null = null;
  private problemTimer: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | undefined;
  /** A poll for forwarded actions is under way. */
  private actionsPolling = false;
  /** Bots whose forwarded actions are being carried out (one worker a bot). */
  private readonly botsActing = new Set<string>();
  private closed = false;

  constructor(readonly deps: RunnerDeps) {}

  get size() {
    return this.handles.size;
  }

  /** Leases and resumes every active bot (reconciling each before it trades), then keeps the lease alive. */
  async start(): Promise<void> {
    await this.scan(true);
    const every = this.deps.heartbeatMs ?? 10_000;
    this.heartbeat = setInterval(
      () => void this.scan(false).catch((err: unknown) => this.deps.log.error({ err }, 'lease scan failed')),
      every,
    );
    this.heartbeat.unref();
    const store = this.deps.store;
    if (this.deps.autoRun && hasActions(store)) {
      this.actionTimer = setInterval(() => void this.runForwarded(store), this.deps.actionPollMs ?? 200);
      this.actionTimer.unref();
    }
    if (this.deps.autoRun) {
      this.unlisten = this.deps.market().onListing?.((e) => {
        void this.onListing(e).catch((err: unknown) => this.deps.log.error({ err }, 'listing change failed'));
      });
      this.problemTimer = setInterval(
        () =>
          void this.recheckProblems().catch((err: unknown) =>
            this.deps.log.error({ err }, 'problem recheck failed'),
          ),
        this.deps.problemCheckMs ?? 30_000,
      );
      this.problemTimer.unref();
    }
  }

  /**
   * Carries out the actions other processes forwarded to this one (it holds those bots' leases): one
   * bot's actions one after another, in the order they were sent; different bots' side by side, so a
   * stop that waits for its exchange does not hold up other users' actions.
   */
  private async runForwarded(store: RunnerStore & ActionStore): Promise<void> {
    if (this.actionsPolling || this.closed) return;
    this.actionsPolling = true;
    try {
      const byBot = new Map<string, BotActionRow[]>();
      for (const a of await store.pendingActions(this.deps.runnerId)) {
        if (this.botsActing.has(a.botId)) continue; // picked up once its earlier actions are done
        const list = byBot.get(a.botId) ?? [];
        list.push(a);
        byBot.set(a.botId, list);
      }
      for (const [botId, list] of byBot) {
        this.botsActing.add(botId);
        void (async () => {
          try {
            for (const a of list) await this.runOneForwarded(store, a);
          } catch (err) {
            this.deps.log.error({ err, botId }, 'forwarded bot actions failed');
          } finally {
            this.botsActing.delete(botId);
          }
        })();
      }
    } catch (err) {
      this.deps.log.error({ err }, 'forwarded bot actions could not be read');
    } finally {
      this.actionsPolling = false;
    }
  }

  private async runOneForwarded(store: RunnerStore & ActionStore, a: BotActionRow): Promise<void> {
    if (!(await store.moveAction(a.id, 'pending', 'running'))) return; // the sender gave up on it
    if (!this.handles.has(a.botId)) {
      await store.moveAction(a.id, 'running', 'failed', { error: NOT_HERE });
      return;
    }
    try {
      const event = a.event as StrategyEvent;
      const ok =
        event.type === 'stop'
          ? await this.stopBot(a.botId, event.mode, a.stopTimeoutMs ?? 20_000)
          : (await this.act(a.botId, event), true);
      await store.moveAction(a.id, 'running', 'done', { ok });
    } catch (err) {
      await store.moveAction(a.id, 'running', 'failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private async scan(first: boolean): Promise<void> {
    if (this.closed) return;
    const ttl = (this.deps.heartbeatMs ?? 10_000) * 3;
    const ids = await this.deps.store.lease(this.deps.runnerId, ttl, first && this.deps.takeAllLeases);
    for (const id of ids) {
      if (this.handles.has(id) || this.attaching.has(id)) continue;
      await this.get(id).catch((err: unknown) =>
        this.deps.log.error({ err, botId: id }, 'could not resume bot'),
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.actionTimer) clearInterval(this.actionTimer);
    if (this.problemTimer) clearInterval(this.problemTimer);
    this.unlisten?.();
    const hs = [...this.handles.values()];
    for (const h of hs) h.detach();
    await Promise.all(hs.map((h) => h.idle()));
    this.handles.clear();
    await this.deps.store.releaseLeases(this.deps.runnerId).catch(() => undefined);
  }

  /** Drops every bot at once without waiting for anything (tests: a process that died). */
  abandon(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.actionTimer) clearInterval(this.actionTimer);
    for (const h of this.handles.values()) h.detach();
    this.handles.clear();
  }

  forget(h: BotHandle) {
    h.detach();
    if (this.handles.get(h.id) === h) this.handles.delete(h.id);
  }

  /** Stops running a bot in this process without the strategy (its connection is going away). */
  drop(botId: string): void {
    const h = this.handles.get(botId);
    if (!h) return;
    h.stopped = true;
    this.forget(h);
  }

  has(botId: string) {
    return this.handles.has(botId);
  }

  /**
   * Adds a bot to its pair's tick fan-out (subscribing upstream for the first bot of the pair); the
   * tick's arrival time is taken once per pair tick, so a bot's latency includes the bots before it.
   */
  joinPair(h: BotHandle): () => void {
    const key = `${h.row.exchange}|${h.row.symbol}`;
    let pair = this.pairs.get(key);
    if (!pair) {
      const bots = new Set<BotHandle>();
      const unsubscribe = this.deps.market().subscribe(h.row.exchange, h.row.symbol, (t) => {
        const at = performance.now();
        for (const b of bots) {
          // One bot's failure (a strategy bug) must not keep the tick from the bots after it.
          try {
            b.onPairTick(t.last, at);
          } catch (err) {
            this.deps.log.error({ err, botId: b.id }, 'tick failed');
            b.failTick(err);
          }
        }
      });
      pair = { bots, unsubscribe };
      this.pairs.set(key, pair);
    }
    const p = pair;
    p.bots.add(h);
    return () => {
      p.bots.delete(h);
      if (p.bots.size === 0 && this.pairs.get(key) === p) {
        this.pairs.delete(key);
        p.unsubscribe();
      }
    };
  }

  handle(botId: string): BotHandle | undefined {
    return this.handles.get(botId);
  }

  /** The running handle of a bot, attaching (and reconciling) it when this process does not run it yet. */
  async get(botId: string, trade = this.deps.autoRun): Promise<BotHandle> {
    const existing = this.handles.get(botId);
    if (existing) return existing;
    const pending = this.attaching.get(botId);
    if (pending) return pending;
    const p = (async () => {
      const row = await this.deps.store.byId(botId);
      if (!row) throw new Error(`bot ${botId} not found`);
      const h = new BotHandle(row, this);
      if (row.status !== 'active') h.stopped = true;
      // A bot with a problem is attached for a user action only (a stop), never to trade.
      const tradeNow = trade && row.status === 'active' && row.problem === null;
      await h.attach(tradeNow);
      if (tradeNow && !h.stopped && !this.closed) this.handles.set(botId, h);
      return h;
    })();
    this.attaching.set(botId, p);
    try {
      return await p;
    } finally {
      this.attaching.delete(botId);
    }
  }

  /**
   * Runs one user action on a bot: here when this process runs it or can take its lease (an API-only
   * process takes it for the action and gives it back), else on the process holding the lease.
   */
  async act(botId: string, event: StrategyEvent): Promise<DcaState> {
    const holder = await this.holderElsewhere(botId);
    if (holder) {
      await this.forward(botId, holder, event, null);
      return (await this.deps.store.byId(botId))!.state as DcaState;
    }
    const h = await this.get(botId);
    try {
      await h.action(event);
    } finally {
      await this.letGo(h);
    }
    return h.state;
  }

  /** Starts running a bot here unless this process already does or another live runner holds it. */
  async adopt(botId: string): Promise<boolean> {
    if (this.handles.has(botId) || (await this.holderElsewhere(botId))) return false;
    await this.get(botId);
    return this.handles.has(botId);
  }

  /** Stops a bot with the given mode and waits until the strategy reports it stopped. */
  async stopBot(botId: string, mode: StopMode, timeoutMs = 20_000): Promise<boolean> {
    const holder = await this.holderElsewhere(botId);
    if (holder) return this.forward(botId, holder, { type: 'stop', mode, ts: this.now() }, timeoutMs);
    const h = await this.get(botId);
    try {
      if (h.stopped) return true;
      await h.action({ type: 'stop', mode, ts: this.now() });
      return await h.waitStopped(timeoutMs);
    } finally {
      await this.letGo(h);
    }
  }

  private now() {
    return this.deps.now?.() ?? Date.now();
  }

  /**
   * Pauses a bot that cannot trade now (issue: one broken bot never breaks anything else): it stops
   * here (no ticks, no orders), stays active with `problem` and the reason in its event log, and
   * keeps its lots. A delisted pair's open orders are cancelled where the venue still can; with a
   * refused key nothing can be sent. `unpause` (relisting, the key working again) reconciles it back.
   */
  async pause(botId: string, problem: 'auth_failed' | 'pair_delisted', detail: string): Promise<void> {
    const h = this.handles.get(botId);
    if (h) {
      h.pausing = true;
      await h.idle();
      this.drop(botId);
    }
    const row = h?.row ?? (await this.deps.store.byId(botId));
    if (!row || row.status !== 'active') return;
    if (problem === 'pair_delisted') await this.cancelOpenOrders(row, h?.venue ?? null);
    await this.deps.store.write({
      botId,
      problem,
      problemDetail: detail,
      events: [{ botId, level: 'warn', code: problem, params: { message: detail } }],
    });
    const store = this.deps.store;
    if (hasActions(store)) await store.releaseLease(botId, this.deps.runnerId).catch(() => undefined);
  }

  /** Cancels what is still open of a paused bot's orders (best effort; the journal marks the intent). */
  private async cancelOpenOrders(row: BotRow, current: Venue | null): Promise<void> {
    let venue = current && !current.closed ? current : null;
    try {
      venue ??= await this.deps.venues().forUser(row.userId, row.exchange);
    } catch {
      return;
    }
    for (const o of await this.deps.store.liveOrders(row.id)) {
      try {
        const found = await venue.fetchOrderByClientId(o.clientOrderId, row.symbol);
        if (found?.status === 'open') await venue.cancelOrder(found.id, row.symbol);
        await this.deps.store.updateOrder(o.clientOrderId, { cancelRequested: true });
      } catch (err) {
        this.deps.log.warn({ err, botId: row.id }, 'could not cancel an order of a paused bot');
      }
    }
  }

  /** The problem is gone: the bot is reconciled with its venue and trades again. */
  async unpause(botId: string, was: string): Promise<void> {
    await this.deps.store.write({
      botId,
      problem: null,
      problemDetail: null,
      events: [{ botId, level: 'info', code: 'problem_cleared', params: { problem: was } }],
    });
    if (this.deps.autoRun && !this.closed) await this.get(botId);
  }

  /** Listing changes of the market (the simulator's control; live delistings show as order refusals). */
  private async onListing(e: { exchange: string; symbol: string; listed: boolean }): Promise<void> {
    if (!e.listed) {
      const hit = [...this.handles.values()].filter(
        (h) => h.row.exchange === e.exchange && h.row.symbol === e.symbol,
      );
      await Promise.all(
        hit.map((h) => this.pause(h.id, 'pair_delisted', `${e.symbol} was delisted by ${e.exchange}`)),
      );
      return;
    }
    const rows = (await this.deps.store.withProblem?.('pair_delisted', e)) ?? [];
    for (const r of rows) await this.unpause(r.id, 'pair_delisted');
  }

  /**
   * Tries the problems that may have gone away: a refused key is tried again (an order query on the
   * bot's pair), a delisted pair is looked up again. Runs every `problemCheckMs` and on resume.
   */
  async recheckProblems(userId?: string): Promise<void> {
    const store = this.deps.store;
    if (!store.withProblem || this.closed) return;
    for (const r of await store.withProblem('auth_failed')) {
      if (userId && r.userId !== userId) continue;
      try {
        const venue = await this.deps.venues().forUser(r.userId, r.exchange);
        await venue.fetchOpenOrders(r.symbol);
      } catch (err) {
        if (!(err instanceof AuthenticationError)) {
          this.deps.log.warn({ err, botId: r.id }, 'key check of a paused bot failed');
        }
        continue;
      }
      await this.unpause(r.id, 'auth_failed');
    }
    for (const r of await store.withProblem('pair_delisted')) {
      if (userId && r.userId !== userId) continue;
      const market = this.deps.market();
      market.invalidateMarkets?.(r.exchange);
      if (await market.listedSymbol(r.exchange, r.symbol).catch(() => null)) {
        await this.unpause(r.id, 'pair_delisted');
      }
    }
  }

  /**
   * The runner that holds the bot's lease when it is another live one; null when the action runs here
   * (this process runs the bot, or took its lease now). Single-process stores always answer null.
   */
  private async holderElsewhere(botId: string): Promise<string | null> {
    const store = this.deps.store;
    if (this.handles.has(botId) || this.attaching.has(botId) || !hasActions(store)) return null;
    const ttl = (this.deps.heartbeatMs ?? 10_000) * 3;
    const claim = await store.claim(botId, this.deps.runnerId, ttl, this.deps.takeAllLeases);
    return claim.ok ? null : claim.holder;
  }

  /** After an action on a bot this process does not trade: detach it and give its lease back. */
  private async letGo(h: BotHandle): Promise<void> {
    if (this.handles.get(h.id) === h) return;
    h.detach();
    const store = this.deps.store;
    if (hasActions(store)) await store.releaseLease(h.id, this.deps.runnerId);
  }

  /**
   * Hands an action to the process holding the bot's lease and waits for its outcome. If the holder
   * has not started it in time (dead or stuck), the action is withdrawn (so it can never run twice)
   * and carried out here once the lease can be taken; otherwise the user is asked to try again.
   */
  private async forward(
    botId: string,
    holder: string,
    event: StrategyEvent,
    stopTimeoutMs: number | null,
    rerouted = false,
  ): Promise<boolean> {
    const store = this.deps.store as RunnerStore & ActionStore;
    const id = await store.addAction({ botId, runnerId: holder, event, stopTimeoutMs });
    const poll = this.deps.actionPollMs ?? 200;
    const startBy = Date.now() + (this.deps.forwardTimeoutMs ?? 25_000);
    let finishBy = Number.POSITIVE_INFINITY;
    for (;;) {
      await sleep(poll);
      const a = await store.actionById(id);
      if (!a) throw new Error('forwarded action vanished');
      if (a.status === 'done') return a.ok ?? true;
      if (a.status === 'failed') {
        if (a.error === NOT_HERE && !rerouted) return this.again(botId, event, stopTimeoutMs);
        throw new HttpError(503, `The bot could not carry out the action: ${a.error ?? 'unknown error'}`);
      }
      if (a.status === 'running' && finishBy === Number.POSITIVE_INFINITY) {
        finishBy = Date.now() + (stopTimeoutMs ?? 0) + (this.deps.forwardTimeoutMs ?? 25_000);
      }
      if (a.status === 'pending' && Date.now() > startBy) {
        if (await store.moveAction(id, 'pending', 'failed', { error: 'not started in time' })) {
          if (rerouted) break;
          return this.again(botId, event, stopTimeoutMs);
        }
      }
      if (Date.now() > finishBy) break;
    }
    throw new HttpError(503, 'The bot is busy in another process. Please try again in a moment.');
  }

  /** Routes an action once more (the lease may have moved or lapsed meanwhile). */
  private async again(botId: string, event: StrategyEvent, stopTimeoutMs: number | null): Promise<boolean> {
    const holder = await this.holderElsewhere(botId);
    if (holder) return this.forward(botId, holder, event, stopTimeoutMs, true);
    if (event.type === 'stop') return this.stopBot(botId, event.mode, stopTimeoutMs ?? 20_000);
    await this.act(botId, event);
    return true;
  }

  /** Waits until every bot's queue is empty (tests, bench). Only busy bots are awaited (10,000 promises a call otherwise). */
  async idle(): Promise<void> {
    const busy: BotHandle[] = [];
    for (const h of this.handles.values()) if (h.isBusy) busy.push(h);
    await Promise.all(busy.map((h) => h.idle()));
  }
}
