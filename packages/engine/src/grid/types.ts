import type { MarketRules, StopMode, StopReason } from '../strategy';
import type { OrderRef } from '../shared/orders';

/** Where the grid starts from: `long` holds base for the sell levels (bought at market at start),
 *  `short` holds a short for the buy levels (sold at market at start, derivatives only), `neutral`
 *  holds nothing at start (derivatives only). */
export type GridPosition = 'long' | 'short' | 'neutral';

export interface GridConfig {
  /** The bot's market (the runner maps it to the venue symbol). */
  symbol: string;
  /** Lowest level (quote). */
  low: number;
  /** Highest level (quote): the levels go from `low` up by (1 + step) while they stay ≤ `high`. */
  high: number;
  /** Step between two levels in percent (0.5 = 0.5 %). */
  stepPct: number;
  /** Quote traded at every level: each level's order is amountPerLevel / (lower level of its slot) base. */
  amountPerLevel: number;
  position: GridPosition;
  /** `quote`: the profit of each round stays in quote; `base`: it is spent on base (market buys once the
   *  profit collected reaches the market's minimum). */
  profitCurrency: 'quote' | 'base';
  /** A derivatives market (perpetual, inverse, margin): `short` and `neutral` are allowed and the orders
   *  that close a round carry `reduceOnly`. */
  derivatives: boolean;
  market: MarketRules;
}

export type GridStatus = 'starting' | 'running' | 'stopping' | 'stopped';

/** An order of the grid on the venue. */
export interface GridOrderRef extends OrderRef {
  side: 'buy' | 'sell';
}

/** The filled leg that opened a round (a buy for long slots, a sell for short ones). */
export interface GridOpenLeg {
  side: 'buy' | 'sell';
  /** Base held (long) or owed (short) by the slot. */
  qty: number;
  /** Average fill price. */
  price: number;
  /** Quote fee paid for `qty`. */
  fee: number;
  ts: number;
  /** Client id of the order that opened it (the trade's lot id); `${id}:${slot index}` for the start order. */
  orderId: string;
}

/**
 * One slot of the grid: the interval between levels[index] and levels[index + 1]. A slot alternates
 * between its opening order (a buy at the lower level when `openSide` is buy, a sell at the upper
 * level when it is sell) and, once that filled (`open`), its closing order one level away. A closing
 * fill completes a round (one record_trade) and re-arms the opening order.
 */
export interface GridSlot {
  index: number;
  /** Base of every order of the slot: amountPerLevel / levels[index], rounded down to the amount step. */
  qty: number;
  openSide: 'buy' | 'sell';
  open: GridOpenLeg | null;
  /** The slot's order on the venue; null while none is (waiting for the price, a retry, or blocked). */
  order: GridOrderRef | null;
  /** Its order is below the market minimum (logged once); it is not placed again. */
  blocked: boolean;
  /** No order of the slot before this ts (after a refusal for funds or an exchange error). */
  retryAt: number | null;
}

export interface GridState {
  version: 1;
  botId: string;
  config: GridConfig;
  status: GridStatus;
  seq: number;
  lastPrice: number | null;
  lastTs: number | null;
  /** Level prices, ascending (set by the first tick). */
  levels: number[];
  /** The level left empty at start (the nearest to the start price); null before the first tick. */
  emptyLevel: number | null;
  slots: GridSlot[];
  /** The start market order (long: buy of the base for the sell levels; short: the short sale). */
  init: GridOrderRef | null;
  /** close_market at stop: the market order closing what the grid holds. */
  close: GridOrderRef | null;
  closeAttempts: number;
  /** profitCurrency base: the market buy spending the collected profit. */
  profitBuy: GridOrderRef | null;
  /** profitCurrency base: profit (quote, exact decimal string) not yet spent on base. */
  profitQuote: string;
  /** profitCurrency base: base bought with the profit (exact decimal string). */
  profitBase: string;
  /** Realized PnL in quote (exact decimal string, sum of the rounds' pnlNet). */
  realizedPnl: string;
  /** Completed rounds. */
  rounds: number;
  /** Whether the last tick was inside [low level, high level] (null before the first tick). */
  inRange: boolean | null;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
  /** No start market order before this ts (after a refusal for funds or an exchange error). */
  initRetryAt: number | null;
  /** Current start-order backoff in ms (doubles up to a cap). */
  initBackoffMs: number;
}

/** What the server lists of a grid (Active Bots row, the chart). */
export interface GridSummary {
  /** Realized PnL in quote, exact decimal string. */
  pnlQuote: string;
  rounds: number;
  /** Open limit orders on the venue. */
  openBuys: number;
  openSells: number;
  /** Base held by the grid (long slots + profit base − short slots); negative for a net short. */
  baseHeld: number;
  levels: number[];
  /** Prices of the open buy / sell orders (ascending). */
  buyPrices: number[];
  sellPrices: number[];
  inRange: boolean | null;
  status: GridStatus;
}

/** Result of `gridLevels`: every level ascending, those below the price (buys) and above it (sells),
 *  each ascending; the level nearest the price is in `levels` only (left empty). */
export interface GridLevels {
  levels: number[];
  buyLevels: number[];
  sellLevels: number[];
  /** Index in `levels` of the level left empty (nearest to the price); -1 without levels. */
  emptyIndex: number;
}
