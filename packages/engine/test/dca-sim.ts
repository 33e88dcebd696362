/**
 * A tiny exchange simulator for the engine tests: one account (quote + base), one order book of the
 * bot's own orders. Limit buys fill at their own price when the market is at or below it, limit sells at
 * their own price when the market is at or above it, market orders at the tick price; the fee is a rate
 * of the quote value, charged in quote. Orders that need more funds than the account has free are
 * rejected with 'insufficient_funds'. Events are delivered through a FIFO queue, so a cancel can race a
 * fill exactly as with a real venue.
 */
import {
  createDcaBot,
  decMul,
  decToString,
  stepDca,
  toDec,
  type Dec,
  type DcaConfig,
  type DcaState,
  type PlaceOrderCommand,
  type StrategyCommand,
  type StrategyEvent,
} from '../src/index';

export interface SimOptions {
  /** Initial free quote. */
  budget: number;
  feeRate: number;
  /** Deliver the fills a tick causes before the tick itself (true) or after it (false). */
  fillsFirst: boolean;
  /** Split the fills of some limit orders into a partial fill event plus the final fill. */
  partialFills: boolean;
}

export interface SimOrder {
  cmd: PlaceOrderCommand;
  /** Quote reserved for a buy (cost + fee) or base reserved for a sell. */
  reserved: Dec;
}

export interface FeeCharge {
  qty: number;
  price: number;
  fee: number;
}

export class DcaSim {
  state: DcaState;
  quote: Dec;
  base: Dec = 0n;
  price = 0;
  ts = 0;
  readonly book = new Map<string, SimOrder>();
  readonly placedIds: string[] = [];
  readonly commands: StrategyCommand[] = [];
  readonly events: StrategyEvent[] = [];
  readonly fills = new Map<string, FeeCharge>();
  readonly rejections: { cmd: PlaceOrderCommand; reason: string }[] = [];
  private readonly queue: StrategyEvent[] = [];
  /** Called after every step with the new state (for invariants that hold after each event). */
  onStep?: (sim: DcaSim, event: StrategyEvent) => void;

  constructor(
    botId: string,
    config: DcaConfig,
    readonly opts: SimOptions,
  ) {
    this.state = createDcaBot(botId, config);
    this.quote = toDec(opts.budget);
  }

  /** A market tick: the tick and the fills it causes, then everything they trigger. */
  tick(price: number, ts: number): void {
    this.price = price;
    this.ts = ts;
    if (this.opts.fillsFirst) {
      this.matchBook();
      this.queue.push({ type: 'tick', price, ts });
    } else {
      this.queue.push({ type: 'tick', price, ts });
    }
    this.drain();
    if (!this.opts.fillsFirst) {
      this.matchBook();
      this.drain();
    }
  }

  /** A user action. */
  act(event: StrategyEvent): void {
    this.queue.push(event);
    this.drain();
  }

  private drain(): void {
    let guard = 0;
    while (this.queue.length > 0) {
      if (guard++ > 100_000) throw new Error('event loop does not settle');
      const event = this.queue.shift()!;
      this.events.push(event);
      const { state, commands } = stepDca(this.state, event);
      this.state = state;
      this.commands.push(...commands);
      for (const c of commands) this.execute(c);
      this.onStep?.(this, event);
    }
  }

  private execute(c: StrategyCommand): void {
    if (c.type === 'place_order') this.place(c);
    else if (c.type === 'cancel_order') this.cancel(c.clientOrderId);
  }

  private reject(cmd: PlaceOrderCommand, reason: 'insufficient_funds'): void {
    this.rejections.push({ cmd, reason });
    this.queue.push({ type: 'order_rejected', clientOrderId: cmd.clientOrderId, reason, ts: this.ts });
  }

  private fee(cost: Dec): Dec {
    // Fee rounded to 8 decimals, as exchanges report it.
    const raw = decMul(cost, toDec(this.opts.feeRate));
    const unit = 10n ** 10n;
    return (raw / unit) * unit;
  }

  private place(cmd: PlaceOrderCommand): void {
    if (this.placedIds.includes(cmd.clientOrderId))
      throw new Error(`client order id repeated: ${cmd.clientOrderId}`);
    this.placedIds.push(cmd.clientOrderId);
    const amount = toDec(cmd.amount ?? 0);
    if (cmd.orderType === 'market') {
      const cost = decMul(amount, toDec(this.price));
      const fee = this.fee(cost);
      if (cmd.side === 'buy') {
        if (this.quote < cost + fee) return this.reject(cmd, 'insufficient_funds');
        this.quote -= cost + fee;
        this.base += amount;
      } else {
        if (this.base < amount) return this.reject(cmd, 'insufficient_funds');
        this.base -= amount;
        this.quote += cost - fee;
      }
      this.pushFill(cmd, this.price, fee);
      return;
    }
    const price = toDec(cmd.price!);
    if (cmd.side === 'buy') {
      const cost = decMul(amount, price);
      const reserved = cost + this.fee(cost);
      if (this.quote < reserved) return this.reject(cmd, 'insufficient_funds');
      this.quote -= reserved;
      this.book.set(cmd.clientOrderId, { cmd, reserved });
    } else {
      if (this.base < amount) return this.reject(cmd, 'insufficient_funds');
      this.base -= amount;
      this.book.set(cmd.clientOrderId, { cmd, reserved: amount });
    }
    // A limit order placed on the wrong side of the market fills at once at its own price.
    this.matchBook();
  }

  private cancel(id: string): void {
    const o = this.book.get(id);
    if (!o) return; // already filled: its fill event is queued
    this.book.delete(id);
    if (o.cmd.side === 'buy') this.quote += o.reserved;
    else this.base += o.reserved;
    this.queue.push({ type: 'order_cancelled', clientOrderId: id, ts: this.ts });
  }

  private matchBook(): void {
    for (const [id, o] of [...this.book]) {
      const p = o.cmd.price!;
      const crosses = o.cmd.side === 'buy' ? this.price <= p : this.price >= p;
      if (!crosses) continue;
      this.book.delete(id);
      const amount = toDec(o.cmd.amount!);
      const cost = decMul(amount, toDec(p));
      const fee = this.fee(cost);
      if (o.cmd.side === 'buy') {
        this.quote += o.reserved - cost - fee;
        this.base += amount;
      } else {
        this.quote += cost - fee;
      }
      this.pushFill(o.cmd, p, fee);
    }
  }

  private pushFill(cmd: PlaceOrderCommand, price: number, fee: Dec): void {
    const feeN = Number(decToString(fee));
    const amount = cmd.amount!;
    this.fills.set(cmd.clientOrderId, { qty: amount, price, fee: feeN });
    const seq = Number(cmd.clientOrderId.split('-').pop());
    if (this.opts.partialFills && cmd.orderType === 'limit' && seq % 3 === 0) {
      this.queue.push({
        type: 'order_partially_filled',
        clientOrderId: cmd.clientOrderId,
        filled: amount / 2,
        price,
        fee: feeN / 2,
        ts: this.ts,
      });
    }
    this.queue.push({
      type: 'order_filled',
      clientOrderId: cmd.clientOrderId,
      price,
      amount,
      fee: feeN,
      ts: this.ts,
    });
  }

  /** Open buy limit orders on the book. */
  openBuys(): SimOrder[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'buy');
  }

  openSells(): SimOrder[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'sell');
  }
}
