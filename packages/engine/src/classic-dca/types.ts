import type { MarketRules, OrderRole, StopMode, StopReason } from '../strategy';
import type { OrderRef } from '../shared/orders';

/** A candle of the bot's pair: `t` is the open time (ms), prices in quote. */
export interface Candle {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
}

export interface ClassicDcaConfig {
  symbol: string;
  /** Quote spent by the base order and by every safety order. */
  amount: number;
  /** Take profit in percent above the average entry (1 = 1%). */
  tpPct: number;
  /** Separation between safety levels in percent. */
  sepPct: number;
  /** Number of safety orders (1..100). */
  os: number;
  market: MarketRules;
  /** Stop-loss price: a tick at or below it sells the position at market and stops. */
  sl: number | null;
  /** TP+ price: a tick at or above it sells the position at market and stops. */
  tpPlus: number | null;
  /** Restart a new cycle after the take profit (off: stop with 'cycle_done'). */
  r: boolean;
  /** Re-arm a filled safety level once the price is back above it. */
  rOs: boolean;
  /** The base order waits until the last closed candle closes above the moving average. */
  trendFilter: boolean;
  /** Buy `smartAmount` quote at market on each confirmed reversal candle below the average entry. */
  smartAveraging: boolean;
  smartAmount: number;
  /** Moving-average length in candles. */
  maPeriod: number;
  /** Candle interval (ms); candles are built from ticks. */
  candleMs: number;
  /** Take profit of the VNC the server creates when the bot stops keeping its assets (stored only). */
  tpVncPct: number;
}

export type ClassicDcaStatus = 'running' | 'stopping' | 'stopped';

/** An order of a classic DCA bot on the venue, with what has filled of it so far (cumulative). */
export interface ClassicOrderRef extends OrderRef {
  role: OrderRole;
  side: 'buy' | 'sell';
  market: boolean;
  /** Safety level k (1..os) of a safety buy. */
  level?: number;
  /** The auto-fund step (1..AUTO_FUND_MAX_STEPS) an `add_funds` buy was sent for (absent: the user's). */
  autoStep?: number;
}

/** What the bot holds, as exact decimal strings: base, quote paid for it without fees, buy fees (quote). */
export interface ClassicPosition {
  qty: string;
  quote: string;
  fee: string;
}

/** The sells of the current cycle so far, and the share of the buy cost that left with them. */
export interface ClassicCycleSales {
  qty: string;
  /** Quote received (before the sell fee). */
  quote: string;
  /** Sell fees. */
  fee: string;
  /** Buy quote (without fees) of the sold base. */
  buyQuote: string;
  /** Buy fees of the sold base. */
  buyFee: string;
}

/** A position kept when the bot stopped without selling it (the server turns it into a VNC). */
export interface ClassicResidual {
  qty: number;
  /** Quote spent for `qty`, fees included (exact decimal string). */
  cost: string;
  buyTime: number;
}

export interface ClassicDcaState {
  version: 1;
  botId: string;
  config: ClassicDcaConfig;
  status: ClassicDcaStatus;
  /** Next sequence number of client order ids `${botId}-${seq}`. */
  seq: number;
  lastPrice: number | null;
  lastTs: number | null;
  /** Closed candles, oldest first (at most maPeriod + 2). */
  candles: Candle[];
  /** The candle being built from ticks. */
  forming: Candle | null;
  /** Number of the current cycle (1-based; the trade's lotId is `${botId}-c${cycle}`). */
  cycle: number;
  /** Closed cycles. */
  cycles: number;
  /** A base order was sent this cycle (in position, or buying). */
  cycleOpen: boolean;
  /** ts of the current cycle's first fill. */
  cycleStart: number | null;
  /** Fill price of the base order: safety levels are entry × (1 − sep)^k. */
  entry: number | null;
  /** Trend logs already written this cycle: bit 1 trend_warming, bit 2 trend_wait. */
  trendLogged: number;
  position: ClassicPosition;
  sales: ClassicCycleSales;
  /** Every order on the venue (base, safety, add_funds, smart_buy, take_profit, close). */
  orders: ClassicOrderRef[];
  /** Safety levels filled this cycle and not re-armed. */
  filledLevels: number[];
  /** Safety fills this cycle (re-armed ones included). */
  safetyFills: number;
  /** Safety levels of this cycle that cannot be traded (below minimum / precision). */
  skippedLevels: number[];
  /** No buy before this ts (back-off after insufficient funds / exchange errors). */
  buyRetryAt: number | null;
  buyBackoffMs: number;
  /** A refused take profit is placed again at this ts. */
  tpRetryAt: number | null;
  /** The take profit of this position cannot be placed (below minimum / precision); reset by a buy. */
  tpBlocked: boolean;
  /** Market sells sent at a close_market stop. */
  closeAttempts: number;
  realizedPnl: string;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
  /** Set when the bot stopped holding a position (cancel_only, a close that failed, a late fill). */
  residual: ClassicResidual | null;
  /**
   * Auto-fund of this cycle's position (LOT_ACTIONS.autoFund): a market buy of `amount` quote at each
   * further AUTO_FUND_STEP_PCT below `entry`. Reset at every new cycle. Absent in states written before
   * pending-order actions existed (read as false / 0 / null).
   */
  autoFund?: boolean;
  /** Auto-fund steps of this cycle already used (bought or skipped), 0..AUTO_FUND_MAX_STEPS. */
  autoFundSteps?: number;
  /**
   * A user's action on the position in progress: 'selling' (LOT_ACTIONS.sell: waiting for the cancels,
   * then for the market sell), 'deleting' (LOT_ACTIONS.forget: waiting for the cancels). Reset at every
   * new cycle and when a sale fails.
   */
  lotBusy?: ClassicLotBusy | null;
}

/** What a user's action on the position is waiting for (see ClassicDcaState.lotBusy). */
export type ClassicLotBusy = 'selling' | 'deleting';

export interface ClassicDcaSummary {
  phase: 'waiting' | 'in_position' | 'stopping' | 'stopped';
  dca: number | null;
  qty: number;
  cost: number;
  tpPrice: number | null;
  unrealizedPnl: number;
  realizedPnl: number;
  pnl: number;
  cycleStart: number | null;
  cycles: number;
  safetyFilled: number;
  safetyResting: number;
  /** What a waiting bot waits for: 'trend', 'candles' (warming up), 'retry' (back-off), 'orders'. */
  waitingFor: string | null;
}

// --- VNC --------------------------------------------------------------------------------------------

export interface VncConfig {
  symbol: string;
  market: MarketRules;
  tpVncPct: number;
}

export type VncStatus = 'running' | 'stopping' | 'stopped';

export interface VncOrderRef extends OrderRef {
  market: boolean;
  /** Cost (exact decimal) of the base this order sold so far, taken pro rata from the VNC. */
  costSold: string;
}

export interface VncFirst {
  source: string;
  qty: number;
  /** Quote spent incl. fees (number or exact decimal string). */
  cost: number | string;
  buyTime: number;
}

export interface VncState {
  version: 1;
  botId: string;
  config: VncConfig;
  status: VncStatus;
  seq: number;
  qty: string;
  cost: string;
  buyTime: number;
  sources: string[];
  sell: VncOrderRef | null;
  /** A refused sell is placed again at this ts. */
  sellRetryAt: number | null;
  /** The sell is below the market minimum (logged once; reset when qty or pct changes). */
  blocked: boolean;
  closeAttempts: number;
  trades: number;
  realizedPnl: string;
  lastPrice: number | null;
  lastTs: number | null;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
}

export interface VncSummary {
  qty: number;
  cost: number;
  sellPrice: number | null;
  tpVncPct: number;
}
