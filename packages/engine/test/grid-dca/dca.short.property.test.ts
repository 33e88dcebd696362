/**
 * Property tests of the Grid Bot DCA SHORT (the mirror of dca.property.test.ts) over random price paths
 * against the simulator on derivatives semantics (a sell opens a short; reduceOnly is enforced). After
 * every event and tick: never more than N waiting sells, on the N lowest free ladder levels strictly
 * above the price (P0 × (1 + S)^k); every lot has one reduceOnly take-profit buy at entry × (1 − T)
 * rounded down; pnl_net = qty × (sell − buy) − fees exactly (the sell being the entry); the bot's books
 * agree with the venue's position; stops leave nothing on the venue; determinism.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createDcaBot,
  decMul,
  decToString,
  formatAmount,
  levelPrice,
  roundDownToStep,
  stepDca,
  toDec,
  LOT_ACTIONS,
  type ClosedTrade,
  type Dec,
  type DcaConfig,
  type StrategyCommand,
} from '../../src/index';
import { actionArb, type Action } from './actions';
import { DcaSim } from './dca-sim';
import { lotActionArb, lotEvent } from './grid-dca-lot-arb';

const PRICE_STEP = 0.01;

const scenarioArb = fc.record({
  cfg: fc.record({
    amount: fc.constantFrom(10, 20, 50, 100),
    tpPct: fc.constantFrom(0.5, 1, 1.5, 2, 3),
    sepPct: fc.constantFrom(0.5, 1, 2, 3),
    os: fc.integer({ min: 0, max: 6 }),
    amountStep: fc.constantFrom(0.0001, 0.001, 0.00001),
    minCost: fc.constantFrom(0, 5, 10),
    raEnabled: fc.boolean(),
  }),
  opts: fc.record({
    budget: fc.constantFrom(25, 60, 150, 1000, 100_000),
    feeRate: fc.constantFrom(0, 0.001, 0.002),
    fillsFirst: fc.boolean(),
    partialFills: fc.boolean(),
    delayCancels: fc.boolean(),
    duplicateEvents: fc.boolean(),
  }),
  startPrice: fc.constantFrom(0.5, 3.21, 100, 2500, 64_000),
  actions: fc.array(
    fc.oneof(
      {
        weight: 8,
        arbitrary: actionArb({ slTpPct: { min: 2, max: 30 }, withStop: false }) as fc.Arbitrary<
          Exclude<Action, { kind: 'stop' }>
        >,
      },
      { weight: 2, arbitrary: lotActionArb },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('move' as const),
          pct: fc.double({ min: -3, max: 12, noNaN: true }),
          dt: fc.integer({ min: 1000, max: 120_000 }),
        }),
      },
    ),
    { minLength: 1, maxLength: 120 },
  ),
  stop: fc.constantFrom('close_market' as const, 'cancel_only' as const, null),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function makeConfig(cfg: Scenario['cfg']): DcaConfig {
  return {
    symbol: 'BTC/USDT',
    amount: cfg.amount,
    tpPct: cfg.tpPct,
    sepPct: cfg.sepPct,
    os: cfg.os,
    direction: 'SHORT',
    derivatives: true,
    market: {
      amountStep: cfg.amountStep,
      priceStep: PRICE_STEP,
      minAmount: 0,
      minCost: cfg.minCost,
      takerFee: 0.001,
      makerFee: 0.001,
    },
    raEnabled: cfg.raEnabled,
  };
}

/** Independent SHORT take-profit price: floor(entry × (1000 − 10·T) / 1000 / step) steps, in integers. */
function expectedTp(entry: number, tpPct: number): number {
  const num = toDec(entry) * BigInt(1000 - Math.round(tpPct * 10));
  const unit = toDec(PRICE_STEP) * 1000n;
  return Number(decToString((num / unit) * toDec(PRICE_STEP)));
}

function onGrid(p: number): number {
  return Math.max(PRICE_STEP, roundDownToStep(p, PRICE_STEP));
}

const tradesOf = (cmds: StrategyCommand[]): ClosedTrade[] =>
  cmds.flatMap((c) => (c.type === 'record_trade' ? [c.trade] : []));

function run(s: Scenario, opts: { check: boolean; jsonRoundTrip?: boolean }): DcaSim {
  const config = makeConfig(s.cfg);
  const sim = new DcaSim('bot7', config, { ...s.opts, derivatives: true });
  const N = config.os;
  let forgotten: Dec = 0n;
  sim.onStep = (x, _event, commands) => {
    if (opts.jsonRoundTrip) x.state = JSON.parse(JSON.stringify(x.state));
    if (!opts.check) return;
    expect(x.state.waitingBuys.filter((w) => !w.cancelling).length).toBeLessThanOrEqual(N);
    // Take profits and closes are reduceOnly: the venue never refuses them for growing the position.
    expect(x.rejections.filter((r) => r.cmd.reduceOnly)).toEqual([]);
    for (const c of commands) {
      if (c.type === 'log' && c.code === 'lot_forgotten') forgotten += toDec(c.params.qty as number);
      if (c.type !== 'place_order') continue;
      // Entry, ladder and added funds sell; take profits and closes buy, reduceOnly.
      const exits = c.role === 'take_profit' || c.role === 'close';
      expect(c.side).toBe(exits ? 'buy' : 'sell');
      expect(c.reduceOnly ?? false).toBe(exits);
    }
  };

  let price = onGrid(s.startPrice);
  let ts = 1_700_000_000_000;
  sim.tick(price, ts);
  for (const a of s.actions) {
    if (sim.state.status === 'stopped') break;
    switch (a.kind) {
      case 'move':
        // Mirrored: the arbitraries fall more than they rise; a SHORT is tested on rises.
        price = onGrid(price * (1 - a.pct / 100));
        ts += a.dt;
        sim.tick(price, ts);
        if (opts.check) checkAfterTick(sim, config, forgotten);
        break;
      case 'relocate':
        sim.act({ type: 'relocate', ts });
        break;
      case 'ra':
        sim.act({ type: 'set_ra', enabled: a.enabled, ts });
        break;
      case 'sl':
        sim.act({
          type: 'set_sl',
          sl: a.pctBelow === null ? null : onGrid(price * (1 + a.pctBelow / 100)),
          ts,
        });
        break;
      case 'tpPlus':
        sim.act({
          type: 'set_tp_plus',
          tpPlus: a.pctAbove === null ? null : onGrid(price * (1 - a.pctAbove / 100)),
          ts,
        });
        break;
      case 'lot':
        if (a.op === 'auto' && sim.state.lots.length > 0 && sim.state.status === 'running')
          for (const l of sim.state.lots)
            sim.act({
              type: 'action',
              name: LOT_ACTIONS.autoFund,
              params: { lotId: l.id, enabled: true },
              ts,
            });
        else sim.act(lotEvent(sim.state, a, ts));
        break;
    }
  }
  if (s.stop && sim.state.status !== 'stopped') {
    sim.act({ type: 'stop', mode: s.stop, ts: ts + 1 });
    sim.tick(price, ts + 2);
  }
  sim.settle();
  if (opts.check) checkEnd(sim, config, s, forgotten);
  return sim;
}

function checkAfterTick(sim: DcaSim, config: DcaConfig, forgotten: Dec): void {
  const st = sim.state;
  const N = config.os;
  checkPosition(sim, forgotten);
  if (st.status !== 'running') return;
  // Every open lot has one take-profit buy at entry × (1 − T), rounded down (unless too small).
  expect(st.lotBuys ?? []).toEqual([]);
  const buys = sim.openBuys();
  for (const o of buys) expect(st.lots.some((l) => l.id === o.cmd.lotId)).toBe(true);
  for (const lot of st.lots) {
    const mine = buys.filter((o) => o.cmd.lotId === lot.id);
    if (lot.tp?.cancelling) {
      expect(mine.length).toBeLessThanOrEqual(1);
      continue;
    }
    if (lot.tpBlocked) {
      expect(mine.length).toBe(0);
      continue;
    }
    expect(mine.length).toBe(1);
    expect(mine[0]!.cmd.price).toBe(expectedTp(lot.buyPrice, config.tpPct));
    expect(mine[0]!.cmd.amount).toBe(lot.qty);
  }
  // Waiting sells on ladder levels strictly above the price, the N lowest free ones.
  const price = sim.price;
  const active = st.waitingBuys.filter((w) => !w.cancelling);
  const held = new Set(st.lots.filter((l) => l.epoch === st.epoch).map((l) => l.level));
  for (const w of st.waitingBuys) if (w.cancelling && w.epoch === st.epoch) held.add(w.level);
  let crossed = 0;
  for (const w of active) {
    expect(w.price).toBe(levelPrice(st, w.level));
    expect(sim.book.get(w.clientOrderId)?.cmd.side).toBe('sell');
    if (w.price <= price) {
      expect(w.filled).toBeGreaterThan(0);
      crossed += 1;
    }
    expect(held.has(w.level)).toBe(false);
  }
  const backingOff = st.buyRetryAt !== null && sim.ts < st.buyRetryAt;
  if (!backingOff && st.skippedLevels.length === 0) {
    const expected: number[] = [];
    let prev = 0;
    for (let k = 0; expected.length < N - crossed && k < 5000; k++) {
      const p = levelPrice(st, k);
      // Levels go up: P0 × (1 + S)^k, rounded up.
      if (k > 0) expect(p).toBeGreaterThanOrEqual(levelPrice(st, k - 1));
      if (p <= price || p <= prev) continue;
      prev = p;
      if (!held.has(k)) expected.push(k);
    }
    const above = active.filter((w) => w.price > price).map((w) => w.level);
    expect(above.sort((a, b) => a - b)).toEqual(expected);
  }
}

/** The venue's position = − open lots + what their buys bought back − partial sells − forgotten lots. */
function checkPosition(sim: DcaSim, forgotten: Dec): void {
  const st = sim.state;
  const part = (r: { filled: number } | null) => (r ? toDec(r.filled) : 0n);
  let expected: Dec = -forgotten;
  for (const l of st.lots) expected += -toDec(l.qty) + part(l.tp) + part(l.close);
  for (const w of st.waitingBuys) expected -= part(w);
  for (const b of st.lotBuys ?? []) expected -= part(b);
  expected -= part(st.entry);
  expect(decToString(sim.base)).toBe(decToString(expected));
}

function checkEnd(sim: DcaSim, config: DcaConfig, s: Scenario, forgotten: Dec): void {
  const st = sim.state;
  const trades = tradesOf(sim.commands);
  let sum: Dec = 0n;
  for (const t of trades) {
    const exact =
      decMul(toDec(t.qty), toDec(t.sellPrice) - toDec(t.buyPrice)) - toDec(t.buyFee) - toDec(t.sellFee);
    expect(t.pnlNet).toBe(Number(formatAmount(decToString(exact), 10)));
    // The sale (the entry) came first.
    expect(t.sellTime).toBeLessThanOrEqual(t.buyTime);
    sum += toDec(t.pnlNet);
  }
  expect(st.realizedPnl).toBe(decToString(sum));
  expect(st.closedTrades).toBe(trades.length);
  expect(new Set(sim.placedIds).size).toBe(sim.placedIds.length);
  checkPosition(sim, forgotten);
  if (st.status === 'stopped') {
    expect(sim.book.size).toBe(0);
    expect(sim.commands.filter((c) => c.type === 'stopped').length).toBe(1);
    if (st.stopMode === 'close_market') {
      for (const l of st.lots) {
        const cost = decMul(toDec(l.qty), toDec(st.lastPrice!));
        expect(cost < toDec(config.market.minCost)).toBe(true);
      }
    }
  } else if (s.stop) {
    throw new Error(`stop did not complete: ${st.status}`);
  }
}

describe('Grid Bot DCA SHORT properties (random price paths, derivatives simulator)', () => {
  it('keeps the mirrored ladder, take-profit, position and PnL invariants on every path', () => {
    let trades = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        trades += tradesOf(run(s, { check: true }).commands).length;
      }),
      { numRuns: 250 },
    );
    // Not vacuous: many lots were bought back.
    expect(trades).toBeGreaterThan(30);
  }, 120_000);

  it('is deterministic, also through a JSON round trip', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const a = run(s, { check: false });
        const c = run(s, { check: false, jsonRoundTrip: true });
        expect(c.commands).toEqual(a.commands);
        let state = createDcaBot('bot7', a.initialConfig);
        const out: StrategyCommand[] = [];
        for (const e of a.events) {
          const r = stepDca(state, e);
          state = r.state;
          out.push(...r.commands);
        }
        expect(out).toEqual(a.commands);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
