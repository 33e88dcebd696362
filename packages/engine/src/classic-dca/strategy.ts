/**
 * Classic DCA bot (kind 'classic_dca') as a pure, deterministic state machine. See docs/engine.md,
 * section "Classic DCA bot (`/dashboard`)".
 *
 * One cycle: a market base order of A quote (once the trend filter allows it), then `os` safety limit
 * buys of A at entry × (1 − S)^k, and one take-profit limit sell of the whole position at the average
 * entry (fees included) × (1 + T). Every change of the average moves the take profit (cancel, then
 * place after the cancel is answered). The take-profit fill closes the cycle with one recorded trade.
 * The position is the bot's one pending order (`classicLots`): the LOT_ACTIONS add funds to it, sell it
 * at market, forget it, or turn its auto-fund (a buy at every further 10 % below the entry) on or off.
 */
import {
  AUTO_FUND_MAX_STEPS,
  AUTO_FUND_STEP_PCT,
  type QuietBand,
  type StepResult,
  type Strategy,
  type StrategyEvent,
} from '../strategy';
import { beginStep, endStep } from '../shared/context';
import { dispatchEvent, eventHandlers } from '../shared/dispatch';
import { setStopPrice, userStop } from '../shared/stopping';
import type { ClassicDcaConfig, ClassicDcaState } from './types';
import { createClassicDca } from './config';
import { reconcile } from './ladder';
import { onAction } from './lot-actions';
import { onCancelled, onFilled, onPartial, onRejected } from './order-events';
import type { Cx } from './orders';
import {
  classicLevelPrice,
  classicTakeProfit,
  findOrder,
  hasMarketBuy,
  safetyAt,
  tradableQty,
  trendCheck,
  unfilled,
} from './position';
import { beginStop, continueStop, onLiquidated } from './stopping';
import { classicLots } from './summary';
import { onTick } from './ticks';

// The public API of this kind (packages/engine/src/index.ts exports this file).
export {
  CLASSIC_DCA_DEFAULTS,
  TP_VNC_OPTIONS,
  CLASSIC_FIRST_BACKOFF_MS,
  CLASSIC_MAX_BACKOFF_MS,
  CLASSIC_TP_RETRY_MS,
  CLASSIC_MAX_CLOSE_ATTEMPTS,
  ClassicDcaConfigError,
  validateClassicDcaConfig,
  createClassicDca,
} from './config';
export {
  classicLevelPrice,
  classicMinViolation,
  classicAverage,
  classicTakeProfit,
  classicPositionId,
} from './position';
export { classicLots, summarizeClassicDca } from './summary';

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepClassicDca(state: ClassicDcaState, event: StrategyEvent): StepResult<ClassicDcaState> {
  const cx: Cx = beginStep(state, event);
  if (cx.s.status !== 'stopped' && dispatchEvent(cx, event, HANDLERS)) settle(cx);
  return endStep(cx);
}

/** After a handled event: restore the running invariant, or go on stopping. */
function settle(cx: Cx): void {
  if (cx.s.status === 'running') reconcile(cx);
  else if (cx.s.status === 'stopping') continueStop(cx);
}

/** Each handler returns false when the event changed nothing (unknown order, bad input); relocation
 *  and RA (Grid Bot DCA settings) change nothing here. */
const HANDLERS = eventHandlers<Cx, boolean>({
  tick: (cx, e) => onTick(cx, e.price),
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  setSl: (cx, e) => setStopPrice(cx, 'sl', e.sl),
  setTpPlus: (cx, e) => setStopPrice(cx, 'tpPlus', e.tpPlus),
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  action: (cx, e) => onAction(cx, e.name, e.params),
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  other: () => false,
});

// ---------------------------------------------------------------------------------------------------
// Strategy object, persistence, quiet ticks

/**
 * Whether `a` and `b` differ only in what a tick may change without being written (last price and time,
 * the forming candle's high / low / close). Nested values are copied on change, so they are compared by
 * reference: nothing is allocated.
 */
export function samePersistedClassicDca(a: ClassicDcaState, b: ClassicDcaState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.config === b.config &&
    a.cycle === b.cycle &&
    a.cycles === b.cycles &&
    a.cycleOpen === b.cycleOpen &&
    a.cycleStart === b.cycleStart &&
    a.entry === b.entry &&
    a.trendLogged === b.trendLogged &&
    a.position === b.position &&
    a.sales === b.sales &&
    a.orders === b.orders &&
    a.filledLevels === b.filledLevels &&
    a.safetyFills === b.safetyFills &&
    a.skippedLevels === b.skippedLevels &&
    a.buyRetryAt === b.buyRetryAt &&
    a.buyBackoffMs === b.buyBackoffMs &&
    a.tpRetryAt === b.tpRetryAt &&
    a.tpBlocked === b.tpBlocked &&
    a.closeAttempts === b.closeAttempts &&
    a.realizedPnl === b.realizedPnl &&
    a.stopMode === b.stopMode &&
    a.stopReason === b.stopReason &&
    a.residual === b.residual &&
    a.autoFund === b.autoFund &&
    a.autoFundSteps === b.autoFundSteps &&
    a.lotBusy === b.lotBusy &&
    a.candles === b.candles &&
    (a.forming === null ? null : a.forming.t) === (b.forming === null ? null : b.forming.t) &&
    (a.forming === null ? null : a.forming.o) === (b.forming === null ? null : b.forming.o)
  );
}

/**
 * Prices strictly inside (low, high) and times before `until` at which a tick only records itself
 * (lastPrice, lastTs, the forming candle's high / low / close). Conservative: null when unsure.
 */
export function classicQuietBand(state: ClassicDcaState): QuietBand | null {
  const s = state;
  if (s.status === 'stopped')
    return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  const f = s.forming;
  if (f === null || s.lastPrice === null) return null;
  let until = f.t + s.config.candleMs;
  if (s.status === 'stopping') return { low: 0, high: Number.POSITIVE_INFINITY, until };
  const c = s.config;
  let low = c.sl ?? 0;
  let high = c.tpPlus ?? Number.POSITIVE_INFINITY;
  const backoff = s.buyRetryAt !== null;
  if (s.buyRetryAt !== null) until = Math.min(until, s.buyRetryAt);
  if (!s.cycleOpen) {
    if (s.orders.length === 0) {
      if (s.cycles > 0 && !c.r) return null;
      if (tradableQty(s) > 0) return null;
      if (!backoff && !c.trendFilter) return null;
      if (!backoff) {
        const t = trendCheck(s).state;
        if (t === 'ok') return null;
        if (t === 'warming' && (s.trendLogged & 1) === 0) return null;
        if (t === 'wait' && (s.trendLogged & 2) === 0) return null;
      }
    }
  } else if (s.entry !== null) {
    // A user's sale or forget: ticks only wait for its orders (no buys, no TP, no auto-fund).
    if (s.lotBusy) return low < high && s.lastPrice > 0 ? { low, high, until } : null;
    const steps = s.autoFundSteps ?? 0;
    if (s.autoFund && steps < AUTO_FUND_MAX_STEPS) {
      // The next auto-fund step's trigger, nudged up so the band never holds an exact trigger price.
      const trigger = s.entry * (1 - (AUTO_FUND_STEP_PCT * (steps + 1)) / 100);
      low = Math.max(low, trigger * (1 + 1e-9));
    }
    for (let k = 1; k <= c.os; k++) {
      if (safetyAt(s, k) || s.skippedLevels.includes(k)) continue;
      if (s.filledLevels.includes(k)) {
        if (c.rOs && !backoff) high = Math.min(high, classicLevelPrice(c, s.entry, k));
        continue;
      }
      if (!backoff) return null;
    }
    if (!hasMarketBuy(s)) {
      const tp = findOrder(s, 'take_profit');
      const desired = classicTakeProfit(s);
      if (tp) {
        if (!tp.cancelling) {
          const remaining = unfilled(tp);
          if (!desired || tp.price !== desired.price || remaining !== desired.amount) return null;
        }
      } else if (desired && !s.tpBlocked && !findOrder(s, 'close')) {
        if (s.tpRetryAt === null) return null;
        until = Math.min(until, s.tpRetryAt);
      }
    }
  }
  return low < high && s.lastPrice > 0 ? { low, high, until } : null;
}

/** Writes a quiet tick in place: what stepClassicDca changes for a tick inside the quiet band. */
export function noteQuietTickClassicDca(s: ClassicDcaState, price: number, ts: number): void {
  if (s.status === 'stopped') return;
  s.lastPrice = price;
  s.lastTs = ts;
  const f = s.forming;
  if (f) {
    if (price > f.h) f.h = price;
    if (price < f.l) f.l = price;
    f.c = price;
  }
}

/** The classic DCA bot as a `Strategy` (bots.kind 'classic_dca'). */
export const classicDca: Strategy<ClassicDcaState, ClassicDcaConfig> = {
  kind: 'classic_dca',
  create: (botId, config) => createClassicDca(botId, config),
  step: stepClassicDca,
  samePersisted: samePersistedClassicDca,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: classicQuietBand,
  noteQuietTick: noteQuietTickClassicDca,
  lots: classicLots,
};
