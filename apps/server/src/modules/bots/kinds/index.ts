import type { BacktestKind } from '@bytx/contract';
import { manualOrder } from '@bytx/engine';
import type { AnyStrategy, KindRegistry } from '../runner/types';
import { arbitrageKind } from './arbitrage/kind';
import { classicDcaKind } from './classic-dca/kind';
import { gridDcaKind } from './grid-dca/kind';
import { gridKind } from './grid/kind';
import { signalKind } from './signal/kind';
import type { BacktestAdapter, BotKindModule, KindFigures } from './types';

/**
 * Every bot kind, one line each (docs/bots/adding-a-kind.md). The runner's strategies, the kinds'
 * routes, the figures of the shared lists and the backtest's kinds are derived from this list.
 */
export const botKindModules: readonly BotKindModule[] = [
  gridDcaKind,
  classicDcaKind,
  gridKind,
  arbitrageKind,
  signalKind,
];

/**
 * Strategies the runner runs that are not a bot kind: the spot and futures screens' manual orders
 * (modules/trading), run as bots of kind 'manual' by the same runner.
 */
const runnerOnly: readonly AnyStrategy[] = [manualOrder];

/** The runner's strategies by `bots.kind` (RunnerDeps.kinds): every kind's, its leftovers', the runner-only ones. */
export function runnerKinds(kinds: readonly BotKindModule[] = botKindModules): KindRegistry {
  const map = new Map<string, AnyStrategy>();
  const add = (id: string, s: AnyStrategy) => {
    if (map.has(id)) throw new Error(`bot kind '${id}' is listed twice`);
    if (s.kind !== id) throw new Error(`bot kind '${id}' runs the strategy of kind '${s.kind}'`);
    map.set(id, s);
  };
  for (const k of kinds) {
    add(k.id, k.strategy);
    for (const l of k.leftovers ?? []) add(l.id, l.strategy);
  }
  for (const s of runnerOnly) add(s.kind, s);
  return map;
}

/** Every kind's bots as the runner knows them (what `new BotRunner` gets in the app). */
export const botKinds: KindRegistry = runnerKinds();

/** The figures of each kind's bots in the shared lists, and which kinds are leftovers (not counted). */
export function kindFigures(
  kinds: readonly BotKindModule[] = botKindModules,
): Map<string, KindFigures & { leftover?: boolean }> {
  const map = new Map<string, KindFigures & { leftover?: boolean }>();
  for (const k of kinds) {
    map.set(k.id, k.figures);
    for (const l of k.leftovers ?? []) map.set(l.id, { ...l.figures, leftover: true });
  }
  return map;
}

/** The backtest of each backtest kind (the contract's `BACKTEST_KINDS`), with the strategy it runs. */
export function backtestKinds(
  kinds: readonly BotKindModule[] = botKindModules,
): Map<BacktestKind, BacktestAdapter & { strategy: AnyStrategy }> {
  const map = new Map<BacktestKind, BacktestAdapter & { strategy: AnyStrategy }>();
  for (const k of kinds) {
    if (!k.backtest) continue;
    if (map.has(k.backtest.kind)) throw new Error(`backtest kind '${k.backtest.kind}' is listed twice`);
    map.set(k.backtest.kind, { ...k.backtest, strategy: k.strategy });
  }
  return map;
}

export type { BacktestAdapter, BacktestPlan, BotKindModule, KindFigures, LeftoverKind } from './types';
