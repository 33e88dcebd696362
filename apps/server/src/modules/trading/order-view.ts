import type { SpotFill, SpotOrderView } from '@bytx/contract';
import { manualSummary, type ManualState, type ManualSummary } from '@bytx/engine';
import { money } from '@bytx/venues';
import type { BotRow } from '../bots/bots.repository';
import { venueSymbol } from '../bots/derivatives';
import type { ManualFillRow } from './orders.repository';

/** What a manual order's `bots.config` keeps: the order as the user placed it, after rounding. */
export interface ManualOrderJson {
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: number | null;
  quantity: number;
  tp: number | null;
  sl: number | null;
  reduce_only: boolean;
  /** POST /api/futures/close: the reduce-only market order closing a whole position. */
  close?: boolean;
}

/** What the engine makes of the order's state; a state it cannot read shows the order as the row has it. */
export function orderSummary(row: BotRow, state: ManualState): ManualSummary {
  let s: ManualSummary | null = null;
  try {
    s = manualSummary(state);
  } catch {
    // A state that cannot be read shows the order as the row has it.
  }
  const fallback: ManualSummary = {
    entryStatus: row.status === 'active' ? 'pending' : 'rejected',
    exitState: 'none',
    filled: 0,
    average: null,
    fee: 0,
    cost: 0,
    held: 0,
    pnl: null,
    error: row.stopReason,
    open: row.status === 'active',
  };
  const out = s ?? fallback;
  // An order that ended before its entry was answered (its start failed) was never placed.
  if (row.status !== 'active' && out.entryStatus === 'pending') return { ...out, entryStatus: 'rejected' };
  return out;
}

/** A manual order as the screens' order lists show it. */
export function orderView(row: BotRow, state: ManualState): SpotOrderView {
  const c = row.config as ManualOrderJson;
  const s = orderSummary(row, state);
  const swap = row.marketType === 'Perpetual';
  const [, quote = ''] = row.symbol.split('/');
  return {
    id: row.id,
    exchange: row.exchange,
    symbol: swap ? venueSymbol(row.symbol, 'Perpetual') : row.symbol,
    market: swap ? 'swap' : 'spot',
    side: c.side,
    type: c.type,
    price: c.price,
    quantity: c.quantity,
    filled: s.filled,
    average: s.average,
    cost: s.cost,
    fee: s.fee,
    fee_currency: quote || null,
    status: s.entryStatus,
    reduce_only: c.reduce_only,
    tp: c.tp,
    sl: c.sl,
    exit_state: s.exitState,
    pnl: s.pnl,
    error: s.error,
    created_at: row.startedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A filled (or partly filled) exchange order of a manual order, as the fills panel shows it. */
export function fillView(x: ManualFillRow): SpotFill {
  const o = x.order;
  const close = (x.config as ManualOrderJson | null)?.close === true;
  const role =
    o.role === 'manual_entry'
      ? close
        ? 'close'
        : 'entry'
      : o.role === 'manual_tp'
        ? 'take_profit'
        : o.role === 'manual_sl'
          ? 'stop_loss'
          : 'close';
  const quantity = Number(o.filled);
  const price = Number(o.avgPrice ?? o.price ?? 0);
  const [, quote = ''] = x.botSymbol.split('/');
  return {
    id: o.clientOrderId,
    order_id: x.botId,
    symbol: x.marketType === 'Perpetual' ? venueSymbol(x.botSymbol, 'Perpetual') : x.botSymbol,
    side: o.side,
    role,
    price,
    quantity,
    value: money(quantity * price),
    fee: Number(o.fee),
    fee_currency: quote || null,
    time: o.updatedAt.toISOString(),
  };
}
