/**
 * Public types of the backtest (`runBacktest`, docs/bots/backtest-engine.md): a strategy's own `step()` run
 * over past candles against a simulated spot venue, synchronously and without I/O.
 */
import type { MarketRules, OrderRole, StopReason, Strategy } from '../strategy';

/** One candle: `[open time ms, open, high, low, close, volume?]` (the `POST /api/backtest` shape). Two
 *  tuples rather than an optional element, so a candle is also a `readonly number[]`. */
export type BacktestCandle =
  | [ts: number, open: number, high: number, low: number, close: number]
  | [ts: number, open: number, high: number, low: number, close: number, volume: number];

/** The same candles as columns (what the run works on; pass them to skip the conversion). */
export interface BacktestColumns {
  ts: ArrayLike<number>;
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
}

export interface BacktestInput<S, C> {
  /** The kind's `Strategy` (`gridBotDca`, `classicDca`, `gridBot`): the same `step()` as live. */
  strategy: Strategy<S, C>;
  /** The config the kind's `create(botId, config)` takes (what the start call builds). */
  config: C;
  /** Candles in time order (ascending open times, each high ≥ max(open, close), low ≤ min(open, close)). */
  candles: readonly BacktestCandle[] | BacktestColumns;
  /** The market's rules: fees (fractions, 0.001 = 0.1 %), minimums and steps as the venue has them. */
  market: MarketRules;
  /** Free quote at the start. */
  initialQuote: number;
  /** Free base at the start (default 0). */
  initialBase?: number;
  /** Market orders fill at the event price × (1 ± slippagePct / 100) (buys up, sells down). Default 0. */
  slippagePct?: number;
  /** The bot id the state is created with (client ids are `${botId}-${seq}`). Default 'bt'. */
  botId?: string;
  /** A state made by the caller instead of `strategy.create(botId, config)` (e.g. the classic DCA
   *  seeded with the candles before the period: `createClassicDca(botId, config, history)`). */
  initialState?: S;
  /** `onProgress` and `shouldCancel` are called once per this many candles (default 16,384). */
  progressEvery?: number;
  /** Fraction of the candles done, 0 < f ≤ 1 (called at most once per `progressEvery` candles, and at the end). */
  onProgress?: (fraction: number) => void;
  /** Checked once per `progressEvery` candles: true ends the run there (`cancelled: true`). */
  shouldCancel?: () => boolean;
  /** Equity points kept (downsampled, min and max per bucket kept). Default 2,000. */
  maxEquityPoints?: number;
  /** Fills kept in `fills` (the first ones; `summary.fills` counts all). Default 20,000. */
  maxFills?: number;
  /** Trades kept in `trades` (the first ones; `summary.closedTrades` counts all). Default 20,000. */
  maxTrades?: number;
  /** The quiet-candle fast path (default true). Off, every path point is stepped (same result, slower). */
  fastPath?: boolean;
}

/** A closed trade (a strategy's `record_trade`). Times in ms, prices in quote, fees in quote. */
export interface BacktestTrade {
  lotId: string;
  key?: string;
  buyTime: number;
  sellTime: number;
  qty: number;
  buyPrice: number;
  sellPrice: number;
  buyFee: number;
  sellFee: number;
  /** buyFee + sellFee. */
  fees: number;
  pnlNet: number;
}

/** One fill on the simulated venue (chart markers). */
export interface BacktestFill {
  time: number;
  side: 'buy' | 'sell';
  price: number;
  qty: number;
  /** Quote. */
  fee: number;
  role: OrderRole;
  orderType: 'limit' | 'market';
  clientOrderId: string;
}

/** Equity in quote (free + reserved quote + base × price), marked at a candle's close. */
export interface EquityPoint {
  time: number;
  equity: number;
}

export interface BacktestOpenPosition {
  /** Base held at the end. */
  qty: number;
  /** Average price paid for it (fees excluded); null without base. */
  avgEntry: number | null;
  /** qty × the last close. */
  value: number;
}

export interface BacktestSummary {
  /** Time of the first and last candle processed, and how many. */
  from: number;
  to: number;
  candles: number;
  /** Equity at the first open and at the last close. */
  initialEquity: number;
  finalEquity: number;
  /** finalEquity − initialEquity (realized + unrealized, fees included). */
  netPnl: number;
  /** netPnl / initialEquity × 100. */
  returnPct: number;
  /** Σ pnlNet of the closed trades. */
  realizedPnl: number;
  /** Largest fall of the close-marked equity from a previous peak (the first peak: initialEquity), in %
   *  of that peak and in quote (each its own largest). */
  maxDrawdownPct: number;
  maxDrawdownQuote: number;
  /** Fees paid on every fill (quote). */
  feesPaid: number;
  closedTrades: number;
  /** Closed cycles (the classic DCA's `cycles`); null for kinds without cycles. */
  cycles: number | null;
  /** Fills on the venue (all of them, also those beyond `maxFills`). */
  fills: number;
  /** Most quote committed at once: the cost (fees excluded) of the base held plus the quote reserved by open buys. */
  capitalPeak: number;
  /** Candles that closed with base held / all candles × 100. */
  timeInMarketPct: number;
  openPosition: BacktestOpenPosition;
  /** last close / first open − 1, in %. */
  buyAndHoldPct: number;
  /** initialEquity × buyAndHoldPct / 100 (the same capital bought at the first open; no fees). */
  buyAndHoldPnl: number;
  /** Orders the venue refused, by reason. */
  rejections: { insufficient_funds: number; min_cost: number };
  /** Why the strategy stopped during the run (null: it was still running at the end). */
  stopReason: StopReason | null;
}

export interface BacktestStats {
  /** Candles taken whole on the fast path. */
  quietCandles: number;
  /** `step()` calls (ticks and order events). */
  steps: number;
  /** Path points noted with `noteQuietTick` (quiet candles and quiet points of stepped candles). */
  quietTicks: number;
}

export interface BacktestResult {
  summary: BacktestSummary;
  trades: BacktestTrade[];
  fills: BacktestFill[];
  equity: EquityPoint[];
  /** What the simulation assumes, in words, for the result screen. */
  assumptions: string[];
  /** `shouldCancel` ended the run early: the figures cover the candles processed. */
  cancelled: boolean;
  stats: BacktestStats;
}
