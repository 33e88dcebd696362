/**
 * Grid Bot DCA: what one step works on (Cx), its copy-on-write of the nested orders and lots, order ids
 * and refs, the event log, and the buy back-off.
 */
import { decMul, decToString, formatAmount, toDec } from '../money';
import type { DcaOrderRef, DcaState } from './types';
import type { LogCode, OrderRole, StrategyCommand } from '../strategy';
import { DCA_FIRST_BACKOFF_MS, DCA_MAX_BACKOFF_MS } from './config';

export interface Cx {
  s: DcaState;
  cmds: StrategyCommand[];
  /** Places are collected and emitted after cancels so funds are freed first. */
  places: StrategyCommand[];
  ts: number;
  /** Whether the nested lots and orders of `s` are already this step's own copies. */
  owned: boolean;
  /** Whether the waiting buys and skipped levels are (ownBuys; `owned` implies it). */
  ownedBuys: boolean;
}

function cloneRef<T extends DcaOrderRef>(r: T | null): T | null {
  return r ? { ...r } : null;
}

/**
 * Copy-on-write: a step starts from a shallow copy of the state (top-level fields may be assigned);
 * `own(cx)` deep-copies the nested orders and lots before the first change to them, so a tick that
 * changes no order allocates almost nothing and the input state is never mutated.
 */
export function own(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  const s = cx.s;
  s.entry = cloneRef(s.entry);
  s.lots = s.lots.map((l) => ({ ...l, tp: cloneRef(l.tp), close: cloneRef(l.close) }));
  ownBuys(cx);
  if (s.lotBuys) s.lotBuys = s.lotBuys.map((b) => ({ ...b }));
}

/**
 * Copies only the waiting buys and skipped levels (what placing, cancelling or losing a ladder buy
 * changes): a bot holding many lots must not copy them all for each ladder order (own copies the rest
 * later if the step changes more).
 */
export function ownBuys(cx: Cx): void {
  if (cx.ownedBuys) return;
  cx.ownedBuys = true;
  const s = cx.s;
  s.waitingBuys = s.waitingBuys.map((w) => ({ ...w }));
  s.skippedLevels = [...s.skippedLevels];
}

export function nextId(s: DcaState): string {
  const id = `${s.botId}-${s.seq}`;
  s.seq += 1;
  return id;
}

export function log(
  cx: Cx,
  level: 'info' | 'warn',
  code: LogCode,
  params: Record<string, string | number> = {},
): void {
  cx.cmds.push({ type: 'log', level, code, params });
}

export function newRef(clientOrderId: string, price: number, amount: number): DcaOrderRef {
  return { clientOrderId, price, amount, filled: 0, avgPrice: 0, fee: 0, cancelling: false };
}

export function backoffOver(s: DcaState, ts: number): boolean {
  return s.buyRetryAt === null || ts >= s.buyRetryAt;
}

export function logBelowMin(
  cx: Cx,
  role: OrderRole,
  violation: string,
  amount: number,
  price: number,
  extra: Record<string, string | number> = {},
): void {
  const m = cx.s.config.market;
  log(cx, 'warn', 'below_min_cost', {
    role,
    reason: violation,
    amount,
    price,
    cost: formatAmount(decToString(decMul(toDec(amount), toDec(price)))),
    min_cost: m.minCost,
    min_amount: m.minAmount,
    symbol: cx.s.config.symbol,
    ...extra,
  });
}

export function bumpBackoff(s: DcaState, ts: number): void {
  // Rejections of orders sent before the pause started do not lengthen it again.
  if (s.buyRetryAt !== null && ts < s.buyRetryAt) return;
  s.buyBackoffMs =
    s.buyBackoffMs > 0 ? Math.min(DCA_MAX_BACKOFF_MS, s.buyBackoffMs * 2) : DCA_FIRST_BACKOFF_MS;
  s.buyRetryAt = ts + s.buyBackoffMs;
}

/** Funds were freed (a sell filled): buys may be tried again at once. */
export function resetBackoff(s: DcaState): void {
  s.buyBackoffMs = 0;
  s.buyRetryAt = null;
}
