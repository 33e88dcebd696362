/**
 * The Grid bot on the shared test venue (venue-core.ts): spot (a sell needs the base) or derivatives
 * (`derivatives`: a sell opens a short, reduceOnly is enforced). Keeps every rejection for the checks.
 */
import {
  createGridBot,
  stepGrid,
  type GridConfig,
  type GridState,
  type PlaceOrderCommand,
} from '../../src/index';
import { VenueCore } from '../shared/venue-core';

export interface GridSimOptions {
  budget: number;
  baseBudget?: number;
  feeRate: number;
  fillsFirst?: boolean;
  partialFills?: boolean;
  delayCancels?: boolean;
  duplicateEvents?: boolean;
}

export class GridSim extends VenueCore<GridState> {
  readonly rejections: PlaceOrderCommand[] = [];
  readonly initialConfig: GridConfig;

  constructor(
    botId: string,
    config: GridConfig,
    readonly opts: GridSimOptions,
  ) {
    const initialConfig = JSON.parse(JSON.stringify(config)) as GridConfig;
    super(createGridBot(botId, config), stepGrid, {
      ...opts,
      amountStep: config.market.amountStep,
      derivatives: config.derivatives,
      reportCancelledFill: true,
      redeliver: opts.duplicateEvents ? (e) => Number(e.clientOrderId.split('-').pop()) % 2 === 0 : undefined,
    });
    this.initialConfig = initialConfig;
  }

  protected override onRejected(cmd: PlaceOrderCommand): void {
    this.rejections.push(cmd);
  }

  openOrders(side: 'buy' | 'sell'): PlaceOrderCommand[] {
    return [...this.book.values()].filter((o) => o.cmd.side === side).map((o) => o.cmd);
  }
}
