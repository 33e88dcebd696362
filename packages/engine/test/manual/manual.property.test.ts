/**
 * Property tests of the manual order over random price paths against a small fill simulator (below):
 * limit orders fill at their own price when the market crosses them (sometimes in two halves), market
 * orders at the tick price (sometimes in part, then cancelled by the venue), some places are refused
 * (exchange errors, funds), the venue now and then cancels a resting order on its own, cancels may be
 * applied only at the next tick (so fills race them), events may be delivered twice. Buy and sell
 * entries, limit and market, spot and derivatives, with or without tp / sl, with or without a user stop.
 * Checked after every tick and action:
 * - the take profit and the stop-loss close never both fill: a take profit filled completely means no
 *   close ever filled anything, and the exits never sell (buy back) more than the entry filled;
 * - `held` is never negative and equals the venue's position from this order, to the last decimal;
 * - the recorded PnL is the exact sum of the trades, each trade's pnlNet = qty × (sell − buy) − both
 *   fees (within the 10-decimal rounding), and once flat it is the venue's cash change;
 * - once an exit fills the order is stopped, and a stopped order leaves nothing on the venue;
 *   reduceOnly only on derivatives exits, never growing the position; client ids never repeat;
 * - a tick inside the quiet band commands nothing and changes nothing persisted; every step is the
 *   same from the state reloaded as JSON, and never mutates its input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MANUAL_ACTIONS,
  createManualOrder,
  decMul,
  decToString,
  manualQuietBand,
  manualSummary,
  roundDownToStep,
  roundUpToStep,
  samePersistedManual,
  stepManual,
  sumDecimal,
  toDec,
  type ClosedTrade,
  type Dec,
  type ManualConfig,
  type ManualState,
  type PlaceOrderCommand,
  type StrategyEvent,
} from '../../src/index';

const PRICE_STEP = 0.01;
const AMOUNT_STEP = 0.001;
const FEE_RATE = 0.001;
/** Fees rounded down to 8 decimals (18 − 10), as the shared test venue does. */
const FEE_UNIT = 10n ** 10n;
/** The rounding of one trade's pnlNet (10 decimals, half away from zero): at most 0.5e-10. */
const PNL_ROUNDING = toDec('0.00000000005');
/** A fee share written as a number (18 decimals do not all fit a double). */
const SHARE_ROUNDING = toDec('0.000000000001');

interface SimOptions {
  derivatives: boolean;
  fillsFirst: boolean;
  delayCancels: boolean;
  /** Percent rolls (0..99) read in turn for every random decision of the venue. */
  rolls: number[];
}

interface Resting {
  cmd: PlaceOrderCommand;
  filled: Dec;
  fee: Dec;
}

const num = (d: Dec): number => Number(decToString(d));
const abs = (d: Dec): Dec => (d < 0n ? -d : d);

class ManualSim {
  readonly book = new Map<string, Resting>();
  readonly placed = new Set<string>();
  readonly trades: ClosedTrade[] = [];
  readonly pendingCancels: string[] = [];
  private readonly queue: StrategyEvent[] = [];
  private readonly copies = new Set<StrategyEvent>();
  /** The venue's position of this order's market (base, buys +) and cash (quote, fees included). */
  position: Dec = 0n;
  cash: Dec = 0n;
  /** Base filled by each role; whether the take profit / a close filled completely. */
  readonly filledBy = new Map<string, Dec>();
  tpComplete = false;
  closeComplete = false;
  stoppedCount = 0;
  price = 0;
  ts = 0;
  private roll = 0;

  constructor(
    public state: ManualState,
    private readonly opts: SimOptions,
  ) {}

  private rnd(): number {
    const r = this.opts.rolls[this.roll % this.opts.rolls.length]!;
    this.roll += 1;
    return r;
  }

  tick(price: number, ts: number): void {
    // The quiet band: a tick inside it must do nothing but note itself.
    const band = manualQuietBand(this.state);
    if (price > band.low && price < band.high && ts < band.until) {
      const r = stepManual(this.state, { type: 'tick', price, ts });
      expect(r.commands).toEqual([]);
      expect(samePersistedManual(this.state, r.state)).toBe(true);
    }
    this.price = price;
    this.ts = ts;
    if (this.opts.fillsFirst) {
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
    // Now and then the venue cancels a resting order on its own.
    if (this.book.size > 0 && this.rnd() < 3) {
      this.cancel([...this.book.keys()][0]!);
      this.drain();
    }
  }

  act(event: StrategyEvent): void {
    this.queue.push(event);
    this.drain();
  }

  /** Applies the delayed cancels until none is left (end of a path). */
  settle(): void {
    for (let i = 0; i < 10 && this.pendingCancels.length > 0; i++) {
      this.applyPendingCancels();
      this.drain();
    }
  }

  private drain(): void {
    for (let guard = 0; this.queue.length > 0; guard++) {
      if (guard > 10_000) throw new Error('event loop does not settle');
      const event = this.queue.shift()!;
      if ('clientOrderId' in event && !this.copies.has(event) && this.rnd() < 10) {
        const copy = { ...event };
        this.copies.add(copy);
        this.queue.push(copy);
      }
      const before = this.state;
      const json = JSON.stringify(before);
      const r = stepManual(before, event);
      expect(JSON.stringify(before)).toBe(json);
      expect(stepManual(JSON.parse(json) as ManualState, event)).toEqual(r);
      this.state = r.state;
      for (const c of r.commands) {
        if (c.type === 'place_order') this.place(c);
        else if (c.type === 'cancel_order') {
          if (this.opts.delayCancels) this.pendingCancels.push(c.clientOrderId);
          else this.cancel(c.clientOrderId);
        } else if (c.type === 'record_trade') this.recorded(c.trade);
        else if (c.type === 'stopped') this.stoppedCount += 1;
      }
    }
  }

  private recorded(t: ClosedTrade): void {
    // pnlNet = qty × (sell − buy) − buyFee − sellFee, within the 10-decimal rounding of pnlNet.
    const exact =
      decMul(toDec(t.qty), toDec(t.sellPrice)) -
      decMul(toDec(t.qty), toDec(t.buyPrice)) -
      toDec(t.buyFee) -
      toDec(t.sellFee);
    expect(abs(toDec(t.pnlNet) - exact) <= PNL_ROUNDING + SHARE_ROUNDING).toBe(true);
    expect(this.trades.some((x) => x.key === t.key)).toBe(false);
    this.trades.push(t);
  }

  private fill(o: Resting, part: Dec, price: number): void {
    const { cmd } = o;
    if (cmd.reduceOnly) {
      // A reduce-only order only shrinks the position, never past zero.
      const opposite = cmd.side === 'buy' ? -this.position : this.position;
      expect(part <= opposite).toBe(true);
    }
    const cost = decMul(part, toDec(price));
    const fee = (decMul(cost, toDec(FEE_RATE)) / FEE_UNIT) * FEE_UNIT;
    o.filled += part;
    o.fee += fee;
    this.position += cmd.side === 'buy' ? part : -part;
    this.cash += cmd.side === 'buy' ? -cost - fee : cost - fee;
    this.filledBy.set(cmd.role, (this.filledBy.get(cmd.role) ?? 0n) + part);
  }

  private filledEvent(o: Resting, price: number): StrategyEvent {
    if (o.cmd.role === 'manual_tp') this.tpComplete = true;
    if (o.cmd.role === 'manual_sl' || o.cmd.role === 'close') this.closeComplete = true;
    return {
      type: 'order_filled',
      clientOrderId: o.cmd.clientOrderId,
      price,
      amount: num(o.filled),
      fee: num(o.fee),
      ts: this.ts,
    };
  }

  private place(cmd: PlaceOrderCommand): void {
    const id = cmd.clientOrderId;
    expect(this.placed.has(id)).toBe(false);
    this.placed.add(id);
    if (cmd.reduceOnly) expect(this.opts.derivatives && cmd.role !== 'manual_entry').toBe(true);
    const roll = this.rnd();
    if (roll < 8) {
      const reason = roll < 5 ? 'exchange_error' : 'insufficient_funds';
      this.queue.push({ type: 'order_rejected', clientOrderId: id, reason, ts: this.ts });
      return;
    }
    const o: Resting = { cmd, filled: 0n, fee: 0n };
    const amount = toDec(cmd.amount!);
    if (cmd.orderType === 'market') {
      const half = (amount / 2n / toDec(AMOUNT_STEP)) * toDec(AMOUNT_STEP);
      if (this.rnd() < 10 && half > 0n) {
        // Filled in part, the rest cancelled by the venue (reported in the cancel).
        this.fill(o, half, this.price);
        this.queue.push({
          type: 'order_cancelled',
          clientOrderId: id,
          ts: this.ts,
          filled: num(o.filled),
          price: this.price,
          fee: num(o.fee),
        });
        return;
      }
      this.fill(o, amount, this.price);
      this.queue.push(this.filledEvent(o, this.price));
      return;
    }
    this.book.set(id, o);
    // A limit order on the wrong side of the market fills at once at its own price.
    this.match();
  }

  private applyPendingCancels(): void {
    for (const id of this.pendingCancels.splice(0)) this.cancel(id);
  }

  private cancel(id: string): void {
    const o = this.book.get(id);
    if (!o) return; // filled already: its fill event is queued or delivered
    this.book.delete(id);
    const report = o.filled > 0n && this.rnd() < 50;
    this.queue.push(
      report
        ? {
            type: 'order_cancelled',
            clientOrderId: id,
            ts: this.ts,
            filled: num(o.filled),
            price: o.cmd.price!,
            fee: num(o.fee),
          }
        : { type: 'order_cancelled', clientOrderId: id, ts: this.ts },
    );
  }

  private match(): void {
    for (const [id, o] of [...this.book]) {
      const p = o.cmd.price!;
      const crosses = o.cmd.side === 'buy' ? this.price <= p : this.price >= p;
      if (!crosses) continue;
      const amount = toDec(o.cmd.amount!);
      const half = (amount / 2n / toDec(AMOUNT_STEP)) * toDec(AMOUNT_STEP);
      if (o.filled === 0n && half > 0n && this.rnd() < 30) {
        this.fill(o, half, p);
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
      this.fill(o, amount - o.filled, p);
      this.book.delete(id);
      this.queue.push(this.filledEvent(o, p));
    }
  }

  /** The invariants that hold whenever no event is in flight. */
  check(): void {
    const s = this.state;
    const sum = manualSummary(s);
    const entryFilled = toDec(s.entry?.filled ?? 0);
    const sign = s.config.side === 'buy' ? 1n : -1n;
    // held ≥ 0 and equal to the venue's position of this order.
    expect(sum.held).toBeGreaterThanOrEqual(0);
    expect(toDec(sum.held)).toBe(this.position * sign);
    // Never both exits: a complete take profit and a close with fills exclude each other.
    const closed = (this.filledBy.get('manual_sl') ?? 0n) + (this.filledBy.get('close') ?? 0n);
    expect(this.tpComplete && closed > 0n).toBe(false);
    expect((this.filledBy.get('manual_tp') ?? 0n) + closed <= entryFilled).toBe(true);
    // The PnL is the exact sum of the trades.
    expect(s.realizedPnl).toBe(sumDecimal(this.trades.map((t) => t.pnlNet)));
    expect(s.trades).toBe(this.trades.length);
    // Once an exit filled the order is stopped; a stopped order leaves nothing on the venue.
    if (this.tpComplete || this.closeComplete) expect(s.status).toBe('stopped');
    if (s.status === 'stopped') expect(this.book.size).toBe(0);
    expect(this.stoppedCount).toBe(s.status === 'stopped' ? 1 : 0);
    // Flat after a fill: the venue's cash change is the PnL (the entry fee shares add up exactly).
    if (s.status === 'stopped' && entryFilled > 0n && sum.held === 0) {
      const n = BigInt(this.trades.length);
      expect(abs(this.cash - toDec(s.realizedPnl)) <= PNL_ROUNDING * n).toBe(true);
      // The entry fee's shares add up to the whole entry fee.
      const shares = this.trades.map((t) => (s.config.side === 'buy' ? t.buyFee : t.sellFee));
      expect(abs(toDec(sumDecimal(shares)) - toDec(s.entry!.fee)) <= SHARE_ROUNDING * n).toBe(true);
    }
  }
}

const scenarioArb = fc.record({
  side: fc.constantFrom('buy' as const, 'sell' as const),
  orderType: fc.constantFrom('limit' as const, 'market' as const),
  derivatives: fc.boolean(),
  startPrice: fc.constantFrom(3.21, 100, 2500, 64_000),
  /** Limit price away from the start price (percent; negative = below). */
  limitPct: fc.integer({ min: -3, max: 1 }),
  tpPct: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 4, nil: null }),
  slPct: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 4, nil: null }),
  amountSteps: fc.integer({ min: 1, max: 5000 }),
  fillsFirst: fc.boolean(),
  delayCancels: fc.boolean(),
  rolls: fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 64 }),
  moves: fc.array(
    fc.record({
      /** Hundredths of a percent: up to ±4 % a move. */
      bp: fc.integer({ min: -400, max: 400 }),
      dt: fc.integer({ min: 1000, max: 60_000 }),
    }),
    { minLength: 20, maxLength: 80 },
  ),
  stop: fc.option(
    fc.record({
      at: fc.integer({ min: 0, max: 79 }),
      mode: fc.constantFrom('close_market' as const, 'cancel_only' as const),
    }),
    { nil: null },
  ),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** The order the server would send: prices on the step, tp and sl on their sides of the entry. */
function makeConfig(s: Scenario): ManualConfig {
  const buy = s.side === 'buy';
  const raw = s.startPrice * (1 + (buy ? s.limitPct : -s.limitPct) / 100);
  const entry =
    s.orderType === 'limit'
      ? buy
        ? roundDownToStep(raw, PRICE_STEP)
        : roundUpToStep(raw, PRICE_STEP)
      : s.startPrice;
  const up = (pct: number) => roundUpToStep(entry * (1 + pct / 100), PRICE_STEP);
  const down = (pct: number) => Math.max(PRICE_STEP, roundDownToStep(entry * (1 - pct / 100), PRICE_STEP));
  const tp = s.tpPct === null ? null : buy ? up(s.tpPct) : down(s.tpPct);
  const sl = s.slPct === null ? null : buy ? down(s.slPct) : up(s.slPct);
  return {
    symbol: 'BTC/USDT',
    side: s.side,
    orderType: s.orderType,
    ...(s.orderType === 'limit' ? { price: entry } : {}),
    amount: roundDownToStep(s.amountSteps * AMOUNT_STEP, AMOUNT_STEP),
    // A tp or sl that rounds onto the entry is left out (the server refuses it).
    tp: tp !== null && (buy ? tp > entry : tp < entry) ? tp : null,
    sl: sl !== null && (buy ? sl < entry : sl > entry) ? sl : null,
    rules: {
      amountStep: AMOUNT_STEP,
      priceStep: PRICE_STEP,
      minAmount: 0,
      minCost: 0,
      takerFee: FEE_RATE,
      makerFee: FEE_RATE,
    },
    derivatives: s.derivatives,
  };
}

function run(s: Scenario): void {
  const config = makeConfig(s);
  const sim = new ManualSim(createManualOrder('m', config), {
    derivatives: s.derivatives,
    fillsFirst: s.fillsFirst,
    delayCancels: s.delayCancels,
    rolls: s.rolls,
  });
  let price: number = s.startPrice;
  let ts = 1000;
  sim.tick(price, ts);
  sim.act({ type: 'action', name: MANUAL_ACTIONS.place, params: { price }, ts });
  sim.check();
  s.moves.forEach((m, i) => {
    price = Math.max(PRICE_STEP, roundDownToStep(price * (1 + m.bp / 10_000), PRICE_STEP));
    ts += m.dt;
    sim.tick(price, ts);
    sim.check();
    if (s.stop && s.stop.at === i) {
      sim.act({ type: 'stop', mode: s.stop.mode, ts });
      sim.check();
    }
  });
  // The end: delayed cancels applied, one more tick at the last price.
  sim.settle();
  sim.tick(price, ts + 1000);
  sim.settle();
  sim.check();
  const st = sim.state;
  // Nothing is left waiting for an answer.
  expect(st.status).not.toBe('stopping');
  if (s.stop && s.stop.at < s.moves.length) expect(st.status).toBe('stopped');
  if (st.status === 'running') {
    // Still running: the entry rests, or the exits are active and the last price is on the safe side.
    const entryOpen = st.entry !== null && (st.entry.status === 'open' || st.entry.status === 'cancelling');
    const sl = st.config.sl;
    const safe = sl === null || (st.config.side === 'buy' ? price > sl : price < sl);
    expect(entryOpen || (st.exitState === 'active' && safe)).toBe(true);
  }
}

describe('manual order properties', () => {
  it('exits are exclusive, held and pnl match the venue, an exit ends the order', () => {
    fc.assert(fc.property(scenarioArb, run), { numRuns: 400 });
    // Bounded by numRuns (~4 s alone); the limit leaves room for a loaded CI machine.
  }, 60_000);
});
