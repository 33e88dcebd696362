/**
 * The subset of ccxt's unified API the platform needs. CcxtVenue adapts ccxt to it; PaperVenue
 * implements it on the simulated market. Amounts are in base units, prices and costs in quote units,
 * timestamps in ms since the epoch. Every value leaving a Venue is already rounded to the market's
 * precision.
 */

export type OrderSide = 'buy' | 'sell';
export type OrderType = 'market' | 'limit';
export type OrderStatus = 'open' | 'closed' | 'canceled' | 'rejected' | 'expired';
export type Timeframe = '1m' | '5m' | '15m' | '1h' | '4h' | '1d' | '1w' | '1M';
export const TIMEFRAMES: readonly Timeframe[] = ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M'];

export interface Market {
  /** Unified symbol, e.g. 'BTC/USDT'. */
  symbol: string;
  base: string;
  quote: string;
  active: boolean;
  /** Smallest amount increment (base units), e.g. 0.00001. */
  amountStep: number;
  /** Smallest price increment (quote units), e.g. 0.01. */
  priceStep: number;
  /** Minimum order amount in base units (0 when the exchange sets none). */
  minAmount: number;
  /** Minimum order value in quote units (0 when the exchange sets none). */
  minCost: number;
  /** Taker and maker fee rates as fractions (0.001 = 0.1%). */
  taker: number;
  maker: number;
}

export interface Ticker {
  symbol: string;
  last: number;
  bid: number | null;
  ask: number | null;
  /** Change over 24 h in percent (e.g. -1.25), null when unknown. */
  percentage: number | null;
  timestamp: number;
}

/** [price, amount] levels, bids high to low, asks low to high. */
export interface OrderBook {
  symbol: string;
  bids: [number, number][];
  asks: [number, number][];
  timestamp: number;
}

/** [openTime ms, open, high, low, close, volume] as ccxt returns it. */
export type Candle = [number, number, number, number, number, number];

export interface BalanceEntry {
  free: number;
  used: number;
  total: number;
}
export type Balances = Record<string, BalanceEntry>;

export interface Fee {
  cost: number;
  currency: string;
}

export interface Order {
  id: string;
  clientOrderId: string | null;
  symbol: string;
  side: OrderSide;
  type: OrderType;
  /** Limit price; for market orders the average fill price once filled, else null. */
  price: number | null;
  amount: number;
  filled: number;
  remaining: number;
  /** Average fill price, null before any fill. */
  average: number | null;
  /** Quote spent or received so far. */
  cost: number;
  status: OrderStatus;
  fee: Fee | null;
  timestamp: number;
  lastUpdateTimestamp: number | null;
}

export interface CreateOrderRequest {
  symbol: string;
  side: OrderSide;
  type: OrderType;
  /** Base units; rounded down to the market's amount step by the venue. */
  amount: number;
  /** Required for limit orders; rounded to the market's price step by the venue. */
  price?: number;
  /** Deterministic id chosen by the caller (bot id + sequence); a repeat returns the first order. */
  clientOrderId: string;
}

export interface DepositAddress {
  currency: string;
  address: string;
  tag: string | null;
  network: string | null;
}

export type OrderListener = (order: Order) => void;

/** Public market data: shared by every user of an exchange (the market-data hub reads it). */
export interface MarketDataSource {
  readonly exchange: string;
  loadMarkets(): Promise<Record<string, Market>>;
  fetchTicker(symbol: string): Promise<Ticker>;
  fetchOrderBook(symbol: string, limit?: number): Promise<OrderBook>;
  fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]>;
}

/** One user's account on one exchange (live keys or paper). */
export interface Venue extends MarketDataSource {
  readonly kind: 'live' | 'paper';
  fetchBalance(): Promise<Balances>;
  createOrder(req: CreateOrderRequest): Promise<Order>;
  cancelOrder(id: string, symbol: string): Promise<Order>;
  fetchOrder(id: string, symbol: string): Promise<Order>;
  /** The order placed with this client order id, or null when the venue has none. */
  fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null>;
  fetchOpenOrders(symbol?: string): Promise<Order[]>;
  fetchDepositAddress(currency: string): Promise<DepositAddress>;
  createDepositAddress(currency: string): Promise<DepositAddress>;
  /**
   * Order updates pushed by the venue (paper: at once on every fill or cancel). Live venues that
   * cannot push return a no-op and the runner polls `fetchOpenOrders` / `fetchOrder` instead.
   */
  onOrderUpdate(listener: OrderListener): () => void;
  close(): Promise<void>;
  /**
   * True once `close()` was called: the instance pushes no more updates and refuses orders; take a
   * fresh venue from the registry (optional: venues without it are never reported closed).
   */
  readonly closed?: boolean;
  /**
   * Resolves when every change made so far is durably saved (paper: every pending store save has
   * completed, including those of fills made on a price move). Live venues have nothing to wait for.
   */
  flush?(): Promise<void>;
}
