/**
 * A small venue for the classic DCA / VNC tests: one account (quote + base) and the bot's own orders.
 * Limit buys fill at their own price when the market is at or below it, limit sells when it is at or
 * above; market orders fill at once at the tick price (by base amount). Fees are `feeRate` of the quote
 * value (rounded down to 8 decimals), in quote. Orders needing more than the free funds are rejected
 * with 'insufficient_funds'. Events go through a FIFO queue. Options: `partialFills` fills every third
 * limit order in two halves at two crossings; `delayCancels` applies cancels only at the next tick, after
 * its fills (so an order being cancelled may still fill); `duplicateEvents` delivers order events twice.
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
} from '../src/index';

export interface VenueOptions {
  budget: number;
  baseBudget?: number;
  feeRate: number;
  amountStep: number;
  partialFills?: boolean;
  delayCancels?: boolean;
  duplicateEvents?: boolean;
}

interface Order {
  cmd: PlaceOrderCommand;
  reserved: Dec;
  filled: Dec;
  fee: Dec;
}

const FEE_UNIT = 10n ** 10n;

export class VenueSim<S> {
  quote: Dec;
  base: Dec;
  price = 0;
  ts = 0;
  readonly book = new Map<string, Order>();
  readonly placed = new Map<string, PlaceOrderCommand>();
  readonly commands: StrategyCommand[] = [];
  readonly events: StrategyEvent[] = [];
  readonly pendingCancels: string[] = [];
  private readonly queue: StrategyEvent[] = [];
  private readonly copies = new Set<StrategyEvent>();
  onStep?: (sim: VenueSim<S>, event: StrategyEvent, commands: StrategyCommand[], before: S) => void;

  constructor(
    public state: S,
    readonly step: (s: S, e: StrategyEvent) => StepResult<S>,
    readonly opts: VenueOptions,
  ) {
    this.quote = toDec(opts.budget);
    this.base = toDec(opts.baseBudget ?? 0);
  }

  tick(price: number, ts: number): void {
    this.price = price;
    this.ts = ts;
    this.queue.push({ type: 'tick', price, ts });
    this.drain();
    this.match();
    this.applyPendingCancels();
    this.drain();
  }

  act(event: StrategyEvent): void {
    this.queue.push(event);
    this.drain();
  }

  settle(): void {
    for (let i = 0; i < 10 && this.pendingCancels.length > 0; i++) {
      this.applyPendingCancels();
      this.drain();
    }
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

  private drain(): void {
    let guard = 0;
    while (this.queue.length > 0) {
      if (guard++ > 100_000) throw new Error('event loop does not settle');
      const event = this.queue.shift()!;
      this.events.push(event);
      if (this.opts.duplicateEvents && 'clientOrderId' in event && !this.copies.has(event)) {
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
          if (this.opts.delayCancels) this.pendingCancels.push(c.clientOrderId);
          else this.cancel(c.clientOrderId);
        }
      }
      this.onStep?.(this, event, commands, before);
    }
  }

  private fee(cost: Dec): Dec {
    return (decMul(cost, toDec(this.opts.feeRate)) / FEE_UNIT) * FEE_UNIT;
  }

  private reject(cmd: PlaceOrderCommand): void {
    this.queue.push({
      type: 'order_rejected',
      clientOrderId: cmd.clientOrderId,
      reason: 'insufficient_funds',
      ts: this.ts,
    });
  }

  private place(cmd: PlaceOrderCommand): void {
    if (this.placed.has(cmd.clientOrderId)) throw new Error(`client order id repeated: ${cmd.clientOrderId}`);
    this.placed.set(cmd.clientOrderId, cmd);
    const amount = toDec(cmd.amount ?? 0);
    if (cmd.orderType === 'market') {
      const cost = decMul(amount, toDec(this.price));
      const fee = this.fee(cost);
      if (cmd.side === 'buy') {
        if (this.quote < cost + fee) return this.reject(cmd);
        this.quote -= cost + fee;
        this.base += amount;
      } else {
        if (this.base < amount) return this.reject(cmd);
        this.base -= amount;
        this.quote += cost - fee;
      }
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
      const reserved = cost + this.fee(cost);
      if (this.quote < reserved) return this.reject(cmd);
      this.quote -= reserved;
      this.book.set(cmd.clientOrderId, { cmd, reserved, filled: 0n, fee: 0n });
    } else {
      if (this.base < amount) return this.reject(cmd);
      this.base -= amount;
      this.book.set(cmd.clientOrderId, { cmd, reserved: amount, filled: 0n, fee: 0n });
    }
    this.match();
  }

  private applyPendingCancels(): void {
    for (const id of this.pendingCancels.splice(0)) this.cancel(id);
  }

  private cancel(id: string): void {
    const o = this.book.get(id);
    if (!o) return;
    this.book.delete(id);
    if (o.cmd.side === 'buy') this.quote += o.reserved;
    else this.base += o.reserved;
    const e: StrategyEvent =
      o.filled > 0n
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
      const step = toDec(this.opts.amountStep);
      const halfAmount = (amount / 2n / step) * step;
      const half = Boolean(this.opts.partialFills) && seq % 3 === 0 && o.filled === 0n && halfAmount > 0n;
      const part = half ? halfAmount : amount - o.filled;
      const cost = decMul(part, toDec(p));
      const fee = this.fee(cost);
      if (o.cmd.side === 'buy') {
        const share = half ? (o.reserved * part) / amount : o.reserved;
        o.reserved -= share;
        this.quote += share - cost - fee;
        this.base += part;
      } else {
        o.reserved -= part;
        this.quote += cost - fee;
      }
      o.filled += part;
      o.fee += fee;
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
