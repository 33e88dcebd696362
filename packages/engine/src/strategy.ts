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
  /** A market price. `exchange` and `symbol` name the market when the bot follows more than its own
   *  (arbitrage); absent, it is the bot's own market. */
  | {
      type: 'tick';
      price: number;
      ts: number;
      exchange?: string;
      symbol?: string;
      /** The market's order book at this tick, for a strategy with `bookDepth` (its levels per side). */
      book?: BookSnapshot;
    }
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
  | { type: 'stop'; mode: StopMode; ts: number }
  /** The venue liquidated the bot's position (derivatives) at `price` (`contracts` as the venue counts
   *  them). The runner has already delivered the `order_cancelled` of the bot's orders on that market.
   *  The strategy records what was open as closed trades at `price`, logs `liquidated` and stops
   *  (reason 'liquidated'). */
  | { type: 'liquidated'; price: number; contracts: number; ts: number }
  /** A kind-specific action (a user's "add funds", an outside signal): `name` says which, the
   *  strategy validates `params` (outside input) and logs `invalid_value` when they are wrong. */
  | ActionEvent;

/** An order book's best levels: `[price, amount in base]`, bids highest first, asks lowest first. */
export interface BookSnapshot {
  bids: [number, number][];
  asks: [number, number][];
}

export interface ActionEvent {
  type: 'action';
  name: string;
  params: Record<string, unknown>;
  ts: number;
}

export type StopMode = 'close_market' | 'cancel_only';

/** What an order is for (journal column `role`). Grid Bot DCA: entry, ladder_buy, take_profit, close
 *  (a SHORT's entry and ladder orders are sells, its take profits and closes buys); classic DCA adds
 *  base, safety, add_funds, smart_buy, vnc_sell; the Grid bot: grid_init (the market order that buys the
 *  base for the sell levels, or sells it short), grid_buy, grid_sell (its level orders), close. */
export type OrderRole =
  | 'entry'
  | 'ladder_buy'
  | 'take_profit'
  | 'close'
  | 'base'
  | 'safety'
  | 'add_funds'
  | 'smart_buy'
  | 'vnc_sell'
  | 'grid_buy'
  | 'grid_sell'
  | 'grid_init'
  /** Arbitrage: the market buys that put inventory on each venue at start, the two legs of a round
   *  trip, the market order that reverses a filled leg whose other leg failed, the sells at stop. */
  | 'arb_prepare'
  | 'arb_buy'
  | 'arb_sell'
  | 'arb_unwind'
  | 'arb_close'
  /** Signal bot: the market orders a signal produced. */
  | 'signal_buy'
  | 'signal_sell'
  /** Manual order (spot / futures screens): the entry, its take profit, the market close at its stop
   *  loss (a user's close_market stop closes with 'close'). */
  | 'manual_entry'
  | 'manual_tp'
  | 'manual_sl';

/** Where a command goes: absent, the bot's own exchange and symbol (a strategy trading two markets names one). */
export interface CommandTarget {
  exchange?: string;
  symbol?: string;
}

export interface PlaceOrderCommand extends CommandTarget {
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
  /** The ladder level (k in L_k) of an entry or ladder buy (the Grid bot: the index of the level). */
  level?: number;
  /** Derivatives: the order may only reduce the position (take profits and closes); never set on spot. */
  reduceOnly?: boolean;
}

export interface CancelOrderCommand extends CommandTarget {
  type: 'cancel_order';
  clientOrderId: string;
}

/** A closed buy-to-sell trade (one history row). Money values are exact decimals parsed to numbers. */
export interface ClosedTrade {
  /** The lot (pending order) this sale closed, or closed a part of. */
  lotId: string;
  /** Unique per sale and deterministic (replays write the same row once): absent, it is `lotId` (a lot
   *  sold in one go). A lot sold in parts gives each part its own key, e.g. `${lotId}#${sellOrderId}`. */
  key?: string;
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
  /** Where the buy and the sell were made when not both on the bot's own exchange (arbitrage). */
  buyExchange?: string;
  sellExchange?: string;
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
  | 'order_cap'
  | 'lot_action_refused'
  | 'lot_funds_added'
  | 'lot_forgotten'
  | 'auto_fund_set'
  | 'auto_fund'
  | 'auto_fund_skipped'
  | 'liquidated';

export interface LogCommand {
  type: 'log';
  level: 'info' | 'warn';
  /** A `LogCode` of the Grid Bot DCA or a code of another strategy (documented next to it). */
  code: LogCode | (string & {});
  params: Record<string, string | number>;
}

export type StopReason =
  | 'user_close_market'
  | 'user_cancel_only'
  | 'sl_hit'
  | 'tp_plus_hit'
  | 'entry_failed'
  /** Classic DCA with `r` off: the cycle closed at its take profit. */
  | 'cycle_done'
  /** A VNC sold completely. */
  | 'sold'
  /** The venue liquidated the position (derivatives). */
  | 'liquidated'
  /** Manual order: done (its take profit filled, or the entry filled without exits). */
  | 'order_done'
  /** Manual order: an exit could not be placed or its close failed (the order's `error` says why). */
  | 'exit_failed';

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

/**
 * Prices strictly between `low` and `high`, at times strictly before `until`, at which a tick provably
 * does nothing but record itself (no command; only what `noteQuietTick` writes changes).
 */
export interface QuietBand {
  low: number;
  high: number;
  until: number;
}

/**
 * A strategy as the runner sees it: create a state from a config, then step it with events. The
 * runner knows nothing else of a kind: every hook below is the strategy's own knowledge.
 */
export interface Strategy<S, C> {
  /** The bot kind it runs (the `bots.kind` column). */
  readonly kind: string;
  create(botId: string, config: C): S;
  step(state: S, event: StrategyEvent): StepResult<S>;
  /**
   * Whether `a` and `b` differ only in what a tick may change without being written (the last price):
   * a tick whose step issues no command and leaves this true is not persisted. Runs on every tick of
   * every bot, so it must not allocate.
   */
  samePersisted(a: S, b: S): boolean;
  /** Realized PnL in quote, an exact decimal string (the `bots.pnl` column). */
  realizedPnl(state: S): string;
  /** The quiet-tick fast path (optional; without it every tick is stepped). */
  quietBand?(state: S): QuietBand | null;
  /** Writes a quiet tick into `state` in place (only what `step` would change for it). What a run of
   *  quiet ticks writes must depend only on its highest, lowest and last tick (the last price and time,
   *  a forming candle's high / low / close): the backtest writes a run of quiet candles as those three. */
  noteQuietTick?(state: S, price: number, ts: number): void;
  /** Markets beyond the bot's own whose ticks it needs (arbitrage); ticks carry exchange and symbol. */
  extraMarkets?(state: S): { exchange: string; symbol: string }[];
  /**
   * Levels per side of the order books the strategy decides on (arbitrage): when set (> 0), every tick
   * it is stepped with carries `book` (the market data hub's book of that tick's market, shared by
   * all bots), and ticks are never taken on the quiet fast path.
   */
  bookDepth?(state: S): number;
  /**
   * The open lots (the user's "pending orders") of a kind that holds them; a kind with lots also
   * accepts the LOT_ACTIONS as `action` events. Absent: the kind has no pending orders.
   */
  lots?(state: S): LotInfo[];
}

/**
 * Actions on one open lot (a "pending order", spec part 2 §7), sent as `{type:'action', name, params}`;
 * every kind with `lots` accepts them. `params.lotId` is `LotInfo.id`. A lot that cannot take the
 * action (unknown, closing, busy) is left as it was and the refusal is logged (`lot_action_refused`).
 */
export const LOT_ACTIONS = {
  /** params { lotId, amount } (quote): a market buy of `amount` merged into the lot (new average entry,
   *  its take profit re-placed at the new average × (1 + tp)). */
  addFunds: 'lot_add_funds',
  /** params { lotId }: cancel the lot's take profit and sell the lot at market; it becomes a trade. */
  sell: 'lot_sell',
  /** params { lotId }: cancel the lot's take profit and stop tracking it (the assets stay on the account). */
  forget: 'lot_forget',
  /** params { lotId, enabled }: auto-fund the lot at every further AUTO_FUND_STEP_PCT of drawdown. */
  autoFund: 'lot_auto_fund',
} as const;

/** Auto-fund: a further step each 10 % below the lot's first entry price, at most 4 per lot. */
export const AUTO_FUND_STEP_PCT = 10;
export const AUTO_FUND_MAX_STEPS = 4;

/** One open lot as the pending-orders views show it. Prices in quote, `qty` in base, times in ms. */
export interface LotInfo {
  /** Stable id (the client order id of the buy that opened it, or `${botId}-c${cycle}`). */
  id: string;
  openedAt: number;
  qty: number;
  /** Average entry price (buys merged into it included), fees excluded. */
  entryPrice: number;
  /** Quote paid for `qty`, fees excluded (≈ qty × entryPrice). */
  cost: number;
  /** The entry price before any added funds: auto-fund steps are measured from it. */
  firstPrice: number;
  /** Its take-profit limit price (the one on the venue, else the one it will get). */
  tpPrice: number;
  autoFund: boolean;
  /** Auto-fund steps already taken (or skipped), 0..AUTO_FUND_MAX_STEPS. */
  autoFundSteps: number;
  /** An action in flight: a buy being merged in, a sale, or a forget waiting for its TP cancel. */
  busy: 'adding' | 'selling' | 'deleting' | null;
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
