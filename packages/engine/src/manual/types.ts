import type { MarketRules, RejectReason, StopMode, StopReason } from '../strategy';

/**
 * A manual order of the spot or futures screen (kind 'manual', issue 16): one entry order (limit or
 * market) and, once it fills, its take profit and stop loss as one-cancels-the-other — the take profit
 * rests on the exchange as a limit order, the stop loss is watched on ticks; reaching it cancels the
 * take profit and closes what is held at market. Runs in the generic runner like every bot, so the
 * entry and the exits are journalled before they are sent and reconciled after a crash.
 */
export const MANUAL_KIND = 'manual';

/** Kind-specific actions (`{type: 'action', name, params, ts}`). */
export const MANUAL_ACTIONS = {
  /** Sends the entry (params {} or {price}: the market price the server read, noted as the last
   *  price); a repeat is ignored. */
  place: 'manual_place',
} as const;

export interface ManualConfig {
  /** The user's pair, for the log only (the runner maps it to the venue symbol). */
  symbol: string;
  side: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  /** Limit price, already rounded to the price step (absent for market orders). */
  price?: number;
  /** Base amount (contracts on swaps), already rounded down to the amount step. */
  amount: number;
  /** Take profit and stop loss prices, already rounded to the price step; null = none. */
  tp: number | null;
  sl: number | null;
  rules: MarketRules;
  /** Futures: the exits (take profit, stop-loss close) carry reduceOnly. */
  derivatives?: boolean;
  /** The entry itself only reduces the position (futures). */
  reduceOnly?: boolean;
}

/** The order panel's view of the entry (contract SPOT_ORDER_STATUSES). */
export type ManualEntryStatus = 'pending' | 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'rejected';

/** The one-cancels-the-other exits (contract SPOT_EXIT_STATES). */
export type ManualExitState =
  'none' | 'waiting_entry' | 'active' | 'tp_filled' | 'sl_triggered' | 'sl_filled' | 'cancelled' | 'failed';

export type ManualRole = 'manual_entry' | 'manual_tp' | 'manual_sl';

/** An order of the manual order: exact cumulative figures as the venue reported them. */
export interface ManualOrderRef {
  clientOrderId: string;
  /** The market close of a user's close_market stop has the common role 'close' (not a stop loss). */
  role: ManualRole | 'close';
  side: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  price: number | null;
  amount: number;
  /** Cumulative base filled, average price and fee (quote). */
  filled: number;
  avgPrice: number | null;
  fee: number;
  status: 'open' | 'cancelling' | 'filled' | 'cancelled' | 'rejected';
  placedAt: number;
  doneAt: number | null;
  rejectReason?: RejectReason;
  rejectMessage?: string;
}

export interface ManualState {
  version: 1;
  botId: string;
  config: ManualConfig;
  /** Client order ids are `${botId}-${seq}`. */
  seq: number;
  lastPrice: number | null;
  lastTs: number | null;
  /** The entry, null until `manual_place`. */
  entry: ManualOrderRef | null;
  /** The take profit on the exchange (null before it is placed or without tp). */
  tp: ManualOrderRef | null;
  /** The market close sent when the stop loss was reached (or at a close_market stop). */
  close: ManualOrderRef | null;
  exitState: ManualExitState;
  /** Base the settled exits sold (buy entry) or bought back (sell entry): exact decimal string. A TP
   *  or close still open counts through its own `filled` until it ends. */
  exited: string;
  /** Close attempts (an exchange error is tried again, at most 3 times). */
  closeAttempts: number;
  /** Realized PnL in quote (exact decimal string; the sum of the recorded trades). */
  realizedPnl: string;
  /** Trades recorded (a TP filled in part before the SL gives two). */
  trades: number;
  /** Why the entry or an exit failed (EN text for the user), null otherwise. */
  error: string | null;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
  status: 'running' | 'stopping' | 'stopped';
}

export interface ManualSummary {
  entryStatus: ManualEntryStatus;
  exitState: ManualExitState;
  /** Base filled by the entry, its average price (null before a fill), fee (quote) and cost (quote). */
  filled: number;
  average: number | null;
  fee: number;
  cost: number;
  /** Base still held from this order (entry filled minus what the exits sold/bought back). */
  held: number;
  /** Realized PnL of the exits (quote, after both fees), null before an exit filled. */
  pnl: number | null;
  error: string | null;
  /** True while anything of it is open: the entry, the TP, the SL watch or a close in flight. */
  open: boolean;
}
