import type { BookSnapshot, MarketRules, StopMode, StopReason } from '../strategy';
import type { OrderRef } from '../shared/orders';

/** A venue's trading rules for the arbitrage symbol (steps, minimums, fees as fractions). */
export type ArbVenueRules = MarketRules;

export interface ArbitrageConfig {
  /** [the bot's own exchange (bots.exchange), the other one], e.g. ['binance', 'bybit']. */
  exchanges: [string, string];
  /** Spot symbol traded on both venues, e.g. 'ETH/USDT'. */
  symbol: string;
  /** The capital in quote (monto_usdt): half per venue, and on each venue half of it in base at start. */
  amountQuote: number;
  /** Market rules by exchange (both exchanges present). */
  rules: Record<string, ArbVenueRules>;
  /** Safety margin over both taker fees, in percent (0.1 = 0.1 %). Default ARB_DEFAULT_MARGIN_PCT. */
  marginPct?: number;
  /** Round-trip size as a fraction of amountQuote (quote at the buy venue's mid). Default 0.25. */
  tradeFraction?: number;
  /** Pause after a round trip ends before the next one may open, in ms. Default 2_000. */
  cooldownMs?: number;
}

export type ArbitrageStatus = 'starting' | 'running' | 'stopping' | 'stopped';

/** One order of the bot on a venue. */
export interface ArbOrderRef extends OrderRef {
  exchange: string;
  side: 'buy' | 'sell';
  /** Whether the order is settled (filled, cancelled or rejected); its fill fields are final then. */
  done: boolean;
}

/**
 * The bot's own money on one venue (not the account balance): exact decimal strings. After the
 * prepare fill, quote = amountQuote / 2 − cost − fee and base = the base filled; every fill moves them.
 */
export interface ArbInventory {
  /** Base, exact decimal string. */
  base: string;
  /** Quote, exact decimal string. */
  quote: string;
}

/** What the bot keeps per venue (persisted; ticks never change it). */
export interface ArbVenueState {
  exchange: string;
  inventory: ArbInventory;
  /** The start market buy (kept after it settled, for the log and the reconcile). */
  prepare: ArbOrderRef | null;
  /** close_market at stop: the market sell of the venue's base. */
  close: ArbOrderRef | null;
  closeAttempts: number;
}

/** What ticks bring per venue (not persisted: `samePersisted` ignores it). */
export interface ArbMarketView {
  /** Last tick price (quote). */
  price: number;
  /** Last book (best first), null when the tick carried none. */
  book: BookSnapshot | null;
  /** ts of the tick that brought it. */
  ts: number;
}

/** The spread of one direction at the trade size: what the page shows (percent). */
export interface ArbSpread {
  /** sellAvg / buyAvg − 1 in percent at the trade size (null: the books are too thin for it). */
  edgePct: number | null;
  /** Both taker fees in percent (the margin is on top: ArbitrageSummary.marginPct). */
  feesPct: number;
}

/** A round trip in flight: both market legs sent in one step, then, if one failed, the unwind. */
export interface ArbTrip {
  /** The buy leg's client order id: the trade's lot id. */
  id: string;
  /** Base planned for each leg. */
  qty: number;
  openedAt: number;
  buy: ArbOrderRef;
  sell: ArbOrderRef;
  /** 'legs': waiting for both legs to settle; 'unwinding': the matched part is recorded and the
   *  unmatched part of the leg that filled more (`unwindLeg`) is being reversed at market. */
  phase: 'legs' | 'unwinding';
  /** Which leg is being unwound (null in phase 'legs'). */
  unwindLeg: 'buy' | 'sell' | null;
  /** Base still to unwind (exact decimal string). */
  unwindLeft: string;
  /** The market order reversing the unmatched part of a filled leg (its venue, opposite side); null
   *  between attempts (a retry waits for the next tick). */
  unwind: ArbOrderRef | null;
  unwindAttempts: number;
  /** The expected numbers of the decision (for the log and the tests). */
  expectedBuyAvg: number;
  expectedSellAvg: number;
  expectedNet: number;
}

/** Why the bot waits: which side ran out on which venue for the direction the books favour. */
export interface ArbWaiting {
  /** `${buyExchange}_to_${sellExchange}`. */
  direction: string;
  /** 'base': not enough base on the sell venue; 'quote': not enough quote on the buy venue. */
  side: 'base' | 'quote';
  exchange: string;
}

export interface ArbitrageState {
  version: 1;
  botId: string;
  config: ArbitrageConfig;
  status: ArbitrageStatus;
  seq: number;
  /** Last event ts (ms). */
  lastTs: number | null;
  /** The bot's own exchange's last tick price (for the generic views). */
  lastPrice: number | null;
  /** In config.exchanges order. Copy-on-write: replaced only by persisted changes. */
  venues: [ArbVenueState, ArbVenueState];
  /** Latest tick per exchange (not persisted). */
  market: Record<string, ArbMarketView>;
  /** Latest spread per direction key `${buy}_to_${sell}` (not persisted); null before both books. */
  lastSpread: Record<string, ArbSpread> | null;
  trip: ArbTrip | null;
  /** Completed round trips (both legs filled at least in part). */
  trips: number;
  /** Trips opened (numbers the trips; never decreases). */
  tripsOpened: number;
  /** When the last trip settled (ms): the cooldown runs from it. */
  lastTripEndTs: number | null;
  /** Trips in a row whose leg failed (0 after a completed round trip; absent in older states). */
  failStreak?: number;
  /** No new trip before this time (ms) after a failed leg (ARB_FAIL_PAUSE_MS, doubling). */
  pausedUntil?: number | null;
  /** Realized PnL in quote (exact decimal string, sum of the recorded pnlNet). */
  realizedPnl: string;
  waiting: ArbWaiting | null;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
}

/** What the server shows of an arbitrage bot (the /arbitraje page). */
export interface ArbitrageSummary {
  /** Realized PnL in quote, exact decimal string. */
  pnlQuote: string;
  trips: number;
  /** By direction key `${buy}_to_${sell}` (e.g. 'binance_to_bybit'); null before both books. */
  lastSpread: Record<string, ArbSpread> | null;
  marginPct: number;
  /** The bot's own money per exchange (numbers). */
  inventory: Record<string, { base: number; quote: number }>;
  /** No new trip before this time (ms) after a failed leg; null when not paused. */
  pausedUntil: number | null;
  /** Best bid / ask per exchange from the last tick (null without a book). */
  books: Record<string, { bid: number | null; ask: number | null }>;
  status: ArbitrageStatus;
  /** A round trip is in flight. */
  tripOpen: boolean;
  /** 'base_on_<exchange>' or 'quote_on_<exchange>' (for the direction the books favour), else null. */
  waiting: string | null;
}

/** Input of the pure decision (numbers as the venues give them). */
export interface ArbDecisionInput {
  exchanges: [string, string];
  books: Record<string, BookSnapshot>;
  /** The bot's own base and quote per exchange. */
  inventory: Record<string, { base: number; quote: number }>;
  rules: Record<string, MarketRules>;
  /** Quote the trade aims at (amountQuote × tradeFraction), converted to base at the buy venue's mid. */
  tradeQuote: number;
  /** Safety margin in percent over both taker fees. */
  marginPct: number;
}

export type ArbDirectionReason =
  | 'ok'
  /** A book side is empty or too thin for the size. */
  | 'no_depth'
  /** The executable edge does not beat both fees + the margin. */
  | 'no_edge'
  /** The edge is there, but the sell venue lacks base. */
  | 'no_base'
  /** The edge is there, but the buy venue lacks quote. */
  | 'no_quote'
  /** The size fits but is below a venue's minimum cost or amount. */
  | 'below_min';

/** One direction (buy on `buyExchange`, sell on `sellExchange`) at the trade size. */
export interface ArbDirection {
  /** `${buyExchange}_to_${sellExchange}`. */
  key: string;
  buyExchange: string;
  sellExchange: string;
  /** Base traded (0 when not tradable). */
  qty: number;
  /** VWAP of the asks walked on the buy venue / of the bids on the sell venue for `qty` (0 without). */
  buyAvg: number;
  sellAvg: number;
  /** Base the trade aims at: tradeQuote / the buy venue's mid, floored to both amount steps. */
  desiredQty: number;
  /** At the size the market offers (desiredQty, inventory aside): what the page shows. */
  edgePct: number | null;
  /** takerBuy + takerSell in percent. */
  feesPct: number;
  /** Edge at `qty` in percent (null when not walked). */
  tradeEdgePct: number | null;
  /** qty × (sellAvg − buyAvg) − qty × buyAvg × takerBuy − qty × sellAvg × takerSell (quote, exact). */
  expectedNet: number;
  /** Why it does (ok) or does not trade. */
  reason: ArbDirectionReason;
}

export interface ArbDecision {
  /** Both directions: [buy on exchanges[0] sell on [1], buy on [1] sell on [0]]. */
  directions: [ArbDirection, ArbDirection];
  /** The tradable direction with the larger expected net, else null. */
  best: ArbDirection | null;
}
