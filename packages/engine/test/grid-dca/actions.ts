import fc from 'fast-check';

/** A user action or price move fed to the property tests' simulated bots. */
export type Action =
  | { kind: 'move'; pct: number; dt: number }
  | { kind: 'relocate' }
  | { kind: 'ra'; enabled: boolean }
  | { kind: 'sl'; pctBelow: number | null }
  | { kind: 'tpPlus'; pctAbove: number | null }
  | { kind: 'stop'; mode: 'close_market' | 'cancel_only' };

/**
 * Random actions: mostly price moves of up to ±4% a step, now and then a relocate, an RA toggle, an SL
 * or TP+ set `slTpPct` percent away (or cleared), and, with `withStop`, a user stop.
 */
export function actionArb(opts: { slTpPct: { min: number; max: number }; withStop: boolean }) {
  const pctAway: fc.Arbitrary<number | null> = fc.option(
    fc.integer({ min: opts.slTpPct.min, max: opts.slTpPct.max }),
  );
  const choices: fc.WeightedArbitrary<Action>[] = [
    {
      weight: 30,
      arbitrary: fc.record({
        kind: fc.constant('move' as const),
        pct: fc.double({ min: -4, max: 4, noNaN: true }),
        dt: fc.integer({ min: 1000, max: 120_000 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('relocate' as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('ra' as const), enabled: fc.boolean() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('sl' as const),
        pctBelow: pctAway,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('tpPlus' as const),
        pctAbove: pctAway,
      }),
    },
  ];
  if (opts.withStop) {
    choices.push({
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('stop' as const),
        mode: fc.constantFrom('close_market' as const, 'cancel_only' as const),
      }),
    });
  }
  return fc.oneof(...choices);
}
