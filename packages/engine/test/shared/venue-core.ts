/**
 * The account and order book both test venues (dca-sim.ts for the Grid Bot DCA, classic-sim.ts for the
 * classic DCA and its VNC) are built on: one account (quote + base), the bot's own orders, a FIFO queue
 * of events (so a cancel can race a fill as with a real venue). Limit buys fill at their own price when
 * the market is at or below it, limit sells at their own price when it is at or above; market orders
 * fill at once at the tick price (by base amount). The fee is `feeRate` of the quote value, rounded down
 * to 8 decimals, charged in quote. Orders needing more than the free funds are rejected with
 * 'insufficient_funds'. The two venues differ only through the options and the protected hooks.
 */
import {
  decMul,
  decToString,
  toDec,
  type Dec,
  type PlaceOrderCommand,
  type StepResult,
  type StrategyCommand,
  type StrategyEvent,
} from '../../src/index';

export interface BookOrder {
  cmd: PlaceOrderCommand;
  /** Quote still reserved for a buy (cost + fee of the unfilled part) or base still reserved for a sell. */
  reserved: Dec;
  filled: Dec;
  fee: Dec;
}

export interface CoreOptions {
  budget: number;
  baseBudget?: number;
  feeRate: number;
  /** Amount step of the market (partial fills are rounded down to it). */
  amountStep: number;
  /** Deliver the fills a tick causes before the tick itself (true) or after it (false, the default). */
  fillsFirst?: boolean;
  /** Fill every third limit order (by client id) in two halves at two crossings. */
  partialFills?: boolean;
  /** Apply cancels at the next tick (after its fills) instead of at once. */
  delayCancels?: boolean;
  /** Which order events are delivered twice (as a runner may after a restart); none when absent. */
  redeliver?: (event: StrategyEvent & { clientOrderId: string }) => boolean;
  /** An order cancelled after a partial fill reports its fill in order_cancelled. */
  reportCancelledFill?: boolean;
  /**
   * Derivatives semantics (one-way position, 1x collateral): a sell needs no base (it opens or grows a
   * short: `base` goes negative) but reserves its cost + fee of quote as collateral like a buy; its fill
   * credits the proceeds less the fee. Buys are as on spot. A reduceOnly order that would grow the
   * position (or flip it) is rejected; reduceOnly orders need no margin (reserve nothing, and the quote
   * may go below zero). Off: spot (a sell needs the base).
   */
  derivatives?: boolean;
}

const FEE_UNIT = 10n ** 10n; // fees rounded down to 8 decimals (18 − 10)

export class VenueCore<S> {
  quote: Dec;
  base: Dec;
  price = 0;
  ts = 0;
  readonly book = new Map<string, BookOrder>();
  readonly placed = new Map<string, PlaceOrderCommand>();
  readonly commands: StrategyCommand[] = [];
  readonly events: StrategyEvent[] = [];
  readonly pendingCancels: string[] = [];
  private readonly queue: StrategyEvent[] = [];
  private readonly copies = new Set<StrategyEvent>();
  /** Called after every step (for invariants that hold after each event). */
  onStep?: (sim: this, event: StrategyEvent, commands: StrategyCommand[], before: S) => void;

  constructor(
    public state: S,
    readonly step: (s: S, e: StrategyEvent) => StepResult<S>,
    private readonly core: CoreOptions,
  ) {
    this.quote = toDec(core.budget);
    this.base = toDec(core.baseBudget ?? 0);
  }

  /** A market tick: the tick and the fills it causes, then everything they trigger. */
  tick(price: number, ts: number): void {
    this.price = price;
    this.ts = ts;
    if (this.core.fillsFirst) {
      this.match();
      this.applyPendingCancels();
      this.queue.push({ type: 'tick', price, ts });
      this.drain();
    } else {
      this.queue.push({ type: 'tick', price, ts });
      this.drain();
      this.match();
      this.applyPendingCancels();
      this.drain();
    }
  }

  /** A user action. */
  act(event: StrategyEvent): void {
    this.queue.push(event);
    this.drain();
  }

  /** Applies delayed cancels until nothing is pending (end of a scenario). */
  settle(): void {
    for (let i = 0; i < 10 && this.pendingCancels.length > 0; i++) {
      this.applyPendingCancels();
      this.drain();
    }
  }

  /** A place was refused for funds (after the event is queued). */
  protected onRejected(_cmd: PlaceOrderCommand): void {}

  /** `fee` (quote) was charged for a fill of order `id`. */
  protected onCharge(_id: string, _fee: Dec): void {}

  /** Order `id` filled completely: `qty` base at `price`, `fee` in all. */
  protected onFilledAll(_id: string, _qty: number, _price: number, _fee: number): void {}

  private drain(): void {
    let guard = 0;
    while (this.queue.length > 0) {
      if (guard++ > 100_000) throw new Error('event loop does not settle');
      const event = this.queue.shift()!;
      this.events.push(event);
      if ('clientOrderId' in event && !this.copies.has(event) && this.core.redeliver?.(event)) {
        const copy = { ...event };
        this.copies.add(copy);
        this.queue.push(copy);
      }
      const before = this.state;
      const { state, commands } = this.step(this.state, event);
      this.state = state;
      this.commands.push(...commands);
      for (const c of commands) {
        if (c.type === 'place_order') this.place(c);
        else if (c.type === 'cancel_order') {
          if (this.core.delayCancels) this.pendingCancels.push(c.clientOrderId);
          else this.cancel(c.clientOrderId);
        }
      }
      this.onStep?.(this, event, commands, before);
    }
  }

  private fee(cost: Dec): Dec {
    return (decMul(cost, toDec(this.core.feeRate)) / FEE_UNIT) * FEE_UNIT;
  }

  private reject(cmd: PlaceOrderCommand): void {
    this.queue.push({
      type: 'order_rejected',
      clientOrderId: cmd.clientOrderId,
      reason: 'insufficient_funds',
      ts: this.ts,
    });
    this.onRejected(cmd);
  }

  /** Whether a reduceOnly order of `side` for `amount` would grow or flip the position (derivatives). */
  private growsPosition(cmd: PlaceOrderCommand, amount: Dec): boolean {
    if (!cmd.reduceOnly) return false;
    const pos = this.base;
    return cmd.side === 'buy' ? pos >= 0n || amount > -pos : pos <= 0n || amount > pos;
  }

  private place(cmd: PlaceOrderCommand): void {
    if (this.placed.has(cmd.clientOrderId)) throw new Error(`client order id repeated: ${cmd.clientOrderId}`);
    this.placed.set(cmd.clientOrderId, cmd);
    const amount = toDec(cmd.amount ?? 0);
    if (cmd.reduceOnly && !this.core.derivatives) throw new Error(`reduceOnly on spot: ${cmd.clientOrderId}`);
    if (this.core.derivatives && this.growsPosition(cmd, amount)) return this.reject(cmd);
    if (this.core.derivatives && cmd.side === 'sell') {
      if (cmd.orderType === 'market') {
        const cost = decMul(amount, toDec(this.price));
        const fee = this.fee(cost);
        if (!cmd.reduceOnly && this.quote < cost + fee) return this.reject(cmd);
        this.base -= amount;
        this.quote += cost - fee;
        this.onFilledAll(cmd.clientOrderId, cmd.amount!, this.price, num(fee));
        this.onCharge(cmd.clientOrderId, fee);
        this.queue.push({
          type: 'order_filled',
          clientOrderId: cmd.clientOrderId,
          price: this.price,
          amount: cmd.amount!,
          fee: num(fee),
          ts: this.ts,
        });
        return;
      }
      // A reduceOnly sell closes a long: it needs no collateral.
      const cost = decMul(amount, toDec(cmd.price!));
      const reserved = cmd.reduceOnly ? 0n : cost + this.fee(cost);
      // reduceOnly reserves nothing: the cash leg may be negative (a short's buy-back was paid from it).
      if (!cmd.reduceOnly && this.quote < reserved) return this.reject(cmd);
      this.quote -= reserved;
      this.book.set(cmd.clientOrderId, { cmd, reserved, filled: 0n, fee: 0n });
      this.match();
      return;
    }
    if (cmd.orderType === 'market') {
      const cost = decMul(amount, toDec(this.price));
      const fee = this.fee(cost);
      if (cmd.side === 'buy') {
        // A reduceOnly buy closes a short: no margin needed (the quote may dip below zero).
        if (!cmd.reduceOnly && this.quote < cost + fee) return this.reject(cmd);
        this.quote -= cost + fee;
        this.base += amount;
      } else {
        if (this.base < amount) return this.reject(cmd);
        this.base -= amount;
        this.quote += cost - fee;
      }
      this.onFilledAll(cmd.clientOrderId, cmd.amount!, this.price, num(fee));
      this.onCharge(cmd.clientOrderId, fee);
      this.queue.push({
        type: 'order_filled',
        clientOrderId: cmd.clientOrderId,
        price: this.price,
        amount: cmd.amount!,
        fee: num(fee),
        ts: this.ts,
      });
      return;
    }
    const price = toDec(cmd.price!);
    if (cmd.side === 'buy') {
      const cost = decMul(amount, price);
      const reserved = cmd.reduceOnly ? 0n : cost + this.fee(cost);
      // A reduceOnly buy closes a short: no margin, even when the cash leg is below zero.
      if (!cmd.reduceOnly && this.quote < reserved) return this.reject(cmd);
      this.quote -= reserved;
      this.book.set(cmd.clientOrderId, { cmd, reserved, filled: 0n, fee: 0n });
    } else {
      if (this.base < amount) return this.reject(cmd);
      this.base -= amount;
      this.book.set(cmd.clientOrderId, { cmd, reserved: amount, filled: 0n, fee: 0n });
    }
    // A limit order placed on the wrong side of the market fills at once at its own price.
    this.match();
  }

  private applyPendingCancels(): void {
    for (const id of this.pendingCancels.splice(0)) this.cancel(id);
  }

  private cancel(id: string): void {
    const o = this.book.get(id);
    if (!o) return; // already filled: its fill event is queued or delivered
    this.book.delete(id);
    if (o.cmd.side === 'buy' || this.core.derivatives) this.quote += o.reserved;
    else this.base += o.reserved;
    const e: StrategyEvent =
      this.core.reportCancelledFill && o.filled > 0n
        ? {
            type: 'order_cancelled',
            clientOrderId: id,
            ts: this.ts,
            filled: num(o.filled),
            price: o.cmd.price!,
            fee: num(o.fee),
          }
        : { type: 'order_cancelled', clientOrderId: id, ts: this.ts };
    this.queue.push(e);
  }

  private match(): void {
    for (const [id, o] of [...this.book]) {
      const p = o.cmd.price!;
      const crosses = o.cmd.side === 'buy' ? this.price <= p : this.price >= p;
      if (!crosses) continue;
      const amount = toDec(o.cmd.amount!);
      const seq = Number(id.split('-').pop());
      const step = toDec(this.core.amountStep);
      const halfAmount = (amount / 2n / step) * step;
      const half = Boolean(this.core.partialFills) && seq % 3 === 0 && o.filled === 0n && halfAmount > 0n;
      const part = half ? halfAmount : amount - o.filled;
      const cost = decMul(part, toDec(p));
      const fee = this.fee(cost);
      if (o.cmd.side === 'buy') {
        // The reservation of this part: its share of cost + fee of the whole order.
        const share = half ? (o.reserved * part) / amount : o.reserved;
        o.reserved -= share;
        this.quote += share - cost - fee;
        this.base += part;
      } else if (this.core.derivatives) {
        // A short sale: the collateral of this part comes back with the proceeds less the fee.
        const share = half ? (o.reserved * part) / amount : o.reserved;
        o.reserved -= share;
        this.quote += share + cost - fee;
        this.base -= part;
      } else {
        o.reserved -= part;
        this.quote += cost - fee;
      }
      o.filled += part;
      o.fee += fee;
      this.onCharge(id, fee);
      if (half) {
        this.queue.push({
          type: 'order_partially_filled',
          clientOrderId: id,
          filled: num(o.filled),
          price: p,
          fee: num(o.fee),
          ts: this.ts,
        });
        continue;
      }
      this.book.delete(id);
      this.onFilledAll(id, o.cmd.amount!, p, num(o.fee));
      this.queue.push({
        type: 'order_filled',
        clientOrderId: id,
        price: p,
        amount: o.cmd.amount!,
        fee: num(o.fee),
        ts: this.ts,
      });
    }
  }
}

export function num(d: Dec): number {
  return Number(decToString(d));
}
