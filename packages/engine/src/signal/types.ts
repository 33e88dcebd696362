import type { MarketRules, StopMode, StopReason } from '../strategy';
import type { OrderRef } from '../shared/orders';

export interface SignalConfig {
  /** Quote spent (buy) or sold (sell) per signal when the signal gives no amount. */
  amountQuote: number;
  /** Largest position in quote (cost, fees excluded, orders in flight included). */
  maxPositionQuote: number;
  rules: MarketRules;
  /** The bot's market, for the log only (the runner maps it to the venue symbol). */
  symbol?: string;
}

export type SignalStatus = 'running' | 'stopping' | 'stopped';

export type SignalAction = 'buy' | 'sell' | 'close';

/** A market order a signal (or the stop) produced. */
export interface SignalOrderRef extends OrderRef {
  side: 'buy' | 'sell';
  /** The signal's seq; 0 for the stop's close. */
  signalSeq: number;
  /** For buys: the quote the signal asked for (counts against maxPositionQuote while in flight). */
  quote: number;
}

/** Why a signal traded nothing. */
export type SignalSkipReason =
  'max_position' | 'below_min_cost' | 'no_position' | 'no_price' | 'not_running' | 'invalid';

/** What a signal did (state.recent): the server fills a signal's orders from it after a crash. */
export interface SignalOutcome {
  seq: number;
  action: SignalAction | null;
  clientOrderIds: string[];
  outcome: 'executed' | 'skipped';
  reason?: SignalSkipReason;
}

/** The long position: exact decimal strings. */
export interface SignalPosition {
  /** Base held. */
  qty: string;
  /** Quote paid for `qty`, fees excluded. */
  cost: string;
  /** Buy fees (quote) paid for `qty`. */
  fees: string;
  /** ts of the first buy of the position (null when flat). */
  openedAt: number | null;
}

export interface SignalState {
  version: 1;
  botId: string;
  config: SignalConfig;
  status: SignalStatus;
  seq: number;
  lastTs: number | null;
  lastPrice: number | null;
  /** The highest signal seq handled; a seq ≤ it is a replay and does nothing. */
  lastSeq: number;
  position: SignalPosition;
  /** Market orders in flight. */
  orders: SignalOrderRef[];
  /** The last SIGNAL_RECENT_MAX signals handled, oldest first. */
  recent: SignalOutcome[];
  /** Realized PnL in quote (exact decimal string, sum of the recorded pnlNet). */
  realizedPnl: string;
  /** Sells that closed a part of the position (each one a trade). */
  sells: number;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
  closeAttempts: number;
}

export interface SignalSummary {
  /** Base held. */
  qty: number;
  /** Break-even entry: (cost + buy fees) / qty, quote per base; 0 when flat. */
  avgEntry: number;
  /** Quote paid for the position, fees excluded. */
  cost: number;
  /** Realized PnL in quote, exact decimal string. */
  pnlQuote: string;
  lastSeq: number;
  status: SignalStatus;
  /** Orders in flight. */
  pending: number;
}
