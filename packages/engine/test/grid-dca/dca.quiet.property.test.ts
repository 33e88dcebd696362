/**
 * quietBand: a tick strictly inside the band (and before `until`) must do exactly what stepDca does:
 * no command, and a state that differs only in lastPrice / lastTs. Checked against stepDca on every
 * state the simulator passes through (random configs, price paths, user actions, fills, rejections),
 * at prices next to both edges of the band and at random prices inside it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  gridBotDca,
  isQuietTick,
  LOT_ACTIONS,
  quietBand,
  quietTick,
  roundDownToStep,
  stepDca,
  type DcaConfig,
  type DcaState,
} from '../../src/index';
import { actionArb } from './actions';
import { paperBot } from './helpers';
import { DcaSim } from './dca-sim';
import { lotActionArb, lotEvent } from './grid-dca-lot-arb';

const STEP = 0.01;
const onGrid = (p: number) => Math.max(STEP, roundDownToStep(p, STEP));

// Now and then the user acts on an open lot (add funds, sell, forget, auto-fund), and a move may fall
// up to 12 % (auto-fund steps are 10 % apart).
const actions = fc.oneof(
  { weight: 6, arbitrary: actionArb({ slTpPct: { min: 1, max: 20 }, withStop: true }) },
  { weight: 1, arbitrary: lotActionArb },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      pct: fc.double({ min: -12, max: 4, noNaN: true }),
      dt: fc.integer({ min: 1000, max: 120_000 }),
    }),
  },
);

const scenarioArb = fc.record({
  amount: fc.constantFrom(10, 20, 100),
  tpPct: fc.constantFrom(0.5, 1, 3),
  sepPct: fc.constantFrom(0.5, 1, 3),
  os: fc.integer({ min: 0, max: 6 }),
  minCost: fc.constantFrom(0, 5, 10),
  raEnabled: fc.boolean(),
  budget: fc.constantFrom(25, 150, 100_000),
  fillsFirst: fc.boolean(),
  partialFills: fc.boolean(),
  delayCancels: fc.boolean(),
  startPrice: fc.constantFrom(0.5, 3.21, 100, 64_000),
  actions: fc.array(actions, { minLength: 1, maxLength: 80 }),
  fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }),
  /** Turn auto-fund on for every lot as soon as it is open. */
  autoFundAll: fc.boolean(),
  /** A SHORT bot on derivatives (price moves, SL and TP+ mirrored). */
  short: fc.boolean(),
});

/** Prices to try inside (low, high): next to each edge and a few inside. */
function candidates(low: number, high: number, fractions: number[]): number[] {
  const out: number[] = [];
  const hi = Number.isFinite(high) ? high : Math.max(low * 4, 1);
  const eps = (x: number) => Math.max(Math.abs(x) * 1e-12, 1e-300);
  out.push(low + eps(low), hi - eps(hi), onGrid(low + STEP), onGrid(hi - STEP));
  for (const f of fractions) out.push(low + (hi - low) * f);
  return out.filter((p) => p > low && p < high && p > 0);
}

function checkState(state: DcaState, ts: number, fractions: number[]): number {
  const band = quietBand(state);
  if (!band) return 0;
  let checked = 0;
  for (const price of candidates(band.low, band.high, fractions)) {
    for (const t of [ts, ts + 1000, band.until - 1]) {
      if (!Number.isFinite(t) || !isQuietTick(band, price, t)) continue;
      const { state: next, commands } = stepDca(state, { type: 'tick', price, ts: t });
      expect(commands, `price ${price} in (${band.low}, ${band.high})`).toEqual([]);
      expect(next).toEqual(quietTick(state, price, t));
      expect(gridBotDca.samePersisted(next, state)).toBe(true);
      // The band does not move with a quiet tick.
      expect(quietBand(next)).toEqual(band);
      checked++;
    }
  }
  return checked;
}

describe('quietBand (property)', () => {
  it('a tick inside the quiet band is exactly what stepDca does with it', () => {
    let checked = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const config: DcaConfig = {
          symbol: 'BTC/USDT',
          amount: s.amount,
          tpPct: s.tpPct,
          sepPct: s.sepPct,
          os: s.os,
          direction: s.short ? 'SHORT' : 'LONG',
          ...(s.short ? { derivatives: true } : {}),
          market: {
            amountStep: 0.0001,
            priceStep: STEP,
            minAmount: 0,
            minCost: s.minCost,
            takerFee: 0.001,
            makerFee: 0.001,
          },
          raEnabled: s.raEnabled,
        };
        const sim = new DcaSim('bot9', config, {
          budget: s.budget,
          feeRate: 0.001,
          fillsFirst: s.fillsFirst,
          partialFills: s.partialFills,
          delayCancels: s.delayCancels,
          duplicateEvents: false,
          derivatives: s.short,
        });
        // SHORT: moves mirrored (falls become rises, so auto-fund steps trigger), SL above, TP+ below.
        const dir = s.short ? -1 : 1;
        let ts = 1_700_000_000_000;
        sim.onStep = (x) => {
          checked += checkState(x.state, ts, s.fractions);
        };
        let price = onGrid(s.startPrice);
        checked += checkState(sim.state, ts, s.fractions);
        sim.tick(price, ts);
        for (const a of s.actions) {
          if (sim.state.status === 'stopped') break;
          if (a.kind === 'move') {
            price = onGrid(price * (1 + (dir * a.pct) / 100));
            ts += a.dt;
            sim.tick(price, ts);
            if (s.autoFundAll) {
              for (const l of sim.state.lots)
                if (!l.autoFund && sim.state.status === 'running')
                  sim.act({
                    type: 'action',
                    name: LOT_ACTIONS.autoFund,
                    params: { lotId: l.id, enabled: true },
                    ts,
                  });
            }
          } else if (a.kind === 'lot') sim.act(lotEvent(sim.state, a, ts));
          else if (a.kind === 'relocate') sim.act({ type: 'relocate', ts });
          else if (a.kind === 'ra') sim.act({ type: 'set_ra', enabled: a.enabled, ts });
          else if (a.kind === 'sl')
            sim.act({
              type: 'set_sl',
              sl: a.pctBelow === null ? null : onGrid(price * (1 - (dir * a.pctBelow) / 100)),
              ts,
            });
          else if (a.kind === 'tpPlus')
            sim.act({
              type: 'set_tp_plus',
              tpPlus: a.pctAbove === null ? null : onGrid(price * (1 + (dir * a.pctAbove) / 100)),
              ts,
            });
          else sim.act({ type: 'stop', mode: a.mode, ts });
        }
      }),
      { numRuns: 300 },
    );
    // The property is not vacuous: many quiet ticks were compared.
    expect(checked).toBeGreaterThan(1000);
  }, 120_000);

  it('has no band before the first price; the bands of a fresh ladder', () => {
    // The spec's defaults (TP 1%, separation 1%, 3 OS, 20 USDT a buy, price step 0.01).
    const sim = paperBot();
    expect(quietBand(sim.state)).toBeNull();
    sim.tick(100, 1000);
    const band = quietBand(sim.state)!;
    // Running, level 0 = the anchor 100 (held by the entry lot), buys at 99, 98.01, 97.02. Nothing a
    // tick can do changes the ladder anywhere in the range [P0 × (1 − S)^N, P0 × (1 + T)] = [97.0299,
    // 101]: above 99 the only level above the buys is held, and a buy at or above the price is crossed
    // (the venue is filling it; its fill is an order event, not a tick). Crossing the anchor or a buy
    // changes nothing until that fill arrives.
    expect(band.low).toBeCloseTo(97.0299, 10);
    expect(band.high).toBeCloseTo(101, 10);
    expect(isQuietTick(band, 99.5, 2000)).toBe(true);
    expect(isQuietTick(band, 100.5, 2000)).toBe(true);
    expect(isQuietTick(band, 99, 2000)).toBe(true);
    expect(isQuietTick(band, 97, 2000)).toBe(false);
    expect(isQuietTick(band, 101.5, 2000)).toBe(false);
    sim.tick(100.5, 3000);
    expect(quietBand(sim.state)).toEqual(band);
    // The buy at 99 fills: its lot holds level 1 and takes profit at 99.99, and level 4 (96.05) is
    // armed. The range is the same (same anchor), and so is the band.
    sim.tick(98.5, 4000);
    expect(sim.state.waitingBuys.map((w) => [w.level, w.price])).toEqual([
      [2, 98.01],
      [3, 97.02],
      [4, 96.05],
    ]);
    expect(quietBand(sim.state)).toEqual(band);
    // Out of the range below, the band ends at the range's lower edge: back in range is logged.
    sim.tick(96.5, 5000);
    const below = quietBand(sim.state)!;
    expect(below.high).toBeCloseTo(97.0299, 10);
    expect(isQuietTick(below, 96.8, 6000)).toBe(true);
    expect(isQuietTick(below, 97.5, 6000)).toBe(false);
  });
});
