/**
 * Why this file is ~1,500 lines: PaperVenue is one class holding the spot and the derivatives wallets of a
 * paper account, because both share one store save per change and one matching book. Splitting it into
 * spot, derivatives and store parts behind the same Venue is issue 39 point 4 (open); until then new
 * behaviour goes beside it, not into it (the emulators use only its public API).
 */
import { paperDepositAddress } from './addresses';
import {
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  VenueNetworkError,
  VenueUnavailableError,
} from './errors';
import {
  HOUR_MS,
  averageEntry,
  fundingPayment,
  fundingTimeFloor,
  fundingTimesBetween,
  hoursBetween,
  initialMargin,
  liquidationPrice,
  marginInterest,
  nextFundingTime,
  notionalValue,
  positionPnl,
  simulatedFundingRate,
  type ContractSpec,
} from './derivatives';
import { RestingOrderBook } from './matching/order-book';
import { floorToStep, money, roundDecimals, roundToStep, stepDecimals } from './precision';
import type {
  Balances,
  Candle,
  CreateOrderRequest,
  DepositAddress,
  FundingRate,
  Liquidation,
  LiquidationListener,
  Market,
  MarketDataSource,
  Order,
  OrderBook,
  OrderListener,
  Position,
  PositionSide,
  Ticker,
  Timeframe,
  TransferWallet,
  Venue,
  WalletType,
} from './types';

/**
 * A paper account: one user's simulated account on one exchange's market.
 *
 * - Market orders fill at once against the book, walking its levels for size (beyond the last
 *   level the rest fills at the last level's price: the simulated book refills).
 * - Limit orders fill completely at their own price when the market crosses them: a buy when the
 *   last price is at or below its limit, a sell when at or above. A limit order that already
 *   crosses when placed fills at once at its own price (taker fee), otherwise it rests (maker fee).
 * - Fees (the market's rate; simulated: the exchange's) are charged in the quote currency: a buy costs
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
 *
 * Derivatives (swap symbols) and Margin (spot symbol + `marginMode: 'isolated'`), formulas in
 * derivatives.ts and docs/venues.md:
 * - Swaps use a separate derivatives wallet (seeded USDT 10,000, BTC 0.1, ETH 3; `transfer` moves
 *   funds from and to spot); Margin positions post their collateral from the spot wallet (quote).
 * - One-way mode, isolated margin: one position per symbol. A fill on the position's side opens or
 *   adds (initial margin = value ÷ leverage moved from free to used, entry averaged); a fill on the
 *   other side reduces it (PnL realized into free, margin released pro rata) and the rest opens the
 *   other way, unless the order is `reduceOnly` (capped at the position, never opens or flips; a
 *   resting one that finds less to reduce fills what it can and ends `canceled`).
 * - Fees in the settle currency (swaps: taker 0.05 %, maker 0.02 % of the value). A resting order
 *   reserves initial margin plus maker fee at the leverage of its placement (reduceOnly: nothing).
 * - Each price update of a symbol with a position: funding (swaps) at every 00/08/16 UTC funding time
 *   passed since the position's `lastFundingAt`, margin interest (Margin) for every whole hour passed;
 *   both change the collateral; then resting orders are matched; then, when the mark is at or past the
 *   liquidation price: the symbol's open orders are cancelled (their updates pushed), the position is
 *   closed at the liquidation price losing its whole collateral (what is left at that price is the
 *   liquidation fee), the record is saved, and the `onLiquidation` listeners are called.
 */

export interface PaperBalance {
  free: number;
  used: number;
}

/** An open derivatives or margin position as the account keeps it (JSON). */
export interface PaperPosition {
  symbol: string;
  marketType: 'Perpetual' | 'Inverse' | 'Margin';
  side: PositionSide;
  /** Contracts (base units for Perpetual and Margin, contracts of `contractSize` USD for Inverse). */
  contracts: number;
  contractSize: number;
  inverse: boolean;
  entryPrice: number;
  /** Isolated margin posted, in `settle` (counted in the wallet's `used`). */
  collateral: number;
  leverage: number;
  /** Quote (Perpetual, Margin) or base coin (Inverse). */
  settle: string;
  /** Which wallet holds the collateral: the derivatives one (swaps) or the spot one (Margin). */
  wallet: TransferWallet;
  /** Funding paid so far (negative: received), `settle`. */
  fundingPaid: number;
  /** Margin only (0 for swaps): borrowed now, quote for a long, base for a short. */
  borrowed: number;
  /** Margin interest paid so far (quote). */
  interestPaid: number;
  /** The last funding time charged, or the last one before the position opened (ms). */
  lastFundingAt: number;
  /** Margin: the last whole hour whose interest was charged (ms). */
  lastInterestAt: number;
  /** Market time of the first fill (ms). */
  openedAt: number;
  timestamp: number;
}

/** The derivatives part of a paper account (JSON, saved whole: it is small). */
export interface PaperDerivativesState {
  /** The derivatives (swap) wallet. */
  balances: Record<string, PaperBalance>;
  positions: PaperPosition[];
  /** Leverage per symbol (swaps, and spot symbols for Margin); absent: 1. */
  leverage: Record<string, number>;
  /** Margin reserved by resting orders, by order id: amount in the order's settle coin and leverage. */
  orderMargin: Record<string, { amount: number; leverage: number }>;
  /** The newest liquidations (at most 1,000), oldest first. */
  liquidations: Liquidation[];
}

/** Everything a paper account is; JSON-serializable. */
export interface PaperAccountState {
  balances: Record<string, PaperBalance>;
  /** Every open order, and as many recent closed or cancelled ones as the store keeps. */
  orders: Order[];
  /** Last order number used (order ids are this sequence as strings). */
  seq: number;
  /** Derivatives wallet and positions; absent in accounts saved before them (they get the seed). */
  derivatives?: PaperDerivativesState | null;
}

/** One save: the whole (small) balance map, the counter, and only the orders that changed. */
export interface PaperStateChange {
  balances: Record<string, PaperBalance>;
  seq: number;
  /** Orders created or changed since the previous save: upsert by id. */
  orders: Order[];
  /** The whole derivatives state (store it as is; `load` returns it). */
  derivatives?: PaperDerivativesState;
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
    {
      balances: Record<string, PaperBalance>;
      seq: number;
      orders: Map<string, Order>;
      derivatives: PaperDerivativesState | null;
    }
  >();
  saves = 0;

  load(accountId: string): Promise<PaperAccountState | null> {
    const a = this.accounts.get(accountId);
    if (!a) return Promise.resolve(null);
    return Promise.resolve(
      structuredClone({
        balances: a.balances,
        seq: a.seq,
        orders: [...a.orders.values()],
        ...(a.derivatives ? { derivatives: a.derivatives } : {}),
      }),
    );
  }

  save(accountId: string, change: PaperStateChange): Promise<void> {
    this.saves++;
    let a = this.accounts.get(accountId);
    if (!a) {
      a = { balances: {}, seq: 0, orders: new Map(), derivatives: null };
      this.accounts.set(accountId, a);
    }
    a.balances = structuredClone(change.balances);
    a.seq = change.seq;
    for (const o of change.orders) a.orders.set(o.id, structuredClone(o));
    if (change.derivatives) a.derivatives = structuredClone(change.derivatives);
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
  /** Derivatives wallet of a new account (and of one saved before derivatives existed). */
  initialDerivativesBalances?: Record<string, number>;
  /** Closed orders kept in memory for lookups (default 5,000). */
  keepClosed?: number;
  /** Called when a save that no caller awaits (a fill on a price move) fails. */
  onError?: (err: unknown) => void;
  now?: () => number;
}

export const PAPER_INITIAL_BALANCES: Readonly<Record<string, number>> = { USDT: 10_000 };
/** The derivatives wallet's seed: 10,000 USDT for linear swaps, 0.1 BTC and 3 ETH for inverse ones. */
export const PAPER_INITIAL_DERIVATIVES_BALANCES: Readonly<Record<string, number>> = {
  USDT: 10_000,
  BTC: 0.1,
  ETH: 3,
};
/** Liquidation records kept per account. */
const KEEP_LIQUIDATIONS = 1_000;

/** The position an order trades: its market type, wallet, settle currency and contract. */
interface DerivKind {
  marketType: 'Perpetual' | 'Inverse' | 'Margin';
  wallet: TransferWallet;
  settle: string;
  spec: ContractSpec;
}

/** What a fill did to a position (for the order's record). */
interface FillResult {
  /** Contracts that actually traded (less than the order's amount for a capped reduce-only). */
  filled: number;
}

/** A symbol whose prices the account follows (its resting orders live in `resting`). */
interface SymbolBook {
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
  private readonly initialDerivatives: Record<string, number>;

  private balances: Record<string, PaperBalance> = {};
  private deriv: PaperDerivativesState = {
    balances: {},
    positions: [],
    leverage: {},
    orderMargin: {},
    liquidations: [],
  };
  /** Open positions by symbol (the objects of `deriv.positions`). */
  private readonly positions = new Map<string, PaperPosition>();
  /** The last mark seen per symbol (price updates, tickers, fills). */
  private readonly marks = new Map<string, number>();
  private readonly liquidationListeners = new Set<LiquidationListener>();
  private seq = 0;
  private readonly orders = new Map<string, Order>();
  private readonly byClientId = new Map<string, string>();
  private readonly closedIds: string[] = [];
  private readonly books = new Map<string, SymbolBook>();
  /** Resting limit orders by price (the matching core: no balances, no I/O). */
  private readonly resting = new RestingOrderBook<Order>();
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
    this.initialDerivatives = opts.initialDerivativesBalances ?? { ...PAPER_INITIAL_DERIVATIVES_BALANCES };
  }

  private seedDerivatives(): void {
    for (const [coin, amount] of Object.entries(this.initialDerivatives)) {
      this.deriv.balances[coin] = { free: money(amount), used: 0 };
    }
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
      this.seedDerivatives();
      await this.persist();
      return;
    }
    this.balances = structuredClone(state.balances);
    this.seq = state.seq;
    if (state.derivatives) {
      const d = structuredClone(state.derivatives);
      this.deriv = {
        balances: d.balances ?? {},
        positions: d.positions ?? [],
        leverage: d.leverage ?? {},
        orderMargin: d.orderMargin ?? {},
        liquidations: d.liquidations ?? [],
      };
    } else {
      // Saved before derivatives existed: the seed, saved with the next change.
      this.seedDerivatives();
    }
    for (const p of this.deriv.positions) this.positions.set(p.symbol, p);
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
    for (const symbol of this.positions.keys()) {
      this.bookFor(symbol);
      symbols.add(symbol);
    }
    // Orders the market crossed while the account was not loaded fill now; funding times passed
    // meanwhile are charged and a mark past a liquidation price liquidates (the price now is the
    // first update after them).
    for (const symbol of symbols) {
      const t = await this.feed.fetchTicker(symbol);
      this.onPrice(symbol, t.last, t.timestamp);
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
  /**
   * The spot wallet (also with `{type: 'margin'}`: Margin collateral is the spot wallet's `used`), or
   * with `{type: 'swap'}` the derivatives wallet (`used` = posted margin + order reservations; totals
   * leave out unrealized PnL).
   */
  async fetchBalance(params?: { type?: WalletType }): Promise<Balances> {
    await this.ready();
    const out: Balances = {};
    const wallet = params?.type === 'swap' ? this.deriv.balances : this.balances;
    for (const [coin, b] of Object.entries(wallet)) {
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
    this.resting.clear();
    this.listeners.clear();
    this.liquidationListeners.clear();
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
    const kind = this.derivKindOfRequest(market, req);
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
      // Reduce-only orders are exempt from the minimum value (like Binance's), so a remainder closes.
      if (!(kind && req.reduceOnly)) this.checkMinCost(market, amount, price);
      const ticker = await this.feed.fetchTicker(req.symbol);
      // Re-check after the await: a concurrent call may have placed this client id.
      const again = this.lookupClientId(req.clientOrderId);
      if (again) return copy(again);
      if (kind) return this.placeDerivLimit(req, market, kind, amount, price, ticker);
      return this.placeLimit(req, market, amount, price, ticker.last);
    }
    if (req.type !== 'market') {
      throw new InvalidOrderError(`Invalid order type '${String(req.type)}'`, this.exchange, 'other');
    }
    const book = await this.feed.fetchOrderBook(req.symbol, 10);
    const again = this.lookupClientId(req.clientOrderId);
    if (again) return copy(again);
    if (kind) return this.placeDerivMarket(req, market, kind, amount, book);
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
    const market = this.marketsCache[req.symbol];
    return {
      ...(req.reduceOnly ? { reduceOnly: true } : {}),
      ...(req.marginMode === 'isolated' && market?.type !== 'swap'
        ? { marginMode: 'isolated' as const }
        : {}),
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
    this.cancelInternal(order, market);
    await this.persistOrThrow();
    this.emit(order);
    return copy(order);
  }

  /** Takes a resting order off the book, releases what it reserved and marks it cancelled. */
  private cancelInternal(order: Order, market: Market): void {
    this.removeResting(order);
    const kind = this.derivKindOfOrder(market, order);
    if (kind) {
      const r = this.deriv.orderMargin[order.id];
      if (r) this.releaseIn(kind.wallet, kind.settle, r.amount);
      delete this.deriv.orderMargin[order.id];
    } else if (order.side === 'buy') this.release(market.quote, this.reservedQuote(order, market));
    else this.release(market.base, order.remaining);
    order.status = 'canceled';
    order.lastUpdateTimestamp = this.now();
    this.closedIds.push(order.id);
    this.pruneClosed();
    this.dirty.set(order.id, order);
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

  // --- derivatives and margin ---------------------------------------------------------------------

  /** What kind of position an order trades: null for a plain spot order. */
  private derivKind(market: Market, marginMode: 'isolated' | undefined): DerivKind | null {
    if (market.type === 'swap') {
      const inverse = market.inverse === true;
      return {
        marketType: inverse ? 'Inverse' : 'Perpetual',
        wallet: 'swap',
        settle: market.settle ?? (inverse ? market.base : market.quote),
        spec: { inverse, contractSize: market.contractSize ?? 1 },
      };
    }
    if (marginMode === 'isolated') {
      return {
        marketType: 'Margin',
        wallet: 'spot',
        settle: market.quote,
        spec: { inverse: false, contractSize: 1 },
      };
    }
    return null;
  }

  private derivKindOfOrder(market: Market, order: Order): DerivKind | null {
    return this.derivKind(market, order.marginMode);
  }

  /** The request's kind; refuses margin on a market without it and reduce-only on plain spot. */
  private derivKindOfRequest(market: Market, req: CreateOrderRequest): DerivKind | null {
    if (req.marginMode !== undefined && req.marginMode !== 'isolated') {
      throw new InvalidOrderError(
        `Unknown margin mode '${String(req.marginMode)}': only 'isolated' is supported`,
        this.exchange,
        'other',
      );
    }
    if (req.marginMode === 'isolated' && market.type !== 'swap' && !market.margin) {
      throw new InvalidOrderError(`${market.symbol} does not allow margin trading`, this.exchange, 'other');
    }
    const kind = this.derivKind(market, req.marginMode);
    if (!kind && req.reduceOnly) {
      throw new InvalidOrderError(
        `reduceOnly applies to derivatives and margin orders only, not to spot ${market.symbol}`,
        this.exchange,
        'other',
      );
    }
    return kind;
  }

  private walletOf(wallet: TransferWallet): Record<string, PaperBalance> {
    return wallet === 'swap' ? this.deriv.balances : this.balances;
  }

  private balIn(wallet: TransferWallet, coin: string): PaperBalance {
    const w = this.walletOf(wallet);
    let b = w[coin];
    if (!b) {
      b = { free: 0, used: 0 };
      w[coin] = b;
    }
    return b;
  }

  private releaseIn(wallet: TransferWallet, coin: string, amount: number): void {
    const b = this.balIn(wallet, coin);
    b.used = money(Math.max(0, b.used - amount));
    b.free = money(b.free + amount);
  }

  private insufficientIn(wallet: TransferWallet, coin: string, need: number): never {
    const have = this.walletOf(wallet)[coin]?.free ?? 0;
    throw new InsufficientFundsError(
      `Account has insufficient balance for requested action: needs ${money(need)} ${coin}, has ${have} ${coin} free in the ${wallet === 'swap' ? 'derivatives' : 'spot'} wallet`,
      this.exchange,
    );
  }

  private leverageOf(symbol: string): number {
    return this.deriv.leverage[symbol] ?? 1;
  }

  /** Contracts rounded to the market's amount step decimals (no float drift in sizes). */
  private qty(x: number, market: Market): number {
    return roundDecimals(Math.max(0, x), stepDecimals(market.amountStep));
  }

  /** Contracts of an order on `side` that would reduce the open position (0 when none). */
  private reducible(symbol: string, side: PositionSide): number {
    const pos = this.positions.get(symbol);
    return pos && pos.side !== side ? pos.contracts : 0;
  }

  /**
   * Free funds a fill of `amount` at `price` needs: the initial margin and fee of the part that opens
   * (the part that closes pays its fee from the margin it releases).
   */
  private openingNeed(
    market: Market,
    kind: DerivKind,
    req: CreateOrderRequest,
    amount: number,
    price: number,
    leverage: number,
    feeRate: number,
  ): number {
    if (req.reduceOnly) return 0;
    const side: PositionSide = req.side === 'buy' ? 'long' : 'short';
    const open = this.qty(amount - this.reducible(req.symbol, side), market);
    if (!(open > 0)) return 0;
    return money(
      initialMargin(kind.spec, open, price, leverage) + notionalValue(kind.spec, open, price) * feeRate,
    );
  }

  private refuseReduceOnly(symbol: string, side: PositionSide): never {
    const pos = this.positions.get(symbol);
    throw new InvalidOrderError(
      `ReduceOnly Order is rejected: ${pos ? `a ${side === 'long' ? 'buy' : 'sell'} would increase the ${pos.side} position` : 'there is no position'} on ${symbol}`,
      this.exchange,
      'other',
    );
  }

  private async placeDerivLimit(
    req: CreateOrderRequest,
    market: Market,
    kind: DerivKind,
    amount: number,
    price: number,
    ticker: Ticker,
  ): Promise<Order> {
    const side: PositionSide = req.side === 'buy' ? 'long' : 'short';
    const crosses = req.side === 'buy' ? ticker.last <= price : ticker.last >= price;
    if (req.reduceOnly && !(this.reducible(req.symbol, side) > 0)) this.refuseReduceOnly(req.symbol, side);
    const leverage = this.leverageOf(req.symbol);
    let reserve = 0;
    if (crosses) {
      const need = this.openingNeed(market, kind, req, amount, price, leverage, market.taker);
      if (this.balIn(kind.wallet, kind.settle).free < need)
        this.insufficientIn(kind.wallet, kind.settle, need);
    } else if (!req.reduceOnly) {
      // The whole amount's initial margin plus maker fee, at the leverage of now.
      reserve = money(
        initialMargin(kind.spec, amount, price, leverage) +
          notionalValue(kind.spec, amount, price) * market.maker,
      );
      if (this.balIn(kind.wallet, kind.settle).free < reserve)
        this.insufficientIn(kind.wallet, kind.settle, reserve);
    }
    const order = this.newOrder(req, amount, price);
    this.remember(order);
    if (crosses) {
      this.fillDeriv(order, market, kind, price, market.taker, leverage, ticker.timestamp);
    } else {
      const b = this.balIn(kind.wallet, kind.settle);
      b.free = money(b.free - reserve);
      b.used = money(b.used + reserve);
      this.deriv.orderMargin[order.id] = { amount: reserve, leverage };
      this.insertResting(order);
    }
    this.dirty.set(order.id, order);
    await this.persistOrThrow();
    if (crosses) this.emit(order);
    return copy(order);
  }

  private async placeDerivMarket(
    req: CreateOrderRequest,
    market: Market,
    kind: DerivKind,
    requested: number,
    book: OrderBook,
  ): Promise<Order> {
    const levels = req.side === 'buy' ? book.asks : book.bids;
    if (levels.length === 0) {
      throw new InvalidOrderError(`The ${market.symbol} book is empty`, this.exchange, 'other');
    }
    const side: PositionSide = req.side === 'buy' ? 'long' : 'short';
    let amount = requested;
    if (req.reduceOnly) {
      const reducible = this.reducible(req.symbol, side);
      if (!(reducible > 0)) this.refuseReduceOnly(req.symbol, side);
      // Capped at the position: a reduce-only order never opens the other way.
      amount = Math.min(amount, reducible);
    }
    // Walk the book for size; inverse contracts average harmonically (their coin value adds up).
    let left = amount;
    let units = 0;
    let lastPrice = levels[0]![0];
    for (const [p, size] of levels) {
      if (left <= 0) break;
      const take = Math.min(left, size);
      units += kind.spec.inverse ? take / p : take * p;
      left -= take;
      lastPrice = p;
    }
    if (left > 1e-12) units += kind.spec.inverse ? left / lastPrice : left * lastPrice;
    const rawAverage = kind.spec.inverse ? amount / units : units / amount;
    const average = roundToStep(rawAverage, market.priceStep / 1000);
    if (!req.reduceOnly) this.checkMinCost(market, amount, average);
    const leverage = this.leverageOf(req.symbol);
    const need = this.openingNeed(market, kind, req, amount, average, leverage, market.taker);
    if (this.balIn(kind.wallet, kind.settle).free < need) this.insufficientIn(kind.wallet, kind.settle, need);
    const order = this.newOrder(req, amount, null);
    this.remember(order);
    this.fillDeriv(order, market, kind, average, market.taker, leverage, book.timestamp);
    order.price = average;
    this.dirty.set(order.id, order);
    await this.persistOrThrow();
    this.emit(order);
    return copy(order);
  }

  /**
   * Fills a derivatives or margin order at `price`: first the part that reduces the open position
   * (PnL realized, never below minus the margin released: isolated), then the part that opens
   * (margin at `leverage`), unless reduce-only. A reduce-only order finding less to reduce than its
   * amount fills what it can and ends `canceled` (filled > 0) or `canceled` unfilled.
   */
  private fillDeriv(
    order: Order,
    market: Market,
    kind: DerivKind,
    price: number,
    feeRate: number,
    leverage: number,
    marketTs: number,
  ): FillResult {
    const symbol = order.symbol;
    const side: PositionSide = order.side === 'buy' ? 'long' : 'short';
    const b = this.balIn(kind.wallet, kind.settle);
    const pos = this.positions.get(symbol);
    const closeQty = pos && pos.side !== side ? Math.min(order.amount, pos.contracts) : 0;
    const openQty = order.reduceOnly ? 0 : this.qty(order.amount - closeQty, market);
    let fee = 0;
    let cost = 0;
    if (pos && closeQty > 0) {
      const all = closeQty >= pos.contracts;
      const released = all ? pos.collateral : money((pos.collateral * closeQty) / pos.contracts);
      const pnl = Math.max(positionPnl(kind.spec, pos.side, closeQty, pos.entryPrice, price), -released);
      b.used = money(Math.max(0, b.used - released));
      b.free = money(b.free + released + pnl);
      const value = notionalValue(kind.spec, closeQty, price);
      const closeFee = Math.min(money(value * feeRate), Math.max(0, b.free));
      b.free = money(b.free - closeFee);
      fee += closeFee;
      cost += value;
      if (all) this.removePosition(symbol);
      else {
        pos.borrowed = money(pos.borrowed - (pos.borrowed * closeQty) / pos.contracts);
        pos.contracts = this.qty(pos.contracts - closeQty, market);
        pos.collateral = money(pos.collateral - released);
        pos.timestamp = this.now();
      }
    }
    if (openQty > 0) {
      const value = notionalValue(kind.spec, openQty, price);
      const margin = initialMargin(kind.spec, openQty, price, leverage);
      const openFee = money(value * feeRate);
      b.free = money(b.free - margin - openFee);
      b.used = money(b.used + margin);
      fee += openFee;
      cost += value;
      // Margin borrows the rest of the value (quote) for a long, the base it sells for a short.
      const borrowed = kind.marketType !== 'Margin' ? 0 : side === 'long' ? money(value - margin) : openQty;
      let p = this.positions.get(symbol);
      if (p) {
        p.entryPrice = averageEntry(kind.spec, p.contracts, p.entryPrice, openQty, price);
        p.contracts = this.qty(p.contracts + openQty, market);
        p.collateral = money(p.collateral + margin);
        p.borrowed = money(p.borrowed + borrowed);
        p.leverage = leverage;
        p.timestamp = this.now();
      } else {
        p = {
          symbol,
          marketType: kind.marketType,
          side,
          contracts: openQty,
          contractSize: kind.spec.contractSize,
          inverse: kind.spec.inverse,
          entryPrice: price,
          collateral: margin,
          leverage,
          settle: kind.settle,
          wallet: kind.wallet,
          borrowed,
          fundingPaid: 0,
          interestPaid: 0,
          // Funding times and hours before the opening are not charged.
          lastFundingAt: fundingTimeFloor(marketTs),
          lastInterestAt: Math.floor(marketTs / HOUR_MS) * HOUR_MS,
          openedAt: marketTs,
          timestamp: this.now(),
        };
        this.positions.set(symbol, p);
        this.deriv.positions.push(p);
        // Watch the mark (funding, liquidation).
        this.bookFor(symbol);
      }
      if (kind.marketType === 'Margin' && borrowed > 0) {
        // Interest is charged for the first hour when borrowing, then at every whole hour.
        const interest = marginInterest(side === 'long' ? borrowed : borrowed * price);
        p.collateral = money(p.collateral - interest);
        p.interestPaid = money(p.interestPaid + interest);
        b.used = money(Math.max(0, b.used - interest));
      }
    }
    const filled = this.qty(closeQty + openQty, market);
    order.filled = filled;
    order.remaining = this.qty(order.amount - filled, market);
    order.cost = money(cost);
    order.average = filled > 0 ? price : null;
    order.fee = { cost: money(fee), currency: kind.settle };
    order.status = filled >= order.amount ? 'closed' : 'canceled';
    order.lastUpdateTimestamp = this.now();
    this.closedIds.push(order.id);
    this.pruneClosed();
    return { filled };
  }

  private removePosition(symbol: string): void {
    this.positions.delete(symbol);
    this.deriv.positions = this.deriv.positions.filter((p) => p.symbol !== symbol);
  }

  private specOf(pos: PaperPosition): ContractSpec {
    return { inverse: pos.inverse, contractSize: pos.contractSize };
  }

  /** The liquidation price on the market's tick (0: never for a long; null: never for a short). */
  private liquidationPriceOf(pos: PaperPosition): number | null {
    const raw = liquidationPrice(this.specOf(pos), pos.side, pos.contracts, pos.entryPrice, pos.collateral);
    if (raw === null || raw === 0) return raw;
    const step = this.marketsCache[pos.symbol]?.priceStep ?? 1e-8;
    return Math.max(step, roundToStep(raw, step));
  }

  /**
   * Funding (swaps) at every funding time passed since the last one charged, at the mark now; margin
   * interest (Margin) for every whole hour passed. Both come out of (or, received funding, go into)
   * the position's collateral. Returns whether anything changed.
   */
  private chargeCarry(symbol: string, mark: number, ts: number): boolean {
    const pos = this.positions.get(symbol);
    if (!pos) return false;
    const b = this.balIn(pos.wallet, pos.settle);
    let changed = false;
    if (pos.marketType === 'Margin') {
      const hours = hoursBetween(pos.lastInterestAt, ts);
      if (hours > 0) {
        const borrowedValue = pos.side === 'long' ? pos.borrowed : pos.borrowed * mark;
        const interest = marginInterest(borrowedValue, hours);
        pos.collateral = money(pos.collateral - interest);
        pos.interestPaid = money(pos.interestPaid + interest);
        b.used = money(Math.max(0, b.used - interest));
        pos.lastInterestAt = Math.floor(ts / HOUR_MS) * HOUR_MS;
        changed = true;
      }
      return changed;
    }
    for (const t of fundingTimesBetween(pos.lastFundingAt, ts)) {
      const pay = fundingPayment(
        this.specOf(pos),
        pos.side,
        pos.contracts,
        mark,
        simulatedFundingRate(symbol, t),
      );
      pos.collateral = money(pos.collateral - pay);
      pos.fundingPaid = money(pos.fundingPaid + pay);
      b.used = money(Math.max(0, b.used - pay));
      pos.lastFundingAt = t;
      pos.timestamp = this.now();
      changed = true;
    }
    return changed;
  }

  /**
   * Liquidates the symbol's position when the mark is at or past its liquidation price: cancels the
   * position's open orders (every order of a swap symbol; the margin orders of a spot symbol), closes
   * it at the liquidation price losing the collateral, and records it.
   */
  private checkLiquidation(symbol: string, mark: number): { canceled: Order[]; record: Liquidation } | null {
    const pos = this.positions.get(symbol);
    const market = this.marketsCache[symbol];
    if (!pos || !market) return null;
    const liq = this.liquidationPriceOf(pos);
    if (liq === null || liq === 0) return null;
    if (pos.side === 'long' ? mark > liq : mark < liq) return null;
    const canceled: Order[] = [];
    for (const o of this.orders.values()) {
      if (o.status !== 'open' || o.symbol !== symbol) continue;
      if (pos.marketType === 'Margin' && o.marginMode !== 'isolated') continue;
      this.cancelInternal(o, market);
      canceled.push(o);
    }
    const b = this.balIn(pos.wallet, pos.settle);
    // The whole isolated margin is lost: the close at the liquidation price realizes −(collateral −
    // maintenance margin) and the maintenance margin left is the liquidation fee.
    b.used = money(Math.max(0, b.used - pos.collateral));
    this.removePosition(symbol);
    const record: Liquidation = {
      symbol,
      side: pos.side,
      contracts: pos.contracts,
      price: liq,
      ts: this.now(),
      loss: money(Math.max(0, pos.collateral)),
      settle: pos.settle,
    };
    this.deriv.liquidations.push(record);
    if (this.deriv.liquidations.length > KEEP_LIQUIDATIONS) {
      this.deriv.liquidations.splice(0, this.deriv.liquidations.length - KEEP_LIQUIDATIONS);
    }
    return { canceled, record };
  }

  private emitLiquidation(record: Liquidation): void {
    for (const l of this.liquidationListeners) {
      try {
        l({ ...record });
      } catch (err) {
        this.onError(err);
      }
    }
  }

  private toPosition(pos: PaperPosition, mark: number): Position {
    const spec = this.specOf(pos);
    const market = this.marketsCache[pos.symbol];
    return {
      symbol: pos.symbol,
      marketType: pos.marketType,
      side: pos.side,
      contracts: pos.contracts,
      contractSize: pos.contractSize,
      entryPrice: pos.entryPrice,
      markPrice: mark,
      notional: notionalValue(spec, pos.contracts, mark),
      leverage: pos.leverage,
      collateral: pos.collateral,
      marginMode: 'isolated',
      liquidationPrice: this.liquidationPriceOf(pos),
      unrealizedPnl: positionPnl(spec, pos.side, pos.contracts, pos.entryPrice, mark),
      settle: pos.settle,
      fundingPaid: pos.fundingPaid,
      ...(pos.marketType === 'Margin'
        ? {
            borrowed: {
              currency: pos.side === 'long' ? pos.settle : (market?.base ?? ''),
              amount: pos.borrowed,
            },
            interestPaid: pos.interestPaid,
          }
        : {}),
      timestamp: pos.timestamp,
    };
  }

  /** Sets the leverage of new positions (and of what is added to one) on a swap or margin symbol. */
  async setLeverage(leverage: number, symbol: string): Promise<number> {
    this.assertOpen();
    await this.ready();
    const market = this.marketsCache[symbol];
    if (!market) {
      throw new InvalidOrderError(`${this.exchange} does not list ${symbol}`, this.exchange, 'bad_symbol');
    }
    if (market.type !== 'swap' && !market.margin) {
      throw new InvalidOrderError(
        `${symbol} has no leverage: it is a spot market without margin`,
        this.exchange,
        'other',
      );
    }
    const max = market.maxLeverage ?? 1;
    if (!Number.isInteger(leverage) || leverage < 1 || leverage > max) {
      throw new InvalidOrderError(
        `Leverage must be a whole number from 1 to ${max} on ${symbol} (got ${String(leverage)})`,
        this.exchange,
        'other',
      );
    }
    this.deriv.leverage[symbol] = leverage;
    await this.persistOrThrow();
    return leverage;
  }

  async fetchLeverage(symbol: string): Promise<number> {
    await this.ready();
    return this.leverageOf(symbol);
  }

  /** Open positions with the mark price now (the market's last price). */
  async fetchPositions(symbols?: string[]): Promise<Position[]> {
    await this.ready();
    const out: Position[] = [];
    for (const pos of [...this.positions.values()]) {
      if (symbols && !symbols.includes(pos.symbol)) continue;
      // The price now; the last one seen when the feed cannot answer.
      const mark = await this.feed.fetchTicker(pos.symbol).then(
        (t) => t.last,
        (err: unknown) => {
          const seen = this.marks.get(pos.symbol);
          if (seen === undefined) throw err;
          return seen;
        },
      );
      const now = this.positions.get(pos.symbol);
      if (now) out.push(this.toPosition(now, mark));
    }
    return out;
  }

  async fetchMyLiquidations(symbol: string, since?: number): Promise<Liquidation[]> {
    await this.ready();
    return this.deriv.liquidations
      .filter((l) => l.symbol === symbol && (since === undefined || l.ts >= since))
      .map((l) => ({ ...l }));
  }

  /** The rate charged at the next funding time (simulated, deterministic per symbol and time). */
  async fetchFundingRate(symbol: string): Promise<FundingRate> {
    await this.ready();
    const market = this.marketsCache[symbol];
    if (!market || market.type !== 'swap') {
      throw new InvalidOrderError(
        `${symbol} is not a perpetual swap: it has no funding`,
        this.exchange,
        'bad_symbol',
      );
    }
    const t = await this.feed.fetchTicker(symbol);
    const next = nextFundingTime(t.timestamp);
    return {
      symbol,
      rate: simulatedFundingRate(symbol, next),
      nextFundingTime: next,
      timestamp: t.timestamp,
    };
  }

  onLiquidation(listener: LiquidationListener): () => void {
    this.liquidationListeners.add(listener);
    return () => this.liquidationListeners.delete(listener);
  }

  /** Moves free funds between the spot and the derivatives wallet. */
  async transfer(code: string, amount: number, from: TransferWallet, to: TransferWallet): Promise<void> {
    this.assertOpen();
    await this.ready();
    const wallets: readonly string[] = ['spot', 'swap'];
    if (!wallets.includes(from) || !wallets.includes(to) || from === to) {
      throw new InvalidOrderError(
        `A transfer goes between 'spot' and 'swap' (got '${String(from)}' to '${String(to)}')`,
        this.exchange,
        'other',
      );
    }
    const value = money(amount);
    if (!(Number.isFinite(amount) && value > 0)) {
      throw new InvalidOrderError('Transfer amount must be a positive number', this.exchange, 'min_amount');
    }
    const src = this.balIn(from, code);
    if (src.free < value) this.insufficientIn(from, code, value);
    src.free = money(src.free - value);
    const dst = this.balIn(to, code);
    dst.free = money(dst.free + value);
    await this.persistOrThrow();
  }

  /** Number of resting orders (benchmarks, diagnostics). */
  get restingCount(): number {
    return this.resting.size;
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
      const book: SymbolBook = { unsubscribe: () => undefined };
      this.books.set(symbol, book);
      book.unsubscribe = this.feed.subscribe(symbol, (price, ts) => this.onPrice(symbol, price, ts));
      b = book;
    }
    return b;
  }

  /** Rests a limit order (price-time priority) and follows its symbol's price. */
  private insertResting(order: Order): void {
    this.bookFor(order.symbol);
    this.resting.add(order);
  }

  /** Takes an order off the book (nothing when it does not rest). */
  private removeResting(order: Order): void {
    this.resting.cancel(order.id);
  }

  /**
   * A price update of a symbol: funding / margin interest of its position, then the crossed resting
   * orders fill, then the liquidation check. One save for all of it; order updates are pushed at
   * once, the liquidation listeners once the save has completed.
   */
  private onPrice(symbol: string, price: number, ts: number): void {
    if (this.isClosed) return;
    this.marks.set(symbol, price);
    const charged = this.chargeCarry(symbol, price, ts);
    const filled = this.match(symbol, price, ts);
    const liquidation = this.checkLiquidation(symbol, price);
    if (!charged && filled.length === 0 && !liquidation) return;
    const saved = this.persist();
    saved.catch(() => undefined);
    for (const o of filled) this.emit(o);
    if (liquidation) {
      for (const o of liquidation.canceled) this.emit(o);
      const notify = () => this.emitLiquidation(liquidation.record);
      saved.then(notify, notify);
    }
  }

  /** Fills only the crossed orders (the matching core touches nothing else); returns them. */
  private match(symbol: string, price: number, ts: number): Order[] {
    const market = this.marketsCache[symbol];
    if (!this.books.has(symbol) || !market) return [];
    const filled = this.resting.cross(symbol, price);
    if (filled.length === 0) return filled;
    // Oldest first within the crossed set (ids are sequential): a fill changes balances and
    // positions, so the order of fills is the order they were placed in, whatever their prices.
    if (filled.length > 1) filled.sort((x, y) => Number(x.id) - Number(y.id));
    for (const o of filled) {
      const kind = this.derivKindOfOrder(market, o);
      if (kind) {
        // The reservation goes back to free, then the fill takes its margin and fee from there.
        const r = this.deriv.orderMargin[o.id];
        if (r) this.releaseIn(kind.wallet, kind.settle, r.amount);
        delete this.deriv.orderMargin[o.id];
        const leverage = r?.leverage ?? this.leverageOf(symbol);
        this.fillDeriv(o, market, kind, o.price ?? price, market.maker, leverage, ts);
      } else {
        this.settle(o, market, o.price ?? price, market.maker, true);
      }
      this.dirty.set(o.id, o);
    }
    return filled;
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
        derivatives: structuredClone(this.deriv),
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
