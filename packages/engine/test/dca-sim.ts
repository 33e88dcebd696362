/**
 * A tiny exchange simulator for the engine tests: one account (quote + base), one order book of the
 * bot's own orders. Limit buys fill at their own price when the market is at or below it, limit sells at
 * their own price when the market is at or above it, market orders at the tick price; the fee is a rate
 * of the quote value (rounded down to 8 decimals), charged in quote. Orders that need more funds than the
 * account has free are rejected with 'insufficient_funds'. Events go through a FIFO queue, so a cancel
 * can race a fill as with a real venue.
 *
 * Options make it harsher: `partialFills` fills some limit orders half at one crossing and the rest at
 * the next; `delayCancels` applies cancels only at the next tick, after that tick's fills (so an order
 * being cancelled may still fill).
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
  /** Fill some limit orders (every third client id) in two halves at two crossings. */
  partialFills: boolean;
  /** Apply cancels at the next tick (after its fills) instead of at once. */
  delayCancels?: boolean;
  /** Deliver every order event of even client ids twice (as a runner may after a restart). */
  duplicateEvents?: boolean;
}

export interface SimOrder {
  cmd: PlaceOrderCommand;
  /** Quote still reserved for a buy (cost + fee of the unfilled part) or base still reserved for a sell. */
  reserved: Dec;
  filled: Dec;
  fee: Dec;
}

export interface FeeCharge {
  qty: number;
  price: number;
  fee: number;
}

const FEE_UNIT = 10n ** 10n; // fees rounded down to 8 decimals (18 − 10)

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
  /** Total fill of every completely filled order, by client id. */
  readonly fills = new Map<string, FeeCharge>();
  readonly rejections: { cmd: PlaceOrderCommand; reason: string }[] = [];
  readonly pendingCancels: string[] = [];
  /** Fees charged so far per client id (partial fills included). */
  readonly charged = new Map<string, Dec>();
  readonly initialConfig: DcaConfig;
  private readonly queue: StrategyEvent[] = [];
  private readonly redelivered = new Set<StrategyEvent>();
  /** Called after every step (for invariants that hold after each event). */
  onStep?: (sim: DcaSim, event: StrategyEvent) => void;

  constructor(
    botId: string,
    config: DcaConfig,
    readonly opts: SimOptions,
  ) {
    this.initialConfig = JSON.parse(JSON.stringify(config)) as DcaConfig;
    this.state = createDcaBot(botId, config);
    this.quote = toDec(opts.budget);
  }

  /** A market tick: the tick and the fills it causes, then everything they trigger. */
  tick(price: number, ts: number): void {
    this.price = price;
    this.ts = ts;
    if (this.opts.fillsFirst) {
      this.matchBook();
      this.applyPendingCancels();
      this.queue.push({ type: 'tick', price, ts });
      this.drain();
    } else {
      this.queue.push({ type: 'tick', price, ts });
      this.drain();
      this.matchBook();
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

  private drain(): void {
    let guard = 0;
    while (this.queue.length > 0) {
      if (guard++ > 100_000) throw new Error('event loop does not settle');
      const event = this.queue.shift()!;
      this.events.push(event);
      if (this.opts.duplicateEvents && 'clientOrderId' in event && !this.redelivered.has(event)) {
        const seq = Number(event.clientOrderId.split('-').pop());
        if (seq % 2 === 0) {
          const copy = { ...event };
          this.redelivered.add(copy);
          this.queue.push(copy);
        }
      }
      const { state, commands } = stepDca(this.state, event);
      this.state = state;
      this.commands.push(...commands);
      for (const c of commands) this.execute(c);
      this.onStep?.(this, event);
    }
  }

  private execute(c: StrategyCommand): void {
    if (c.type === 'place_order') this.place(c);
    else if (c.type === 'cancel_order') {
      if (this.opts.delayCancels) this.pendingCancels.push(c.clientOrderId);
      else this.cancel(c.clientOrderId);
    }
  }

  private reject(cmd: PlaceOrderCommand, reason: 'insufficient_funds'): void {
    this.rejections.push({ cmd, reason });
    this.queue.push({ type: 'order_rejected', clientOrderId: cmd.clientOrderId, reason, ts: this.ts });
  }

  private fee(cost: Dec): Dec {
    return (decMul(cost, toDec(this.opts.feeRate)) / FEE_UNIT) * FEE_UNIT;
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
      this.fills.set(cmd.clientOrderId, { qty: cmd.amount!, price: this.price, fee: num(fee) });
      this.charged.set(cmd.clientOrderId, fee);
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
      if (this.quote < reserved) return this.reject(cmd, 'insufficient_funds');
      this.quote -= reserved;
      this.book.set(cmd.clientOrderId, { cmd, reserved, filled: 0n, fee: 0n });
    } else {
      if (this.base < amount) return this.reject(cmd, 'insufficient_funds');
      this.base -= amount;
      this.book.set(cmd.clientOrderId, { cmd, reserved: amount, filled: 0n, fee: 0n });
    }
    // A limit order placed on the wrong side of the market fills at once at its own price.
    this.matchBook();
  }

  private applyPendingCancels(): void {
    const ids = this.pendingCancels.splice(0);
    for (const id of ids) this.cancel(id);
  }

  private cancel(id: string): void {
    const o = this.book.get(id);
    if (!o) return; // already filled: its fill event is queued or delivered
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
      const amount = toDec(o.cmd.amount!);
      const seq = Number(id.split('-').pop());
      const step = toDec(this.initialConfig.market.amountStep);
      const halfAmount = (amount / 2n / step) * step;
      const half = this.opts.partialFills && seq % 3 === 0 && o.filled === 0n && halfAmount > 0n;
      const part = half ? halfAmount : amount - o.filled;
      const cost = decMul(part, toDec(p));
      const fee = this.fee(cost);
      if (o.cmd.side === 'buy') {
        // The reservation of this part: its share of cost + fee of the whole order.
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
      this.charged.set(id, (this.charged.get(id) ?? 0n) + fee);
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
      this.fills.set(id, { qty: o.cmd.amount!, price: p, fee: num(o.fee) });
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

  /** Open buy limit orders on the book. */
  openBuys(): SimOrder[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'buy');
  }

  openSells(): SimOrder[] {
    return [...this.book.values()].filter((o) => o.cmd.side === 'sell');
  }
}

function num(d: Dec): number {
  return Number(decToString(d));
}
