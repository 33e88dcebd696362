/**
 * Property tests of the Grid bot over random price paths against the test venue (grid-sim.ts): spot long
 * grids and long / short / neutral grids on derivatives, with fees, partial fills, delayed cancels,
 * re-delivered events and small budgets. Checked after every event and every tick:
 * - spot: never more base sold than held (no sell is refused, the account's base never goes negative);
 * - each fill of a level order re-arms its slot's opposite order one level away (or explains why not);
 * - profit per round = step − 2 × fee on the amount per level, within rounding; pnlNet exact;
 * - the bot's books agree with the venue's base; reduceOnly orders never grow a position;
 * - a tick inside the quiet band changes nothing that is persisted; determinism, JSON round trips.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createGridBot,
  decMul,
  decToString,
  formatAmount,
  gridQuietBand,
  samePersistedGrid,
  stepGrid,
  toDec,
  type ClosedTrade,
  type Dec,
  type GridConfig,
  type GridState,
  type StrategyCommand,
} from '../../src/index';
import { GridSim, type GridSimOptions } from './grid-sim';

const PRICE_STEP = 0.01;

const scenarioArb = fc.record({
  derivatives: fc.boolean(),
  position: fc.constantFrom('long' as const, 'short' as const, 'neutral' as const),
  profitCurrency: fc.constantFrom('quote' as const, 'base' as const),
  startPrice: fc.constantFrom(3.21, 100, 2500, 64_000),
  lowPct: fc.integer({ min: 2, max: 20 }),
  highPct: fc.integer({ min: 2, max: 20 }),
  stepPct: fc.constantFrom(0.5, 1, 2, 3),
  amountPerLevel: fc.constantFrom(10, 20, 50),
  amountStep: fc.constantFrom(0.0001, 0.001, 0.00001),
  minCost: fc.constantFrom(0, 5),
  opts: fc.record({
    budget: fc.constantFrom(60, 300, 1000, 100_000),
    feeRate: fc.constantFrom(0, 0.001, 0.002),
    fillsFirst: fc.boolean(),
    partialFills: fc.boolean(),
    delayCancels: fc.boolean(),
    duplicateEvents: fc.boolean(),
  }),
  moves: fc.array(
    fc.record({
      pct: fc.double({ min: -4, max: 4, noNaN: true }),
      dt: fc.integer({ min: 1000, max: 90_000 }),
    }),
    { minLength: 1, maxLength: 150 },
  ),
  stop: fc.constantFrom('close_market' as const, 'cancel_only' as const, null),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function onGrid(p: number): number {
  return Math.max(PRICE_STEP, Math.round(p / PRICE_STEP) * PRICE_STEP);
}

function makeConfig(s: Scenario): GridConfig {
  return {
    symbol: 'BTC/USDT',
    low: onGrid(s.startPrice * (1 - s.lowPct / 100)),
    high: onGrid(s.startPrice * (1 + s.highPct / 100)),
    stepPct: s.stepPct,
    amountPerLevel: s.amountPerLevel,
    position: s.derivatives ? s.position : 'long',
    profitCurrency: s.profitCurrency,
    derivatives: s.derivatives,
    market: {
      amountStep: s.amountStep,
      priceStep: PRICE_STEP,
      minAmount: 0,
      minCost: s.minCost,
      takerFee: 0.001,
      makerFee: 0.001,
    },
  };
}

/** Builds the bot, or null for a configuration the strategy refuses (too many levels, below minimum). */
function makeSim(s: Scenario): GridSim | null {
  const config = makeConfig(s);
  try {
    createGridBot('g7', config);
  } catch {
    return null;
  }
  const opts: GridSimOptions = s.opts;
  return new GridSim('g7', config, opts);
}

const tradesOf = (cmds: StrategyCommand[]): ClosedTrade[] =>
  cmds.flatMap((c) => (c.type === 'record_trade' ? [c.trade] : []));

function run(s: Scenario, opts: { check: boolean; jsonRoundTrip?: boolean }): GridSim | null {
  const sim = makeSim(s);
  if (!sim) return null;
  const config = sim.initialConfig;
  const fee = s.opts.feeRate;
  sim.onStep = (x, event, commands, before) => {
    if (opts.jsonRoundTrip) x.state = JSON.parse(JSON.stringify(x.state)) as GridState;
    if (!opts.check) return;
    const after = x.state;
    // Spot: a sell never needs more base than the account holds.
    if (!config.derivatives) {
      expect(x.base >= 0n).toBe(true);
      expect(x.rejections.filter((c) => c.side === 'sell')).toEqual([]);
    }
    // reduceOnly orders never try to grow the position; spot orders never carry it.
    expect(x.rejections.filter((c) => c.reduceOnly)).toEqual([]);
    if (!config.derivatives) expect(x.quote >= 0n).toBe(true);
    // Each fill of a level order re-arms its slot's opposite order one level away.
    if (event.type === 'order_filled' && before.status === 'running' && after.status === 'running') {
      const slot = before.slots.find((sl) => sl.order?.clientOrderId === event.clientOrderId);
      if (slot && event.amount > 0) {
        const side = slot.order!.side;
        const level = side === 'buy' ? slot.index : slot.index + 1;
        const opposite = side === 'buy' ? 'sell' : 'buy';
        const next = side === 'buy' ? level + 1 : level - 1;
        const placed = commands.some(
          (c) =>
            c.type === 'place_order' && c.side === opposite && c.level === next && c.orderType === 'limit',
        );
        const explained = commands.some((c) => c.type === 'log' && c.code === 'below_min_cost');
        expect(placed || explained).toBe(true);
        const price = after.levels[next]!;
        for (const c of commands)
          if (c.type === 'place_order' && c.level === next) expect(c.price).toBe(price);
      }
    }
    // Profit per completed round: exact pnl; between adjacent levels ≈ amount × (step − 2 × fee).
    const roundLogs = commands.filter((c) => c.type === 'log' && c.code === 'grid_round').length;
    expect(after.rounds - before.rounds).toBe(roundLogs);
    for (const t of tradesOf(commands)) {
      const exact =
        decMul(toDec(t.qty), toDec(t.sellPrice) - toDec(t.buyPrice)) - toDec(t.buyFee) - toDec(t.sellFee);
      expect(t.pnlNet).toBe(Number(formatAmount(decToString(exact), 10)));
      const i = after.levels.indexOf(t.buyPrice);
      const adjacent = i >= 0 && after.levels[i + 1] === t.sellPrice;
      if (!adjacent || t.key !== undefined || roundLogs === 0) continue;
      const step = t.sellPrice / t.buyPrice - 1;
      // ≈ stepPct (the levels are rounded to the price step).
      expect(Math.abs(step - config.stepPct / 100)).toBeLessThan((2 * PRICE_STEP) / t.buyPrice + 1e-9);
      const notional = t.qty * t.buyPrice; // ≈ amountPerLevel, less one amount step at most
      expect(notional).toBeLessThanOrEqual(config.amountPerLevel + 1e-9);
      expect(notional).toBeGreaterThan(config.amountPerLevel - config.market.amountStep * t.buyPrice - 1e-9);
      const expected = notional * (step - 2 * fee);
      // The sell's fee is on the higher price (f × step × notional); fees are rounded down to 1e-8.
      expect(Math.abs(t.pnlNet - expected)).toBeLessThanOrEqual(notional * fee * step + 1e-7);
    }
    // A tick inside the quiet band changes nothing persisted and commands nothing.
    if (event.type === 'tick') {
      const band = gridQuietBand(before);
      if (band && event.price > band.low && event.price < band.high && event.ts < band.until) {
        expect(commands).toEqual([]);
        expect(samePersistedGrid(before, after)).toBe(true);
      }
    }
  };

  let price = onGrid(s.startPrice);
  let ts = 1_700_000_000_000;
  sim.tick(price, ts);
  for (const m of s.moves) {
    if (sim.state.status === 'stopped') break;
    price = onGrid(price * (1 + m.pct / 100));
    ts += m.dt;
    sim.tick(price, ts);
    if (opts.check) checkAfterTick(sim);
  }
  if (s.stop && sim.state.status !== 'stopped') {
    sim.act({ type: 'stop', mode: s.stop, ts: ts + 1 });
    sim.tick(price, ts + 2);
  }
  sim.settle();
  if (opts.check) checkEnd(sim, s);
  return sim;
}

/** Signed base of an order's fill so far. */
function signed(side: 'buy' | 'sell', qty: number): Dec {
  return side === 'buy' ? toDec(qty) : -toDec(qty);
}

/** The bot's books agree with the venue: base held = open slots + profit base + partial fills. */
function checkAfterTick(sim: GridSim): void {
  const st = sim.state;
  let expected = toDec(st.profitBase);
  for (const sl of st.slots) {
    if (sl.open) expected += signed(sl.open.side, sl.open.qty);
    if (sl.order) expected += signed(sl.order.side, sl.order.filled);
  }
  for (const o of [st.init, st.close, st.profitBuy]) if (o) expected += signed(o.side, o.filled);
  let venue = sim.base;
  if (!sim.initialConfig.derivatives)
    for (const o of sim.book.values()) if (o.cmd.side === 'sell') venue += o.reserved;
  expect(decToString(venue)).toBe(decToString(expected));
  if (st.status !== 'running') return;
  // One order per slot at most; every order on the venue is one the bot tracks (or is being cancelled).
  const tracked = new Set(st.slots.flatMap((sl) => (sl.order ? [sl.order.clientOrderId] : [])));
  for (const id of sim.book.keys()) expect(tracked.has(id) || sim.pendingCancels.includes(id)).toBe(true);
  expect(sim.book.size).toBeLessThanOrEqual(st.levels.length - 1);
  // Slot orders sit on their own levels: a buy at the slot's lower level, a sell at its upper level.
  for (const sl of st.slots) {
    const o = sl.order;
    if (!o) continue;
    expect(o.price).toBe(o.side === 'buy' ? st.levels[sl.index] : st.levels[sl.index + 1]);
  }
}

function checkEnd(sim: GridSim, s: Scenario): void {
  const st = sim.state;
  const trades = tradesOf(sim.commands);
  let sum = 0n;
  for (const t of trades) sum += toDec(t.pnlNet);
  expect(st.realizedPnl).toBe(decToString(sum));
  // Trades are one row each: unique keys.
  const keys = trades.map((t) => t.key ?? t.lotId);
  expect(new Set(keys).size).toBe(keys.length);
  expect(new Set(sim.placed.keys()).size).toBe(sim.placed.size);
  if (st.status === 'stopped') {
    expect(sim.book.size).toBe(0);
    expect(sim.commands.filter((c) => c.type === 'stopped').length).toBe(1);
    if (st.stopMode === 'close_market' && st.stopReason === 'user_close_market') {
      // Everything was closed, but dust below one amount step or the market minimum (logged).
      const left = sim.base < 0n ? -sim.base : sim.base;
      const dust = left < toDec(sim.initialConfig.market.amountStep);
      const small = decMul(left, toDec(st.lastPrice!)) < toDec(sim.initialConfig.market.minCost);
      const failed = sim.commands.some((c) => c.type === 'log' && c.code === 'close_failed');
      expect(dust || small || failed).toBe(true);
    }
  } else if (s.stop) {
    throw new Error(`stop did not complete: ${st.status}`);
  }
}

describe('Grid bot properties (random price paths against the simulator)', () => {
  it('never oversells on spot, re-arms each fill one level away, earns step − 2 × fee a round', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        run(s, { check: true });
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('is deterministic, also through a JSON round trip, and never mutates its input', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const a = run(s, { check: false });
        if (!a) return;
        const c = run(s, { check: false, jsonRoundTrip: true })!;
        expect(c.commands).toEqual(a.commands);
        let state = deepFreeze(createGridBot('g7', a.initialConfig));
        const out: StrategyCommand[] = [];
        for (const e of a.events) {
          const before = JSON.stringify(state);
          const r = stepGrid(state, e);
          expect(JSON.stringify(state)).toBe(before);
          state = deepFreeze(r.state);
          out.push(...r.commands);
        }
        expect(out).toEqual(a.commands);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
