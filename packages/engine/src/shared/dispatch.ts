/**
 * The one switch over incoming events every strategy shares: each kind gives a table of handlers and
 * `dispatchEvent` calls the one for the event, with the fields of an order update unpacked (client order
 * id, cumulative amounts, price, fee; the reason and message of a refusal). The events only some kinds
 * take (liquidation, actions, the Grid Bot DCA's settings) go to `other` when the kind gives no handler
 * for them; every kind says there what such an event does (usually an `invalid_value` log).
 *
 * Tables are built once per kind by `eventHandlers`, which fills every key in one order, so the tables
 * share one shape and the loads in `dispatchEvent` stay monomorphic (it runs on every step of every bot).
 */
import type { ActionEvent, RejectReason, StopMode, StrategyCommand, StrategyEvent } from '../strategy';
import { log } from './logging';

type EventOf<T extends StrategyEvent['type']> = Extract<StrategyEvent, { type: T }>;
export type TickEvent = EventOf<'tick'>;

/** What a kind does with each event; `C` is its step context, `R` what its handlers return. */
export interface EventHandlers<C, R> {
  tick(cx: C, e: TickEvent): R;
  /** `amount`: base filled in all; `price`: the average fill price; `fee`: in quote. */
  filled(cx: C, id: string, amount: number, price: number, fee: number): R;
  /** `filled`, `price`, `fee`: cumulative so far (as `order_partially_filled` says). */
  partial(cx: C, id: string, filled: number, price: number, fee: number): R;
  /** The cumulative fill figures, when the venue gave them with the cancel. */
  cancelled(
    cx: C,
    id: string,
    filled: number | undefined,
    price: number | undefined,
    fee: number | undefined,
  ): R;
  rejected(cx: C, id: string, reason: RejectReason, message: string | undefined): R;
  stop(cx: C, mode: StopMode): R;
  liquidated(cx: C, e: EventOf<'liquidated'>): R;
  action(cx: C, e: ActionEvent): R;
  relocate(cx: C, e: EventOf<'relocate'>): R;
  setSl(cx: C, e: EventOf<'set_sl'>): R;
  setTpPlus(cx: C, e: EventOf<'set_tp_plus'>): R;
  setRa(cx: C, e: EventOf<'set_ra'>): R;
  /** An event the kind gives no handler for. */
  other(cx: C, e: StrategyEvent): R;
}

type Optional = 'liquidated' | 'action' | 'relocate' | 'setSl' | 'setTpPlus' | 'setRa';

/** A kind's full handler table: the optional handlers it does not give are its `other`. */
export function eventHandlers<C, R>(
  h: Omit<EventHandlers<C, R>, Optional> & Partial<Pick<EventHandlers<C, R>, Optional>>,
): EventHandlers<C, R> {
  // One literal, one key order: every kind's table gets the same hidden class.
  return {
    tick: h.tick,
    filled: h.filled,
    partial: h.partial,
    cancelled: h.cancelled,
    rejected: h.rejected,
    stop: h.stop,
    liquidated: h.liquidated ?? h.other,
    action: h.action ?? h.other,
    relocate: h.relocate ?? h.other,
    setSl: h.setSl ?? h.other,
    setTpPlus: h.setTpPlus ?? h.other,
    setRa: h.setRa ?? h.other,
    other: h.other,
  };
}

/** Calls the kind's handler for `e` and returns what it returned. */
export function dispatchEvent<C, R>(cx: C, e: StrategyEvent, h: EventHandlers<C, R>): R {
  switch (e.type) {
    case 'tick':
      return h.tick(cx, e);
    case 'order_filled':
      return h.filled(cx, e.clientOrderId, e.amount, e.price, e.fee);
    case 'order_partially_filled':
      return h.partial(cx, e.clientOrderId, e.filled, e.price, e.fee);
    case 'order_cancelled':
      return h.cancelled(cx, e.clientOrderId, e.filled, e.price, e.fee);
    case 'order_rejected':
      return h.rejected(cx, e.clientOrderId, e.reason, e.message);
    case 'stop':
      return h.stop(cx, e.mode);
    case 'liquidated':
      return h.liquidated(cx, e);
    case 'action':
      return h.action(cx, e);
    case 'relocate':
      return h.relocate(cx, e);
    case 'set_sl':
      return h.setSl(cx, e);
    case 'set_tp_plus':
      return h.setTpPlus(cx, e);
    case 'set_ra':
      return h.setRa(cx, e);
  }
}

/** `other` of the kinds that refuse what they do not take: `invalid_value` with the event's type. */
export function refuseEvent(cx: { cmds: StrategyCommand[] }, e: StrategyEvent): void {
  log(cx, 'warn', 'invalid_value', { field: e.type });
}
