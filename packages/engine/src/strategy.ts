/**
 * Public types of the strategy engine (DESIGN.md §4 principle 4): a strategy is a deterministic state
 * machine `step(state, event) -> { state, commands }`. No I/O, no clock reads: time comes in the events.
 *
 * Contract with the runner:
 * - The runner feeds every price tick and every order update of the bot's orders as events, and carries
 *   out the returned commands IN ORDER (cancels always come before places in one step, so funds are freed
 *   before they are needed again).
 * - Every `cancel_order` is eventually answered with `order_cancelled` or `order_filled` (when the order
 *   filled first). Every `place_order` is answered with `order_filled` / `order_partially_filled` /
 *   `order_rejected` (and, for limit orders, the fill events later).
 * - Events about unknown or already settled client order ids are ignored, so re-delivering an event after
 *   a restart is harmless (idempotent).
 * - The state is plain JSON: persist it after every step.
 */

/** Why the venue refused an order. */
export type RejectReason = 'min_cost' | 'insufficient_funds' | 'precision' | 'exchange_error' | 'unknown';

export type StrategyEvent =
  /** A market price. */
  | { type: 'tick'; price: number; ts: number }
  /** The order is completely filled. `price` is the average fill price, `amount` the base filled, `fee` in quote. */
  | { type: 'order_filled'; clientOrderId: string; price: number; amount: number; fee: number; ts: number }
  /** Part of the order filled. `filled` is the CUMULATIVE base filled so far, `price` the average fill price
   *  so far and `fee` the cumulative fee in quote so far. */
  | {
      type: 'order_partially_filled';
      clientOrderId: string;
      filled: number;
      price: number;
      fee: number;
      ts: number;
    }
  /** The order is cancelled. When it had filled in part, `filled`/`price`/`fee` (cumulative, as in
   *  `order_partially_filled`) may be given here; otherwise the last partial-fill event counts. */
  | {
      type: 'order_cancelled';
      clientOrderId: string;
      ts: number;
      filled?: number;
      price?: number;
      fee?: number;
    }
  /** The venue refused the order; nothing of it was filled. */
  | { type: 'order_rejected'; clientOrderId: string; reason: RejectReason; message?: string; ts: number }
  /** User actions. */
  | { type: 'relocate'; ts: number }
  | { type: 'set_sl'; sl: number | null; ts?: number }
  | { type: 'set_tp_plus'; tpPlus: number | null; ts?: number }
  | { type: 'set_ra'; enabled: boolean; ts?: number }
  | { type: 'stop'; mode: StopMode; ts: number };

export type StopMode = 'close_market' | 'cancel_only';

export type OrderRole = 'entry' | 'ladder_buy' | 'take_profit' | 'close';

export interface PlaceOrderCommand {
  type: 'place_order';
  /** `${botId}-${seq}`: deterministic, never repeated for a bot. */
  clientOrderId: string;
  side: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  /** Limit price (rounded to the price step: buys down, sells up). Absent for market orders. */
  price?: number;
  /** Base amount, rounded down to the amount step. Always given (for market buys it is quoteAmount / tick
   *  price, rounded down, for venues that only take a base amount). */
  amount?: number;
  /** For market buys: the quote to spend (A). */
  quoteAmount?: number;
  role: OrderRole;
  /** The lot a take-profit or close sell belongs to. */
  lotId?: string;
  /** The ladder level (k in L_k) of an entry or ladder buy. */
  level?: number;
}

export interface CancelOrderCommand {
  type: 'cancel_order';
  clientOrderId: string;
}

/** A closed buy-to-sell trade (one history row). Money values are exact decimals parsed to numbers. */
export interface ClosedTrade {
  lotId: string;
  qty: number;
  buyPrice: number;
  sellPrice: number;
  buyTime: number;
  sellTime: number;
  /** Quote. */
  buyFee: number;
  /** Quote. */
  sellFee: number;
  /** qty × (sellPrice − buyPrice) − buyFee − sellFee, computed in exact decimal arithmetic. */
  pnlNet: number;
}

export interface RecordTradeCommand {
  type: 'record_trade';
  trade: ClosedTrade;
}

/**
 * Codes of the bot's event log. Every skipped or delayed order is explained by one of them.
 * The runner translates `code` + `params` into the user's language.
 */
export type LogCode =
  | 'started'
  | 'lot_opened'
  | 'lot_closed'
  | 'below_min_cost'
  | 'insufficient_funds'
  | 'order_rejected'
  | 'out_of_range'
  | 'back_in_range'
  | 'relocated'
  | 'relocate_skipped'
  | 'ra_relocated'
  | 'sl_hit'
  | 'tp_plus_hit'
  | 'sl_set'
  | 'tp_plus_set'
  | 'ra_set'
  | 'stopping'
  | 'close_failed'
  | 'invalid_value'
  | 'order_cap';

export interface LogCommand {
  type: 'log';
  level: 'info' | 'warn';
  code: LogCode;
  params: Record<string, string | number>;
}

export type StopReason = 'user_close_market' | 'user_cancel_only' | 'sl_hit' | 'tp_plus_hit' | 'entry_failed';

export interface StoppedCommand {
  type: 'stopped';
  reason: StopReason;
}

export type StrategyCommand =
  PlaceOrderCommand | CancelOrderCommand | RecordTradeCommand | LogCommand | StoppedCommand;

export interface StepResult<S> {
  state: S;
  commands: StrategyCommand[];
}

/** A strategy as the runner sees it: create a state from a config, then step it with events. */
export interface Strategy<S, C> {
  readonly kind: string;
  create(botId: string, config: C): S;
  step(state: S, event: StrategyEvent): StepResult<S>;
}

/** A market's trading rules (from the venue's Market). Fees are fractions (0.001 = 0.1%). */
export interface MarketRules {
  amountStep: number;
  priceStep: number;
  minAmount: number;
  minCost: number;
  takerFee: number;
  makerFee: number;
}

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
  /** Only LONG is supported; createDcaBot throws DcaConfigError('short_not_supported') for SHORT. */
  direction: 'LONG' | 'SHORT';
  market: MarketRules;
  /** Stop-loss price: a tick at or below it sells every lot at market and stops. */
  sl?: number | null;
  /** TP+ price: a tick at or above it sells every lot at market and stops. */
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

/** An open position bought by one buy: the "pending orders" of the dashboard. */
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
}

export interface DcaSummary {
  openLots: number;
  /** Quantity-weighted average buy price of open lots; null without lots. */
  avgEntry: number | null;
  /** Total base of open lots. */
  openQty: number;
  /** Σ qty × (price − buyPrice) − Σ buy fees of open lots (sell fees not yet paid are not included). */
  unrealizedPnl: number;
  realizedPnl: number;
  inRange: boolean;
}
