// PaperVenue: the Venue of a paper account. This file is its public face (market data, orders,
// account, the price updates that match resting orders); the work is in its parts, which share one
// PaperAccount (account.ts): spot.ts (spot orders), derivatives.ts (swaps, Margin, positions),
// store.ts (what is saved, the stores, the saver). One save per change and one matching book for both.
import { paperDepositAddress } from '../addresses';
import { InvalidOrderError, OrderNotFoundError, VenueUnavailableError } from '../errors';
import { nextFundingTime, simulatedFundingRate } from '../derivatives';
import { floorToStep, money, roundToStep } from '../precision';
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
  Ticker,
  Timeframe,
  TransferWallet,
  Venue,
  WalletType,
} from '../types';
import { PaperAccount } from './account';
import {
  cancelResting,
  chargeCarry,
  checkLiquidation,
  derivKindOfOrder,
  derivKindOfRequest,
  fillRestingDeriv,
  placeDerivLimit,
  placeDerivMarket,
  setLeverageOf,
  toPosition,
  transferFunds,
} from './derivatives';
import { placeSpotLimit, placeSpotMarket, settleSpot } from './spot';
import { copyOrder, type PaperStore } from './store';

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

/** A symbol whose prices the account follows (its resting orders live in `resting`). */
interface SymbolBook {
  unsubscribe: () => void;
}

export class PaperVenue implements Venue {
  readonly kind = 'paper' as const;
  readonly exchange: string;
  private readonly accountId: string;
  private readonly feed: PaperMarketFeed;
  private readonly store: PaperStore;
  private readonly addressSeed: string;
  private readonly onError: (err: unknown) => void;
  private readonly initialBalances: Record<string, number>;
  private readonly initialDerivatives: Record<string, number>;
  /** The account's state, shared by the spot and derivatives parts. */
  private readonly acct: PaperAccount;

  private readonly liquidationListeners = new Set<LiquidationListener>();
  private readonly books = new Map<string, SymbolBook>();
  private readyPromise: Promise<void> | null = null;
  private isClosed = false;

  constructor(opts: PaperVenueOptions) {
    this.exchange = opts.feed.exchange;
    this.accountId = opts.accountId;
    this.feed = opts.feed;
    this.store = opts.store;
    this.addressSeed = opts.addressSeed ?? opts.accountId;
    this.onError = opts.onError ?? (() => undefined);
    this.initialBalances = opts.initialBalances ?? { ...PAPER_INITIAL_BALANCES };
    this.initialDerivatives = opts.initialDerivativesBalances ?? { ...PAPER_INITIAL_DERIVATIVES_BALANCES };
    this.acct = new PaperAccount({
      accountId: opts.accountId,
      exchange: this.exchange,
      store: opts.store,
      keepClosed: opts.keepClosed ?? 5_000,
      onError: this.onError,
      now: opts.now ?? Date.now,
      follow: (symbol) => {
        this.bookFor(symbol);
      },
    });
  }

  private seedDerivatives(): void {
    for (const [coin, amount] of Object.entries(this.initialDerivatives)) {
      this.acct.deriv.balances[coin] = { free: money(amount), used: 0 };
    }
  }

  /** Loads (or seeds) the account; every call awaits it, call it to fail early. */
  ready(): Promise<void> {
    this.readyPromise ??= this.load();
    return this.readyPromise;
  }

  private async load(): Promise<void> {
    const acct = this.acct;
    acct.markets = await this.feed.loadMarkets();
    const state = await this.store.load(this.accountId);
    if (!state) {
      for (const [coin, amount] of Object.entries(this.initialBalances)) {
        acct.balances[coin] = { free: money(amount), used: 0 };
      }
      this.seedDerivatives();
      await acct.saver.persist();
      return;
    }
    acct.balances = structuredClone(state.balances);
    acct.seq = state.seq;
    if (state.derivatives) {
      const d = structuredClone(state.derivatives);
      acct.deriv = {
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
    for (const p of acct.deriv.positions) acct.positions.set(p.symbol, p);
    const sorted = [...state.orders].sort((a, b) => Number(a.id) - Number(b.id) || a.timestamp - b.timestamp);
    for (const o of sorted) {
      acct.orders.set(o.id, copyOrder(o));
      if (o.clientOrderId) acct.byClientId.set(o.clientOrderId, o.id);
      if (o.status !== 'open') acct.closedIds.push(o.id);
    }
    acct.pruneClosed();
    const symbols = new Set<string>();
    for (const o of acct.orders.values()) {
      if (o.status === 'open' && o.type === 'limit') {
        acct.insertResting(o);
        symbols.add(o.symbol);
      }
    }
    for (const symbol of acct.positions.keys()) {
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
    return { ...this.acct.markets };
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
    const wallet = params?.type === 'swap' ? this.acct.deriv.balances : this.acct.balances;
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
    this.acct.listeners.add(listener);
    return () => this.acct.listeners.delete(listener);
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
    this.acct.resting.clear();
    this.acct.listeners.clear();
    this.liquidationListeners.clear();
    await this.acct.saver.inFlight;
  }

  // --- orders -----------------------------------------------------------------------------------
  async createOrder(req: CreateOrderRequest): Promise<Order> {
    this.assertOpen();
    await this.ready();
    const acct = this.acct;
    // Asked before the client-id check: from that check to the order's insertion nothing may await,
    // or two sends of one client id could both pass it.
    // The feed's answer is the current one; the markets loaded at start may predate a (de)listing.
    const listedNow = this.feed.isListed ? await this.feed.isListed(req.symbol) : null;
    this.assertOpen();
    const existing = acct.lookupClientId(req.clientOrderId);
    if (existing) return copyOrder(existing);
    const market = acct.markets[req.symbol];
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
    const kind = derivKindOfRequest(acct, market, req);
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
      if (!(kind && req.reduceOnly)) acct.checkMinCost(market, amount, price);
      const ticker = await this.feed.fetchTicker(req.symbol);
      // Re-check after the await: a concurrent call may have placed this client id.
      const again = acct.lookupClientId(req.clientOrderId);
      if (again) return copyOrder(again);
      if (kind) return placeDerivLimit(acct, req, market, kind, amount, price, ticker);
      return placeSpotLimit(acct, req, market, amount, price, ticker.last);
    }
    if (req.type !== 'market') {
      throw new InvalidOrderError(`Invalid order type '${String(req.type)}'`, this.exchange, 'other');
    }
    const book = await this.feed.fetchOrderBook(req.symbol, 10);
    const again = acct.lookupClientId(req.clientOrderId);
    if (again) return copyOrder(again);
    if (kind) return placeDerivMarket(acct, req, market, kind, amount, book);
    return placeSpotMarket(acct, req, market, amount, book);
  }

  async cancelOrder(id: string, symbol: string): Promise<Order> {
    this.assertOpen();
    await this.ready();
    this.assertOpen();
    const order = this.acct.orders.get(id);
    if (!order || order.symbol !== symbol) {
      throw new OrderNotFoundError(`Order ${id} does not exist on ${symbol}`, this.exchange);
    }
    if (order.status !== 'open') {
      throw new OrderNotFoundError(
        `Order ${id} is ${order.status}, not open: nothing to cancel`,
        this.exchange,
      );
    }
    const market = this.acct.markets[order.symbol];
    if (!market)
      throw new InvalidOrderError(`${this.exchange} does not list ${symbol}`, this.exchange, 'bad_symbol');
    cancelResting(this.acct, order, market);
    await this.acct.saver.persistOrThrow();
    this.acct.emit(order);
    return copyOrder(order);
  }

  async fetchOrder(id: string, symbol: string): Promise<Order> {
    await this.ready();
    const order = this.acct.orders.get(id);
    if (!order || order.symbol !== symbol) {
      throw new OrderNotFoundError(`Order ${id} does not exist on ${symbol}`, this.exchange);
    }
    return copyOrder(order);
  }

  async fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null> {
    await this.ready();
    const o = this.acct.lookupClientId(clientOrderId);
    return o && o.symbol === symbol ? copyOrder(o) : null;
  }

  async fetchOpenOrders(symbol?: string): Promise<Order[]> {
    await this.ready();
    const out: Order[] = [];
    for (const o of this.acct.orders.values()) {
      if (o.status === 'open' && (symbol === undefined || o.symbol === symbol)) out.push(copyOrder(o));
    }
    return out;
  }

  // --- derivatives and margin (derivatives.ts) ----------------------------------------------------

  private emitLiquidation(record: Liquidation): void {
    for (const l of this.liquidationListeners) {
      try {
        l({ ...record });
      } catch (err) {
        this.onError(err);
      }
    }
  }

  /** Sets the leverage of new positions (and of what is added to one) on a swap or margin symbol. */
  async setLeverage(leverage: number, symbol: string): Promise<number> {
    this.assertOpen();
    await this.ready();
    setLeverageOf(this.acct, leverage, symbol);
    await this.acct.saver.persistOrThrow();
    return leverage;
  }

  async fetchLeverage(symbol: string): Promise<number> {
    await this.ready();
    return this.acct.leverageOf(symbol);
  }

  /** Open positions with the mark price now (the market's last price). */
  async fetchPositions(symbols?: string[]): Promise<Position[]> {
    await this.ready();
    const acct = this.acct;
    const out: Position[] = [];
    for (const pos of [...acct.positions.values()]) {
      if (symbols && !symbols.includes(pos.symbol)) continue;
      // The price now; the last one seen when the feed cannot answer.
      const mark = await this.feed.fetchTicker(pos.symbol).then(
        (t) => t.last,
        (err: unknown) => {
          const seen = acct.marks.get(pos.symbol);
          if (seen === undefined) throw err;
          return seen;
        },
      );
      const now = acct.positions.get(pos.symbol);
      if (now) out.push(toPosition(acct, now, mark));
    }
    return out;
  }

  async fetchMyLiquidations(symbol: string, since?: number): Promise<Liquidation[]> {
    await this.ready();
    return this.acct.deriv.liquidations
      .filter((l) => l.symbol === symbol && (since === undefined || l.ts >= since))
      .map((l) => ({ ...l }));
  }

  /** The rate charged at the next funding time (simulated, deterministic per symbol and time). */
  async fetchFundingRate(symbol: string): Promise<FundingRate> {
    await this.ready();
    const market = this.acct.markets[symbol];
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
    transferFunds(this.acct, code, amount, from, to);
    await this.acct.saver.persistOrThrow();
  }

  /** Number of resting orders (benchmarks, diagnostics). */
  get restingCount(): number {
    return this.acct.resting.size;
  }

  // --- price updates and matching -----------------------------------------------------------------
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

  /**
   * A price update of a symbol: funding / margin interest of its position, then the crossed resting
   * orders fill, then the liquidation check. One save for all of it; order updates are pushed at
   * once, the liquidation listeners once the save has completed.
   */
  private onPrice(symbol: string, price: number, ts: number): void {
    if (this.isClosed) return;
    const acct = this.acct;
    acct.marks.set(symbol, price);
    const charged = chargeCarry(acct, symbol, price, ts);
    const filled = this.match(symbol, price, ts);
    const liquidation = checkLiquidation(acct, symbol, price);
    if (!charged && filled.length === 0 && !liquidation) return;
    const saved = acct.saver.persist();
    saved.catch(() => undefined);
    for (const o of filled) acct.emit(o);
    if (liquidation) {
      for (const o of liquidation.canceled) acct.emit(o);
      const notify = () => this.emitLiquidation(liquidation.record);
      saved.then(notify, notify);
    }
  }

  /** Fills only the crossed orders (the matching core touches nothing else); returns them. */
  private match(symbol: string, price: number, ts: number): Order[] {
    const acct = this.acct;
    const market = acct.markets[symbol];
    if (!this.books.has(symbol) || !market) return [];
    const filled = acct.resting.cross(symbol, price);
    if (filled.length === 0) return filled;
    // Oldest first within the crossed set (ids are sequential): a fill changes balances and
    // positions, so the order of fills is the order they were placed in, whatever their prices.
    if (filled.length > 1) filled.sort((x, y) => Number(x.id) - Number(y.id));
    for (const o of filled) {
      const kind = derivKindOfOrder(market, o);
      if (kind) fillRestingDeriv(acct, o, market, kind, price, ts);
      else settleSpot(acct, o, market, o.price ?? price, market.maker, true);
      acct.dirty.set(o.id, o);
    }
    return filled;
  }

  /**
   * Resolves when every save started or queued before (or while) waiting has completed, failed ones
   * included (a failed save keeps its changes for the next one). Fills made on a price move are saved
   * without a caller awaiting them: flush() is how a caller knows they are stored.
   */
  flush(): Promise<void> {
    return this.acct.saver.flush();
  }
}
