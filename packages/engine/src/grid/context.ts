/**
 * Grid bot: what one step works on (Cx) and its copy-on-write of the slots and orders.
 */
import type { StepContext } from '../shared/context';
import type { GridState } from './types';

export type Cx = StepContext<GridState>;

/** Copy-on-write of the slots (and the orders in them) before the first change. */
export function own(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  const s = cx.s;
  s.slots = s.slots.map((sl) => ({
    ...sl,
    open: sl.open ? { ...sl.open } : null,
    order: sl.order ? { ...sl.order } : null,
  }));
  if (s.init) s.init = { ...s.init };
  if (s.close) s.close = { ...s.close };
  if (s.profitBuy) s.profitBuy = { ...s.profitBuy };
}
