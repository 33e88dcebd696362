/**
 * A small venue for the classic DCA / VNC tests (the shared account and book of venue-core.ts). Options:
 * `partialFills` fills every third limit order in two halves at two crossings; `delayCancels` applies
 * cancels only at the next tick, after its fills (so an order being cancelled may still fill);
 * `duplicateEvents` delivers every order event twice. A cancelled order reports what filled of it.
 */
import type { Dec, PlaceOrderCommand, StepResult, StrategyEvent } from '../../src/index';
import { VenueCore } from '../shared/venue-core';

export { num } from '../shared/venue-core';

export interface VenueOptions {
  budget: number;
  baseBudget?: number;
  feeRate: number;
  amountStep: number;
  partialFills?: boolean;
  delayCancels?: boolean;
  duplicateEvents?: boolean;
}

export class VenueSim<S> extends VenueCore<S> {
  constructor(
    state: S,
    step: (s: S, e: StrategyEvent) => StepResult<S>,
    readonly opts: VenueOptions,
  ) {
    super(state, step, {
      ...opts,
      redeliver: opts.duplicateEvents ? () => true : undefined,
      reportCancelledFill: true,
    });
  }

  /** Base on the account, free plus reserved in sells. */
  baseTotal(): Dec {
    let b = this.base;
    for (const o of this.book.values()) if (o.cmd.side === 'sell') b += o.reserved;
    return b;
  }

  sells(): PlaceOrderCommand[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'sell').map((o) => o.cmd);
  }
}
