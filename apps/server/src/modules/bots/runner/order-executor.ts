import type { PlaceOrderCommand, RejectReason, StrategyCommand, StrategyEvent } from '@bytx/engine';
import {
  AuthenticationError,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  UnmappedExchangeError,
  VenueError,
  isRetryable,
  type Order,
} from '@bytx/venues';
import type { BotOrderRow, BotRow, BotWrite, NewBotEventRow, NewBotOrderRow } from '../bots.rows';
import { ConnectionGoneError, type BotVenues } from './bot-venues';
import type { BotClientIds } from './client-ids';
import { sleep, type Arrival, type MarketKey, type RunnerDeps } from './types';

const FINAL = new Set(['filled', 'cancelled', 'rejected']);
const MAX_PLACE_ATTEMPTS = 4;

function num(v: string | null | undefined): number {
  return v === null || v === undefined ? 0 : Number(v);
}

/** What sending an order got: the venue's order, its refusal, or nothing (the connection is gone). */
type SendOutcome = { kind: 'order'; order: Order } | { kind: 'refused'; err: unknown } | { kind: 'gone' };

/** What the journal knows about one order; used to turn venue snapshots into strategy events once. */
interface JournalEntry extends MarketKey {
  status: BotOrderRow['status'];
  filled: number;
  role: string;
}

/**
 * Whether a venue error is worth the same request again: transient ones (retry, resync_clock: the venue
 * resynced its clock already) and unmapped ones, which get the same bounded tries and then pause the bot.
 */
function retriable(err: unknown): err is VenueError {
  return isRetryable(err) || err instanceof UnmappedExchangeError;
}

function rejectReasonOf(err: unknown): RejectReason {
  if (err instanceof InsufficientFundsError) return 'insufficient_funds';
  if (err instanceof InvalidOrderError) {
    if (err.reason === 'min_cost' || err.reason === 'min_amount') return 'min_cost';
    if (err.reason === 'precision') return 'precision';
    return 'unknown';
  }
  return 'exchange_error';
}

/** The bot an executor works for (BotHandle). */
export interface ExecutorOwner {
  readonly id: string;
  readonly row: BotRow;
  /** The exchange's symbol of the bot's own market (marketSymbol(row.symbol, row.marketType)). */
  readonly marketSymbol: string;
  readonly prefix: string;
  /** The bot's client ids in each exchange's form (sent) and back (received). */
  readonly ids: BotClientIds;
  readonly deps: RunnerDeps;
  readonly venues: BotVenues;
  readonly pausing: boolean;
  /** The venue liquidated the bot's position: orders for its own market are not sent. */
  readonly liquidating: boolean;
  now(): number;
  /**
   * Steps the strategy with `event` (persisting `extra` with it) and carries out what it decides; with
   * `before`, the decision is written and carried out only once `before` resolves.
   */
  step(
    event: StrategyEvent,
    extra?: Partial<BotWrite>,
    arrived?: Arrival,
    before?: Promise<void>,
  ): Promise<void>;
  logEvent(level: 'info' | 'warn' | 'error', code: string, params?: Record<string, unknown>): Promise<void>;
  pauseFor(problem: 'auth_failed' | 'pair_delisted' | 'cannot_run', detail: string): void;
  halt(status: 'error' | 'stopped', code: string, message: string): Promise<void>;
  pairListed(): Promise<boolean>;
}

/**
 * One bot's orders on its venues: the journal (written before anything is sent, DESIGN.md principle 5),
 * sending and cancelling in the strategy's order, turning venue snapshots into strategy events exactly
 * once, and reconciling journal and venue after a restart. Knows no strategy.
 */
export class OrderExecutor {
  private readonly journal = new Map<string, JournalEntry>();
  private pending: StrategyCommand[] = [];
  private draining = false;

  constructor(private readonly bot: ExecutorOwner) {}

  private get deps() {
    return this.bot.deps;
  }

  /** The market of a journaled order (the bot's own unless the strategy named another). */
  marketOf(row: { exchange?: string | null; symbol: string }): MarketKey {
    return { exchange: row.exchange ?? this.bot.row.exchange, symbol: row.symbol };
  }

  private isOwnMarket(c: PlaceOrderCommand): boolean {
    return (
      (c.exchange ?? this.bot.row.exchange) === this.bot.row.exchange &&
      (c.symbol ?? this.bot.marketSymbol) === this.bot.marketSymbol
    );
  }

  /**
   * An order decided before the strategy heard of the liquidation: never sent (it would open a new
   * position). Journaled as rejected without a strategy step: the `liquidated` event that follows ends
   * everything the strategy had on this market.
   */
  private async skipLiquidated(clientOrderId: string): Promise<void> {
    const entry = this.journal.get(clientOrderId);
    if (entry) entry.status = 'rejected';
    await this.deps.store.updateOrder(clientOrderId, { status: 'rejected' }, this.bot.id);
    await this.bot.logEvent('info', 'order_skipped_liquidated', { clientOrderId });
  }

  /** The bot's own market on its venue. */
  private ownMarket(): MarketKey {
    return { exchange: this.bot.row.exchange, symbol: this.bot.marketSymbol };
  }

  /** Orders just journaled by a step (status pending_submit). */
  noteNew(rows: NewBotOrderRow[]): void {
    for (const o of rows) {
      const m = this.marketOf(o);
      this.journal.set(o.clientOrderId, { status: 'pending_submit', filled: 0, role: o.role, ...m });
      // Known from now on in the exchange's form too (the pushed update may come before the answer).
      this.bot.ids.toVenue(m.exchange, o.clientOrderId);
    }
  }

  /**
   * Venue commands run in the order the strategy issued them, across steps: a step caused by the
   * answer to a command (a market or crossing order filling at once) appends its commands behind the
   * ones still waiting, so a cancel never overtakes the placing of the same order.
   */
  async execute(commands: StrategyCommand[]): Promise<void> {
    for (const c of commands) if (c.type === 'cancel_order' || c.type === 'place_order') this.pending.push(c);
    if (this.draining) return;
    this.draining = true;
    try {
      for (let c = this.pending.shift(); c; c = this.pending.shift()) {
        if (this.bot.pausing) {
          // Orders not sent stay pending_submit in the journal; the reconcile after the pause settles them.
          this.pending.length = 0;
          break;
        }
        if (c.type === 'cancel_order') await this.cancel(c.clientOrderId);
        else if (c.type === 'place_order' && this.bot.liquidating && this.isOwnMarket(c)) {
          await this.skipLiquidated(c.clientOrderId);
        } else if (c.type === 'place_order') {
          const batch = this.concurrentWith(c);
          if (batch.length === 1) await this.place(c);
          else {
            // Both legs of an arbitrage are journaled (one write) before either is sent; sending them
            // together keeps the price gap between them as small as the venues allow. Their answers
            // are applied in the strategy's order.
            const outcomes = await Promise.all(batch.map((b) => this.send(b)));
            for (const [i, b] of batch.entries()) await this.settle(b, outcomes[i]!);
          }
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * `c` and the place commands right behind it that go to other exchanges (one order per exchange):
   * they are sent concurrently. Orders to one exchange keep their order; nothing overtakes a cancel.
   */
  private concurrentWith(c: PlaceOrderCommand): PlaceOrderCommand[] {
    const batch = [c];
    const seen = new Set([this.targetOf(c).exchange]);
    for (let next = this.pending[0]; next?.type === 'place_order'; next = this.pending[0]) {
      const ex = this.targetOf(next).exchange;
      if (seen.has(ex) || (this.bot.liquidating && this.isOwnMarket(next))) break;
      seen.add(ex);
      batch.push(next);
      this.pending.shift();
    }
    return batch;
  }

  private backoff(attempt: number) {
    return (this.deps.retryBaseMs ?? 500) * 2 ** attempt;
  }

  /**
   * Looks an order up by its client id in the exchange's form (then any form it was sent in before the
   * per-exchange table), retrying transient errors; null when the venue has none. The order comes back
   * known by the strategy's id.
   */
  private async lookup(clientOrderId: string, m: MarketKey): Promise<Order | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        const venue = await this.bot.venues.current(m.exchange);
        for (const id of this.bot.ids.candidates(m.exchange, clientOrderId)) {
          const found = await venue.fetchOrderByClientId(id, m.symbol);
          if (found) return { ...found, clientOrderId };
        }
        return null;
      } catch (err) {
        if (retriable(err) && attempt < MAX_PLACE_ATTEMPTS) {
          await sleep(this.backoff(attempt));
          continue;
        }
        throw err;
      }
    }
  }

  /** Sends a journaled order and applies the venue's answer. */
  private async place(c: PlaceOrderCommand): Promise<void> {
    await this.settle(c, await this.send(c));
  }

  /** Applies what `send` got: the order's snapshot, or the refusal (nothing when the connection went). */
  private async settle(c: PlaceOrderCommand, outcome: SendOutcome): Promise<void> {
    if (outcome.kind === 'order') await this.applySnapshot(outcome.order, true);
    else if (outcome.kind === 'refused') await this.rejected(c.clientOrderId, outcome.err);
  }

  /**
   * Sends a journaled order. Never retried blindly: after a transient error it is looked up first.
   * Changes no strategy state (so orders of one step to different exchanges can be sent together).
   */
  private async send(c: PlaceOrderCommand): Promise<SendOutcome> {
    const m = this.targetOf(c);
    // Margin orders borrow on the spot symbol (isolated); a derivatives close may only reduce the position.
    const own = m.exchange === this.bot.row.exchange && m.symbol === this.bot.marketSymbol;
    const derivatives = {
      ...(c.reduceOnly && own && this.bot.row.marketType !== 'Spot' ? { reduceOnly: true } : {}),
      ...(own && this.bot.row.marketType === 'Margin' ? { marginMode: 'isolated' as const } : {}),
    };
    let last: unknown = new Error('exchange unreachable');
    for (let attempt = 0; attempt < MAX_PLACE_ATTEMPTS; attempt++) {
      try {
        const venue = await this.bot.venues.current(m.exchange);
        const order = await venue.createOrder({
          symbol: m.symbol,
          side: c.side,
          type: c.orderType,
          amount: c.amount ?? 0,
          ...(c.orderType === 'limit' && c.price !== undefined ? { price: c.price } : {}),
          clientOrderId: this.bot.ids.toVenue(m.exchange, c.clientOrderId),
          ...derivatives,
        });
        // Known by the strategy's id (a copy only where the exchange's form differs).
        const named =
          order.clientOrderId === c.clientOrderId ? order : { ...order, clientOrderId: c.clientOrderId };
        return { kind: 'order', order: named };
      } catch (err) {
        if (err instanceof ConnectionGoneError) return { kind: 'gone' };
        if (retriable(err)) {
          last = err;
          const delay = this.backoff(attempt);
          await this.bot.logEvent('warn', 'exchange_error', {
            message: err.message,
            delay: Math.round(delay / 100) / 10,
            clientOrderId: c.clientOrderId,
          });
          await sleep(delay);
          const found = await this.lookup(c.clientOrderId, m).catch(() => null);
          if (found) return { kind: 'order', order: found };
          continue;
        }
        return { kind: 'refused', err };
      }
    }
    // Tries used up: an unmapped error goes on as itself (rejected() pauses the bot with its text).
    return {
      kind: 'refused',
      err: last instanceof UnmappedExchangeError ? last : new Error('exchange unreachable'),
    };
  }

  /** Where a place command goes. */
  private targetOf(c: PlaceOrderCommand): MarketKey {
    return { exchange: c.exchange ?? this.bot.row.exchange, symbol: c.symbol ?? this.bot.marketSymbol };
  }

  /** The venue refused an order: journal it, tell the strategy, and pause or stop the bot on key problems. */
  private async rejected(clientOrderId: string, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    const events: NewBotEventRow[] = [];
    if (err instanceof InvalidOrderError && err.reason !== 'min_cost' && err.reason !== 'min_amount') {
      events.push({
        botId: this.bot.id,
        level: 'warn',
        code: 'invalid_order',
        params: { message, clientOrderId },
      });
    }
    const entry = this.journal.get(clientOrderId);
    if (entry) entry.status = 'rejected';
    await this.bot.step(
      { type: 'order_rejected', clientOrderId, reason: rejectReasonOf(err), message, ts: this.bot.now() },
      { orderUpdates: [{ clientOrderId, patch: { status: 'rejected' } }], events },
    );
    if (err instanceof AuthenticationError) {
      this.bot.pauseFor('auth_failed', message);
    } else if (err instanceof NotSupportedError) {
      await this.bot.halt('error', 'auth_error', message);
    } else if (err instanceof UnmappedExchangeError) {
      await this.pauseUnmapped(err);
    } else if (err instanceof InvalidOrderError && err.reason === 'bad_symbol') {
      if (!(await this.bot.pairListed())) this.bot.pauseFor('pair_delisted', message);
    } else if (!(err instanceof VenueError)) {
      this.deps.log.warn({ err, botId: this.bot.id }, 'order failed with an unexpected error');
    }
  }

  private async cancel(clientOrderId: string): Promise<void> {
    const entry = this.journal.get(clientOrderId);
    // Already settled: the strategy heard about it (or will ignore it); nothing to send.
    if (entry && FINAL.has(entry.status)) return;
    const m = entry ?? this.ownMarket();
    let last: unknown = null;
    for (let attempt = 0; attempt < MAX_PLACE_ATTEMPTS; attempt++) {
      try {
        const found = await this.lookup(clientOrderId, m);
        if (!found) {
          await this.settleMissing(clientOrderId);
          return;
        }
        if (found.status !== 'open') {
          await this.applySnapshot(found, false);
          return;
        }
        const venue = await this.bot.venues.current(m.exchange);
        const order = await venue.cancelOrder(found.id, m.symbol);
        await this.applySnapshot(
          order.clientOrderId === clientOrderId ? order : { ...order, clientOrderId },
          false,
        );
        return;
      } catch (err) {
        if (err instanceof ConnectionGoneError) return;
        if (err instanceof OrderNotFoundError) continue;
        if (retriable(err)) {
          last = err;
          await sleep(this.backoff(attempt));
          continue;
        }
        if (err instanceof AuthenticationError) {
          this.bot.pauseFor('auth_failed', err.message);
          return;
        }
        throw err;
      }
    }
    if (last instanceof UnmappedExchangeError) await this.pauseUnmapped(last);
  }

  /**
   * An error neither our tables nor ccxt map, still there after MAX_PLACE_ATTEMPTS tries with backoff:
   * the bot pauses (problem cannot_run, resumed by the user) with the exchange's own words in its log,
   * rather than retrying forever or stopping without a word.
   */
  private async pauseUnmapped(err: UnmappedExchangeError): Promise<void> {
    await this.bot.logEvent('error', 'exchange_unmapped', {
      message: err.exchangeMessage,
      attempts: MAX_PLACE_ATTEMPTS,
    });
    this.bot.pauseFor('cannot_run', err.exchangeMessage);
  }

  /** A journaled order the venue does not know: it never got there. Cancelled, so the strategy re-plans. */
  private async settleMissing(clientOrderId: string): Promise<void> {
    const entry = this.journal.get(clientOrderId);
    if (entry) {
      entry.status = 'cancelled';
      entry.filled = 0;
    }
    // Fed as a cancel with nothing filled: the strategy re-plans at once (a rejection would back off).
    await this.bot.step(
      { type: 'order_cancelled', clientOrderId, ts: this.bot.now() },
      {
        orderUpdates: [{ clientOrderId, patch: { status: 'cancelled' } }],
        events: [
          { botId: this.bot.id, level: 'warn', code: 'reconcile_never_placed', params: { clientOrderId } },
        ],
      },
    );
  }

  private async cancelOrphan(order: Order, m: MarketKey): Promise<void> {
    try {
      await (await this.bot.venues.current(m.exchange)).cancelOrder(order.id, m.symbol);
    } catch (err) {
      this.deps.log.warn({ err, botId: this.bot.id }, 'could not cancel an orphan order');
    }
    await this.bot.logEvent('warn', 'reconcile_unknown_order', { clientOrderId: order.clientOrderId ?? '' });
  }

  private feeInQuote(order: Order, symbol: string): number {
    if (!order.fee) return 0;
    const [base, rest = ''] = symbol.split('/');
    const quote = rest.split(':')[0];
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
    before?: Promise<void>,
  ): Promise<void> {
    const cid = order.clientOrderId;
    if (!cid) return;
    let entry = this.journal.get(cid);
    if (!entry) {
      for (const r of await this.deps.store.liveOrders(this.bot.id)) {
        if (!this.journal.has(r.clientOrderId)) this.remember(r);
      }
      entry = this.journal.get(cid);
      if (!entry) return; // Not live in our journal: already final, or not ours.
    }
    if (FINAL.has(entry.status)) {
      // Settled for us but open on the venue: never leave it there.
      if (order.status === 'open' && entry.status !== 'filled') {
        await before;
        await this.cancelOrphan(order, entry);
      }
      return;
    }
    const ts = order.lastUpdateTimestamp ?? order.timestamp ?? this.bot.now();
    const price = order.average ?? order.price ?? 0;
    const fee = this.feeInQuote(order, entry.symbol);
    const base: Partial<NewBotOrderRow> = {
      venueOrderId: order.id,
      filled: String(order.filled),
      avgPrice: order.average === null ? null : String(order.average),
      fee: String(fee),
    };
    const events: NewBotEventRow[] = [];
    if (reconciled && order.status !== 'open') {
      events.push({
        botId: this.bot.id,
        level: 'info',
        code: 'reconcile_fill',
        params: { clientOrderId: cid, status: order.status, filled: order.filled },
      });
    }
    if (order.lost) {
      // The exchange no longer reports it (venue lookups bounded, then its open and closed lists):
      // settled as cancelled with what was last known filled, and said so in the bot's log.
      events.push({
        botId: this.bot.id,
        level: 'warn',
        code: 'order_lost',
        params: { clientOrderId: cid, filled: order.filled },
      });
    }
    const update = (status: BotOrderRow['status']) => ({
      orderUpdates: [{ clientOrderId: cid, patch: { ...base, status } }],
      events,
    });
    if (order.status === 'closed') {
      entry.status = 'filled';
      entry.filled = order.filled;
      await this.bot.step(
        { type: 'order_filled', clientOrderId: cid, price, amount: order.filled, fee, ts },
        update('filled'),
        arrived,
        before,
      );
    } else if (order.status === 'canceled' || order.status === 'expired') {
      entry.status = 'cancelled';
      entry.filled = order.filled;
      await this.bot.step(
        {
          type: 'order_cancelled',
          clientOrderId: cid,
          ts,
          ...(order.filled > 0 ? { filled: order.filled, price, fee } : {}),
        },
        update('cancelled'),
        arrived,
        before,
      );
    } else if (order.status === 'rejected') {
      entry.status = 'rejected';
      await this.bot.step(
        {
          type: 'order_rejected',
          clientOrderId: cid,
          reason: 'unknown',
          message: 'rejected by the venue',
          ts,
        },
        update('rejected'),
        arrived,
        before,
      );
    } else {
      const wasPending = entry.status === 'pending_submit';
      entry.status = 'open';
      if (order.filled > entry.filled) {
        entry.filled = order.filled;
        await this.bot.step(
          { type: 'order_partially_filled', clientOrderId: cid, filled: order.filled, price, fee, ts },
          { orderUpdates: [{ clientOrderId: cid, patch: { ...base, status: 'open' } }] },
          arrived,
          before,
        );
      } else if (wasPending || fromPlace) {
        await before;
        const open = this.deps.store.updateOrder(cid, { ...base, status: 'open' }, this.bot.id);
        // Only a record (the venue's id, open): nothing sent depends on it, and the store commits it
        // before any later write of the order. A crash before it leaves the row pending_submit, which the
        // reconcile looks up on the venue by its client id. A store without ordered flushes is awaited.
        if (this.deps.store.flushed) {
          open.catch((err: unknown) =>
            this.deps.log.error({ err, botId: this.bot.id }, 'journal update failed'),
          );
        } else await open;
      }
    }
  }

  private remember(r: BotOrderRow): void {
    const m = this.marketOf(r);
    this.journal.set(r.clientOrderId, { status: r.status, filled: num(r.filled), role: r.role, ...m });
    this.bot.ids.toVenue(m.exchange, r.clientOrderId);
  }

  /**
   * Before trading again after a restart: every journaled order not final is looked up on its venue
   * by its client id and its fate applied; orders that never reached the venue are settled as
   * cancelled (the strategy re-plans them); cancels asked before the crash are sent again; open orders
   * whose client id is the bot's (by its shape in the exchange's form, BotClientIds) that the journal
   * does not know are cancelled, on every market it follows.
   */
  async reconcile(markets: MarketKey[]): Promise<void> {
    const live = await this.deps.store.liveOrders(this.bot.id);
    for (const r of live) this.remember(r);
    for (const r of live) {
      const found = await this.lookup(r.clientOrderId, this.marketOf(r));
      if (!found) {
        await this.settleMissing(r.clientOrderId);
        continue;
      }
      await this.applySnapshot(found, r.status === 'pending_submit', true);
      if (found.status === 'open' && r.cancelRequested) await this.cancel(r.clientOrderId);
    }
    const known = await this.deps.store.knownClientIds(this.bot.id);
    for (const m of markets) {
      const venue = await this.bot.venues.current(m.exchange);
      for (const o of await venue.fetchOpenOrders(m.symbol)) {
        const id = this.bot.ids.fromVenue(m.exchange, o.clientOrderId);
        if (id === null || known.has(id)) continue;
        try {
          await venue.cancelOrder(o.id, m.symbol);
        } catch (err) {
          this.deps.log.warn({ err, botId: this.bot.id }, 'could not cancel an unknown order');
        }
        await this.bot.logEvent('warn', 'reconcile_unknown_order', { clientOrderId: id });
      }
    }
    if (live.length > 0) await this.bot.logEvent('info', 'resumed', { orders: live.length });
  }
}
