/**
 * Property tests of the classic DCA bot on random price paths through the venue simulator (fees,
 * insufficient funds, partial fills, cancels racing fills, events delivered twice), with user actions
 * (add funds, r / rOs toggles, SL / TP+, stops, the pending-order actions: add funds, sell, forget,
 * auto-fund, also on a wrong lot id). Checked after every event or action:
 * - the average is exact (dca × qty = cost within 1e-9 relative) and the bot's base equals the account's
 *   less the base of forgotten positions;
 * - idle in a position, the one take profit rests at cost / qty × (1 + T) rounded up (independent
 *   rational arithmetic) for the whole position rounded down;
 * - with rOs off, never more base + safety fills per cycle than 1 + os;
 * - never a sell larger than the position, never two sells resting, no sell refused for funds;
 * - realized PnL = Σ pnl_net of the recorded trades, one trade per cycle;
 * - the listed lot is the current cycle's position (id, tradable qty, fee-free entry × qty = cost);
 *   a refused lot action changes nothing; during a sale or a forget no buy and no take profit is placed;
 *   auto-fund steps only at or below entry × (1 − 10 % × k), at most AUTO_FUND_MAX_STEPS per cycle;
 * - the input state is never mutated (deep-frozen) and a stopped bot leaves nothing on the venue.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUTO_FUND_MAX_STEPS,
  LOT_ACTIONS,
  classicLots,
  createClassicDca,
  roundDownToStep,
  stepClassicDca,
  summarizeClassicDca,
  toDec,
  type ClassicDcaState,
  type StrategyEvent,
} from '../../src/index';
import { candles, classicConfig } from './classic-helpers';
import { VenueSim } from './classic-sim';

type Act =
  | { kind: 'move'; pct: number; dt: number }
  | { kind: 'add'; amount: number }
  | { kind: 'r'; enabled: boolean }
  | { kind: 'rOs'; enabled: boolean }
  | { kind: 'sl'; pct: number | null }
  | { kind: 'tpPlus'; pct: number | null }
  | { kind: 'stop'; mode: 'close_market' | 'cancel_only' }
  | { kind: 'lot'; action: 'addFunds' | 'sell' | 'forget' | 'autoFund'; wrongId: boolean; flag: boolean };

const actArb: fc.Arbitrary<Act> = fc.oneof(
  {
    weight: 80,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      pct: fc.double({ min: -4, max: 4, noNaN: true }),
      dt: fc.integer({ min: 1000, max: 120_000 }),
    }),
  },
  {
    // A sharp drop (reaches the auto-fund steps, −10 % each from the entry).
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      pct: fc.double({ min: -16, max: -6, noNaN: true }),
      dt: fc.integer({ min: 1000, max: 120_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('add' as const), amount: fc.constantFrom(3, 20, 50) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('r' as const), enabled: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rOs' as const), enabled: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('sl' as const),
      pct: fc.option(fc.integer({ min: 3, max: 30 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tpPlus' as const),
      pct: fc.option(fc.integer({ min: 3, max: 30 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('stop' as const),
      mode: fc.constantFrom('close_market' as const, 'cancel_only' as const),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('lot' as const),
      action: fc.constantFrom(
        'addFunds' as const,
        'sell' as const,
        'forget' as const,
        'autoFund' as const,
        'autoFund' as const,
      ),
      wrongId: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      flag: fc.boolean(),
    }),
  },
);

const scenarioArb = fc.record({
  amount: fc.constantFrom(20, 100),
  tpPct: fc.constantFrom(0.5, 1, 3),
  sepPct: fc.constantFrom(0.5, 1, 2, 5),
  os: fc.integer({ min: 1, max: 6 }),
  minCost: fc.constantFrom(0, 5, 15),
  r: fc.boolean(),
  rOs: fc.boolean(),
  trendFilter: fc.boolean(),
  maPeriod: fc.integer({ min: 2, max: 6 }),
  seed: fc.boolean(),
  smartAveraging: fc.boolean(),
  smartAmount: fc.constantFrom(3, 10),
  budget: fc.constantFrom(150, 500, 100_000),
  feeRate: fc.constantFrom(0, 0.001),
  partialFills: fc.boolean(),
  delayCancels: fc.boolean(),
  duplicateEvents: fc.boolean(),
  startPrice: fc.constantFrom(3.21, 100, 64_000),
  drift: fc.constantFrom(-1, -0.3, 0, 0.3),
  /** Turn auto-fund on for every new position (so its steps are reached often). */
  eagerAutoFund: fc.boolean(),
  acts: fc.array(actArb, { minLength: 1, maxLength: 150 }),
});

/** A decimal string as an exact fraction. */
function frac(s: string): [bigint, bigint] {
  const d = toDec(s);
  return [d, 10n ** 18n];
}

/** ceil(cost × (100 + tp) / (qty × 100) / step) × step, in exact rational arithmetic. */
function expectedTp(cost: string, qty: string, tpPct: number, step: number): number {
  const [cn, cd] = frac(cost);
  const [qn, qd] = frac(qty);
  const [tn, td] = frac(String(100 + tpPct));
  const [sn, sd] = frac(String(step));
  // value / step = cn/cd × tn/td / 100 × qd/qn × sd/sn
  const num = cn * tn * qd * sd;
  const den = cd * td * 100n * qn * sn;
  const k = (num + den - 1n) / den;
  return Number(roundDownToStep(Number(k) * step, step).toFixed(8));
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function run(sc: Scenario): void {
  const config = classicConfig({
    amount: sc.amount,
    tpPct: sc.tpPct,
    sepPct: sc.sepPct,
    os: sc.os,
    r: sc.r,
    rOs: sc.rOs,
    trendFilter: sc.trendFilter,
    maPeriod: sc.maPeriod,
    smartAveraging: sc.smartAveraging,
    smartAmount: sc.smartAmount,
    market: {
      amountStep: 0.0001,
      priceStep: 0.01,
      minAmount: 0,
      minCost: sc.minCost,
      takerFee: sc.feeRate,
      makerFee: sc.feeRate,
    },
  });
  const seeded = sc.seed ? candles(sc.maPeriod + 2, (i) => sc.startPrice * (1 - 0.01 * (i % 3)), 0) : [];
  const sim = new VenueSim<ClassicDcaState>(createClassicDca('b', config, seeded), stepClassicDca, {
    budget: sc.budget,
    feeRate: sc.feeRate,
    amountStep: 0.0001,
    partialFills: sc.partialFills,
    delayCancels: sc.delayCancels,
    duplicateEvents: sc.duplicateEvents,
  });
  const sellIds = new Set<string>();
  const lotIds = new Set<string>();
  let pnl = 0n;
  /** Base of forgotten positions: it stays on the account, the bot no longer tracks it. */
  let forgotten = 0n;
  let autoBuys = 0;
  let cycleFills = 0;
  let cycleRosEver = sc.rOs;
  sim.onStep = (s, event: StrategyEvent, commands, before) => {
    const st = s.state;
    deepFreeze(st);
    if (st.cycle !== before.cycle) {
      cycleFills = 0;
      cycleRosEver = st.config.rOs;
      autoBuys = 0;
    }
    const logged = commands.flatMap((c) => (c.type === 'log' ? [c] : []));
    for (const l of logged) if (l.code === 'lot_forgotten') forgotten += toDec(l.params.qty!);
    if (event.type === 'action' && event.name.startsWith('lot_') && logged.length === 1) {
      const code = logged[0]!.code;
      if (code === 'lot_action_refused' || code === 'invalid_value') {
        expect(commands.length).toBe(1);
        expect(st).toEqual(before);
      }
    }
    // A sale or a forget in progress: no buy, no take profit (only its close sell).
    if (before.lotBusy && st.lotBusy && st.cycle === before.cycle) {
      for (const c of commands)
        if (c.type === 'place_order') expect([c.side, c.role]).toEqual(['sell', 'close']);
    }
    for (const l of logged) {
      if (l.code !== 'auto_fund') continue;
      autoBuys++;
      expect(event.type).toBe('tick');
      const k = Number(l.params.step);
      const price = event.type === 'tick' ? event.price : 0;
      expect(price).toBeLessThanOrEqual(before.entry! * (1 - k / 10) * (1 + 1e-12));
      expect(k).toBe((before.autoFundSteps ?? 0) + 1);
    }
    expect(autoBuys).toBeLessThanOrEqual(AUTO_FUND_MAX_STEPS);
    expect(st.autoFundSteps ?? 0).toBeLessThanOrEqual(AUTO_FUND_MAX_STEPS);
    if (st.cycle === before.cycle)
      expect(st.autoFundSteps ?? 0).toBeGreaterThanOrEqual(before.autoFundSteps ?? 0);
    if (st.config.rOs) cycleRosEver = true;
    if (event.type === 'order_filled' || event.type === 'order_cancelled') {
      const ref = before.orders.find((o) => o.clientOrderId === event.clientOrderId);
      const filled = event.type === 'order_filled' ? event.amount : (event.filled ?? ref?.filled ?? 0);
      if (ref && (ref.role === 'base' || ref.role === 'safety') && filled > 0) cycleFills++;
      if (!cycleRosEver) expect(cycleFills).toBeLessThanOrEqual(1 + sc.os);
    }
    if (event.type === 'order_rejected') expect(sellIds.has(event.clientOrderId)).toBe(false);
    for (const c of commands) {
      if (c.type === 'place_order' && c.side === 'sell') {
        sellIds.add(c.clientOrderId);
        expect(toDec(c.amount!)).toBeLessThanOrEqual(toDec(st.position.qty));
      }
      if (c.type === 'record_trade') {
        expect(lotIds.has(c.trade.lotId)).toBe(false);
        lotIds.add(c.trade.lotId);
        pnl += toDec(c.trade.pnlNet);
      }
    }
    expect(s.sells().length).toBeLessThanOrEqual(1);
    expect(toDec(st.realizedPnl)).toBe(pnl);
  };

  const check = () => {
    const st = sim.state;
    const sum = summarizeClassicDca(st, sim.price || 1);
    if (sum.qty > 0) {
      expect(Math.abs(sum.dca! * sum.qty - sum.cost)).toBeLessThanOrEqual(1e-9 * sum.cost + 1e-12);
    }
    if (sim.pendingCancels.length === 0) expect(toDec(st.position.qty) + forgotten).toBe(sim.baseTotal());
    const lots = classicLots(st);
    expect(lots.length).toBeLessThanOrEqual(1);
    for (const lot of lots) {
      expect(lot.id).toBe(`b-c${st.cycle}`);
      expect(lot.qty).toBe(roundDownToStep(Number(st.position.qty), 0.0001));
      expect(Math.abs(lot.entryPrice * lot.qty - lot.cost)).toBeLessThanOrEqual(1e-9 * lot.cost + 1e-12);
      expect(lot.firstPrice).toBe(st.entry);
      expect(lot.tpPrice).toBeGreaterThan(0);
    }
    const idle =
      st.status === 'running' &&
      !st.lotBusy &&
      st.cycleOpen &&
      st.entry !== null &&
      sim.pendingCancels.length === 0 &&
      st.orders.every((o) => !o.cancelling && !o.market) &&
      !st.tpBlocked &&
      st.tpRetryAt === null;
    const amount = roundDownToStep(Number(st.position.qty), 0.0001);
    if (idle && amount > 0) {
      const cost = (toDec(st.position.quote) + toDec(st.position.fee)).toString();
      const costStr = (BigInt(cost) < 0n ? '-' : '') + fmt(BigInt(cost));
      const price = expectedTp(costStr, st.position.qty, sc.tpPct, 0.01);
      const tps = st.orders.filter((o) => o.role === 'take_profit');
      expect(tps.length).toBe(1);
      expect(tps[0]!.price).toBe(price);
      expect(tps[0]!.amount - tps[0]!.filled).toBeCloseTo(amount, 10);
      const sells = sim.sells();
      expect(sells.map((x) => x.clientOrderId)).toEqual([tps[0]!.clientOrderId]);
    }
  };

  let price: number = sc.startPrice;
  let ts = 1_000_000;
  sim.tick(price, ts);
  check();
  for (const a of sc.acts) {
    if (sim.state.status === 'stopped') break;
    switch (a.kind) {
      case 'move':
        price = Math.max(0.01, Number((price * (1 + (a.pct + sc.drift) / 100)).toFixed(2)));
        ts += a.dt;
        sim.tick(price, ts);
        if (sc.eagerAutoFund) {
          const lot = classicLots(sim.state)[0];
          if (lot && !lot.autoFund && lot.autoFundSteps === 0 && lot.busy === null)
            sim.act({
              type: 'action',
              name: LOT_ACTIONS.autoFund,
              params: { lotId: lot.id, enabled: true },
              ts,
            });
        }
        break;
      case 'add':
        sim.act({ type: 'action', name: 'add_funds', params: { amount: a.amount }, ts });
        break;
      case 'r':
        sim.act({ type: 'action', name: 'set_r', params: { enabled: a.enabled }, ts });
        break;
      case 'rOs':
        sim.act({ type: 'action', name: 'set_r_os', params: { enabled: a.enabled }, ts });
        break;
      case 'sl':
        sim.act({
          type: 'set_sl',
          sl: a.pct === null ? null : Number((price * (1 - a.pct / 100)).toFixed(2)),
          ts,
        });
        break;
      case 'tpPlus':
        sim.act({
          type: 'set_tp_plus',
          tpPlus: a.pct === null ? null : Number((price * (1 + (a.pct + sc.drift) / 100)).toFixed(2)),
          ts,
        });
        break;
      case 'stop':
        sim.act({ type: 'stop', mode: a.mode, ts });
        break;
      case 'lot': {
        const st = sim.state;
        const lotId = a.wrongId ? `b-c${st.cycle - 1}` : (classicLots(st)[0]?.id ?? `b-c${st.cycle}`);
        const params =
          a.action === 'addFunds'
            ? { lotId, amount: a.flag ? 20 : 50 }
            : a.action === 'autoFund'
              ? { lotId, enabled: a.flag || !st.autoFund }
              : { lotId };
        sim.act({ type: 'action', name: LOT_ACTIONS[a.action], params, ts });
        break;
      }
    }
    check();
  }
  sim.act({ type: 'stop', mode: 'close_market', ts: ts + 1 });
  for (let i = 0; i < 5 && sim.state.status !== 'stopped'; i++) {
    ts += 1000;
    sim.tick(price, ts);
    sim.settle();
  }
  expect(sim.state.status).toBe('stopped');
  expect(sim.book.size).toBe(0);
  if (sim.state.residual) expect(toDec(sim.state.residual.qty) + forgotten).toBe(sim.baseTotal());
}

function fmt(d: bigint): string {
  const a = d < 0n ? -d : d;
  const s = a.toString().padStart(19, '0');
  return `${s.slice(0, -18)}.${s.slice(-18)}`;
}

describe('classic DCA properties', () => {
  it('holds its invariants on random paths with fees, partial fills, races and user actions', () => {
    fc.assert(fc.property(scenarioArb, run), { numRuns: 500 });
    // Bounded by numRuns; the limit leaves room for a loaded CI machine.
  }, 120_000);
});
