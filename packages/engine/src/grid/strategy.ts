/**
 * The Grid bot (issue 14 §3) as a pure, deterministic state machine.
 *
 * Levels L_0 < L_1 < … < L_{n−1}: low × (1 + step)^i while ≤ high, rounded to the price step. Slot i is
 * the interval [L_i, L_{i+1}]; it holds one order at a time and trades qty_i = amountPerLevel / L_i base:
 * a buy at L_i and a sell at L_{i+1}, one after the other. The first tick leaves the level nearest to
 * the price empty: slots below it start with a buy at their lower level, slots above with a sell at
 * their upper level. Every fill places the opposite order of its slot one level away; the fill that
 * closes a slot's round records it as a trade (profit ≈ amountPerLevel × (step − 2 × fee)).
 *
 * - `long`: the base of the sell slots is bought at market at start (grid_init); every slot opens with
 *   a buy. `short` (derivatives): the mirror, a market sell opens the short of the buy slots; every slot
 *   opens with a sell. `neutral` (derivatives): nothing at start; slots below open with buys, above
 *   with sells.
 * - Out of range the orders stay and the bot waits; `grid_out_of_range` / `grid_back_in_range` are
 *   logged once per crossing.
 * See docs/bots/grid.md for every decision.
 */
import type { QuietBand, StepResult, Strategy, StrategyEvent } from '../strategy';
import { beginStep, endStep, noteQuietTick } from '../shared/context';
import { dispatchEvent, eventHandlers, refuseEvent } from '../shared/dispatch';
import { userStop } from '../shared/stopping';
import type { GridConfig, GridState } from './types';
import { createGridBot } from './config';
import type { Cx } from './context';
import { onCancelled, onFilled, onPartial, onRejected } from './order-events';
import { onTick } from './slots';
import { beginStop, onLiquidated } from './stopping';

// The public API of this kind (packages/engine/src/index.ts exports this file).
export {
  GRID_MAX_LEVELS,
  gridLevelPrices,
  nearestLevel,
  gridLevels,
  gridSlotQty,
  gridMinViolation,
} from './levels';
export {
  GRID_RETRY_MS,
  GRID_FIRST_BACKOFF_MS,
  GRID_MAX_BACKOFF_MS,
  GRID_MAX_CLOSE_ATTEMPTS,
  GridConfigError,
  validateGridConfig,
  createGridBot,
  gridSummary,
} from './config';

// ---------------------------------------------------------------------------------------------------
// The step function

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepGrid(state: GridState, event: StrategyEvent): StepResult<GridState> {
  const cx = beginStep(state, event);
  if (cx.s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  return endStep(cx);
}

/** The Grid bot takes no action nor DCA setting: those log invalid_value. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price),
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  other: refuseEvent,
});

// ---------------------------------------------------------------------------------------------------
// The Strategy

/** Whether `a` and `b` differ only in the last price and time (copy-on-write keeps unchanged parts shared). */
export function samePersistedGrid(a: GridState, b: GridState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.slots === b.slots &&
    a.inRange === b.inRange &&
    a.init === b.init &&
    a.close === b.close &&
    a.profitBuy === b.profitBuy &&
    a.realizedPnl === b.realizedPnl &&
    a.profitQuote === b.profitQuote &&
    a.profitBase === b.profitBase &&
    a.closeAttempts === b.closeAttempts &&
    a.initRetryAt === b.initRetryAt &&
    a.emptyLevel === b.emptyLevel
  );
}

/**
 * Prices strictly inside which a tick does nothing but record itself: a running grid with every slot
 * on the venue (or blocked) reacts to ticks only by crossing the range edges. Null while a slot waits
 * for a retry or for the price.
 */
export function gridQuietBand(s: GridState): QuietBand | null {
  if (s.status === 'stopped' || s.status === 'stopping')
    return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  if (s.status === 'starting') {
    if (s.init !== null) return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
    return null;
  }
  if (s.inRange === null || s.lastPrice === null || s.levels.length === 0) return null;
  const slots = s.slots;
  for (let i = 0; i < slots.length; i++) {
    const sl = slots[i]!;
    if (!sl.order && !sl.blocked) return null;
  }
  const low = s.levels[0]!;
  const high = s.levels[s.levels.length - 1]!;
  if (s.inRange) return low < high ? { low, high, until: Number.POSITIVE_INFINITY } : null;
  if (s.lastPrice > high)
    return { low: high, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  return { low: 0, high: low, until: Number.POSITIVE_INFINITY };
}

/** The Grid bot as a `Strategy` (bots.kind 'grid'). */
export const gridBot: Strategy<GridState, GridConfig> = {
  kind: 'grid',
  create: createGridBot,
  step: stepGrid,
  samePersisted: samePersistedGrid,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: gridQuietBand,
  noteQuietTick: noteQuietTick,
};
