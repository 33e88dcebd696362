import type { MarketRules, StopMode, StopReason } from '../strategy';

export interface DcaConfig {
  symbol: string;
  /** A: quote spent by every buy (entry and ladder buys). */
  amount: number;
  /** T: take profit in percent (1 = 1%). */
  tpPct: number;
  /** S: separation between levels in percent. */
  sepPct: number;
  /** N: number of waiting limit buys (OS). */
  os: number;
  /** LONG buys first (ladder below the price); SHORT mirrors it (sells first, the ladder above the price,
   *  take profits are buys) and needs `derivatives` (DcaConfigError 'short_needs_derivatives'). */
  direction: 'LONG' | 'SHORT';
  market: MarketRules;
  /** A derivatives market (perpetual, inverse, margin): take profits and closes carry `reduceOnly`.
   *  Absent: spot. */
  derivatives?: boolean;
  /** Stop-loss price: a tick at or below it sells every lot at market and stops (SHORT: at or above,
   *  buying the lots back). */
  sl?: number | null;
  /** TP+ price: a tick at or above it sells every lot at market and stops (SHORT: at or below). */
  tpPlus?: number | null;
  raEnabled: boolean;
}

export type DcaStatus = 'starting' | 'running' | 'stopping' | 'stopped';

/** An order the bot has on the venue, with what has filled of it so far. */
export interface DcaOrderRef {
  clientOrderId: string;
  price: number;
  amount: number;
  /** Cumulative base filled so far (partial fills). */
  filled: number;
  /** Average fill price so far (0 before any fill). */
  avgPrice: number;
  /** Cumulative quote fee so far. */
  fee: number;
  /** A cancel was sent; waiting for order_cancelled / order_filled. */
  cancelling: boolean;
}

/** An open position bought by one buy: the "pending orders" of the dashboard. SHORT: a position sold by
 *  one sell; `buyPrice`, `buyFee` and `buyTime` then hold its entry (the sale) and the take profit buys. */
export interface DcaLot {
  /** The client order id of the buy that opened it. */
  id: string;
  /** Anchor generation (incremented by every relocation) and level k of the buy. */
  epoch: number;
  level: number;
  qty: number;
  buyPrice: number;
  /** Quote. */
  buyFee: number;
  buyTime: number;
  /** Its take-profit limit sell; null while it is not (yet) on the venue. */
  tp: DcaOrderRef | null;
  /** Earliest ts at which a missing take profit is placed again (after a rejection). */
  tpRetryAt: number | null;
  /** The take profit cannot be placed (below minimum cost / precision); logged once, not retried. */
  tpBlocked: boolean;
  /** The market sell closing it (stop / SL / TP+). */
  close: DcaOrderRef | null;
  /** Market sells sent for it so far (a close is retried while below DCA_MAX_CLOSE_ATTEMPTS, after a
   *  cancel or an exchange error; refusals for funds, minimum or precision end the attempts). */
  closeAttempts?: number;
  /** The entry price before any added funds (auto-fund steps are measured from it); absent, `buyPrice`. */
  firstPrice?: number;
  /** Auto-fund (LOT_ACTIONS.autoFund): a market buy of A at every further AUTO_FUND_STEP_PCT below
   *  `firstPrice`, at most AUTO_FUND_MAX_STEPS times. Absent: off. */
  autoFund?: boolean;
  /** Auto-fund steps already used (bought or skipped), 0..AUTO_FUND_MAX_STEPS; absent: 0. */
  autoFundSteps?: number;
  /** A user action in progress: 'sell' (its TP is being cancelled, then it is sold at market; `close`
   *  is that sale) or 'forget' (its TP is being cancelled, then it is dropped). Absent / null: none. */
  action?: 'sell' | 'forget' | null;
}

/** A market buy adding funds to a lot (LOT_ACTIONS.addFunds or an auto-fund step) while on the venue. */
export interface DcaLotBuy extends DcaOrderRef {
  /** The lot it is merged into. */
  lotId: string;
  /** Epoch and level of that lot: a lot opened from this buy when the lot is gone gets them. */
  epoch: number;
  level: number;
  /** Sent by an auto-fund step (`step`) rather than by the user. */
  auto: boolean;
  step?: number;
}

/** A waiting limit buy of A on a ladder level. */
export interface DcaWaitingBuy extends DcaOrderRef {
  epoch: number;
  level: number;
}

export interface DcaState {
  version: 1;
  botId: string;
  config: DcaConfig;
  status: DcaStatus;
  /** P0, set by the first tick and by every relocation; null before the first tick. */
  anchor: number | null;
  /** Incremented by every relocation; lots of older epochs no longer occupy ladder levels. */
  epoch: number;
  /** Next sequence number of client order ids `${botId}-${seq}`. */
  seq: number;
  lastPrice: number | null;
  lastTs: number | null;
  /** The start market buy while it is on the venue. */
  entry: (DcaOrderRef & { level: 0 }) | null;
  lots: DcaLot[];
  waitingBuys: DcaWaitingBuy[];
  /** No new buys before this ts (backoff after insufficient funds / exchange errors). */
  buyRetryAt: number | null;
  /** Current backoff in ms (doubles up to a cap; reset by every fill). */
  buyBackoffMs: number;
  /** Levels of the current epoch that cannot be traded (below minimum cost / precision), already logged. */
  skippedLevels: number[];
  /** Whether the last tick was inside the range (for out_of_range logs). */
  inRange: boolean | null;
  /** Realized PnL as an exact decimal string (sum of pnlNet). */
  realizedPnl: string;
  closedTrades: number;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
  /** While stopping with close_market: the market sells of the lots have been sent. */
  closePhase: boolean;
  /** ts of the last out_of_range log (logs are at most one per 10 minutes). */
  lastRangeLogTs: number | null;
  /** k of the first ladder level below the price at the last rebalance (lets unchanged ticks skip work). */
  ladderK: number | null;
  /** Whether the open lots leave the ladder fewer buys than # OS (DCA_MAX_OPEN_ORDERS), already logged. */
  orderCapped?: boolean;
  /** Market buys adding funds to lots, while on the venue (absent in states from before this field). A
   *  fill is merged into its lot, or opens a lot of its own when that lot is gone meanwhile. */
  lotBuys?: DcaLotBuy[];
}

export interface DcaSummary {
  openLots: number;
  /** Quantity-weighted average buy price of open lots; null without lots. */
  avgEntry: number | null;
  /** Total base of open lots. */
  openQty: number;
  /** Σ qty × (price − buyPrice) − Σ buy fees of open lots (sell fees not yet paid are not included);
   *  SHORT: Σ qty × (entry − price) − Σ entry fees. */
  unrealizedPnl: number;
  realizedPnl: number;
  inRange: boolean;
}
