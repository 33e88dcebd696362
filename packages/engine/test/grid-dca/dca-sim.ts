/**
 * A tiny exchange simulator for the Grid Bot DCA tests, on the shared account and book of venue-core.ts
 * (fill, fee and rejection rules are described there). It also keeps what the property tests check
 * against: every rejection, the total fill of each filled order and the fees charged per order.
 *
 * Options make it harsher: `partialFills` fills some limit orders half at one crossing and the rest at
 * the next; `delayCancels` applies cancels only at the next tick, after that tick's fills (so an order
 * being cancelled may still fill).
 */
import {
  createDcaBot,
  stepDca,
  type Dec,
  type DcaConfig,
  type DcaState,
  type PlaceOrderCommand,
} from '../../src/index';
import { VenueCore, type BookOrder } from '../shared/venue-core';

export interface SimOptions {
  /** Initial free quote. */
  budget: number;
  feeRate: number;
  /** Deliver the fills a tick causes before the tick itself (true) or after it (false). */
  fillsFirst: boolean;
  /** Fill some limit orders (every third client id) in two halves at two crossings. */
  partialFills: boolean;
  /** Apply cancels at the next tick (after its fills) instead of at once. */
  delayCancels?: boolean;
  /** Deliver every order event of even client ids twice (as a runner may after a restart). */
  duplicateEvents?: boolean;
  /** Derivatives semantics (venue-core.ts): a sell opens a short, reduceOnly is enforced. */
  derivatives?: boolean;
}

export type SimOrder = BookOrder;

export interface FeeCharge {
  qty: number;
  price: number;
  fee: number;
}

export class DcaSim extends VenueCore<DcaState> {
  /** Total fill of every completely filled order, by client id. */
  readonly fills = new Map<string, FeeCharge>();
  readonly rejections: { cmd: PlaceOrderCommand; reason: string }[] = [];
  /** Fees charged so far per client id (partial fills included). */
  readonly charged = new Map<string, Dec>();
  readonly initialConfig: DcaConfig;

  constructor(
    botId: string,
    config: DcaConfig,
    readonly opts: SimOptions,
  ) {
    const initialConfig = JSON.parse(JSON.stringify(config)) as DcaConfig;
    super(createDcaBot(botId, config), stepDca, {
      ...opts,
      amountStep: initialConfig.market.amountStep,
      redeliver: opts.duplicateEvents ? (e) => Number(e.clientOrderId.split('-').pop()) % 2 === 0 : undefined,
    });
    this.initialConfig = initialConfig;
  }

  /** Client ids of every order placed, in order. */
  get placedIds(): string[] {
    return [...this.placed.keys()];
  }

  /** Open buy limit orders on the book. */
  openBuys(): SimOrder[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'buy');
  }

  openSells(): SimOrder[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'sell');
  }

  protected override onRejected(cmd: PlaceOrderCommand): void {
    this.rejections.push({ cmd, reason: 'insufficient_funds' });
  }

  protected override onCharge(id: string, fee: Dec): void {
    this.charged.set(id, (this.charged.get(id) ?? 0n) + fee);
  }

  protected override onFilledAll(id: string, qty: number, price: number, fee: number): void {
    this.fills.set(id, { qty, price, fee });
  }
}
