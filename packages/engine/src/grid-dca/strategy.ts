/**
 * Grid Bot DCA (DESIGN.md §6) as a pure, deterministic state machine.
 *
 * Levels L_k = P0 × (1 − S)^k, k = 0, 1, 2, … (P0 = anchor). The first tick anchors the ladder and sends a
 * market buy of A (the level-0 lot). Every lot gets its own take-profit limit sell at fill price × (1 + T).
 * After every event the waiting limit buys of A sit on the N highest levels strictly below the price that
 * hold no open lot. SHORT (derivatives) mirrors every rule: levels P0 × (1 + S)^k, an entry market sell,
 * waiting sells above the price, take-profit buys at fill × (1 − T). See docs/engine.md for every
 * decision the design leaves open.
 */
import type { DcaConfig, DcaLot, DcaState } from './types';
import type { StepResult, Strategy, StrategyEvent } from '../strategy';
import { dispatchEvent, eventHandlers } from '../shared/dispatch';
import { createDcaBot, positive } from './config';
import { type Cx, log } from './context';
import { onAction, refuseWhenStopped } from './lot-actions';
import { onCancelled, onFilled, onPartial, onRejected } from './order-events';
import { quietBand } from './quiet-band';
import { relocate } from './rebalance';
import { beginStop, onLiquidated } from './stopping';
import { dcaLots } from './summary';
import { onTick } from './ticks';

// The public API of this kind (packages/engine/src/index.ts exports this file).
export {
  DCA_MAX_OPEN_ORDERS,
  DCA_FIRST_BACKOFF_MS,
  DCA_MAX_BACKOFF_MS,
  DCA_TP_RETRY_MS,
  DCA_MAX_CLOSE_ATTEMPTS,
  DCA_RANGE_LOG_INTERVAL_MS,
  PNL_DECIMALS,
  DcaConfigError,
  validateDcaConfig,
  createDcaBot,
} from './config';
export {
  rangeLow,
  rangeHigh,
  inRange,
  levelPrice,
  takeProfitPrice,
  buyAmountAt,
  minimumViolation,
  tradePnl,
  autoFundTrigger,
} from './ladder';
export { summarizeDca, dcaLots } from './summary';
export { quietBand, isQuietTick, quietTick } from './quiet-band';
export type { DcaQuietBand } from './quiet-band';

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepDca(state: DcaState, event: StrategyEvent): StepResult<DcaState> {
  const s: DcaState = { ...state };
  const ts = 'ts' in event && typeof event.ts === 'number' ? event.ts : (s.lastTs ?? 0);
  const cx: Cx = { s, cmds: [], places: [], ts, owned: false, ownedBuys: false };
  if (s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  else if (event.type === 'action') refuseWhenStopped(cx, event);
  const commands = cx.places.length === 0 ? cx.cmds : cx.cmds.concat(cx.places);
  return { state: s, commands };
}

/** The Grid Bot DCA takes every event. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price),
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  relocate: (cx) => relocate(cx, 'relocated'),
  setSl: (cx, e) => {
    if (e.sl !== null && !positive(e.sl)) return log(cx, 'warn', 'invalid_value', { field: 'sl' });
    cx.s.config = { ...cx.s.config, sl: e.sl };
    log(cx, 'info', 'sl_set', { sl: e.sl ?? '' });
  },
  setTpPlus: (cx, e) => {
    if (e.tpPlus !== null && !positive(e.tpPlus))
      return log(cx, 'warn', 'invalid_value', { field: 'tp_plus' });
    cx.s.config = { ...cx.s.config, tpPlus: e.tpPlus };
    log(cx, 'info', 'tp_plus_set', { tp_plus: e.tpPlus ?? '' });
  },
  setRa: (cx, e) => {
    cx.s.config = { ...cx.s.config, raEnabled: Boolean(e.enabled) };
    log(cx, 'info', 'ra_set', { enabled: cx.s.config.raEnabled ? 1 : 0 });
  },
  stop: (cx, mode) => beginStop(cx, mode, mode === 'close_market' ? 'user_close_market' : 'user_cancel_only'),
  action: onAction,
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  // Every event has its handler above.
  other: () => undefined,
});

/** The Grid Bot DCA as a `Strategy` (bots.kind 'dca'). */
export const gridBotDca: Strategy<DcaState, DcaConfig> = {
  kind: 'dca',
  create: createDcaBot,
  step: stepDca,
  samePersisted: samePersistedDca,
  realizedPnl: (s) => s.realizedPnl,
  lots: dcaLots,
  quietBand: (s) => quietBand(s),
  noteQuietTick(s, price, ts) {
    if (s.status === 'stopped') return;
    s.lastPrice = price;
    s.lastTs = ts;
  },
};

/**
 * Whether `a` and `b` differ only in what a tick may change without being written (the last price,
 * the ladder position). Compared field by field: it runs on ticks, so it allocates nothing.
 */
export function samePersistedDca(a: DcaState, b: DcaState): boolean {
  return (
    a.status === b.status &&
    a.anchor === b.anchor &&
    a.epoch === b.epoch &&
    a.seq === b.seq &&
    a.inRange === b.inRange &&
    a.buyRetryAt === b.buyRetryAt &&
    a.buyBackoffMs === b.buyBackoffMs &&
    a.lots.length === b.lots.length &&
    a.waitingBuys.length === b.waitingBuys.length &&
    a.skippedLevels.length === b.skippedLevels.length &&
    a.realizedPnl === b.realizedPnl &&
    a.closePhase === b.closePhase &&
    a.lastRangeLogTs === b.lastRangeLogTs &&
    (a.entry?.clientOrderId ?? '') === (b.entry?.clientOrderId ?? '') &&
    (a.lotBuys?.length ?? 0) === (b.lotBuys?.length ?? 0) &&
    sameAutoFund(a.lots, b.lots)
  );
}

/** Lots of equal count whose auto-fund flags and steps (what a tick may change in a lot) are the same. */
function sameAutoFund(a: DcaLot[], b: DcaLot[]): boolean {
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ((x.autoFundSteps ?? 0) !== (y.autoFundSteps ?? 0) || (x.autoFund ?? false) !== (y.autoFund ?? false))
      return false;
  }
  return true;
}
