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
  /**
   * Exchanges that count significant digits (ccxt SIGNIFICANT_DIGITS, e.g. Bitfinex prices: 5): the step
   * then depends on the value and `amountStep` / `priceStep` are the finest step allowed (the decimals
   * cap). The venue rounds orders with them (exchanges/precision.ts).
   */
  amountSignificantDigits?: number;
  priceSignificantDigits?: number;
  /** Minimum order amount in base units (0 when the exchange sets none). */
  minAmount: number;
  /** Minimum order value in quote units (0 when the exchange sets none). */
  minCost: number;
  /** Taker and maker fee rates as fractions (0.001 = 0.1%). */
  taker: number;
  maker: number;
  /** 'spot' (also when absent) or 'swap' (a perpetual contract). */
  type?: 'spot' | 'swap';
  /** Swaps: USDT-margined (amount in base, PnL in the settle currency). */
  linear?: boolean;
  /** Swaps: coin-margined (amount in contracts of `contractSize` USD, margin and PnL in the base). */
  inverse?: boolean;
  /** Swaps: the currency margin and PnL are paid in (USDT for linear, the base coin for inverse). */
  settle?: string;
  /**
   * Swaps: what one contract is (base units for linear, USD for inverse). Swap order amounts are in
   * contracts; `amountStep`/`minAmount` are contracts too.
   */
  contractSize?: number;
  /** Highest leverage allowed (swaps; spot markets with `margin`: the isolated-margin maximum). */
  maxLeverage?: number;
  /** Spot market that allows isolated margin orders (`marginMode: 'isolated'`). */
  margin?: boolean;
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
  /** Derivatives and margin: the order only reduces a position (present only when true). */
  reduceOnly?: boolean;
  /** Margin orders on a spot symbol (present only for them). */
  marginMode?: 'isolated';
  /**
   * Live venues: the exchange no longer reports this order (not found by its lookups
   * LOOKUP_MISSES_MAX times, nor in its open and closed lists); it is reported `canceled` with what
   * was last known filled (present only then).
   */
  lost?: true;
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
  /**
   * Derivatives and margin: only reduce the open position, never open or flip it (refused when there
   * is nothing to reduce; the amount is capped at the position's size).
   */
  reduceOnly?: boolean;
  /** Only for Margin orders on a spot symbol: trade on isolated margin (borrowing). */
  marginMode?: 'isolated';
}

/** The user's market type (the UI's `apartado`); `marketSymbol(pair, type)` gives the venue symbol. */
export type MarketType = 'Spot' | 'Perpetual' | 'Inverse' | 'Margin';
export const MARKET_TYPE_LIST: readonly MarketType[] = ['Spot', 'Perpetual', 'Inverse', 'Margin'];

/** Wallets of an account: spot (also Margin's collateral), swap (derivatives), margin (= spot). */
export type WalletType = 'spot' | 'swap' | 'margin';
/** Wallets a transfer moves funds between. */
export type TransferWallet = 'spot' | 'swap';

export type PositionSide = 'long' | 'short';

/**
 * An open position (ccxt-like), one per symbol (one-way mode). Money fields are in `settle`: USDT
 * (or the quote) for Perpetual and Margin, the base coin for Inverse.
 */
export interface Position {
  symbol: string;
  marketType: Exclude<MarketType, 'Spot'>;
  side: PositionSide;
  /** Size in contracts (base units for Perpetual and Margin; contracts of `contractSize` USD for Inverse). */
  contracts: number;
  /** 1 base unit (Perpetual, Margin) or 1 USD (Inverse) per contract. */
  contractSize: number;
  /** Average entry price (quote per base; Inverse: the harmonic mean of the fills). */
  entryPrice: number;
  /** Mark price (the simulated market's last price on paper). */
  markPrice: number;
  /** Position value at the mark, in `settle`. */
  notional: number;
  leverage: number;
  /**
   * Margin backing the position: isolated, the margin posted (initial margin, less funding / interest
   * paid, plus funding received); cross (live exchanges), the position's initial margin (value ÷
   * leverage), not the whole cross wallet.
   */
  collateral: number;
  /** Paper positions are isolated; live ones as the exchange reports them (exchanges/positions.ts). */
  marginMode: 'isolated' | 'cross';
  /**
   * Live venues: the size in base units (linear: contracts × contractSize; inverse: contracts ×
   * contractSize USD ÷ mark price).
   */
  amount?: number;
  /** Mark price at which the position is liquidated; null when it cannot be (1x inverse short). */
  liquidationPrice: number | null;
  unrealizedPnl: number;
  settle: string;
  /** Funding paid so far (positive: paid, negative: received), in `settle`. */
  fundingPaid: number;
  /** Margin only: borrowed now (quote for a long, base for a short) and interest paid so far (quote). */
  borrowed?: { currency: string; amount: number };
  interestPaid?: number;
  /** Last change (ms). */
  timestamp: number;
}

/** A forced close of a position by the venue. */
export interface Liquidation {
  symbol: string;
  side: PositionSide;
  contracts: number;
  /** The liquidation price the position was closed at. */
  price: number;
  ts: number;
  /** What the account lost, in `settle` (the isolated margin posted). */
  loss: number;
  settle: string;
}

export interface FundingRate {
  symbol: string;
  /** Rate of the next funding (fraction: 0.0001 = 0.01 %); longs pay shorts when positive. */
  rate: number;
  /** When it is charged (ms, 00:00 / 08:00 / 16:00 UTC). */
  nextFundingTime: number;
  timestamp: number;
}

export type LiquidationListener = (liquidation: Liquidation) => void;

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
  /** The spot wallet by default; `{type: 'swap'}` the derivatives wallet, `'margin'` the spot one. */
  fetchBalance(params?: { type?: WalletType }): Promise<Balances>;
  createOrder(req: CreateOrderRequest): Promise<Order>;
  cancelOrder(id: string, symbol: string): Promise<Order>;
  fetchOrder(id: string, symbol: string): Promise<Order>;
  /** The order placed with this client order id, or null when the venue has none. */
  fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null>;
  fetchOpenOrders(symbol?: string): Promise<Order[]>;
  /** `network`: ccxt's unified network code (ERC20, TRC20...); the exchange's default when absent. */
  fetchDepositAddress(currency: string, network?: string): Promise<DepositAddress>;
  createDepositAddress(currency: string, network?: string): Promise<DepositAddress>;
  /**
   * Order updates pushed by the venue (paper: at once on every fill or cancel; live: found by polling
   * the open orders it placed or looked up every LIVE_ORDER_POLL_MS, see CcxtVenue).
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

  // --- derivatives and margin (optional: spot-only venues lack them) ---------------------------------
  /** Sets the leverage of new positions on `symbol` (integer 1..maxLeverage); resolves to it. */
  setLeverage?(leverage: number, symbol: string): Promise<number>;
  /** The leverage set for `symbol` (paper default 1). */
  fetchLeverage?(symbol: string): Promise<number>;
  /** Open positions (all, or of these symbols). */
  fetchPositions?(symbols?: string[]): Promise<Position[]>;
  /** The account's liquidations on `symbol` since `since` (ms), oldest first. */
  fetchMyLiquidations?(symbol: string, since?: number): Promise<Liquidation[]>;
  fetchFundingRate?(symbol: string): Promise<FundingRate>;
  /**
   * Liquidations pushed by the venue (paper: after the `canceled` updates of the symbol's orders and
   * after the record is saved). Returns unsubscribe.
   */
  onLiquidation?(listener: LiquidationListener): () => void;
  /** Moves `amount` of `code` between the spot and the derivatives wallet. */
  transfer?(code: string, amount: number, from: TransferWallet, to: TransferWallet): Promise<void>;
}
