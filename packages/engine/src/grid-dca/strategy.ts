/**
 * Grid Bot DCA (DESIGN.md §6) as a pure, deterministic state machine.
 *
 * Levels L_k = P0 × (1 − S)^k, k = 0, 1, 2, … (P0 = anchor). The first tick anchors the ladder and sends a
 * market buy of A (the level-0 lot). Every lot gets its own take-profit limit sell at fill price × (1 + T).
 * After every event the waiting limit buys of A sit on the N highest levels strictly below the price that
 * hold no open lot. SHORT (derivatives) mirrors every rule: levels P0 × (1 + S)^k, an entry market sell,
 * waiting sells above the price, take-profit buys at fill × (1 − T). See docs/bots/grid-dca.md for every
 * decision the design leaves open.
 *
 * Why this file is ~1,260 lines: the step's hot path (ticks, the ladder invariant, order events, lots,
 * the lot actions a tick runs, stopping) calls across these functions on every step, and under tsx / V8
 * a call into another ES module is not free: split into ten files by concern, the backtest of the
 * falling year (244,677 steps, bench/backtest.bench.ts) took 15 % more CPU time than the one-file
 * strategy (same-process A/B, issue 39). What the hot path does not cross, or crosses once per step,
 * is in its own file: config.ts (limits, check, createDcaBot), ladder.ts (prices, settledAt and the
 * quiet band, whose loops stay inside it), summary.ts (the views).
 */
import {
  DEC_SCALE,
  decDiv,
  decimalsOf,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  toDec,
} from '../money';
import type { DcaConfig, DcaLot, DcaLotBuy, DcaOrderRef, DcaState, DcaWaitingBuy } from './types';
import {
  type ActionEvent,
  AUTO_FUND_MAX_STEPS,
  type ClosedTrade,
  type LogCode,
  LOT_ACTIONS,
  type OrderRole,
  type PlaceOrderCommand,
  type RejectReason,
  type StepResult,
  type StopMode,
  type StopReason,
  type Strategy,
  type StrategyCommand,
  type StrategyEvent,
} from '../strategy';
import { dispatchEvent, eventHandlers } from '../shared/dispatch';
import {
  createDcaBot,
  DCA_FIRST_BACKOFF_MS,
  DCA_MAX_BACKOFF_MS,
  DCA_MAX_CLOSE_ATTEMPTS,
  DCA_MAX_OPEN_ORDERS,
  DCA_RANGE_LOG_INTERVAL_MS,
  DCA_TP_RETRY_MS,
  nonNegative,
  positive,
} from './config';
import {
  autoFundTrigger,
  buyAmountAt,
  crossedBuys,
  exitSide,
  firstLevelBelow,
  inRange,
  isShort,
  ladderOf,
  ladderSlots,
  lotWaitsForTp,
  MAX_LEVEL_WALK,
  minimumViolation,
  priceAt,
  quietBand,
  rangeHigh,
  rangeLow,
  settledAt,
  takeProfitPrice,
  tradePnl,
} from './ladder';
import { dcaLots, hasLotBuy, lotBusy } from './summary';

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
  quietBand,
  isQuietTick,
  quietTick,
} from './ladder';
export type { DcaQuietBand } from './ladder';
export { summarizeDca, dcaLots } from './summary';

// ---------------------------------------------------------------------------------------------------
// The step function

interface Cx {
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
function own(cx: Cx): void {
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
function ownBuys(cx: Cx): void {
  if (cx.ownedBuys) return;
  cx.ownedBuys = true;
  const s = cx.s;
  s.waitingBuys = s.waitingBuys.map((w) => ({ ...w }));
  s.skippedLevels = [...s.skippedLevels];
}

function nextId(s: DcaState): string {
  const id = `${s.botId}-${s.seq}`;
  s.seq += 1;
  return id;
}

function log(
  cx: Cx,
  level: 'info' | 'warn',
  code: LogCode,
  params: Record<string, string | number> = {},
): void {
  cx.cmds.push({ type: 'log', level, code, params });
}

function newRef(clientOrderId: string, price: number, amount: number): DcaOrderRef {
  return { clientOrderId, price, amount, filled: 0, avgPrice: 0, fee: 0, cancelling: false };
}

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

/**
 * The venue liquidated the position at `price` (derivatives): the orders are gone (the runner delivered
 * their cancels), every open lot is closed at `price` without fee (one trade each), and the bot stops.
 */
function onLiquidated(cx: Cx, price: number, contracts: number): void {
  if (!positive(price)) return log(cx, 'warn', 'invalid_value', { field: 'price' });
  own(cx);
  const s = cx.s;
  log(cx, 'warn', 'liquidated', { price, contracts: Number.isFinite(contracts) ? contracts : 0 });
  s.entry = null;
  s.waitingBuys = [];
  if (s.lotBuys) s.lotBuys = [];
  for (const lot of [...s.lots]) {
    lot.tp = null;
    lot.close = null;
    const ref = newRef(`${s.botId}-liq`, price, lot.qty);
    sellLot(cx, lot, ref, lot.qty, price, 0);
  }
  s.lots = [];
  s.status = 'stopping';
  s.stopMode = null;
  finishStop(cx, 'liquidated');
}

// --- ticks -----------------------------------------------------------------------------------------

function onTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!Number.isFinite(price) || price <= 0) return;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status === 'stopping') return;

  if (s.status === 'starting') {
    if (checkStopPrices(cx, price)) return;
    if (s.entry === null && backoffOver(s, cx.ts)) placeEntry(cx, price);
    return;
  }

  // running
  if (checkStopPrices(cx, price)) return;
  autoFundTick(cx, price);
  const high = rangeHigh(s);
  if (s.config.raEnabled && (isShort(s.config) ? price < rangeLow(s)! : high !== null && price > high)) {
    // RA: the price left the range on the take-profit side (above it; SHORT: below it).
    relocate(cx, 'ra_relocated');
    return;
  }
  const nowInRange = inRange(s, price);
  if (!nowInRange && s.inRange !== false) {
    const due = s.lastRangeLogTs === null || cx.ts - s.lastRangeLogTs >= DCA_RANGE_LOG_INTERVAL_MS;
    if (due) {
      s.lastRangeLogTs = cx.ts;
      log(cx, 'warn', 'out_of_range', {
        price,
        low: rangeEdgeText(rangeLow(s) ?? 0),
        high: rangeEdgeText(high ?? 0),
        side: high !== null && price > high ? 'above' : 'below',
      });
    }
  } else if (nowInRange && s.inRange === false) {
    log(cx, 'info', 'back_in_range', { price });
  }
  s.inRange = nowInRange;
  // Fast path: no take profit waits, no buy is crossed, and the ladder is already what rebalance would
  // build from the first level below this price: nothing can change (checked without allocating, since
  // this runs on every tick of every bot).
  const ladder = ladderOf(s);
  if (
    ladder &&
    !lotWaitsForTp(s) &&
    settledAt(s, ladder, firstLevelBelow(ladder, price), backoffOver(s, cx.ts), crossedBuys(s, price))
  ) {
    return;
  }
  rebalance(cx);
}

/**
 * formatAmount of a range edge, remembered: bots started at the same price share their edges, and a
 * price move takes many of them out of range in the same tick (exact decimal formatting is ~µs each).
 */
const edgeTexts = new Map<number, string>();
function rangeEdgeText(x: number): string {
  let t = edgeTexts.get(x);
  if (t === undefined) {
    if (edgeTexts.size >= 10_000) edgeTexts.clear();
    t = formatAmount(x);
    edgeTexts.set(x, t);
  }
  return t;
}

/** SL (price at or below) and TP+ (price at or above): sell every lot at market and stop. SHORT: SL at
 *  or above, TP+ at or below, and the lots are bought back. */
function checkStopPrices(cx: Cx, price: number): boolean {
  const { sl, tpPlus } = cx.s.config;
  const up = isShort(cx.s.config);
  if (sl !== null && sl !== undefined && (up ? price >= sl : price <= sl)) {
    log(cx, 'warn', 'sl_hit', { price, sl });
    beginStop(cx, 'close_market', 'sl_hit');
    return true;
  }
  if (tpPlus !== null && tpPlus !== undefined && (up ? price <= tpPlus : price >= tpPlus)) {
    log(cx, 'info', 'tp_plus_hit', { price, tp_plus: tpPlus });
    beginStop(cx, 'close_market', 'tp_plus_hit');
    return true;
  }
  return false;
}

function backoffOver(s: DcaState, ts: number): boolean {
  return s.buyRetryAt === null || ts >= s.buyRetryAt;
}

function placeEntry(cx: Cx, price: number): void {
  const s = cx.s;
  const first = s.anchor === null;
  s.anchor = price;
  s.inRange = true;
  if (first) log(cx, 'info', 'started', { anchor: price, amount: s.config.amount });
  const amount = buyAmountAt(s.config, price);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    logBelowMin(cx, 'entry', violation, amount, price, { level: 0 });
    finishStop(cx, 'entry_failed');
    return;
  }
  const ref = newRef(nextId(s), price, amount);
  s.entry = { ...ref, level: 0 };
  if (isShort(s.config)) {
    cx.places.push({
      type: 'place_order',
      clientOrderId: ref.clientOrderId,
      side: 'sell',
      orderType: 'market',
      amount,
      role: 'entry',
      level: 0,
    });
    return;
  }
  cx.places.push({
    type: 'place_order',
    clientOrderId: ref.clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: s.config.amount,
    role: 'entry',
    level: 0,
  });
}

function logBelowMin(
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

/**
 * Restores the invariant: take profits for every lot; waiting buys on the N highest free levels strictly
 * below the price. Buys at or above the price ("crossed": the venue is filling them) are kept and count
 * toward N. Levels held by a lot or by a buy being cancelled are not free.
 */
function rebalance(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'running' || s.anchor === null || s.lastPrice === null) return;
  const price = s.lastPrice;

  // 1. Take profits missing (read-only decisions first; copies are made only when something changes).
  const needTp: string[] = [];
  for (const lot of s.lots) {
    // A lot the user is selling or forgetting gets no take profit.
    if (lot.tp || lot.close || lot.tpBlocked || lot.action) continue;
    if (lot.tpRetryAt !== null && cx.ts < lot.tpRetryAt) continue;
    needTp.push(lot.id);
  }

  // 2. Ladder.
  const active = s.waitingBuys.filter((w) => !w.cancelling);
  const up = isShort(s.config);
  // A waiting order the price reached (a buy at or above it; SHORT: a sell at or below it).
  const reached = (p: number) => (up ? p <= price : p >= price);
  let crossed = 0;
  for (const w of active) if (reached(w.price)) crossed += 1;
  const slots = ladderSlots(s, crossed);
  const capped = DCA_MAX_OPEN_ORDERS - s.lots.length < s.config.os;
  const held = new Set<number>();
  for (const lot of s.lots) if (lot.epoch === s.epoch) held.add(lot.level);
  for (const w of s.waitingBuys) if (w.cancelling && w.epoch === s.epoch) held.add(w.level);

  const ladder = ladderOf(s)!;
  const desired: { level: number; price: number }[] = [];
  const k0 = firstLevelBelow(ladder, price);
  s.ladderK = k0;
  let k = k0;
  let prev = up ? 0 : Number.POSITIVE_INFINITY;
  for (let walked = 0; desired.length < slots && walked < MAX_LEVEL_WALK; walked++, k++) {
    const p = priceAt(ladder, k);
    if (!(p > 0)) break;
    // Not below the price, or same rounded price as the level above (SHORT: mirrored).
    if (up ? p <= price || p <= prev : p >= price || p >= prev) continue;
    prev = p;
    if (held.has(k)) continue;
    desired.push({ level: k, price: p });
  }

  const toCancel: string[] = [];
  const armed = new Set<number>();
  for (const w of active) {
    if (reached(w.price)) continue;
    if (w.epoch === s.epoch && desired.some((d) => d.level === w.level)) {
      armed.add(w.level);
      continue;
    }
    toCancel.push(w.clientOrderId);
  }
  const canBuy = backoffOver(s, cx.ts);
  const toPlace = canBuy
    ? desired.filter((d) => !armed.has(d.level) && !s.skippedLevels.includes(d.level))
    : [];
  if (capped !== (s.orderCapped ?? false)) {
    s.orderCapped = capped;
    if (capped) log(cx, 'warn', 'order_cap', { max: DCA_MAX_OPEN_ORDERS, lots: s.lots.length });
  }
  if (needTp.length === 0 && toCancel.length === 0 && toPlace.length === 0) return;

  // Take profits change lots; ladder orders only the waiting buys (ownBuys).
  if (needTp.length > 0) own(cx);
  else ownBuys(cx);
  for (const id of needTp) {
    const lot = s.lots.find((l) => l.id === id);
    if (lot) placeTakeProfit(cx, lot);
  }
  for (const id of toCancel) {
    const w = s.waitingBuys.find((x) => x.clientOrderId === id);
    if (!w) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: id });
  }
  for (const d of toPlace) placeLadderBuy(cx, d.level, d.price);
}

function placeLadderBuy(cx: Cx, level: number, price: number): void {
  const s = cx.s;
  const amount = buyAmountAt(s.config, price);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    s.skippedLevels.push(level);
    logBelowMin(cx, 'ladder_buy', violation, amount, price, { level });
    return;
  }
  const ref = newRef(nextId(s), price, amount);
  s.waitingBuys.push({ ...ref, epoch: s.epoch, level });
  cx.places.push({
    type: 'place_order',
    clientOrderId: ref.clientOrderId,
    side: isShort(s.config) ? 'sell' : 'buy',
    orderType: 'limit',
    price,
    amount,
    role: 'ladder_buy',
    level,
  });
}

function placeTakeProfit(cx: Cx, lot: DcaLot): void {
  const s = cx.s;
  const price = takeProfitPrice(s.config, lot.buyPrice);
  const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    lot.tpBlocked = true;
    logBelowMin(cx, 'take_profit', violation, amount, price, { lot_id: lot.id });
    return;
  }
  lot.tp = newRef(nextId(s), price, amount);
  lot.tpRetryAt = null;
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: lot.tp.clientOrderId,
    side: exitSide(s.config),
    orderType: 'limit',
    price,
    amount,
    role: 'take_profit',
    lotId: lot.id,
  };
  if (s.config.derivatives) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

// --- relocation ----------------------------------------------------------------------------------------

function relocate(cx: Cx, code: 'relocated' | 'ra_relocated'): void {
  own(cx);
  const s = cx.s;
  if (s.status !== 'running' || s.lastPrice === null) {
    log(cx, 'warn', 'relocate_skipped', { reason: s.lastPrice === null ? 'no_price' : 'not_running' });
    return;
  }
  for (const w of s.waitingBuys) {
    if (w.cancelling) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: w.clientOrderId });
  }
  const previous = s.anchor ?? 0;
  s.anchor = s.lastPrice;
  s.epoch += 1;
  s.ladderK = null;
  s.skippedLevels = [];
  s.inRange = true;
  log(cx, 'info', code, { previous, anchor: s.anchor, price: s.lastPrice });
  rebalance(cx);
}

// --- order events ------------------------------------------------------------------------------------

type Found =
  | { kind: 'entry'; ref: DcaOrderRef }
  | { kind: 'buy'; ref: DcaWaitingBuy; index: number }
  | { kind: 'tp'; ref: DcaOrderRef; lot: DcaLot }
  | { kind: 'close'; ref: DcaOrderRef; lot: DcaLot }
  | { kind: 'lotBuy'; ref: DcaLotBuy; index: number };

function find(s: DcaState, id: string): Found | null {
  if (s.entry && s.entry.clientOrderId === id) return { kind: 'entry', ref: s.entry };
  const index = s.waitingBuys.findIndex((w) => w.clientOrderId === id);
  if (index >= 0) return { kind: 'buy', ref: s.waitingBuys[index]!, index };
  const lotBuys = s.lotBuys;
  if (lotBuys) {
    for (let i = 0; i < lotBuys.length; i++)
      if (lotBuys[i]!.clientOrderId === id) return { kind: 'lotBuy', ref: lotBuys[i]!, index: i };
  }
  for (const lot of s.lots) {
    if (lot.tp && lot.tp.clientOrderId === id) return { kind: 'tp', ref: lot.tp, lot };
    if (lot.close && lot.close.clientOrderId === id) return { kind: 'close', ref: lot.close, lot };
  }
  return null;
}

function validFill(amount: unknown, price: unknown, fee: unknown): boolean {
  return nonNegative(amount) && nonNegative(price) && nonNegative(fee);
}

function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): void {
  own(cx);
  const f = find(cx.s, id);
  if (!f || !validFill(filled, price, fee)) return;
  if (filled < f.ref.filled) return; // stale update
  f.ref.filled = filled;
  f.ref.avgPrice = price;
  f.ref.fee = fee;
}

function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): void {
  own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f || !validFill(amount, price, fee)) return;
  switch (f.kind) {
    case 'entry':
      s.entry = null;
      if (amount > 0) openLot(cx, id, s.epoch, 0, amount, price, fee);
      if (s.status === 'starting') s.status = 'running';
      break;
    case 'buy':
      s.waitingBuys.splice(f.index, 1);
      if (amount > 0) openLot(cx, id, f.ref.epoch, f.ref.level, amount, price, fee);
      break;
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      if (amount > 0) fundsFilled(cx, f.ref, amount, price, fee);
      break;
    case 'tp':
      sellLot(cx, f.lot, f.ref, amount, price, fee);
      resetBackoff(s);
      // Sold in part only (the lot grew by added funds meanwhile): the rest goes on.
      settleLotAction(cx, f.lot);
      break;
    case 'close':
      sellLot(cx, f.lot, f.ref, amount, price, fee);
      resetBackoff(s);
      if (f.lot.action === 'sell') f.lot.action = null;
      break;
  }
  afterOrderEvent(cx);
}

function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f) return;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= f.ref.filled) {
    f.ref.filled = filled;
    f.ref.avgPrice = price ?? f.ref.avgPrice;
    f.ref.fee = fee ?? f.ref.fee;
  }
  const { filled: got, avgPrice, fee: paid } = f.ref;
  switch (f.kind) {
    case 'entry':
      s.entry = null;
      if (got > 0) {
        openLot(cx, id, s.epoch, 0, got, avgPrice, paid);
        if (s.status === 'starting') s.status = 'running';
      } else if (s.status === 'starting') {
        // The market buy expired unfilled: try again after a pause.
        log(cx, 'warn', 'order_rejected', { role: 'entry', reason: 'cancelled' });
        bumpBackoff(s, cx.ts);
      }
      break;
    case 'buy':
      s.waitingBuys.splice(f.index, 1);
      if (got > 0) openLot(cx, id, f.ref.epoch, f.ref.level, got, avgPrice, paid);
      break;
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      if (got > 0) fundsFilled(cx, f.ref, got, avgPrice, paid);
      else fundsBuyFailed(cx, f.ref, 'cancelled');
      break;
    case 'tp':
    case 'close':
      if (got > 0) sellLot(cx, f.lot, f.ref, got, avgPrice, paid);
      if (f.kind === 'tp') {
        f.lot.tp = null;
        settleLotAction(cx, f.lot);
      } else if (f.lot.action === 'sell') {
        // A user's sale that did not complete: the lot is kept and gets its take profit back.
        f.lot.close = null;
        f.lot.action = null;
        if (cx.s.lots.includes(f.lot))
          log(cx, 'warn', 'close_failed', { lot_id: f.lot.id, reason: 'cancelled' });
      } else {
        f.lot.close = null;
        if (cx.s.lots.includes(f.lot))
          log(cx, 'warn', 'close_failed', {
            lot_id: f.lot.id,
            reason: 'cancelled',
            attempt: f.lot.closeAttempts ?? 1,
            max_attempts: DCA_MAX_CLOSE_ATTEMPTS,
          });
      }
      break;
  }
  afterOrderEvent(cx);
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  // A refused ladder buy changes only the waiting buys and skipped levels (and top-level fields).
  const kind = find(cx.s, id)?.kind;
  if (kind === undefined) return;
  if (kind === 'buy') ownBuys(cx);
  else own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f) return;
  const params: Record<string, string | number> = { reason };
  if (message) params.message = message.slice(0, 200);
  const permanent = reason === 'min_cost' || reason === 'precision';
  switch (f.kind) {
    case 'entry': {
      s.entry = null;
      params.role = 'entry';
      if (permanent) {
        log(cx, 'warn', reason === 'min_cost' ? 'below_min_cost' : 'order_rejected', params);
        if (s.status === 'starting') finishStop(cx, 'entry_failed');
      } else {
        bumpBackoff(s, cx.ts);
        params.retry_in_s = Math.round(s.buyBackoffMs / 1000);
        log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      }
      break;
    }
    case 'buy': {
      s.waitingBuys.splice(f.index, 1);
      params.role = 'ladder_buy';
      params.level = f.ref.level;
      params.price = f.ref.price;
      if (permanent) {
        if (f.ref.epoch === s.epoch && !s.skippedLevels.includes(f.ref.level))
          s.skippedLevels.push(f.ref.level);
        log(cx, 'warn', reason === 'min_cost' ? 'below_min_cost' : 'order_rejected', params);
      } else {
        bumpBackoff(s, cx.ts);
        params.retry_in_s = Math.round((s.buyRetryAt! - cx.ts) / 1000);
        log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      }
      break;
    }
    case 'tp': {
      f.lot.tp = null;
      params.role = 'take_profit';
      params.lot_id = f.lot.id;
      if (permanent) f.lot.tpBlocked = true;
      else {
        f.lot.tpRetryAt = cx.ts + DCA_TP_RETRY_MS;
        params.retry_in_s = DCA_TP_RETRY_MS / 1000;
      }
      log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      break;
    }
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      fundsBuyFailed(cx, f.ref, reason, message);
      break;
    case 'close':
      f.lot.close = null;
      if (f.lot.action === 'sell') {
        // A user's sale: the lot is kept (its take profit comes back); a stop's attempts are not used.
        f.lot.action = null;
        log(cx, 'warn', 'close_failed', { lot_id: f.lot.id, ...params });
        break;
      }
      // Funds, minimum and precision refusals will not change by retrying: the lot is kept.
      if (reason !== 'exchange_error' && reason !== 'unknown') f.lot.closeAttempts = DCA_MAX_CLOSE_ATTEMPTS;
      log(cx, 'warn', 'close_failed', {
        lot_id: f.lot.id,
        ...params,
        attempt: f.lot.closeAttempts ?? 1,
        max_attempts: DCA_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}

function afterOrderEvent(cx: Cx): void {
  if (cx.s.status === 'running') rebalance(cx);
  else if (cx.s.status === 'stopping') continueStop(cx);
}

function bumpBackoff(s: DcaState, ts: number): void {
  // Rejections of orders sent before the pause started do not lengthen it again.
  if (s.buyRetryAt !== null && ts < s.buyRetryAt) return;
  s.buyBackoffMs =
    s.buyBackoffMs > 0 ? Math.min(DCA_MAX_BACKOFF_MS, s.buyBackoffMs * 2) : DCA_FIRST_BACKOFF_MS;
  s.buyRetryAt = ts + s.buyBackoffMs;
}

/** Funds were freed (a sell filled): buys may be tried again at once. */
function resetBackoff(s: DcaState): void {
  s.buyBackoffMs = 0;
  s.buyRetryAt = null;
}

function openLot(
  cx: Cx,
  id: string,
  epoch: number,
  level: number,
  qty: number,
  price: number,
  fee: number,
): void {
  const lot: DcaLot = {
    id,
    epoch,
    level,
    qty,
    buyPrice: price,
    buyFee: fee,
    buyTime: cx.ts,
    tp: null,
    tpRetryAt: null,
    tpBlocked: false,
    close: null,
    closeAttempts: 0,
  };
  cx.s.lots.push(lot);
  log(cx, 'info', 'lot_opened', { lot_id: id, level, qty, price, fee });
}

/**
 * `qty` of the lot was sold at `price` paying `fee`: records the trade (the buy fee is shared pro rata
 * when only part of the lot is sold) and removes the lot, or shrinks it on a partial sale. A sale of the
 * whole take-profit amount closes the lot even when rounding left dust below one amount step.
 */
function sellLot(cx: Cx, lot: DcaLot, sell: DcaOrderRef, qty: number, price: number, fee: number): void {
  const s = cx.s;
  // The whole order sold and at most dust (less than one amount step) left: the lot is closed. A lot
  // that grew by added funds after its take profit was placed keeps the rest.
  const whole =
    qty >= lot.qty || (qty >= sell.amount && toDec(lot.qty) - toDec(qty) < toDec(s.config.market.amountStep));
  let buyFee = lot.buyFee;
  if (!whole) {
    const share = decDiv(decMul(toDec(lot.buyFee), toDec(qty)), toDec(lot.qty));
    buyFee = Number(formatAmount(decToString(share), 12));
  }
  // SHORT: the lot's entry was the sale (its `buyPrice` / `buyFee` / `buyTime` hold the entry), this
  // fill is the buy back.
  const short = isShort(s.config);
  const pnlNet = short
    ? tradePnl(qty, price, lot.buyPrice, fee, buyFee)
    : tradePnl(qty, lot.buyPrice, price, buyFee, fee);
  const trade: ClosedTrade = short
    ? {
        lotId: lot.id,
        qty,
        buyPrice: price,
        sellPrice: lot.buyPrice,
        buyTime: cx.ts,
        sellTime: lot.buyTime,
        buyFee: fee,
        sellFee: buyFee,
        pnlNet,
      }
    : {
        lotId: lot.id,
        qty,
        buyPrice: lot.buyPrice,
        sellPrice: price,
        buyTime: lot.buyTime,
        sellTime: cx.ts,
        buyFee,
        sellFee: fee,
        pnlNet,
      };
  // Each partial sale is a history row of its own (the whole sale's key is the lot id).
  if (!whole) trade.key = `${lot.id}#${sell.clientOrderId}`;
  cx.cmds.push({ type: 'record_trade', trade });
  s.realizedPnl = decToString(toDec(s.realizedPnl) + toDec(pnlNet));
  s.closedTrades += 1;
  log(cx, 'info', 'lot_closed', {
    lot_id: lot.id,
    qty,
    buy_price: trade.buyPrice,
    sell_price: trade.sellPrice,
    pnl_net: pnlNet,
  });
  if (whole) {
    s.lots = s.lots.filter((l) => l !== lot);
  } else {
    lot.qty = Number(decToString(toDec(lot.qty) - toDec(qty)));
    lot.buyFee = Number(decToString(toDec(lot.buyFee) - toDec(buyFee)));
    if (lot.tp) lot.tp = null;
    if (lot.close) lot.close = null;
  }
}

// --- pending orders: lot actions and auto-fund ------------------------------------------------------

/** The short name of each lot action in `lot_action_refused` logs (a Map: action names are outside input). */
const LOT_ACTION_LABELS = new Map<string, string>([
  [LOT_ACTIONS.addFunds, 'add_funds'],
  [LOT_ACTIONS.sell, 'sell'],
  [LOT_ACTIONS.forget, 'forget'],
  [LOT_ACTIONS.autoFund, 'auto_fund'],
]);

/** Decimals kept in the average entry price of a lot that funds were added to. */
function averageDecimals(config: DcaConfig): number {
  return Math.min(DEC_SCALE, Math.max(10, decimalsOf(config.market.priceStep) + 6));
}

function refuse(cx: Cx, name: string, lotId: string, reason: string): void {
  log(cx, 'warn', 'lot_action_refused', {
    lot_id: lotId,
    action: LOT_ACTION_LABELS.get(name) ?? name,
    reason,
  });
}

function lotIdParam(params: Record<string, unknown>): string | null {
  const v = params.lotId;
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}

/** A stopped bot ignores every event, but a lot action sent to it is answered (refused). */
function refuseWhenStopped(cx: Cx, e: ActionEvent): void {
  const params = e.params !== null && typeof e.params === 'object' ? e.params : {};
  const lotId = lotIdParam(params);
  if (LOT_ACTION_LABELS.has(e.name) && lotId !== null) refuse(cx, e.name, lotId, 'not_running');
}

/**
 * `{type:'action'}`: the LOT_ACTIONS (add funds, sell, forget, auto-fund on one open lot). Params are
 * outside input: a wrong one logs `invalid_value`; a lot that cannot take the action is left as it was
 * (`lot_action_refused`). Unknown names log `invalid_value` {field: 'action'}.
 */
function onAction(cx: Cx, e: ActionEvent): void {
  const s = cx.s;
  const params = e.params !== null && typeof e.params === 'object' ? e.params : {};
  if (!LOT_ACTION_LABELS.has(e.name)) return log(cx, 'warn', 'invalid_value', { field: 'action' });
  const lotId = lotIdParam(params);
  if (lotId === null) return log(cx, 'warn', 'invalid_value', { field: 'lot_id' });
  const amount = params.amount;
  if (e.name === LOT_ACTIONS.addFunds && !positive(amount))
    return log(cx, 'warn', 'invalid_value', { field: 'amount' });
  const enabled = params.enabled;
  if (e.name === LOT_ACTIONS.autoFund && typeof enabled !== 'boolean')
    return log(cx, 'warn', 'invalid_value', { field: 'enabled' });

  if (s.status !== 'running') return refuse(cx, e.name, lotId, 'not_running');
  const current = s.lots.find((l) => l.id === lotId);
  if (!current) return refuse(cx, e.name, lotId, 'unknown_lot');
  if (e.name === LOT_ACTIONS.autoFund) {
    own(cx);
    const lot = s.lots.find((l) => l.id === lotId)!;
    lot.autoFund = enabled === true;
    log(cx, 'info', 'auto_fund_set', { lot_id: lotId, enabled: lot.autoFund ? 1 : 0 });
    return;
  }
  const busy = lotBusy(s, current);
  if (busy !== null) return refuse(cx, e.name, lotId, busy);
  if (s.lastPrice === null) return refuse(cx, e.name, lotId, 'no_price');

  own(cx);
  const lot = s.lots.find((l) => l.id === lotId)!;
  switch (e.name) {
    case LOT_ACTIONS.addFunds:
      placeFundsBuy(cx, lot, amount as number, null);
      break;
    case LOT_ACTIONS.sell:
      lot.action = 'sell';
      if (lot.tp) cancelTakeProfit(cx, lot);
      else placeUserSale(cx, lot);
      break;
    case LOT_ACTIONS.forget:
      lot.action = 'forget';
      if (lot.tp) cancelTakeProfit(cx, lot);
      else forgetLot(cx, lot);
      break;
  }
  afterOrderEvent(cx);
}

function cancelTakeProfit(cx: Cx, lot: DcaLot): void {
  if (!lot.tp || lot.tp.cancelling) return;
  lot.tp.cancelling = true;
  cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
}

/**
 * A market buy of `quote` (at the last price) to merge into `lot`; `step` is the auto-fund step, null for
 * the user's add funds. Below the market minimum nothing is sent (logged). Needs `own(cx)`.
 */
function placeFundsBuy(cx: Cx, lot: DcaLot, quote: number, step: number | null): void {
  const s = cx.s;
  const price = s.lastPrice!;
  const amount = roundDownToStep(quote / price, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    if (step === null) logBelowMin(cx, 'add_funds', violation, amount, price, { lot_id: lot.id });
    else log(cx, 'warn', 'auto_fund_skipped', { lot_id: lot.id, step, reason: violation });
    return;
  }
  const short = isShort(s.config);
  if (step !== null) {
    const first = lot.firstPrice ?? lot.buyPrice;
    // Negative below the first entry (−10 at the first step), as the classic DCA logs it (SHORT: above).
    const move = short ? toDec(first) - toDec(price) : toDec(price) - toDec(first);
    const drawdown = decDiv(decMul(move, toDec(100)), toDec(first));
    log(cx, 'info', 'auto_fund', {
      lot_id: lot.id,
      step,
      drawdown_pct: Number(formatAmount(decToString(drawdown), 2)),
      amount: quote,
    });
  }
  const buy: DcaLotBuy = {
    ...newRef(nextId(s), price, amount),
    lotId: lot.id,
    epoch: lot.epoch,
    level: lot.level,
    auto: step !== null,
  };
  if (step !== null) buy.step = step;
  (s.lotBuys ??= []).push(buy);
  if (short) {
    // SHORT: the funds are a market sell merged into the lot.
    cx.places.push({
      type: 'place_order',
      clientOrderId: buy.clientOrderId,
      side: 'sell',
      orderType: 'market',
      amount,
      role: 'add_funds',
      lotId: lot.id,
    });
    return;
  }
  cx.places.push({
    type: 'place_order',
    clientOrderId: buy.clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: quote,
    role: 'add_funds',
    lotId: lot.id,
  });
}

/**
 * A funds buy filled `qty` at `price` paying `fee`: merged into its lot (exact weighted average entry,
 * fees added) whose take profit is then moved (cancelled; the normal "lot without TP" path places the
 * new one at the new average × (1 + T) once the cancel is answered). When the lot is gone (it closed at
 * its take profit meanwhile) the fill opens a lot of its own, so nothing is lost.
 */
function fundsFilled(cx: Cx, buy: DcaLotBuy, qty: number, price: number, fee: number): void {
  const s = cx.s;
  const lot = s.lots.find((l) => l.id === buy.lotId);
  if (!lot) {
    openLot(cx, buy.clientOrderId, buy.epoch, buy.level, qty, price, fee);
    return;
  }
  const q0 = toDec(lot.qty);
  const q1 = toDec(qty);
  const total = q0 + q1;
  const cost = decMul(q0, toDec(lot.buyPrice)) + decMul(q1, toDec(price));
  if (lot.firstPrice === undefined) lot.firstPrice = lot.buyPrice;
  lot.qty = decToNumber(total);
  lot.buyPrice = Number(formatAmount(decToString(decDiv(cost, total)), averageDecimals(s.config)));
  lot.buyFee = decToNumber(toDec(lot.buyFee) + toDec(fee));
  lot.tpBlocked = false;
  lot.tpRetryAt = null;
  log(cx, 'info', 'lot_funds_added', {
    lot_id: lot.id,
    amount: Number(formatAmount(decToString(decMul(q1, toDec(price))))),
    qty,
    price,
    fee,
    entry: lot.buyPrice,
  });
  cancelTakeProfit(cx, lot);
}

/** A funds buy ended without a fill (refused, or cancelled by the venue): logged, nothing else changes. */
function fundsBuyFailed(cx: Cx, buy: DcaLotBuy, reason: string, message?: string): void {
  if (buy.auto && (reason === 'insufficient_funds' || reason === 'cancelled')) {
    log(cx, 'warn', 'auto_fund_skipped', { lot_id: buy.lotId, step: buy.step ?? 0, reason });
    return;
  }
  const params: Record<string, string | number> = { role: 'add_funds', reason, lot_id: buy.lotId };
  if (message) params.message = message.slice(0, 200);
  if (buy.step !== undefined) params.step = buy.step;
  log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
}

/** Once a lot being sold or forgotten has no take profit left on the venue: do it. */
function settleLotAction(cx: Cx, lot: DcaLot): void {
  if (lot.tp || !lot.action || !cx.s.lots.includes(lot)) return;
  if (lot.action === 'forget') forgetLot(cx, lot);
  else if (!lot.close) placeUserSale(cx, lot);
}

/** Stops tracking the lot: no trade, the assets stay on the account and its ladder level is free. */
function forgetLot(cx: Cx, lot: DcaLot): void {
  cx.s.lots = cx.s.lots.filter((l) => l !== lot);
  log(cx, 'info', 'lot_forgotten', { lot_id: lot.id, qty: lot.qty, price: lot.buyPrice });
}

/** The user's market sale of a lot (role close); below the minimum it is logged and the lot kept. */
function placeUserSale(cx: Cx, lot: DcaLot): void {
  const s = cx.s;
  const price = s.lastPrice ?? lot.buyPrice;
  const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    lot.action = null;
    logBelowMin(cx, 'close', violation, amount, price, { lot_id: lot.id });
    return;
  }
  lot.close = newRef(nextId(s), price, amount);
  cx.places.push(closeCommand(s.config, lot.close.clientOrderId, amount, lot.id));
}

/** The market order closing a lot: a sell (SHORT: a buy), reduceOnly on derivatives. */
function closeCommand(
  config: DcaConfig,
  clientOrderId: string,
  amount: number,
  lotId: string,
): PlaceOrderCommand {
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId,
    side: exitSide(config),
    orderType: 'market',
    amount,
    role: 'close',
    lotId,
  };
  if (config.derivatives) cmd.reduceOnly = true;
  return cmd;
}

/**
 * Auto-fund on a tick of a running bot: each lot with it on, steps left and no action in flight takes
 * its next step k when the price is at or below firstPrice × (1 − AUTO_FUND_STEP_PCT × k / 100), one
 * step per lot per tick. Runs on every tick: without a lot with auto-fund on it only reads a flag per lot.
 */
function autoFundTick(cx: Cx, price: number): void {
  const s = cx.s;
  for (let i = 0; i < s.lots.length; i++) {
    const l = s.lots[i]!;
    if (!l.autoFund) continue;
    const k = (l.autoFundSteps ?? 0) + 1;
    if (k > AUTO_FUND_MAX_STEPS || l.action || l.close || hasLotBuy(s, l.id)) continue;
    const short = isShort(s.config);
    const trigger = autoFundTrigger(l.firstPrice ?? l.buyPrice, k, short);
    if (short ? price < trigger : price > trigger) continue;
    own(cx);
    const lot = s.lots[i]!;
    lot.autoFundSteps = k;
    placeFundsBuy(cx, lot, s.config.amount, k);
  }
}

// --- stopping ----------------------------------------------------------------------------------------

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  own(cx);
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  s.status = 'stopping';
  s.stopMode = mode;
  s.stopReason = reason;
  log(cx, 'info', 'stopping', { mode, reason });
  for (const w of s.waitingBuys) {
    if (w.cancelling) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: w.clientOrderId });
  }
  for (const lot of s.lots) {
    if (lot.tp && !lot.tp.cancelling) {
      lot.tp.cancelling = true;
      cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
    }
  }
  continueStop(cx);
}

/** Once every order is settled: close_market sells the lots at market (once), then the bot stops. */
function continueStop(cx: Cx): void {
  own(cx);
  const s = cx.s;
  if (s.status !== 'stopping') return;
  // A lot bought while stopping has no TP; a TP placed before the stop may still be open.
  for (const lot of s.lots) {
    if (lot.tp && !lot.tp.cancelling) {
      lot.tp.cancelling = true;
      cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
    }
  }
  const outstanding =
    s.entry !== null ||
    s.waitingBuys.length > 0 ||
    (s.lotBuys?.length ?? 0) > 0 ||
    s.lots.some((l) => l.tp !== null || l.close !== null);
  if (outstanding) return;
  if (s.stopMode === 'close_market') {
    s.closePhase = true;
    const price = s.lastPrice ?? 0;
    let placed = 0;
    for (const lot of s.lots) {
      if ((lot.closeAttempts ?? 0) >= DCA_MAX_CLOSE_ATTEMPTS) continue;
      const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
      const violation = minimumViolation(s.config, amount, price);
      if (violation) {
        lot.closeAttempts = DCA_MAX_CLOSE_ATTEMPTS;
        logBelowMin(cx, 'close', violation, amount, price, { lot_id: lot.id });
        continue;
      }
      lot.closeAttempts = (lot.closeAttempts ?? 0) + 1;
      lot.close = newRef(nextId(s), price, amount);
      cx.places.push(closeCommand(s.config, lot.close.clientOrderId, amount, lot.id));
      placed += 1;
    }
    if (placed > 0) return;
  }
  finishStop(cx, s.stopReason ?? 'user_cancel_only');
}

function finishStop(cx: Cx, reason: StopReason): void {
  const s = cx.s;
  s.status = 'stopped';
  s.stopReason = reason;
  s.entry = null;
  cx.cmds.push({ type: 'stopped', reason });
}

/** The Grid Bot DCA as a `Strategy` (bots.kind 'grid-dca'). */
export const gridBotDca: Strategy<DcaState, DcaConfig> = {
  kind: 'grid-dca',
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
