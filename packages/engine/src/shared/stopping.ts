/**
 * The parts of stopping that are the same for every strategy: stop prices (SL / TP+) hit by a tick,
 * set by the user, the move to 'stopping' and the final 'stopped'.
 */
import type { RejectReason, StopMode, StopReason, StrategyCommand } from '../strategy';
import { positive } from './checks';
import { log, type LogParams } from './logging';

interface StopState {
  status: string;
  stopMode: StopMode | null;
  stopReason: StopReason | null;
}

interface StopPrices {
  sl?: number | null;
  tpPlus?: number | null;
}

/** The reason a user's stop in `mode` records. */
export function userStopReason(mode: StopMode): StopReason {
  return mode === 'close_market' ? 'user_close_market' : 'user_cancel_only';
}

/** Status 'stopping' in `mode` for `reason`, logged; the caller cancels its orders. */
export function markStopping(
  cx: { cmds: StrategyCommand[]; s: StopState },
  mode: StopMode,
  reason: StopReason,
): void {
  const s = cx.s;
  s.status = 'stopping';
  s.stopMode = mode;
  s.stopReason = reason;
  log(cx, 'info', 'stopping', { mode, reason });
}

/** Status 'stopped' for `reason`, announced to the runner. */
export function markStopped(cx: { cmds: StrategyCommand[]; s: StopState }, reason: StopReason): void {
  const s = cx.s;
  s.status = 'stopped';
  s.stopReason = reason;
  cx.cmds.push({ type: 'stopped', reason });
}

/**
 * SL (price at or below) and TP+ (price at or above): logged, then `beginStop` sells at market and stops.
 * True when one was hit.
 */
export function checkStopPrices<C extends { cmds: StrategyCommand[]; s: { config: StopPrices } }>(
  cx: C,
  price: number,
  beginStop: (cx: C, mode: StopMode, reason: StopReason) => void,
): boolean {
  const { sl, tpPlus } = cx.s.config;
  if (sl !== null && sl !== undefined && price <= sl) {
    log(cx, 'warn', 'sl_hit', { price, sl });
    beginStop(cx, 'close_market', 'sl_hit');
    return true;
  }
  if (tpPlus !== null && tpPlus !== undefined && price >= tpPlus) {
    log(cx, 'info', 'tp_plus_hit', { price, tp_plus: tpPlus });
    beginStop(cx, 'close_market', 'tp_plus_hit');
    return true;
  }
  return false;
}

/** A user's new SL or TP+ (null clears it); false (and invalid_value logged) when it is not a positive price. */
export function setStopPrice<C extends StopPrices>(
  cx: { cmds: StrategyCommand[]; s: { config: C } },
  field: 'sl' | 'tpPlus',
  value: number | null,
): boolean {
  const name = field === 'sl' ? 'sl' : 'tp_plus';
  if (value !== null && !positive(value)) {
    log(cx, 'warn', 'invalid_value', { field: name });
    return false;
  }
  cx.s.config = { ...cx.s.config, [field]: value };
  log(cx, 'info', `${name}_set`, { [name]: value ?? '' });
  return true;
}

/** A user's stop: false (invalid_value logged) for an unknown mode, else `beginStop` for the user's reason. */
export function userStop<C extends { cmds: StrategyCommand[] }>(
  cx: C,
  mode: StopMode,
  beginStop: (cx: C, mode: StopMode, reason: StopReason) => void,
): boolean {
  if (mode !== 'close_market' && mode !== 'cancel_only') {
    log(cx, 'warn', 'invalid_value', { field: 'mode' });
    return false;
  }
  beginStop(cx, mode, userStopReason(mode));
  return true;
}

/**
 * The venue refused a market close of `s` (a classic position or a VNC): funds, minimum and precision
 * refusals will not change by retrying, so they end the attempts; an exchange error may be retried.
 */
export function closeRefused(
  cx: { cmds: StrategyCommand[] },
  s: { closeAttempts: number },
  reason: RejectReason,
  params: LogParams,
  maxAttempts: number,
): void {
  if (reason !== 'exchange_error' && reason !== 'unknown') s.closeAttempts = maxAttempts;
  log(cx, 'warn', 'close_failed', { ...params, attempt: s.closeAttempts, max_attempts: maxAttempts });
}
