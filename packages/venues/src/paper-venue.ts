import { paperDepositAddress } from './addresses';
import {
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  VenueNetworkError,
  VenueUnavailableError,
} from './errors';
import { floorToStep, money, roundToStep } from './precision';
import type {
  Balances,
  Candle,
  CreateOrderRequest,
  DepositAddress,
  Market,
  MarketDataSource,
  Order,
  OrderBook,
  OrderListener,
  Ticker,
  Timeframe,
  Venue,
} from './types';

/**
 * A paper account: one user's simulated account on one exchange's market.
 *
 * - Market orders fill at once against the book, walking its levels for size (beyond the last
 *   level the rest fills at the last level's price: the simulated book refills).
 * - Limit orders fill completely at their own price when the market crosses them: a buy when the
 *   last price is at or below its limit, a sell when at or above. A limit order that already
 *   crosses when placed fills at once at its own price (taker fee), otherwise it rests (maker fee).
 * - Fees (the market's rate, 0.1% in the simulator) are charged in the quote currency: a buy costs
 *   price × amount × (1 + fee) quote and credits the full amount of base; a sell debits the amount
 *   of base and credits price × amount × (1 − fee) quote. Fee amounts are rounded to 1e-8.
 * - While a limit order rests its funds are reserved (`used`): quote cost plus fee for a buy, the
 *   base amount for a sell; a cancel releases them.
 * - Amounts are rounded down to the market's amount step, prices to the nearest tick; an order
 *   below the minimum amount or cost is refused with InvalidOrderError, one the free balance cannot
 *   pay with InsufficientFundsError, before anything changes.
 * - A repeated clientOrderId returns the order already placed with it (no second order).
 * - Every change is saved through the PaperStore before the call that made it resolves; saves of
 *   one account are serialized and coalesced. Keep one PaperVenue per account per process.
 */

export interface PaperBalance {
  free: number;
  used: number;
}

/** Everything a paper account is; JSON-serializable. */
export interface PaperAccountState {
  balances: Record<string, PaperBalance>;
  /** Every open order, and as many recent closed or cancelled ones as the store keeps. */
  orders: Order[];
  /** Last order number used (order ids are this sequence as strings). */
  seq: number;
}

/** One save: the whole (small) balance map, the counter, and only the orders that changed. */
export interface PaperStateChange {
  balances: Record<string, PaperBalance>;
  seq: number;
  /** Orders created or changed since the previous save: upsert by id. */
  orders: Order[];
}

/**
 * Where paper accounts live. The server keeps them in its database; `MemoryPaperStore` is for
 * tests and benchmarks. `load` returns null for an account never seen (the venue then seeds it and
 * saves at once). Saves of one account never overlap.
 */
export interface PaperStore {
  load(accountId: string): Promise<PaperAccountState | null>;
  save(accountId: string, change: PaperStateChange): Promise<void>;
}

export class MemoryPaperStore implements PaperStore {
  private readonly accounts = new Map<
    string,
    { balances: Record<string, PaperBalance>; seq: number; orders: Map<string, Order> }
  >();
  saves = 0;

  load(accountId: string): Promise<PaperAccountState | null> {
    const a = this.accounts.get(accountId);
    if (!a) return Promise.resolve(null);
    return Promise.resolve(
      structuredClone({ balances: a.balances, seq: a.seq, orders: [...a.orders.values()] }),
    );
  }

  save(accountId: string, change: PaperStateChange): Promise<void> {
    this.saves++;
    let a = this.accounts.get(accountId);
    if (!a) {
      a = { balances: {}, seq: 0, orders: new Map() };
      this.accounts.set(accountId, a);
    }
    a.balances = structuredClone(change.balances);
    a.seq = change.seq;
    for (const o of change.orders) a.orders.set(o.id, structuredClone(o));
    return Promise.resolve();
  }
}

/** Public market data plus pushed price changes of one symbol (SimulatedMarketData has both). */
export interface PaperMarketFeed extends MarketDataSource {
  subscribe(symbol: string, listener: (price: number, timestamp: number) => void): () => void;
  /** Whether the symbol is listed now (the simulator can delist); absent: the loaded markets decide. */
  isListed?(symbol: string): boolean | Promise<boolean>;
}

export interface PaperVenueOptions {
  /** Store key of the account, e.g. the connection's id. */
  accountId: string;
  feed: PaperMarketFeed;
  store: PaperStore;
  /** Seed of the deterministic deposit addresses (the user's id); defaults to accountId. */
  addressSeed?: string;
  /** Balances of a new account; default 10,000 USDT. */
  initialBalances?: Record<string, number>;
  /** Closed orders kept in memory for lookups (default 5,000). */
  keepClosed?: number;
  /** Called when a save that no caller awaits (a fill on a price move) fails. */
  onError?: (err: unknown) => void;
  now?: () => number;
}

export const PAPER_INITIAL_BALANCES: Readonly<Record<string, number>> = { USDT: 10_000 };

interface SymbolBook {
  /** Resting buys by price ascending: the best (highest) last. */
  buys: Order[];
  /** Resting sells by price descending: the best (lowest) last. */
  sells: Order[];
  unsubscribe: () => void;
}

const copy = (o: Order): Order => ({ ...o, fee: o.fee ? { ...o.fee } : null });

export class PaperVenue implements Venue {
  readonly kind = 'paper' as const;
  readonly exchange: string;
  private readonly accountId: string;
  private readonly feed: PaperMarketFeed;
  private readonly store: PaperStore;
  private readonly addressSeed: string;
  private readonly keepClosed: number;
  private readonly onError: (err: unknown) => void;
  private readonly now: () => number;
  private readonly initialBalances: Record<string, number>;

  private balances: Record<string, PaperBalance> = {};
  private seq = 0;
  private readonly orders = new Map<string, Order>();
  private readonly byClientId = new Map<string, string>();
  private readonly closedIds: string[] = [];
  private readonly books = new Map<string, SymbolBook>();
  private marketsCache: Record<string, Market> = {};
  private readonly listeners = new Set<OrderListener>();
  private readyPromise: Promise<void> | null = null;
  private isClosed = false;

  private readonly dirty = new Map<string, Order>();
  private pendingFlush: Promise<void> | null = null;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(opts: PaperVenueOptions) {
    this.exchange = opts.feed.exchange;
    this.accountId = opts.accountId;
    this.feed = opts.feed;
    this.store = opts.store;
    this.addressSeed = opts.addressSeed ?? opts.accountId;
    this.keepClosed = opts.keepClosed ?? 5_000;
    this.onError = opts.onError ?? (() => undefined);
    this.now = opts.now ?? Date.now;
    this.initialBalances = opts.initialBalances ?? { ...PAPER_INITIAL_BALANCES };
  }

  /** Loads (or seeds) the account; every call awaits it, call it to fail early. */
  ready(): Promise<void> {
    this.readyPromise ??= this.load();
    return this.readyPromise;
  }

  private async load(): Promise<void> {
    this.marketsCache = await this.feed.loadMarkets();
    const state = await this.store.load(this.accountId);
    if (!state) {
      for (const [coin, amount] of Object.entries(this.initialBalances)) {
        this.balances[coin] = { free: money(amount), used: 0 };
      }
      await this.persist();
      return;
    }
    this.balances = structuredClone(state.balances);
    this.seq = state.seq;
    const sorted = [...state.orders].sort((a, b) => Number(a.id) - Number(b.id) || a.timestamp - b.timestamp);
    for (const o of sorted) {
      this.orders.set(o.id, copy(o));
      if (o.clientOrderId) this.byClientId.set(o.clientOrderId, o.id);
      if (o.status !== 'open') this.closedIds.push(o.id);
    }
    this.pruneClosed();
    const symbols = new Set<string>();
    for (const o of this.orders.values()) {
      if (o.status === 'open' && o.type === 'limit') {
        this.insertResting(o);
        symbols.add(o.symbol);
      }
    }
    // Orders the market crossed while the account was not loaded fill now.
    for (const symbol of symbols) {
      const t = await this.feed.fetchTicker(symbol);
      this.match(symbol, t.last);
    }
  }

  // --- market data ------------------------------------------------------------------------------
  async loadMarkets(): Promise<Record<string, Market>> {
    await this.ready();
    return { ...this.marketsCache };
  }
  fetchTicker(symbol: string): Promise<Ticker> {
    return this.feed.fetchTicker(symbol);
  }
  fetchOrderBook(symbol: string, limit?: number): Promise<OrderBook> {
    return this.feed.fetchOrderBook(symbol, limit);
  }
  fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]> {
    return this.feed.fetchOHLCV(symbol, timeframe, since, limit);
  }

  // --- account ----------------------------------------------------------------------------------
  async fetchBalance(): Promise<Balances> {
    await this.ready();
    const out: Balances = {};
    for (const [coin, b] of Object.entries(this.balances)) {
      out[coin] = { free: b.free, used: b.used, total: money(b.free + b.used) };
    }
    return out;
  }

  async fetchDepositAddress(currency: string): Promise<DepositAddress> {
    await this.ready();
    return paperDepositAddress(this.addressSeed, currency);
  }

  /** Paper addresses are deterministic: "creating" one returns the same address. */
  createDepositAddress(currency: string): Promise<DepositAddress> {
    return this.fetchDepositAddress(currency);
  }

  onOrderUpdate(listener: OrderListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** True after close(): a closed instance refuses orders and pushes nothing (use a fresh one). */
  get closed(): boolean {
    return this.isClosed;
  }

  private assertOpen(): void {
    if (this.isClosed) {
      throw new VenueUnavailableError(
        'This paper account connection was closed; open the account again',
        this.exchange,
      );
    }
  }

  async close(): Promise<void> {
    this.isClosed = true;
    for (const b of this.books.values()) b.unsubscribe();
    this.books.clear();
    this.listeners.clear();
    await this.inFlight;
  }

  // --- orders -----------------------------------------------------------------------------------
  async createOrder(req: CreateOrderRequest): Promise<Order> {
    this.assertOpen();
    await this.ready();
    // Asked before the client-id check: from that check to the order's insertion nothing may await,
    // or two sends of one client id could both pass it.
    // The feed's answer is the current one; the markets loaded at start may predate a (de)listing.
    const listedNow = this.feed.isListed ? await this.feed.isListed(req.symbol) : null;
    this.assertOpen();
    const existing = this.lookupClientId(req.clientOrderId);
    if (existing) return copy(existing);
    const market = this.marketsCache[req.symbol];
    if (!market || !(listedNow ?? market.active)) {
      throw new InvalidOrderError(
        `${this.exchange} does not list ${req.symbol}`,
        this.exchange,
        'bad_symbol',
      );
    }
    if (req.side !== 'buy' && req.side !== 'sell') {
      throw new InvalidOrderError(`Invalid order side '${String(req.side)}'`, this.exchange, 'other');
    }
    if (!(Number.isFinite(req.amount) && req.amount > 0)) {
      throw new InvalidOrderError('Order amount must be a positive number', this.exchange, 'min_amount');
    }
    const amount = floorToStep(req.amount, market.amountStep);
    const minAmount = Math.max(market.minAmount, market.amountStep);
    if (amount < minAmount) {
      throw new InvalidOrderError(
        `Filter failure: LOT_SIZE. Amount ${req.amount} ${market.base} is below the minimum ${minAmount} ${market.base} for ${market.symbol}`,
        this.exchange,
        'min_amount',
      );
    }
    if (req.type === 'limit') {
      if (req.price === undefined || !(Number.isFinite(req.price) && req.price > 0)) {
        throw new InvalidOrderError('A limit order needs a positive price', this.exchange, 'bad_price');
      }
      const price = roundToStep(req.price, market.priceStep);
      if (!(price > 0)) {
        throw new InvalidOrderError(
          `Price ${req.price} is below the tick ${market.priceStep} of ${market.symbol}`,
          this.exchange,
          'precision',
        );
      }
      this.checkMinCost(market, amount, price);
      const last = (await this.feed.fetchTicker(req.symbol)).last;
      // Re-check after the await: a concurrent call may have placed this client id.
      const again = this.lookupClientId(req.clientOrderId);
      if (again) return copy(again);
      return this.placeLimit(req, market, amount, price, last);
    }
    if (req.type !== 'market') {
      throw new InvalidOrderError(`Invalid order type '${String(req.type)}'`, this.exchange, 'other');
    }
    const book = await this.feed.fetchOrderBook(req.symbol, 10);
    const again = this.lookupClientId(req.clientOrderId);
    if (again) return copy(again);
    return this.placeMarket(req, market, amount, book);
  }

  private checkMinCost(market: Market, amount: number, price: number): void {
    const cost = money(amount * price);
    if (market.minCost > 0 && cost < market.minCost) {
      throw new InvalidOrderError(
        `Filter failure: NOTIONAL. Order value ${cost} ${market.quote} is below the minimum ${market.minCost} ${market.quote} for ${market.symbol}`,
        this.exchange,
        'min_cost',
      );
    }
  }

  private bal(coin: string): PaperBalance {
    let b = this.balances[coin];
    if (!b) {
      b = { free: 0, used: 0 };
      this.balances[coin] = b;
    }
    return b;
  }

  private insufficient(coin: string, need: number): never {
    const have = this.balances[coin]?.free ?? 0;
    throw new InsufficientFundsError(
      `Account has insufficient balance for requested action: needs ${money(need)} ${coin}, has ${have} ${coin} free`,
      this.exchange,
    );
  }

  private newOrder(req: CreateOrderRequest, amount: number, price: number | null): Order {
    const ts = this.now();
    return {
      id: String(++this.seq),
      clientOrderId: req.clientOrderId || null,
      symbol: req.symbol,
      side: req.side,
      type: req.type,
      price,
      amount,
      filled: 0,
      remaining: amount,
      average: null,
      cost: 0,
      status: 'open',
      fee: null,
      timestamp: ts,
      lastUpdateTimestamp: ts,
    };
  }

  private async placeLimit(
    req: CreateOrderRequest,
    market: Market,
    amount: number,
    price: number,
    last: number,
  ): Promise<Order> {
    const crosses = req.side === 'buy' ? last <= price : last >= price;
    const cost = money(amount * price);
    if (req.side === 'buy') {
      const need = money(cost * (1 + (crosses ? market.taker : market.maker)));
      if (this.bal(market.quote).free < need) this.insufficient(market.quote, need);
    } else if (this.bal(market.base).free < amount) {
      this.insufficient(market.base, amount);
    }
    const order = this.newOrder(req, amount, price);
    this.remember(order);
    if (crosses) {
      this.settle(order, market, price, market.taker, false);
    } else {
      if (req.side === 'buy') this.reserve(market.quote, this.reservedQuote(order, market));
      else this.reserve(market.base, amount);
      this.insertResting(order);
    }
    this.dirty.set(order.id, order);
    await this.persistOrThrow();
    if (crosses) this.emit(order);
    return copy(order);
  }

  private async placeMarket(
    req: CreateOrderRequest,
    market: Market,
    amount: number,
    book: OrderBook,
  ): Promise<Order> {
    const levels = req.side === 'buy' ? book.asks : book.bids;
    if (levels.length === 0) {
      throw new InvalidOrderError(`The ${market.symbol} book is empty`, this.exchange, 'other');
    }
    let left = amount;
    let cost = 0;
    let lastPrice = levels[0]![0];
    for (const [p, size] of levels) {
      if (left <= 0) break;
      const take = Math.min(left, size);
      cost += take * p;
      left -= take;
      lastPrice = p;
    }
    if (left > 1e-12) cost += left * lastPrice;
    cost = money(cost);
    const average = roundToStep(cost / amount, market.priceStep / 1000);
    this.checkMinCost(market, amount, cost / amount);
    if (req.side === 'buy') {
      const need = money(cost * (1 + market.taker));
      if (this.bal(market.quote).free < need) this.insufficient(market.quote, need);
    } else if (this.bal(market.base).free < amount) {
      this.insufficient(market.base, amount);
    }
    const order = this.newOrder(req, amount, null);
    this.remember(order);
    this.settle(order, market, average, market.taker, false, cost);
    order.price = average;
    this.dirty.set(order.id, order);
    await this.persistOrThrow();
    this.emit(order);
    return copy(order);
  }

  private reservedQuote(order: Order, market: Market): number {
    return money((order.price ?? 0) * order.amount * (1 + market.maker));
  }

  private reserve(coin: string, amount: number): void {
    const b = this.bal(coin);
    b.free = money(b.free - amount);
    b.used = money(b.used + amount);
  }

  private release(coin: string, amount: number): void {
    const b = this.bal(coin);
    b.used = money(Math.max(0, b.used - amount));
    b.free = money(b.free + amount);
  }

  /** Fills the whole order at `price` and moves the balances (reserved funds when it rested). */
  private settle(
    order: Order,
    market: Market,
    price: number,
    feeRate: number,
    rested: boolean,
    cost?: number,
  ): void {
    const gross = cost ?? money(order.amount * price);
    const fee = money(gross * feeRate);
    const base = this.bal(market.base);
    const quote = this.bal(market.quote);
    if (order.side === 'buy') {
      if (rested) {
        const reserved = this.reservedQuote(order, market);
        quote.used = money(Math.max(0, quote.used - reserved));
        // Maker fee equals the reserved rate; any rounding remainder goes back to free.
        quote.free = money(quote.free + reserved - gross - fee);
      } else {
        quote.free = money(quote.free - gross - fee);
      }
      base.free = money(base.free + order.amount);
    } else {
      if (rested) base.used = money(Math.max(0, base.used - order.amount));
      else base.free = money(base.free - order.amount);
      quote.free = money(quote.free + gross - fee);
    }
    order.filled = order.amount;
    order.remaining = 0;
    order.cost = gross;
    order.average = price;
    order.fee = { cost: fee, currency: market.quote };
    order.status = 'closed';
    order.lastUpdateTimestamp = this.now();
    this.closedIds.push(order.id);
    this.pruneClosed();
  }

  async cancelOrder(id: string, symbol: string): Promise<Order> {
    this.assertOpen();
    await this.ready();
    this.assertOpen();
    const order = this.orders.get(id);
    if (!order || order.symbol !== symbol) {
      throw new OrderNotFoundError(`Order ${id} does not exist on ${symbol}`, this.exchange);
    }
    if (order.status !== 'open') {
      throw new OrderNotFoundError(
        `Order ${id} is ${order.status}, not open: nothing to cancel`,
        this.exchange,
      );
    }
    const market = this.marketsCache[order.symbol];
    if (!market)
      throw new InvalidOrderError(`${this.exchange} does not list ${symbol}`, this.exchange, 'bad_symbol');
    this.removeResting(order);
    if (order.side === 'buy') this.release(market.quote, this.reservedQuote(order, market));
    else this.release(market.base, order.remaining);
    order.status = 'canceled';
    order.lastUpdateTimestamp = this.now();
    this.closedIds.push(order.id);
    this.pruneClosed();
    this.dirty.set(order.id, order);
    await this.persistOrThrow();
    this.emit(order);
    return copy(order);
  }

  async fetchOrder(id: string, symbol: string): Promise<Order> {
    await this.ready();
    const order = this.orders.get(id);
    if (!order || order.symbol !== symbol) {
      throw new OrderNotFoundError(`Order ${id} does not exist on ${symbol}`, this.exchange);
    }
    return copy(order);
  }

  async fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null> {
    await this.ready();
    const o = this.lookupClientId(clientOrderId);
    return o && o.symbol === symbol ? copy(o) : null;
  }

  async fetchOpenOrders(symbol?: string): Promise<Order[]> {
    await this.ready();
    const out: Order[] = [];
    for (const o of this.orders.values()) {
      if (o.status === 'open' && (symbol === undefined || o.symbol === symbol)) out.push(copy(o));
    }
    return out;
  }

  /** Number of resting orders (benchmarks, diagnostics). */
  get restingCount(): number {
    let n = 0;
    for (const b of this.books.values()) n += b.buys.length + b.sells.length;
    return n;
  }

  // --- matching index ---------------------------------------------------------------------------
  private lookupClientId(clientOrderId: string): Order | undefined {
    if (!clientOrderId) return undefined;
    const id = this.byClientId.get(clientOrderId);
    return id ? this.orders.get(id) : undefined;
  }

  private remember(order: Order): void {
    this.orders.set(order.id, order);
    if (order.clientOrderId) this.byClientId.set(order.clientOrderId, order.id);
  }

  private pruneClosed(): void {
    while (this.closedIds.length > this.keepClosed) {
      const id = this.closedIds.shift();
      const o = id ? this.orders.get(id) : undefined;
      if (!o || o.status === 'open') continue;
      this.orders.delete(o.id);
      if (o.clientOrderId && this.byClientId.get(o.clientOrderId) === o.id)
        this.byClientId.delete(o.clientOrderId);
    }
  }

  private bookFor(symbol: string): SymbolBook {
    let b = this.books.get(symbol);
    if (!b) {
      const book: SymbolBook = { buys: [], sells: [], unsubscribe: () => undefined };
      this.books.set(symbol, book);
      book.unsubscribe = this.feed.subscribe(symbol, (price) => this.match(symbol, price));
      b = book;
    }
    return b;
  }

  /**
   * Sorted insert with the best price at the END of each list (buys ascending, sells descending),
   * so a fill pops from the end and a new best order is pushed: no shifting of a large book.
   */
  private insertResting(order: Order): void {
    const b = this.bookFor(order.symbol);
    const list = order.side === 'buy' ? b.buys : b.sells;
    list.splice(this.firstNotWorse(list, order), 0, order);
  }

  /** First index whose price is not worse than the order's (equal or better). */
  private firstNotWorse(list: Order[], order: Order): number {
    const p = order.price ?? 0;
    const worse = order.side === 'buy' ? (q: number) => q < p : (q: number) => q > p;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (worse(list[mid]!.price ?? 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private removeResting(order: Order): void {
    const b = this.books.get(order.symbol);
    if (!b) return;
    const list = order.side === 'buy' ? b.buys : b.sells;
    for (let i = this.firstNotWorse(list, order); i < list.length && list[i]!.price === order.price; i++) {
      if (list[i] === order) {
        list.splice(i, 1);
        return;
      }
    }
    const i = list.indexOf(order);
    if (i >= 0) list.splice(i, 1);
  }

  /** A price move: fills only the crossed orders, taken from the ends of the lists. */
  private match(symbol: string, price: number): void {
    if (this.isClosed) return;
    const b = this.books.get(symbol);
    const market = this.marketsCache[symbol];
    if (!b || !market) return;
    let nb = b.buys.length;
    while (nb > 0 && (b.buys[nb - 1]!.price ?? 0) >= price) nb--;
    let ns = b.sells.length;
    while (ns > 0 && (b.sells[ns - 1]!.price ?? Infinity) <= price) ns--;
    if (nb === b.buys.length && ns === b.sells.length) return;
    // Oldest first within the crossed set (ids are sequential).
    const filled = [...b.buys.splice(nb), ...b.sells.splice(ns)].sort((x, y) => Number(x.id) - Number(y.id));
    for (const o of filled) {
      this.settle(o, market, o.price ?? price, market.maker, true);
      this.dirty.set(o.id, o);
    }
    this.persist().catch(() => undefined);
    for (const o of filled) this.emit(o);
  }

  private emit(order: Order): void {
    for (const l of this.listeners) {
      try {
        l(copy(order));
      } catch (err) {
        this.onError(err);
      }
    }
  }

  // --- persistence --------------------------------------------------------------------------------
  /** Saves everything changed so far; saves never overlap and queued changes are merged. */
  private persist(): Promise<void> {
    if (this.pendingFlush) return this.pendingFlush;
    const flush = this.inFlight.then(async () => {
      this.pendingFlush = null;
      const changed = [...this.dirty.values()];
      this.dirty.clear();
      const change: PaperStateChange = {
        balances: structuredClone(this.balances),
        seq: this.seq,
        orders: changed.map(copy),
      };
      try {
        await this.store.save(this.accountId, change);
      } catch (err) {
        // Keep the changes for the next save.
        for (const o of changed) if (!this.dirty.has(o.id)) this.dirty.set(o.id, o);
        throw err;
      }
    });
    this.pendingFlush = flush;
    this.inFlight = flush.catch((err: unknown) => this.onError(err));
    return flush;
  }

  /**
   * Resolves when every save started or queued before (or while) waiting has completed, failed ones
   * included (a failed save keeps its changes for the next one). Fills made on a price move are saved
   * without a caller awaiting them: flush() is how a caller knows they are stored.
   */
  async flush(): Promise<void> {
    for (;;) {
      const tail = this.inFlight;
      await tail;
      if (tail === this.inFlight && this.pendingFlush === null) return;
    }
  }

  private async persistOrThrow(): Promise<void> {
    try {
      await this.persist();
    } catch (err) {
      throw new VenueNetworkError(
        'The paper account could not be saved; look the order up by its client order id',
        this.exchange,
        err,
      );
    }
  }
}
