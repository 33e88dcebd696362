import { isQuietTick, type QuietBand, type StepResult, type StrategyEvent } from '@bytx/engine';
import type { Order, Venue } from '@bytx/venues';
import type { BotRow, BotWrite, NewBotEventRow, NewBotOrderRow, NewBotTradeRow } from '../bots.rows';
import { derivativesOf, isDerivatives, venueSymbol, type LiquidationInfo } from '../derivatives';
import { BotVenues, ConnectionGoneError } from './bot-venues';
import { BotClientIds } from './client-ids';
import { OrderExecutor } from './order-executor';
import type { AnyState, AnyStrategy, Arrival, MarketKey, OpaqueState, RunnerDeps } from './types';

/** What a bot needs from the runner that holds it. */
export interface HandleHost {
  readonly deps: RunnerDeps;
  /** Joins the tick fan-out of a market; returns the leave function. */
  joinMarket(h: BotHandle, m: MarketKey): () => void;
  /** The bot stopped (or was dropped): the runner no longer holds it. */
  forget(h: BotHandle): void;
  pause(
    botId: string,
    problem: 'auth_failed' | 'pair_delisted' | 'cannot_run',
    detail: string,
  ): Promise<void>;
}

type State = OpaqueState;

/**
 * One bot in this process: its strategy state, and a promise queue that serializes every event
 * (ticks, order updates, user actions) so the strategy sees them one at a time. Orders go through its
 * OrderExecutor (journal, send, reconcile), venues through its BotVenues; the strategy comes from the
 * kind registry, so this class knows no bot kind.
 */
export class BotHandle {
  /** The strategy state as of the last step; a quiet tick since then is held in `quiet*` below. */
  private cur: State;
  /**
   * The last quiet tick not yet written into `cur` (see onPairTick). Numbers from the start, so V8
   * keeps them as in-place doubles: a quiet tick allocates nothing and stores no new object.
   */
  private quietPrice = 0;
  private quietTs = 0;
  private quietPending = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly leave: (() => void)[] = [];
  private pendingTick: { price: number; ts: number; at: number } | null = null;
  /** Coalesced ticks of the other markets a strategy follows, by `exchange|symbol`. */
  private pendingOther: Map<string, { event: StrategyEvent & { type: 'tick' }; at: number }> | null = null;
  /** Tasks queued or running; a quiet tick is applied synchronously only when this is 0. */
  private busy = 0;
  private band: QuietBand | null = null;
  private bandOf: State | null = null;
  /** The state last written (or loaded): what `samePersisted` compares a tick's result with. */
  private persisted: State;
  private stoppedWaiters: ((ok: boolean) => void)[] = [];
  readonly prefix: string;
  /** The bot's client order ids in each exchange's form (issue 38 point 1). */
  readonly ids: BotClientIds;
  /** The exchange's symbol of the bot's market (marketSymbol(row.symbol, row.marketType)): every venue
   *  call, order and market subscription of the bot's own market uses it. */
  readonly marketSymbol: string;
  /** A derivatives bot (Perpetual, Inverse, Margin): it holds a position, has a leverage, can be liquidated. */
  readonly derivatives: boolean;
  readonly venues: BotVenues;
  readonly orders: OrderExecutor;
  /** The strategy decides on order books: its ticks carry `book` (Strategy.bookDepth). */
  private readonly wantsBooks: boolean;
  detached = false;
  stopped = false;
  /** Being paused (pair delisted, key refused): no further order is sent. */
  pausing = false;
  /** The pause under way (written to the bot row once it resolves). */
  pauseDone: Promise<void> | null = null;
  /** Attached to trade (ticks and order updates), not just for one user action. */
  trading = false;
  /** The venue liquidated the bot's position: no order is sent to its market any more (the strategy
   *  hears of it next and stops). */
  liquidating = false;

  constructor(
    readonly row: BotRow,
    private readonly host: HandleHost,
    private readonly strategy: AnyStrategy,
  ) {
    this.cur = row.state as State;
    this.prefix = `${(row.state as { botId: string }).botId}-`;
    this.ids = new BotClientIds((row.state as { botId: string }).botId);
    this.marketSymbol = venueSymbol(row.symbol, row.marketType ?? 'Spot');
    this.derivatives = isDerivatives(row.marketType ?? 'Spot');
    this.wantsBooks = typeof strategy.bookDepth === 'function';
    this.persisted = this.cur;
    this.venues = new BotVenues(this);
    this.orders = new OrderExecutor(this);
  }

  /** The current strategy state, with the last quiet tick written into it (in place). Callers that
   *  know the bot's kind read it typed. */
  get state(): AnyState {
    return this.current();
  }

  private current(): State {
    if (this.quietPending) {
      this.quietPending = false;
      this.strategy.noteQuietTick?.(this.cur, this.quietPrice, this.quietTs);
    }
    return this.cur;
  }

  private setState(s: State) {
    this.quietPending = false;
    this.cur = s;
  }

  get id() {
    return this.row.id;
  }
  get deps() {
    return this.host.deps;
  }
  /** The bot's own venue (null before attach). */
  get venue(): Venue | null {
    return this.venues.primary;
  }
  now() {
    return this.deps.now?.() ?? Date.now();
  }

  /** Every market the bot follows: its own first, then those its strategy names. */
  markets(): MarketKey[] {
    const own = { exchange: this.row.exchange, symbol: this.marketSymbol };
    const extra = this.strategy.extraMarkets?.(this.current()) ?? [];
    return [own, ...extra.filter((m) => m.exchange !== own.exchange || m.symbol !== own.symbol)];
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

  /** Waits until the bot's queue is empty and everything it wrote has committed. */
  async idle(): Promise<void> {
    await this.queue;
    await this.deps.store.flushed?.();
  }

  /** Whether anything is queued or running for this bot. */
  get isBusy(): boolean {
    return this.busy > 0;
  }

  /** Loads the venues, reconciles journal and venues, then (when trading) subscribes to ticks and order updates. */
  async attach(subscribe: boolean): Promise<void> {
    this.trading = subscribe;
    const markets = this.markets();
    for (const ex of new Set(markets.map((m) => m.exchange))) await this.venues.load(ex);
    // A liquidation while no process ran the bot (a crash, a restart): known before the reconcile, so
    // nothing is placed on the market meanwhile, and fed once the orders it cancelled are reconciled.
    const missed = this.derivatives && this.row.status === 'active' ? await this.missedLiquidation() : null;
    if (missed) this.liquidating = true;
    await this.enqueue(() => this.orders.reconcile(markets));
    if (missed) {
      await this.enqueue(async () => {
        await this.logEvent('info', 'reconcile_liquidation', { price: missed.price, ts: missed.ts });
        await this.liquidated(missed);
      });
    }
    // The stored leverage is set on the market before the bot's next order.
    if (this.derivatives && subscribe && !this.stopped) await this.enqueue(() => this.applyLeverage());
    if (subscribe && !this.stopped) {
      for (const m of markets) this.leave.push(this.host.joinMarket(this, m));
      // Resume (or start) from the current prices at once.
      for (const [i, m] of markets.entries()) {
        const t = await this.deps.market().ticker(m.exchange, m.symbol);
        if (i === 0) this.onTick(t.last);
        else this.onOtherTick(t.last, m);
      }
    }
  }

  /** An order update pushed by a venue (BotVenues). */
  onOrderUpdate(order: Order, _exchange: string, pushedBy: Venue): void {
    const arrived: Arrival = { at: performance.now(), source: 'order' };
    void this.enqueue(async () => {
      // A fill pushed on a price move: decided at once, but written and carried out only once the
      // venue has saved it (paper accounts save asynchronously), so our record of the fill is never
      // ahead of the venue's.
      const settled = this.venues.settled(pushedBy);
      await this.orders.applySnapshot(order, false, false, arrived, settled);
      await settled;
    });
  }

  /**
   * The venue liquidated a position (pushed by BotVenues for the bot's own market): fed to the strategy
   * as `liquidated` behind the order updates the venue pushed first (the cancels of the bot's orders).
   */
  onLiquidation(l: LiquidationInfo, pushedBy: Venue): void {
    if (this.stopped || l.symbol !== this.marketSymbol) return;
    // From now on nothing more is sent to this market: steps still queued before the liquidation (fills
    // pushed before it) must not open a new position the strategy would not know about.
    this.liquidating = true;
    void this.enqueue(async () => {
      await this.venues.settled(pushedBy);
      await this.liquidated(l);
    });
  }

  private async liquidated(l: LiquidationInfo): Promise<void> {
    if (this.stopped) return;
    await this.step(
      { type: 'liquidated', price: l.price, contracts: l.contracts, ts: l.ts },
      {
        events: [
          {
            botId: this.id,
            level: 'info',
            code: 'venue_liquidation',
            params: {
              symbol: l.symbol,
              price: l.price,
              contracts: l.contracts,
              ...(l.loss === undefined ? {} : { loss: l.loss }),
            },
          },
        ],
      },
    );
    if (!this.stopped) {
      // A strategy that did not stop on it: the position is gone, the bot cannot go on as it was.
      await this.halt('stopped', 'liquidated', `${l.symbol} position liquidated at ${l.price}`);
    }
  }

  /** The first liquidation of the bot's market since it started (asked after a restart), else null. */
  private async missedLiquidation(): Promise<LiquidationInfo | null> {
    const venue = this.venues.primary;
    const d = venue ? derivativesOf(venue) : null;
    if (!d?.fetchMyLiquidations) return null;
    const since = this.row.startedAt.getTime();
    const list = await d.fetchMyLiquidations(this.marketSymbol, since);
    const hit = list
      .filter((l) => l.ts >= since && l.symbol === this.marketSymbol)
      .sort((a, b) => a.ts - b.ts);
    return hit[0] ?? null;
  }

  /** Sets the bot's leverage on its market before it trades (derivatives; idempotent on the venue). */
  private async applyLeverage(): Promise<void> {
    const venue = this.venues.primary;
    const d = venue ? derivativesOf(venue) : null;
    if (!d?.setLeverage || this.stopped) return;
    try {
      await d.setLeverage(this.row.leverage ?? 1, this.marketSymbol);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.logEvent('warn', 'leverage_failed', { leverage: this.row.leverage ?? 1, message });
    }
  }

  /** A venue was closed under the bot (evicted by the registry): take the current one and reconcile. */
  private async replaceClosedVenues(): Promise<void> {
    if (!(await this.venues.renewClosed())) return;
    // A new venue instance knows no leverage of ours: on exchanges where it goes with each order
    // (KuCoin futures, exchanges/calls.ts ORDER_LEVERAGE) it would trade at 1x until set again.
    if (this.derivatives) await this.applyLeverage();
    await this.orders.reconcile(this.markets());
  }

  detach(): void {
    this.detached = true;
    for (const u of this.leave.splice(0)) u();
    this.venues.detach();
  }

  /**
   * A tick of the bot's own market (`at`: when it reached the runner). A tick inside the strategy's
   * quiet band (provably no command and no change but what `noteQuietTick` writes) is applied at once,
   * without the queue, when the bot has nothing queued; every other tick is stepped through the queue.
   */
  onPairTick(price: number, at: number): void {
    if (this.detached || this.stopped) return;
    if (this.wantsBooks) {
      // A strategy that decides on order books is stepped through the queue, where the book is read.
      this.onTick(price, at);
      return;
    }
    if (this.busy === 0 && this.pendingTick === null && !this.venues.primary?.closed) {
      if (this.bandOf !== this.cur) {
        this.band = this.strategy.quietBand?.(this.current()) ?? null;
        this.bandOf = this.cur;
      }
      const ts = this.now();
      if (isQuietTick(this.band, price, ts)) {
        // Only noted here and written into the state when the state is next read or stepped: storing a
        // fresh number into 10,000 state objects a second gave every young-generation GC 20,000
        // old-to-new pointers and survivors to copy (4-8 ms pauses at 10,000 bots). The band stays cached.
        this.quietPrice = price;
        this.quietTs = ts;
        this.quietPending = true;
        this.deps.onStep?.(this.id, performance.now() - at, 0, 'tick');
        return;
      }
      // Outside the band the (pure) step is decided here, in the price callback. When it issues no
      // command and changes nothing that is persisted, its state is taken at once. Otherwise it is
      // persisted and carried out through the queue, which is empty, so nothing can come between the
      // decision and its commit. Deciding in the callback instead of in a microtask keeps the tick from
      // waiting behind every other listener of the price (each paper account matching its resting
      // orders: ~400 per pair at 10,000 bots).
      if (Number.isFinite(price) && price > 0) {
        const event: StrategyEvent = { type: 'tick', price, ts };
        const result = this.strategy.step(this.current(), event);
        this.deps.onStep?.(this.id, performance.now() - at, result.commands.length, 'tick');
        if (result.commands.length === 0 && this.strategy.samePersisted(result.state, this.persisted)) {
          this.setState(result.state);
          return;
        }
        void this.enqueue(async () => {
          if (this.stopped) return; // Dropped meanwhile (its connection went away): nothing to carry out.
          if (this.venues.anyClosed) {
            // Replaced meanwhile: reconcile with the new venue first, then decide again.
            await this.replaceClosedVenues();
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
      if (this.venues.anyClosed) await this.replaceClosedVenues();
      if (this.stopped) return;
      const event = await this.withBook(
        { type: 'tick', price: tick.price, ts: tick.ts },
        { exchange: this.row.exchange, symbol: this.marketSymbol },
      );
      if (this.stopped) return;
      await this.step(event, {}, { at: tick.at, source: 'tick' });
    });
  }

  /** A tick of another market the strategy follows: stepped with its exchange and symbol, coalesced. */
  onOtherTick(price: number, m: MarketKey, at = performance.now()): void {
    if (this.detached || this.stopped || !Number.isFinite(price) || price <= 0) return;
    const key = `${m.exchange}|${m.symbol}`;
    this.pendingOther ??= new Map();
    const waiting = this.pendingOther.get(key);
    const event = { type: 'tick' as const, price, ts: this.now(), exchange: m.exchange, symbol: m.symbol };
    if (waiting) {
      waiting.event = event;
      return;
    }
    this.pendingOther.set(key, { event, at });
    void this.enqueue(async () => {
      const tick = this.pendingOther?.get(key);
      this.pendingOther?.delete(key);
      if (!tick || this.stopped) return;
      const event = await this.withBook(tick.event, m);
      if (this.stopped) return;
      await this.step(event, {}, { at: tick.at, source: 'tick' });
    });
  }

  /**
   * The tick with the market's order book when the strategy decides on books (`bookDepth`): read from
   * the shared market-data hub when the tick is stepped, so a coalesced tick gets the latest book. A
   * book that cannot be read now leaves the tick without one (the strategy then does not trade on it).
   */
  private async withBook(
    event: StrategyEvent & { type: 'tick' },
    m: MarketKey,
  ): Promise<StrategyEvent & { type: 'tick' }> {
    const depth = this.wantsBooks ? (this.strategy.bookDepth?.(this.current()) ?? 0) : 0;
    if (!(depth > 0)) return event;
    try {
      const book = await this.deps.market().orderBook(m.exchange, m.symbol, depth);
      return { ...event, book: { bids: book.bids.slice(0, depth), asks: book.asks.slice(0, depth) } };
    } catch (err) {
      this.deps.log.warn({ err, botId: this.id, market: m }, 'order book unavailable for a tick');
      return event;
    }
  }

  /** Feeds a user action through the queue and waits for it. */
  async action(event: StrategyEvent): Promise<void> {
    await this.enqueue(() => this.step(event));
    // The caller (an API route) reads what the action wrote.
    await this.deps.store.flushed?.();
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

  async logEvent(level: 'info' | 'warn' | 'error', code: string, params: Record<string, unknown> = {}) {
    await this.deps.store.event({ botId: this.id, level, code, params });
  }

  /**
   * One strategy step: compute, persist (state + journal rows + trades + log in one transaction),
   * then carry out the venue commands in order. Follow-up events (fills of a market order,
   * rejections) are stepped at once, inside the same queue slot.
   */
  async step(
    event: StrategyEvent,
    extra: Partial<BotWrite> = {},
    arrived?: Arrival,
    before?: Promise<void>,
  ): Promise<void> {
    if (before && this.stopped) await before;
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
    const result = this.strategy.step(this.current(), event);
    this.deps.onStep?.(this.id, performance.now() - t0, result.commands.length, arrived?.source ?? 'other');
    if (before) {
      // Decided now, written only once `before` has (the venue's save of the fill the event reports),
      // so our record is never ahead of the venue's. The step is pure and nothing else of this bot runs
      // meanwhile (its queue is held), unless a failing tick stopped it: then decide again, stopped.
      await before;
      if (this.stopped) return this.step(event, extra);
    }
    await this.commit(event, result, extra);
  }

  /** The second half of a step: persist what the strategy decided (one write), then carry out its commands. */
  private async commit(
    event: StrategyEvent,
    { state, commands }: StepResult<State>,
    extra: Partial<BotWrite> = {},
  ) {
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
            exchange: c.exchange && c.exchange !== this.row.exchange ? c.exchange : null,
            symbol: c.symbol ?? this.marketSymbol,
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
            exchange: c.trade.buyExchange ?? this.row.exchange,
            sellExchange: c.trade.sellExchange ?? null,
            symbol: this.row.symbol,
            lotKey: c.trade.key ?? c.trade.lotId,
            lotId: c.trade.lotId,
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
    const mustWrite =
      !this.strategy.samePersisted(state, this.persisted) ||
      event.type !== 'tick' ||
      newOrders.length > 0 ||
      cancelIds.length > 0 ||
      trades.length > 0 ||
      events.length > 0 ||
      stoppedReason !== null ||
      (extra.orderUpdates?.length ?? 0) > 0 ||
      extra.state !== undefined;
    if (mustWrite) {
      const w: BotWrite = {
        botId: this.id,
        ...extra,
        state,
        pnl: this.strategy.realizedPnl(state),
        newOrders,
        trades,
        events,
        orderUpdates: [
          ...(extra.orderUpdates ?? []),
          ...cancelIds.map((id) => ({ clientOrderId: id, patch: { cancelRequested: true } })),
        ],
      };
      if (stoppedReason !== null) {
        w.status = stoppedReason === 'entry_failed' ? 'error' : 'stopped';
        w.stopReason = stoppedReason;
        w.stoppedAt = new Date(this.now());
        events.push({ botId: this.id, level: 'info', code: 'stopped', params: { reason: stoppedReason } });
      }
      const sends = newOrders.length > 0 || cancelIds.length > 0;
      if (sends || stoppedReason !== null || !this.deps.store.flushed) {
        // A write an order or a cancel waits for goes by the store's send lane (issue 45 point 6).
        await this.deps.store.write(w, sends ? { send: true } : undefined);
      } else {
        // Nothing of this step reaches a venue, so nothing has to wait for its commit: the store commits
        // writes in the order they were made, so any later one (an order's journal row included) lands
        // with or after it, and a crash before it loses only what the reconcile derives again from the
        // venue. `idle()` and user actions wait for the store's flush, so a reader after them sees it.
        this.deps.store.write(w).catch((err: unknown) => {
          this.deps.log.error({ err, botId: this.id }, 'bot write failed');
        });
      }
      this.persisted = state;
    }
    this.setState(state);
    // The quiet band of the new state is computed here, between ticks, rather than in the next tick's
    // fan-out, where every bot of the pair waits for it.
    this.band = this.strategy.quietBand?.(state) ?? null;
    this.bandOf = state;
    this.orders.noteNew(newOrders);
    if (stoppedReason !== null) this.markStopped();
    await this.orders.execute(commands);
  }

  private markStopped() {
    this.stopped = true;
    this.host.forget(this);
    for (const w of this.stoppedWaiters.splice(0)) w(true);
  }

  /** Hands the bot to the runner to pause once its current task is done (never awaited from inside it). */
  pauseFor(problem: 'auth_failed' | 'pair_delisted' | 'cannot_run', detail: string): void {
    // Only a trading bot pauses; one attached for a user action (a stop) just carries the action out.
    if (this.pausing || this.stopped || !this.trading) return;
    this.pausing = true;
    this.pauseDone = this.host
      .pause(this.id, problem, detail)
      .catch((err: unknown) => this.deps.log.error({ err, botId: this.id }, 'could not pause bot'));
  }

  /** Whether the exchange lists the bot's pair now (the market list read afresh). */
  async pairListed(): Promise<boolean> {
    const market = this.deps.market();
    market.invalidateMarkets?.(this.row.exchange);
    return (await market.listedSymbol(this.row.exchange, this.marketSymbol).catch(() => null)) !== null;
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
  async halt(status: 'error' | 'stopped', code: string, message: string) {
    await this.deps.store.write({
      botId: this.id,
      status,
      stopReason: `${code}: ${message}`,
      stoppedAt: new Date(this.now()),
      events: [{ botId: this.id, level: 'error', code, params: { message } }],
    });
    this.markStopped();
  }
}

export { ConnectionGoneError };
