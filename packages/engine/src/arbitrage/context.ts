/**
 * Arbitrage bot: what one step works on (Cx) and its copy-on-write, an order event's outcome, order refs
 * and a venue's part of the state.
 */
import type { RejectReason } from '../strategy';
import type { StepContext } from '../shared/context';
import { newOrderRef } from '../shared/orders';
import type { ArbitrageState, ArbOrderRef, ArbVenueState } from './types';

export type Cx = StepContext<ArbitrageState>;

/** Copy-on-write of the venues and the trip (and the orders in them) before the first change. */
export function own(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  const s = cx.s;
  const copy = (v: ArbVenueState): ArbVenueState => ({
    ...v,
    inventory: { ...v.inventory },
    prepare: v.prepare ? { ...v.prepare } : null,
    close: v.close ? { ...v.close } : null,
  });
  s.venues = [copy(s.venues[0]), copy(s.venues[1])];
  if (s.trip)
    s.trip = {
      ...s.trip,
      buy: { ...s.trip.buy },
      sell: { ...s.trip.sell },
      unwind: s.trip.unwind ? { ...s.trip.unwind } : null,
    };
}

/** What an order event said: why the order failed (null: it did not), and the venue's message. */
export interface Outcome {
  why: RejectReason | 'cancelled' | null;
  message?: string;
}
export const OK: Outcome = { why: null };

export function newRef(
  id: string,
  exchange: string,
  side: 'buy' | 'sell',
  price: number,
  amount: number,
): ArbOrderRef {
  return { ...newOrderRef(id, { exchange, side }, price, amount), done: false };
}

export function venueOf(s: ArbitrageState, exchange: string): ArbVenueState {
  return s.venues[0].exchange === exchange ? s.venues[0] : s.venues[1];
}
