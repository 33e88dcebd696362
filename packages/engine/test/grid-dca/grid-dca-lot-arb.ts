import fc from 'fast-check';
import { LOT_ACTIONS, type DcaState, type StrategyEvent } from '../../src/index';

/** A pending-order action on one open lot of the Grid Bot DCA (the property tests' user). */
export interface LotAction {
  kind: 'lot';
  op: 'add' | 'sell' | 'forget' | 'auto';
  /** Which open lot (index modulo the number of lots); without lots an unknown id is sent. */
  pick: number;
  /** Quote for add funds (3 is below the usual minimum of 5 at most prices). */
  amount: number;
  /** For auto-fund. */
  enabled: boolean;
}

export const lotActionArb: fc.Arbitrary<LotAction> = fc.record({
  kind: fc.constant('lot' as const),
  op: fc.oneof(
    { weight: 2, arbitrary: fc.constant('add' as const) },
    { weight: 4, arbitrary: fc.constant('auto' as const) },
    { weight: 1, arbitrary: fc.constant('sell' as const) },
    { weight: 1, arbitrary: fc.constant('forget' as const) },
  ),
  pick: fc.nat({ max: 20 }),
  amount: fc.constantFrom(3, 10, 30, 100),
  enabled: fc.constantFrom(true, true, true, false),
});

/** The action event for `a` on the state as it is now. */
export function lotEvent(state: DcaState, a: LotAction, ts: number): StrategyEvent {
  const lots = state.lots;
  const lotId = lots.length > 0 ? lots[a.pick % lots.length]!.id : 'no-such-lot';
  switch (a.op) {
    case 'add':
      return { type: 'action', name: LOT_ACTIONS.addFunds, params: { lotId, amount: a.amount }, ts };
    case 'sell':
      return { type: 'action', name: LOT_ACTIONS.sell, params: { lotId }, ts };
    case 'forget':
      return { type: 'action', name: LOT_ACTIONS.forget, params: { lotId }, ts };
    case 'auto':
      return { type: 'action', name: LOT_ACTIONS.autoFund, params: { lotId, enabled: a.enabled }, ts };
  }
}
