/**
 * classicQuietBand: a tick strictly inside the band (before `until`) must do exactly what
 * stepClassicDca does: no command, and the state noteQuietTick writes on a copy (lastPrice, lastTs, the
 * forming candle's high / low / close). Checked on every state the simulator passes through, at prices
 * next to both edges of the band and inside it, at three times; samePersisted holds for such ticks.
 * With auto-fund turned on for each position (and sharp drops), a tick at the next step's trigger price
 * is never inside the band; pending-order sales and forgets are sent on some paths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUTO_FUND_STEP_PCT,
  LOT_ACTIONS,
  classicDca,
  classicLots,
  classicQuietBand,
  createClassicDca,
  noteQuietTickClassicDca,
  stepClassicDca,
  type ClassicDcaState,
} from '../../src/index';
import { candles, classicConfig } from './classic-helpers';
import { VenueSim } from './classic-sim';

const scenarioArb = fc.record({
  os: fc.integer({ min: 1, max: 5 }),
  sepPct: fc.constantFrom(0.5, 2),
  tpPct: fc.constantFrom(0.5, 2),
  r: fc.boolean(),
  rOs: fc.boolean(),
  trendFilter: fc.boolean(),
  smartAveraging: fc.boolean(),
  seed: fc.boolean(),
  budget: fc.constantFrom(150, 100_000),
  delayCancels: fc.boolean(),
  sl: fc.option(fc.constantFrom(80, 95)),
  tpPlus: fc.option(fc.constantFrom(104, 120)),
  moves: fc.array(
    fc.record({
      pct: fc.double({ min: -3, max: 3, noNaN: true }),
      dt: fc.integer({ min: 1000, max: 90_000 }),
      roll: fc.integer({ min: 0, max: 99 }),
      drop: fc.double({ min: 6, max: 16, noNaN: true }),
    }),
    { minLength: 1, maxLength: 60 },
  ),
  fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }),
  autoFund: fc.boolean(),
  /** Percent of moves that are a drop of 6-16 %. */
  drops: fc.constantFrom(0, 10),
  /** At this move (index) the position is sold or forgotten. */
  lotAction: fc.option(fc.record({ at: fc.integer({ min: 0, max: 59 }), sell: fc.boolean() })),
});

function candidates(low: number, high: number, fractions: number[]): number[] {
  const hi = Number.isFinite(high) ? high : Math.max(low * 4, 200);
  const eps = (x: number) => Math.max(Math.abs(x) * 1e-12, 1e-12);
  const out = [low + eps(low), hi - eps(hi)];
  for (const f of fractions) out.push(low + (hi - low) * f);
  return out.filter((p) => p > low && p < high && p > 0);
}

describe('classic DCA quiet band', () => {
  it('a tick inside the band only records itself', () => {
    let checked = 0;
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const config = classicConfig({
          os: sc.os,
          sepPct: sc.sepPct,
          tpPct: sc.tpPct,
          r: sc.r,
          rOs: sc.rOs,
          trendFilter: sc.trendFilter,
          smartAveraging: sc.smartAveraging,
          maPeriod: 3,
          sl: sc.sl,
          tpPlus: sc.tpPlus,
        });
        const seeded = sc.seed ? candles(5, (i) => 100 + i, 1_000_000) : [];
        const sim = new VenueSim<ClassicDcaState>(createClassicDca('b', config, seeded), stepClassicDca, {
          budget: sc.budget,
          feeRate: 0.001,
          amountStep: 0.0001,
          delayCancels: sc.delayCancels,
        });
        sim.onStep = (s) => {
          const state = s.state;
          const band = classicQuietBand(state);
          if (!band) return;
          const ts0 = state.lastTs ?? 0;
          if (state.status === 'running' && state.autoFund && state.entry !== null && !state.lotBusy) {
            const k = (state.autoFundSteps ?? 0) + 1;
            if (k <= 4)
              expect(band.low).toBeGreaterThanOrEqual(state.entry * (1 - (AUTO_FUND_STEP_PCT * k) / 100));
          }
          for (const price of candidates(band.low, band.high, sc.fractions)) {
            for (const t of [ts0, ts0 + 1000, band.until - 1]) {
              if (!Number.isFinite(t) || t >= band.until) continue;
              const { state: next, commands } = stepClassicDca(state, { type: 'tick', price, ts: t });
              expect(commands).toEqual([]);
              const copy = structuredClone(state);
              noteQuietTickClassicDca(copy, price, t);
              expect(next).toEqual(copy);
              expect(classicDca.samePersisted(state, next)).toBe(true);
              checked++;
            }
          }
        };
        let price = 100;
        let ts = 1_000_000;
        sim.tick(price, ts);
        for (const [i, m] of sc.moves.entries()) {
          if (sim.state.status === 'stopped') break;
          const pct = m.roll < sc.drops ? -m.drop : m.pct;
          price = Math.max(0.01, Number((price * (1 + pct / 100)).toFixed(2)));
          ts += m.dt;
          sim.tick(price, ts);
          const lot = classicLots(sim.state)[0];
          if (sc.autoFund && lot && !lot.autoFund && lot.autoFundSteps === 0 && lot.busy === null)
            sim.act({
              type: 'action',
              name: LOT_ACTIONS.autoFund,
              params: { lotId: lot.id, enabled: true },
              ts,
            });
          if (lot && sc.lotAction?.at === i) {
            const name = sc.lotAction.sell ? LOT_ACTIONS.sell : LOT_ACTIONS.forget;
            sim.act({ type: 'action', name, params: { lotId: lot.id }, ts });
          }
        }
      }),
      { numRuns: 200 },
    );
    expect(checked).toBeGreaterThan(100);
    // Bounded by numRuns (~3 s alone); the limit leaves room for a loaded CI machine.
  }, 120_000);
});
