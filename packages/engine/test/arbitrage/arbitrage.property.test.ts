/**
 * Property tests of the Arbitrage bot against two simulated venues. Each venue has an account (the bot's
 * budget: amountQuote / 2 of quote, no base) and a book of 5 levels per side around its own mid; the
 * mids random-walk and the second venue's offset moves, so opportunities appear and vanish. Market
 * orders fill at once by walking the venue's current book (a thin book fills in part and cancels the
 * rest); orders over the account's funds are refused; some orders fail at random (exchange errors),
 * answers may come in reverse order and twice. Checked after every step:
 * - the inventory is never negative and, once every answer is delivered, equals the venue accounts;
 * - no leg of a new trip is sent while a trip's legs or unwind are in flight; a trip's legs are sent in
 *   one step, and never refused for funds;
 * - every filled leg is accounted for: per trip, the matched quantity is the round-trip trade, and what
 *   one leg filled beyond the other is unwound (its trade) or named in a log (below minimum / failed);
 * - pnlNet of every trade is exact; a JSON round trip of the state steps the same; a close_market stop
 *   ends stopped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createArbitrageBot,
  decMul,
  decToString,
  formatAmount,
  roundToStep,
  stepArbitrage,
  toDec,
  type ArbitrageConfig,
  type ArbitrageState,
  type BookSnapshot,
  type ClosedTrade,
  type Dec,
  type LogCommand,
  type MarketRules,
  type PlaceOrderCommand,
  type StrategyCommand,
  type StrategyEvent,
} from '../../src/index';

const EX = ['binance', 'bybit'] as const;
type Ex = (typeof EX)[number];
const FEE_UNIT = 10n ** 10n; // fees rounded down to 8 decimals (18 − 10)

interface Account {
  base: Dec;
  quote: Dec;
}

interface SimOrder {
  cmd: PlaceOrderCommand;
  answered: boolean;
}

class TwoVenueSim {
  state: ArbitrageState;
  readonly accounts: Record<Ex, Account>;
  readonly books: Record<Ex, BookSnapshot> = {
    binance: { bids: [], asks: [] },
    bybit: { bids: [], asks: [] },
  };
  readonly orders = new Map<string, SimOrder>();
  readonly trades: ClosedTrade[] = [];
  readonly logs: LogCommand[] = [];
  readonly queue: StrategyEvent[] = [];
  ts = 1000;
  private failIdx = 0;

  constructor(
    readonly config: ArbitrageConfig,
    readonly failures: boolean[],
    readonly reverse: boolean,
    readonly duplicate: boolean,
  ) {
    this.state = createArbitrageBot('a', config);
    const half = toDec(config.amountQuote) / 2n;
    this.accounts = { binance: { base: 0n, quote: half }, bybit: { base: 0n, quote: half } };
  }

  rules(ex: string): MarketRules {
    return this.config.rules[ex]!;
  }

  step(e: StrategyEvent): void {
    const before = this.state;
    const copy = JSON.parse(JSON.stringify(before)) as ArbitrageState;
    const r = stepArbitrage(before, e);
    // Determinism across a JSON round trip (what the runner persists).
    expect(JSON.stringify(stepArbitrage(copy, e))).toBe(JSON.stringify(r));
    this.state = r.state;
    this.apply(r.commands);
    this.check();
  }

  private apply(cmds: StrategyCommand[]): void {
    const legs = cmds.filter(
      (c): c is PlaceOrderCommand =>
        c.type === 'place_order' && (c.role === 'arb_buy' || c.role === 'arb_sell'),
    );
    if (legs.length > 0) {
      // Both legs in one step, and nothing of an earlier trip in flight.
      expect(legs.map((l) => l.role).sort()).toEqual(['arb_buy', 'arb_sell']);
      for (const o of this.orders.values())
        if (['arb_buy', 'arb_sell', 'arb_unwind'].includes(o.cmd.role)) expect(o.answered).toBe(true);
    }
    const answers: StrategyEvent[] = [];
    for (const c of cmds) {
      if (c.type === 'record_trade') {
        const t = c.trade;
        const exact =
          decMul(toDec(t.qty), toDec(t.sellPrice) - toDec(t.buyPrice)) - toDec(t.buyFee) - toDec(t.sellFee);
        expect(t.pnlNet).toBe(Number(formatAmount(decToString(exact), 10)));
        this.trades.push(t);
      } else if (c.type === 'log') this.logs.push(c);
      else if (c.type === 'place_order') {
        this.orders.set(c.clientOrderId, { cmd: c, answered: false });
        answers.push(...this.execute(c));
      }
    }
    if (this.reverse) answers.reverse();
    for (const a of answers) {
      this.queue.push(a);
      if (this.duplicate) this.queue.push(a);
    }
  }

  /** Fills a market order by walking the venue's book. */
  private execute(c: PlaceOrderCommand): StrategyEvent[] {
    const ex = c.exchange as Ex;
    const id = c.clientOrderId;
    const acc = this.accounts[ex];
    const fail = this.failures[this.failIdx++ % Math.max(1, this.failures.length)] ?? false;
    if (fail && c.role !== 'arb_prepare')
      return [{ type: 'order_rejected', clientOrderId: id, reason: 'exchange_error', ts: this.ts }];
    const levels = c.side === 'buy' ? this.books[ex].asks : this.books[ex].bids;
    const want = toDec(c.amount!);
    let left = want;
    let value = 0n;
    for (const [p, a] of levels) {
      const take = toDec(a) < left ? toDec(a) : left;
      value += decMul(take, toDec(p));
      left -= take;
      if (left <= 0n) break;
    }
    const filled = want - left;
    const fee = (decMul(value, toDec(this.rules(ex).takerFee)) / FEE_UNIT) * FEE_UNIT;
    if (c.side === 'buy' ? value + fee > acc.quote : filled > acc.base) {
      if (c.role === 'arb_buy' || c.role === 'arb_sell') throw new Error(`leg ${id} refused for funds`);
      return [{ type: 'order_rejected', clientOrderId: id, reason: 'insufficient_funds', ts: this.ts }];
    }
    if (filled === 0n) return [{ type: 'order_cancelled', clientOrderId: id, ts: this.ts }];
    if (c.side === 'buy') {
      acc.base += filled;
      acc.quote -= value + fee;
    } else {
      acc.base -= filled;
      acc.quote += value - fee;
    }
    const price = Number(decToString((value * 10n ** 18n) / filled));
    const amount = Number(decToString(filled));
    const feeN = Number(decToString(fee));
    if (left > 0n)
      return [{ type: 'order_cancelled', clientOrderId: id, filled: amount, price, fee: feeN, ts: this.ts }];
    return [{ type: 'order_filled', clientOrderId: id, price, amount, fee: feeN, ts: this.ts }];
  }

  deliver(): void {
    while (this.queue.length > 0) {
      const e = this.queue.shift()!;
      if ('clientOrderId' in e) {
        const o = this.orders.get(e.clientOrderId);
        if (o && e.type !== 'order_partially_filled') o.answered = true;
      }
      this.step(e);
    }
  }

  tick(ex: Ex, mid: number, depth: number[]): void {
    const step = this.rules(ex).priceStep;
    const bids: [number, number][] = [];
    const asks: [number, number][] = [];
    depth.forEach((a, k) => {
      bids.push([roundToStep(mid * (1 - 0.0003 * (k + 1)), step), a]);
      asks.push([roundToStep(mid * (1 + 0.0003 * (k + 1)), step), a]);
    });
    this.books[ex] = { bids, asks };
    this.step({
      type: 'tick',
      exchange: ex,
      symbol: this.config.symbol,
      price: asks[0]![0],
      book: this.books[ex],
      ts: this.ts,
    });
  }

  check(): void {
    const s = this.state;
    for (const v of s.venues) {
      expect(toDec(v.inventory.base) >= 0n).toBe(true);
      expect(toDec(v.inventory.quote) >= 0n).toBe(true);
    }
    if (this.queue.length > 0) return;
    // Every answer delivered: the bot's books agree with the venues' accounts.
    for (const v of s.venues) {
      const acc = this.accounts[v.exchange as Ex];
      expect(toDec(v.inventory.base)).toBe(acc.base);
      // Quote within rounding: the venue reports the average price as a number (value / filled rounded).
      const d = toDec(v.inventory.quote) - acc.quote;
      expect(d < 0n ? -d : d).toBeLessThan(toDec(1e-6));
    }
  }

  /** Per trip: matched = the round trip's qty; the excess is unwound or named in a log. */
  checkTrips(): void {
    const tripIds = new Set<string>();
    for (const o of this.orders.values())
      if (o.cmd.role === 'arb_buy' || o.cmd.role === 'arb_sell') tripIds.add(o.cmd.lotId!);
    for (const trip of tripIds) {
      if (this.state.trip?.id === trip) continue;
      const rows = this.trades.filter((t) => t.lotId === trip);
      const round = rows.find((t) => t.key === undefined);
      const unwound = rows.filter((t) => t.key !== undefined).reduce((a, t) => a + toDec(t.qty), 0n);
      const named = this.logs.some(
        (l) => (l.code === 'arb_unwind_skipped' || l.code === 'arb_unwind_failed') && l.params.trip === trip,
      );
      const failed = this.logs.find((l) => l.code === 'arb_leg_failed' && l.params.trip === trip);
      if (!failed) {
        expect(unwound).toBe(0n);
        continue;
      }
      const excess = toDec(failed.params.unwind_qty!);
      expect(unwound <= excess).toBe(true);
      if (unwound !== excess) expect(named).toBe(true);
      if (round) expect(round.buyExchange).not.toBe(round.sellExchange);
    }
  }
}

const rules = (amountStep: number, minCost: number, takerFee: number): MarketRules => ({
  amountStep,
  priceStep: 0.01,
  minAmount: 0,
  minCost,
  takerFee,
  makerFee: takerFee,
});

const scenario = fc.record({
  amountQuote: fc.constantFrom(200, 1000, 10_000),
  stepA: fc.constantFrom(0.0001, 0.001),
  stepB: fc.constantFrom(0.0001, 0.001, 0.01),
  feeA: fc.constantFrom(0, 0.001),
  feeB: fc.constantFrom(0.001, 0.002),
  tradeFraction: fc.constantFrom(0.1, 0.25, 0.5),
  cooldownMs: fc.constantFrom(0, 2000),
  failures: fc.array(
    fc.integer({ min: 0, max: 5 }).map((x) => x === 0),
    { minLength: 1, maxLength: 12 },
  ),
  reverse: fc.boolean(),
  duplicate: fc.boolean(),
  moves: fc.array(
    fc.record({
      ex: fc.constantFrom(0, 1),
      pct: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
      offset: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
      depth: fc.array(fc.constantFrom(0.05, 0.3, 1, 3), { minLength: 1, maxLength: 5 }),
      dt: fc.integer({ min: 100, max: 3000 }),
    }),
    { minLength: 2, maxLength: 80 },
  ),
  stop: fc.constantFrom('close_market' as const, 'cancel_only' as const),
});

describe('Arbitrage bot properties', () => {
  it('inventory never negative, one trip at a time, every filled leg accounted for', () => {
    // The scenarios must reach what the checks are about: round trips, unwinds, waiting for inventory.
    const seen = { rounds: 0, unwinds: 0, waits: 0 };
    fc.assert(
      fc.property(scenario, (sc) => {
        const config: ArbitrageConfig = {
          exchanges: [...EX],
          symbol: 'ETH/USDT',
          amountQuote: sc.amountQuote,
          rules: { binance: rules(sc.stepA, 5, sc.feeA), bybit: rules(sc.stepB, 5, sc.feeB) },
          marginPct: 0.1,
          tradeFraction: sc.tradeFraction,
          cooldownMs: sc.cooldownMs,
        };
        const sim = new TwoVenueSim(config, sc.failures, sc.reverse, sc.duplicate);
        let mid = 2000;
        let offset = 0;
        // Deep books first so the prepare fills.
        sim.tick('binance', mid, [5, 5]);
        sim.tick('bybit', mid, [5, 5]);
        sim.deliver();
        for (const m of sc.moves) {
          sim.ts += m.dt;
          mid = mid * (1 + m.pct / 100);
          offset = m.offset;
          sim.tick(EX[m.ex], m.ex === 0 ? mid : mid * (1 + offset / 100), m.depth);
          sim.deliver();
          sim.checkTrips();
        }
        sim.ts += 1000;
        sim.step({ type: 'stop', mode: sc.stop, ts: sim.ts });
        for (let i = 0; i < 6 && sim.state.status !== 'stopped'; i++) {
          sim.deliver();
          sim.ts += 1000;
          sim.tick('binance', mid, [5, 5]);
          sim.tick('bybit', mid, [5, 5]);
        }
        sim.deliver();
        sim.checkTrips();
        expect(sim.state.status).toBe('stopped');
        expect(sim.state.trip).toBeNull();
        seen.rounds += sim.trades.filter((t) => t.key === undefined).length;
        seen.unwinds += sim.trades.filter((t) => t.key !== undefined).length;
        seen.waits += sim.logs.filter((l) => l.code === 'arb_waiting_inventory').length;
        const sum = sim.trades.reduce((a, t) => a + toDec(t.pnlNet), 0n);
        expect(sim.state.realizedPnl).toBe(decToString(sum));
      }),
      // A fixed seed: the coverage counts below are about the scenarios drawn, and 150 random draws
      // reach an unwind only most of the time (a run without one was seen); FC_SEED explores others.
      { numRuns: 150, seed: Number(process.env.FC_SEED ?? 38) },
    );
    expect(seen.rounds).toBeGreaterThan(0);
    expect(seen.unwinds).toBeGreaterThan(0);
    expect(seen.waits).toBeGreaterThan(0);
  });
});
