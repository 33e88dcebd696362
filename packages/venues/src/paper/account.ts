// The in-memory state of a paper account that the spot and derivatives parts share: both wallets,
// positions, the order records and their client-id index, the resting book, what changed since the
// last save, and the order listeners. No I/O of its own (the saver in store.ts writes it).
import { InsufficientFundsError, InvalidOrderError } from '../errors';
import { RestingOrderBook } from '../matching/order-book';
import { money } from '../precision';
import type { CreateOrderRequest, Market, Order, OrderListener, TransferWallet } from '../types';
import {
  copyOrder,
  PaperSaver,
  type PaperBalance,
  type PaperDerivativesState,
  type PaperPosition,
  type PaperStore,
  type SavedAccount,
} from './store';

export interface PaperAccountOptions {
  accountId: string;
  exchange: string;
  store: PaperStore;
  keepClosed: number;
  onError: (err: unknown) => void;
  now: () => number;
  /** Follows a symbol's prices (the venue subscribes once per symbol). */
  follow: (symbol: string) => void;
}

export class PaperAccount implements SavedAccount {
  readonly exchange: string;
  readonly keepClosed: number;
  readonly onError: (err: unknown) => void;
  readonly now: () => number;
  readonly follow: (symbol: string) => void;
  readonly saver: PaperSaver;

  /** The spot wallet. */
  balances: Record<string, PaperBalance> = {};
  deriv: PaperDerivativesState = {
    balances: {},
    positions: [],
    leverage: {},
    orderMargin: {},
    liquidations: [],
  };
  /** Open positions by symbol (the objects of `deriv.positions`). */
  readonly positions = new Map<string, PaperPosition>();
  /** The last mark seen per symbol (price updates, tickers, fills). */
  readonly marks = new Map<string, number>();
  seq = 0;
  readonly orders = new Map<string, Order>();
  readonly byClientId = new Map<string, string>();
  readonly closedIds: string[] = [];
  /** Resting limit orders by price (the matching core: no balances, no I/O). */
  readonly resting = new RestingOrderBook<Order>();
  markets: Record<string, Market> = {};
  readonly listeners = new Set<OrderListener>();
  /** Orders created or changed since the last save. */
  readonly dirty = new Map<string, Order>();

  constructor(opts: PaperAccountOptions) {
    this.exchange = opts.exchange;
    this.keepClosed = opts.keepClosed;
    this.onError = opts.onError;
    this.now = opts.now;
    this.follow = opts.follow;
    this.saver = new PaperSaver(opts.store, opts.accountId, opts.exchange, this, opts.onError);
  }

  // --- wallets ----------------------------------------------------------------------------------
  /** A coin of the spot wallet (created empty). */
  bal(coin: string): PaperBalance {
    let b = this.balances[coin];
    if (!b) {
      b = { free: 0, used: 0 };
      this.balances[coin] = b;
    }
    return b;
  }

  insufficient(coin: string, need: number): never {
    const have = this.balances[coin]?.free ?? 0;
    throw new InsufficientFundsError(
      `Account has insufficient balance for requested action: needs ${money(need)} ${coin}, has ${have} ${coin} free`,
      this.exchange,
    );
  }

  walletOf(wallet: TransferWallet): Record<string, PaperBalance> {
    return wallet === 'swap' ? this.deriv.balances : this.balances;
  }

  balIn(wallet: TransferWallet, coin: string): PaperBalance {
    const w = this.walletOf(wallet);
    let b = w[coin];
    if (!b) {
      b = { free: 0, used: 0 };
      w[coin] = b;
    }
    return b;
  }

  releaseIn(wallet: TransferWallet, coin: string, amount: number): void {
    const b = this.balIn(wallet, coin);
    b.used = money(Math.max(0, b.used - amount));
    b.free = money(b.free + amount);
  }

  insufficientIn(wallet: TransferWallet, coin: string, need: number): never {
    const have = this.walletOf(wallet)[coin]?.free ?? 0;
    throw new InsufficientFundsError(
      `Account has insufficient balance for requested action: needs ${money(need)} ${coin}, has ${have} ${coin} free in the ${wallet === 'swap' ? 'derivatives' : 'spot'} wallet`,
      this.exchange,
    );
  }

  leverageOf(symbol: string): number {
    return this.deriv.leverage[symbol] ?? 1;
  }

  // --- orders -----------------------------------------------------------------------------------
  lookupClientId(clientOrderId: string): Order | undefined {
    if (!clientOrderId) return undefined;
    const id = this.byClientId.get(clientOrderId);
    return id ? this.orders.get(id) : undefined;
  }

  remember(order: Order): void {
    this.orders.set(order.id, order);
    if (order.clientOrderId) this.byClientId.set(order.clientOrderId, order.id);
  }

  pruneClosed(): void {
    while (this.closedIds.length > this.keepClosed) {
      const id = this.closedIds.shift();
      const o = id ? this.orders.get(id) : undefined;
      if (!o || o.status === 'open') continue;
      this.orders.delete(o.id);
      if (o.clientOrderId && this.byClientId.get(o.clientOrderId) === o.id)
        this.byClientId.delete(o.clientOrderId);
    }
  }

  newOrder(req: CreateOrderRequest, amount: number, price: number | null): Order {
    const ts = this.now();
    const market = this.markets[req.symbol];
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

  checkMinCost(market: Market, amount: number, price: number): void {
    const cost = money(amount * price);
    if (market.minCost > 0 && cost < market.minCost) {
      throw new InvalidOrderError(
        `Filter failure: NOTIONAL. Order value ${cost} ${market.quote} is below the minimum ${market.minCost} ${market.quote} for ${market.symbol}`,
        this.exchange,
        'min_cost',
      );
    }
  }

  /** Rests a limit order (price-time priority) and follows its symbol's price. */
  insertResting(order: Order): void {
    this.follow(order.symbol);
    this.resting.add(order);
  }

  /** Marks a resting order cancelled (after its reservation went back); it is saved with the next save. */
  markCanceled(order: Order): void {
    order.status = 'canceled';
    order.lastUpdateTimestamp = this.now();
    this.closedIds.push(order.id);
    this.pruneClosed();
    this.dirty.set(order.id, order);
  }

  emit(order: Order): void {
    for (const l of this.listeners) {
      try {
        l(copyOrder(order));
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
