// Orders on a live exchange: placement (amount and price to the market's rules, the exchange's
// client-id parameter), cancel, lookups by id and by client id (exchanges/lookups.ts), open orders, and
// the poll that pushes a watched order's fills and end to the listeners (REST cannot push).
import { isSwapSymbol } from '../derivatives';
import { DuplicateOrderError, InvalidOrderError, NotSupportedError } from '../errors';
import { feeCurrencyOf, ORDER_LEVERAGE } from '../exchanges/calls';
import { cancelReplyShowsPriorState } from '../exchanges/cancels';
import { ccxtClientIdParams } from '../exchanges/client-ids';
import {
  countsAsMiss,
  fetchOrderByClientIdDirect,
  fetchOrderById,
  findInLists,
  openOrdersParams,
  type LookupExchange,
} from '../exchanges/lookups';
import { feeOfTrades, feesFromTrades } from '../exchanges/fees';
import { floorToRule, marketRule, roundToRule } from '../exchanges/precision';
import type { CreateOrderRequest, Fee, Order, OrderListener, OrderStatus } from '../types';
import { CcxtVenueCore, type CcxtVenueOptions } from './core';
import { str, toOrder } from './mapping';

/**
 * How often a live venue asks the exchange about the orders it placed or looked up that are still open
 * (ms): one `fetchOpenOrders` per symbol, then `fetchOrder` for each watched order no longer open. REST
 * cannot push fills; without this a resting order filled on the exchange (a bot's take profit, a
 * limit entry) would be learned of only at the next cancel or restart.
 */
export const LIVE_ORDER_POLL_MS = 5_000;

/**
 * After this many lookups in a row that the exchange answered "not found" or refused, a watched order
 * is resolved from the open and closed lists; when neither holds it, it is reported as `lost` and
 * forgotten (never asked about forever; see exchanges/lookups.ts).
 */
export const LOOKUP_MISSES_MAX = 3;

/** Orders whose fee read from their trades is kept (withTradeFee). */
const TRADE_FEE_CACHE = 1_000;

/** A watched order: what was last reported of it (a change is pushed to the listeners). */
interface Watched {
  symbol: string;
  clientOrderId: string | null;
  status: OrderStatus;
  filled: number;
  /** Lookups in a row the exchange answered "not found" or refused (bounded: LOOKUP_MISSES_MAX). */
  misses?: number;
  /** The order as last reported (what a lost order is reported with). */
  last?: Order;
}

/** A watched order the exchange no longer has: ended (canceled) with what was last known filled of it. */
function lostOrder(w: Watched, id: string, symbol: string): Order {
  const base: Order = w.last ?? {
    ...toOrder({ id, symbol, filled: w.filled }),
    clientOrderId: w.clientOrderId,
  };
  return { ...base, id, symbol, status: 'canceled', filled: w.filled, lost: true };
}

export abstract class CcxtOrderVenue extends CcxtVenueCore {
  protected readonly listeners = new Set<OrderListener>();
  /** Open orders placed or looked up through this instance, by exchange order id. */
  private readonly watched = new Map<string, Watched>();
  /** Perpetuals whose leverage goes with each order (exchanges/calls.ts ORDER_LEVERAGE): as last set. */
  protected readonly orderLeverage = new Map<string, number>();
  /** Fees read from orders' trades, by order id, with the filled amount they cover (withTradeFee). */
  private readonly tradeFees = new Map<string, { filled: number; fee: Fee }>();
  /** Poll rounds in a row an order's fee could not be read, by order id (bounded: LOOKUP_MISSES_MAX). */
  private readonly feeMisses = new Map<string, number>();
  private readonly orderPollMs: number;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private polling = false;

  constructor(opts: CcxtVenueOptions) {
    super(opts);
    this.orderPollMs = opts.orderPollMs ?? LIVE_ORDER_POLL_MS;
  }

  /**
   * Places an order. The exchange's "this client id is taken" (DuplicateOrderError: an earlier send of
   * the same order got through, its answer lost) is answered with that order, looked up by client id;
   * it is never placed twice.
   */
  async createOrder(req: CreateOrderRequest): Promise<Order> {
    try {
      return await this.placeOrder(req);
    } catch (err) {
      if (!(err instanceof DuplicateOrderError)) throw err;
      const found = await this.fetchOrderByClientId(req.clientOrderId, req.symbol);
      if (!found) throw err;
      return found;
    }
  }

  private async placeOrder(req: CreateOrderRequest): Promise<Order> {
    this.requireKeys();
    const m = await this.market(req.symbol);
    const swap = m.type === 'swap';
    if (req.marginMode === 'isolated' && !swap) this.requireHas(this.ccxt, 'margin', 'margin trading');
    if (req.reduceOnly && !swap && req.marginMode !== 'isolated') {
      throw new InvalidOrderError(
        `reduceOnly applies to derivatives and margin orders only, not to spot ${req.symbol}`,
        this.exchange,
        'other',
      );
    }
    const amount = floorToRule(req.amount, marketRule(m, 'amount'));
    if (!(amount > 0) || (m.minAmount > 0 && amount < m.minAmount)) {
      throw new InvalidOrderError(
        `Amount ${req.amount} ${m.base} is below the minimum ${Math.max(m.minAmount, m.amountStep)} ${m.base} for ${m.symbol}`,
        this.exchange,
        'min_amount',
      );
    }
    let price: number | undefined;
    if (req.type === 'limit') {
      if (req.price === undefined || !(req.price > 0)) {
        throw new InvalidOrderError('A limit order needs a positive price', this.exchange, 'bad_price');
      }
      price = roundToRule(req.price, marketRule(m, 'price'));
      // Linear contracts are worth contractSize × price; inverse ones have no minimum value here;
      // reduce-only orders are exempt (a remainder must be closable).
      const value = amount * price * (swap ? (m.contractSize ?? 1) : 1);
      if (m.minCost > 0 && !m.inverse && !req.reduceOnly && value < m.minCost) {
        throw new InvalidOrderError(
          `Order value ${value} ${m.quote} is below the minimum ${m.minCost} ${m.quote} for ${m.symbol}`,
          this.exchange,
          'min_cost',
        );
      }
    }
    // The id in the param ccxt reads for this exchange (its own name, or a number, where ccxt does not map it).
    const params: Record<string, unknown> = ccxtClientIdParams(this.ccxt.id, req.clientOrderId);
    if (swap && req.reduceOnly) params.reduceOnly = true;
    const perOrder = swap ? ORDER_LEVERAGE[this.exchangeFor(req.symbol).id] : undefined;
    if (perOrder) params[perOrder.param] = this.orderLeverage.get(req.symbol) ?? 1;
    if (!swap && req.marginMode === 'isolated') {
      params.marginMode = 'isolated';
      // Binance borrows (or repays) automatically with the order only when asked.
      if (this.ccxt.id === 'binance') params.sideEffectType = req.reduceOnly ? 'AUTO_REPAY' : 'MARGIN_BUY';
      else if (req.reduceOnly) params.reduceOnly = true;
    }
    const ex = this.exchangeFor(req.symbol);
    const o = await this.call(() => ex.createOrder(req.symbol, req.type, req.side, amount, price, params));
    const order = toOrder(o, feeCurrencyOf(ex.id, req.symbol));
    // Some exchanges answer a create with only the id: fill in what we sent.
    return this.watch({
      ...order,
      symbol: req.symbol,
      side: req.side,
      type: req.type,
      amount: order.amount || amount,
      remaining: order.amount ? order.remaining : amount - order.filled,
      price: order.price ?? price ?? null,
      clientOrderId: order.clientOrderId ?? req.clientOrderId,
      ...(req.reduceOnly ? { reduceOnly: true } : {}),
      ...(req.marginMode === 'isolated' && !swap ? { marginMode: 'isolated' as const } : {}),
    });
  }

  async cancelOrder(id: string, symbol: string): Promise<Order> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol);
    const o = await this.call(() => ex.cancelOrder(id, symbol));
    // Binance spot and margin answer a cancel with the cancel request's own id in `clientOrderId` (one
    // it generates) and the order's in `origClientOrderId`, which ccxt leaves in `info`: the order is
    // known to its caller by the latter.
    const orig = str((o as { info?: Record<string, unknown> }).info?.origClientOrderId);
    const parsed = toOrder(o, feeCurrencyOf(ex.id, symbol));
    // Coinbase Exchange answers a cancel with the bare id, which ccxt does not carry over: it is `id`.
    const order: Order = { ...parsed, id: parsed.id || id, ...(orig ? { clientOrderId: orig } : {}), symbol };
    // Bybit, OKX, Bitget, KuCoin and MEXC answer an accepted cancel with the order's ids only (no
    // status; conformance tier): the order is cancelled, with what was last known filled of it (a
    // fill made since is learned by the runner's reconcile / the lookups), not reported open. LBank
    // answers with the order as it stood before the cancel (on the book): the same (exchanges/cancels.ts).
    const status = (o as { status?: unknown }).status;
    if (!str(status) || cancelReplyShowsPriorState(ex.id, status)) {
      const last = this.watched.get(id)?.last;
      const filled = Math.max(order.filled, last?.filled ?? 0);
      const amount = order.amount || last?.amount || 0;
      return this.watch({
        ...(last ?? {}),
        ...order,
        side: last?.side ?? order.side,
        type: last?.type ?? order.type,
        price: order.price ?? last?.price ?? null,
        amount,
        filled,
        remaining: Math.max(0, amount - filled),
        clientOrderId: order.clientOrderId ?? last?.clientOrderId ?? null,
        status: 'canceled',
      });
    }
    return this.watch(order);
  }

  /** By the exchange's lookup rule (exchanges/lookups.ts: Bybit's unified accounts, HitBTC...). */
  async fetchOrder(id: string, symbol: string): Promise<Order> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol) as unknown as LookupExchange;
    const fee = feeCurrencyOf(this.exchangeFor(symbol).id, symbol);
    return this.watch(toOrder(await this.call(() => fetchOrderById(ex, id, symbol)), fee), symbol);
  }

  /** The exchange's own lookup by client id where it has one, else its open and recent closed lists. */
  async fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol) as unknown as LookupExchange;
    const direct = await this.call(() => fetchOrderByClientIdDirect(ex, clientOrderId, symbol)).catch(
      (err: unknown) => {
        // A lookup the exchange refuses (a parameter it does not take): the lists decide.
        if (err instanceof InvalidOrderError || err instanceof NotSupportedError) return undefined;
        throw err;
      },
    );
    if (direct === null) return null;
    const found = direct ?? (await this.call(() => findInLists(ex, symbol, { clientOrderId })));
    if (found === undefined) return null;
    const order = toOrder(found, feeCurrencyOf(this.exchangeFor(symbol).id, symbol));
    return this.watch({ ...order, clientOrderId: order.clientOrderId ?? clientOrderId }, symbol);
  }

  async fetchOpenOrders(symbol?: string): Promise<Order[]> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol);
    // Every page where the exchange pages its open orders (exchanges/lookups.ts: Bybit).
    const list = await this.call(() =>
      ex.fetchOpenOrders(symbol, undefined, undefined, openOrdersParams(ex.id)),
    );
    return list.map((o) => toOrder(o, feeCurrencyOf(ex.id, str((o as { symbol?: unknown }).symbol))));
  }

  /**
   * ccxt REST cannot push, so the venue polls (LIVE_ORDER_POLL_MS) the orders it placed or looked up
   * while they are open, and pushes each change of status or filled amount to the listeners.
   */
  onOrderUpdate(listener: OrderListener): () => void {
    this.listeners.add(listener);
    this.schedulePoll();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopPoll();
    };
  }

  /**
   * Remembers an open order (or forgets an ended one) for the poll; returns it, with its fee read from
   * its trades where the exchange's order replies lack it (withTradeFee). `strict` (the poll): a failed
   * read of the trades throws, and the poll asks again next round. Otherwise (creates, lookups) it
   * never turns an order the exchange has into an error: a create or a lookup by client id that failed
   * would be sent again, placing the order twice; the order is then reported without its fee.
   */
  private async watch(input: Order, symbol = input.symbol, strict = false): Promise<Order> {
    const order = await this.withTradeFee(input, symbol).catch(async (err: unknown) => {
      if (strict) throw err;
      return this.withTradeFee(input, symbol).catch(() => input);
    });
    if (order.status === 'open') {
      const prev = this.watched.get(order.id);
      this.watched.set(order.id, {
        symbol,
        clientOrderId: order.clientOrderId ?? prev?.clientOrderId ?? null,
        status: order.status,
        filled: order.filled,
        last: order,
      });
      this.schedulePoll();
    } else {
      this.watched.delete(order.id);
    }
    return order;
  }

  /**
   * The fee of a filled (or partly filled) order whose reply has none, on an exchange whose rule says
   * its fees are in its trades (exchanges/fees.ts: Binance spot and USDⓈ-M, MEXC spot, Bitfinex): ccxt
   * `fetchMyTrades` with the order id (or `fetchOrderTrades`, per the rule), summed per currency. The
   * sum covers every trade of the order, so it replaces, never adds to, what was reported before; it
   * is cached per (order, filled amount), so polls that see no new fill do not ask again. Trades that
   * do not yet cover the filled amount are not cached (asked again at the next read). Margin orders
   * (other endpoints) are left as they are.
   */
  private async withTradeFee(order: Order, symbol: string): Promise<Order> {
    if (order.fee !== null || !(order.filled > 0) || order.marginMode === 'isolated') return order;
    const ex = this.exchangeFor(symbol);
    const how = feesFromTrades(ex.id, isSwapSymbol(symbol) ? 'swap' : 'spot');
    if (!how) return order;
    const cached = this.tradeFees.get(order.id);
    if (cached && cached.filled === order.filled) return { ...order, fee: cached.fee };
    const trades = await this.call(() =>
      how === 'fetchOrderTrades'
        ? ex.fetchOrderTrades(order.id, symbol)
        : ex.fetchMyTrades(symbol, undefined, undefined, { orderId: order.id }),
    );
    const quote = symbol.split(':')[0]?.split('/')[1];
    const { fee, amount } = feeOfTrades(trades, order.id, quote);
    if (fee === null) return order;
    if (amount >= order.filled * (1 - 1e-9)) {
      this.tradeFees.delete(order.id);
      this.tradeFees.set(order.id, { filled: order.filled, fee });
      // Bounded: the oldest entries go first (an order read again after that asks its trades again).
      if (this.tradeFees.size > TRADE_FEE_CACHE) this.tradeFees.delete(this.tradeFees.keys().next().value!);
    }
    return { ...order, fee };
  }

  private schedulePoll(): void {
    if (this.pollTimer || this.closed || this.listeners.size === 0 || this.watched.size === 0) return;
    this.pollTimer = setInterval(() => void this.pollOrders(), this.orderPollMs);
    this.pollTimer.unref();
  }

  protected stopPoll(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  /**
   * One poll round: per symbol one `fetchOpenOrders`; a watched order still open is pushed when its
   * filled amount changed, one no longer open is read with `fetchOrder` and pushed (filled, cancelled,
   * expired). A failing call is left for the next round (rate limits, a network blip); an order the
   * exchange no longer knows is forgotten (the runner's reconcile settles it).
   */
  async pollOrders(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const bySymbol = new Map<string, string[]>();
      for (const [id, w] of this.watched) bySymbol.set(w.symbol, [...(bySymbol.get(w.symbol) ?? []), id]);
      for (const [symbol, ids] of bySymbol) {
        let open: Order[];
        try {
          open = await this.fetchOpenOrders(symbol);
        } catch {
          continue;
        }
        const openById = new Map(open.map((o) => [o.id, o]));
        for (const id of ids) {
          const before = this.watched.get(id);
          if (!before) continue;
          let now = openById.get(id) ?? null;
          if (!now) {
            const ex = this.exchangeFor(symbol) as unknown as LookupExchange;
            try {
              now = toOrder(
                await this.call(() => fetchOrderById(ex, id, symbol)),
                feeCurrencyOf(this.exchangeFor(symbol).id, symbol),
              );
            } catch (err) {
              const misses = countsAsMiss(err) ? (before.misses ?? 0) + 1 : 0;
              this.watched.set(id, { ...before, misses });
              if (misses < LOOKUP_MISSES_MAX) continue;
              // Bounded: the lists decide; an order neither holds is reported lost and forgotten.
              const key = { id, clientOrderId: before.clientOrderId };
              const listed = await this.call(() => findInLists(ex, symbol, key)).catch(() => null);
              if (listed === null) continue;
              now = listed === undefined ? lostOrder(before, id, symbol) : toOrder(listed);
            }
          }
          const order: Order = { ...now, symbol, clientOrderId: now.clientOrderId ?? before.clientOrderId };
          const changed = order.status !== before.status || order.filled !== before.filled;
          // Its fee could not be read: left as it was and asked about again next round, a bounded
          // number of times (a fill is never held back for good: then reported without its fee).
          const misses = this.feeMisses.get(id) ?? 0;
          const strict = misses < LOOKUP_MISSES_MAX;
          let reported: Order;
          try {
            reported = await this.watch(order, symbol, strict);
          } catch {
            this.feeMisses.set(id, misses + 1);
            continue;
          }
          this.feeMisses.delete(id);
          if (changed) for (const l of this.listeners) l(reported);
        }
      }
    } finally {
      this.polling = false;
      if (this.watched.size === 0) this.stopPoll();
    }
  }
}
