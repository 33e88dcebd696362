/**
 * The Arbitrage bot (issue 15 §1) as a pure, deterministic state machine: one spot symbol on two
 * venues (the bot's own exchange and one more, followed through `extraMarkets`), decided on both
 * order books (`bookDepth` levels per side, brought by every tick).
 *
 * - Start: the capital (amountQuote) is split between the venues; on each venue half of its share is
 *   bought as base at market (`arb_prepare`), the other half stays quote. Trading starts once both
 *   prepare orders filled.
 * - Decision (`arbDecision`, pure): for each direction (buy on X, sell on Y) the trade size is walked
 *   through X's asks and Y's bids (VWAP); it trades when sellAvg / buyAvg − 1 > takerX + takerY + margin
 *   and the bot's inventory (base on Y, quote on X) covers it above both venues' minimums.
 * - A round trip sends both market legs in one step (the runner sends them concurrently); when both
 *   settled the matched part is one trade (buyExchange X, sellExchange Y, real average fills); what one
 *   leg filled beyond the other is reversed at market on its venue (`arb_unwind`) and recorded as its
 *   own trade (buyExchange = sellExchange = that venue), a loss shown as it is.
 * See docs/engine.md ("Arbitrage bot") for every decision.
 */
import {
  decDiv,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  toDec,
  type Dec,
} from '../money';
import type {
  BookSnapshot,
  MarketRules,
  PlaceOrderCommand,
  RejectReason,
  StepResult,
  StopMode,
  StopReason,
  Strategy,
  StrategyEvent,
} from '../strategy';
import { checkMarketRules, nonNegative, positive, validFill } from '../shared/checks';
import { StrategyConfigError, failWith } from '../shared/config-error';
import { beginStep, endStep, nextId, type StepContext } from '../shared/context';
import { dispatchEvent, eventHandlers, refuseEvent } from '../shared/dispatch';
import { log, rejectParams } from '../shared/logging';
import { newOrderRef } from '../shared/orders';
import { markStopped, markStopping, userStop } from '../shared/stopping';
import { recordTrade, roundPnl } from '../shared/trades';
import type {
  ArbDecision,
  ArbDecisionInput,
  ArbDirection,
  ArbDirectionReason,
  ArbOrderRef,
  ArbSpread,
  ArbTrip,
  ArbVenueState,
  ArbWaiting,
  ArbitrageConfig,
  ArbitrageState,
  ArbitrageSummary,
} from './types';

/** Levels per side of the books the bot decides on. */
export const ARB_BOOK_DEPTH = 10;
export const ARB_DEFAULT_MARGIN_PCT = 0.1;
export const ARB_DEFAULT_TRADE_FRACTION = 0.25;
export const ARB_DEFAULT_COOLDOWN_MS = 2_000;
/** After a trip whose leg failed, no new trip for this long (ms), doubled for each further failure in
 *  a row up to ARB_FAIL_PAUSE_MAX_MS: a venue that keeps refusing one leg (its account short of what
 *  the bot counts on, e.g. another bot on the same account) must not turn every spread into a loss. */
export const ARB_FAIL_PAUSE_MS = 60_000;
export const ARB_FAIL_PAUSE_MAX_MS = 3_600_000;
/** A book older than this (ms, against the current tick) is not traded on: after a restart or a
 *  silent venue the other venue's last book may be stale. */
export const ARB_BOOK_MAX_AGE_MS = 10_000;
/** Market orders tried per venue at a close_market stop, and unwind attempts per trip. */
export const ARB_MAX_CLOSE_ATTEMPTS = 3;
export const ARB_MAX_UNWIND_ATTEMPTS = 3;
/** Decimals of the percentages the bot logs and shows. */
const PCT_DECIMALS = 6;

/** Thrown by createArbitrageBot for a configuration the strategy cannot run. */
export class ArbitrageConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('ArbitrageConfigError', code, message);
  }
}

type Cx = StepContext<ArbitrageState>;

// ---------------------------------------------------------------------------------------------------
// The decision

/** Largest qty ≤ `q` that is a multiple of both amount steps (alternate floors until stable). */
function floorBoth(q: number, a: number, b: number): number {
  let v = q;
  for (let i = 0; i < 8; i++) {
    const next = roundDownToStep(roundDownToStep(v, a), b);
    if (next === v) break;
    v = next;
  }
  return v > 0 ? v : 0;
}

/**
 * The average price of `qty` base taken from `levels` (best first), exactly: Σ take_i × price_i / qty.
 * Null when the levels hold less than `qty` (the book is too thin for the size) or qty ≤ 0.
 */
export function walkBook(levels: readonly (readonly [number, number])[], qty: number): number | null {
  if (!(qty > 0)) return null;
  const want = toDec(qty);
  let left = want;
  let cost = 0n;
  for (const [price, amount] of levels) {
    if (!positive(price) || !positive(amount)) continue;
    const a = toDec(amount);
    const take = a < left ? a : left;
    cost += decMul(take, toDec(price));
    left -= take;
    if (left <= 0n) break;
  }
  if (left > 0n) return null;
  return Number(formatAmount(decToString(decDiv(cost, want)), 12));
}

/** Percent of a fraction, rounded for display: 0.0025 → 0.25. */
function pct(fraction: Dec): number {
  return Number(formatAmount(decToString(fraction * 100n), PCT_DECIMALS));
}

function minOk(m: MarketRules, qty: number, price: number): boolean {
  return qty > 0 && qty >= m.minAmount && decMul(toDec(qty), toDec(price)) >= toDec(m.minCost);
}

function arbDirection(input: ArbDecisionInput, x: string, y: string): ArbDirection {
  const rx = input.rules[x]!;
  const ry = input.rules[y]!;
  const feesD = toDec(rx.takerFee) + toDec(ry.takerFee);
  const threshold = feesD + toDec(input.marginPct) / 100n;
  const out: ArbDirection = {
    key: `${x}_to_${y}`,
    buyExchange: x,
    sellExchange: y,
    qty: 0,
    buyAvg: 0,
    sellAvg: 0,
    desiredQty: 0,
    edgePct: null,
    feesPct: pct(feesD),
    tradeEdgePct: null,
    expectedNet: 0,
    reason: 'no_depth',
  };
  const asks = input.books[x]?.asks ?? [];
  const bids = input.books[y]?.bids ?? [];
  const bestAsk = asks[0]?.[0];
  const bestBidX = input.books[x]?.bids[0]?.[0];
  if (!positive(bestAsk) || !positive(bids[0]?.[0])) return out;
  // The size is quote at the buy venue's mid (its best ask without bids).
  const mid = positive(bestBidX) ? (bestAsk + bestBidX) / 2 : bestAsk;
  const desired = floorBoth(input.tradeQuote / mid, rx.amountStep, ry.amountStep);
  out.desiredQty = desired;
  const buyAt = walkBook(asks, desired);
  const sellAt = walkBook(bids, desired);
  if (buyAt === null || sellAt === null) return out;
  out.buyAvg = buyAt;
  out.sellAvg = sellAt;
  const edge = decDiv(toDec(sellAt), toDec(buyAt)) - toDec(1);
  out.edgePct = pct(edge);
  if (!(edge > threshold)) {
    out.reason = 'no_edge';
    return out;
  }
  // The edge is there: size it to the inventory (base on the sell venue, quote on the buy venue).
  const inv = input.inventory;
  let qty = desired;
  let limited: ArbDirectionReason | null = null;
  const baseY = floorBoth(Math.max(0, inv[y]?.base ?? 0), rx.amountStep, ry.amountStep);
  if (baseY < qty) {
    qty = baseY;
    limited = 'no_base';
  }
  const quoteX = toDec(Math.max(0, inv[x]?.quote ?? 0));
  const feeX = toDec(1) + toDec(rx.takerFee);
  let buyAvg = qty > 0 ? walkBook(asks, qty) : null;
  if (buyAvg !== null && decMul(decMul(toDec(qty), toDec(buyAvg)), feeX) > quoteX) {
    // A smaller size walks no higher, so this quantity's cost fits at the walk for `qty`.
    const fit = decDiv(quoteX, decMul(toDec(buyAvg), feeX));
    qty = floorBoth(decToNumber(fit), rx.amountStep, ry.amountStep);
    limited = 'no_quote';
    buyAvg = qty > 0 ? walkBook(asks, qty) : null;
  }
  const sellAvg = qty > 0 ? walkBook(bids, qty) : null;
  if (buyAvg === null || sellAvg === null || !minOk(rx, qty, buyAvg) || !minOk(ry, qty, sellAvg)) {
    out.reason = limited ?? 'below_min';
    return out;
  }
  const tradeEdge = decDiv(toDec(sellAvg), toDec(buyAvg)) - toDec(1);
  out.tradeEdgePct = pct(tradeEdge);
  if (!(tradeEdge > threshold)) {
    out.reason = 'no_edge';
    return out;
  }
  const q = toDec(qty);
  const buyCost = decMul(q, toDec(buyAvg));
  const sellGot = decMul(q, toDec(sellAvg));
  const net = sellGot - buyCost - decMul(buyCost, toDec(rx.takerFee)) - decMul(sellGot, toDec(ry.takerFee));
  out.qty = qty;
  out.buyAvg = buyAvg;
  out.sellAvg = sellAvg;
  out.expectedNet = roundPnl(net);
  out.reason = net > 0n ? 'ok' : 'no_edge';
  return out;
}

/**
 * The pure decision on two books: both directions at the trade size, and the tradable one with the
 * larger expected net (null when none trades). See ArbDirection for the numbers of each.
 */
export function arbDecision(input: ArbDecisionInput): ArbDecision {
  const [a, b] = input.exchanges;
  const directions: [ArbDirection, ArbDirection] = [arbDirection(input, a, b), arbDirection(input, b, a)];
  let best: ArbDirection | null = null;
  for (const d of directions)
    if (d.reason === 'ok' && (best === null || d.expectedNet > best.expectedNet)) best = d;
  return { directions, best };
}

// ---------------------------------------------------------------------------------------------------
// Config and creation

export function validateArbitrageConfig(config: ArbitrageConfig): void {
  const fail = failWith(ArbitrageConfigError);
  if (!config || typeof config !== 'object') fail('invalid_config', 'config is required');
  const ex = config.exchanges;
  if (
    !Array.isArray(ex) ||
    ex.length !== 2 ||
    typeof ex[0] !== 'string' ||
    typeof ex[1] !== 'string' ||
    !ex[0] ||
    !ex[1] ||
    ex[0] === ex[1]
  )
    fail('invalid_exchanges', 'exchanges must be two different exchange names');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.amountQuote) || config.amountQuote > 1e12)
    fail('invalid_amount', 'amountQuote must be a positive number of quote');
  if (!config.rules || typeof config.rules !== 'object') fail('invalid_market', 'rules are required');
  for (const e of ex) {
    const r = config.rules[e];
    if (!r) fail('invalid_market', `rules of ${e} are required`);
    checkMarketRules(r!, fail, true);
  }
  if (config.marginPct !== undefined && (!nonNegative(config.marginPct) || config.marginPct >= 100))
    fail('invalid_margin', 'marginPct must be a percentage from 0 to below 100');
  if (config.tradeFraction !== undefined && (!positive(config.tradeFraction) || config.tradeFraction > 1))
    fail('invalid_trade_fraction', 'tradeFraction must be above 0 and at most 1');
  if (config.cooldownMs !== undefined && (!nonNegative(config.cooldownMs) || config.cooldownMs > 86_400_000))
    fail('invalid_cooldown', 'cooldownMs must be from 0 to one day');
}

/** A new bot in status 'starting': the first tick with a price of each venue prepares the inventory. */
export function createArbitrageBot(botId: string, config: ArbitrageConfig): ArbitrageState {
  if (typeof botId !== 'string' || !botId)
    throw new ArbitrageConfigError('invalid_bot_id', 'botId is required');
  validateArbitrageConfig(config);
  const [a, b] = config.exchanges;
  const c: ArbitrageConfig = {
    ...config,
    exchanges: [a, b],
    rules: { [a]: { ...config.rules[a]! }, [b]: { ...config.rules[b]! } },
  };
  const half = decToString(toDec(config.amountQuote) / 2n);
  const venue = (exchange: string): ArbVenueState => ({
    exchange,
    inventory: { base: '0', quote: half },
    prepare: null,
    close: null,
    closeAttempts: 0,
  });
  return {
    version: 1,
    botId,
    config: c,
    status: 'starting',
    seq: 0,
    lastTs: null,
    lastPrice: null,
    venues: [venue(a), venue(b)],
    market: {},
    lastSpread: null,
    trip: null,
    trips: 0,
    tripsOpened: 0,
    lastTripEndTs: null,
    failStreak: 0,
    pausedUntil: null,
    realizedPnl: '0',
    waiting: null,
    stopMode: null,
    stopReason: null,
  };
}

function marginPct(c: ArbitrageConfig): number {
  return c.marginPct ?? ARB_DEFAULT_MARGIN_PCT;
}

// ---------------------------------------------------------------------------------------------------
// Reading a state

/** The bot's base and quote per exchange, as numbers. */
export function arbitrageInventory(s: ArbitrageState): Record<string, { base: number; quote: number }> {
  const out: Record<string, { base: number; quote: number }> = {};
  for (const v of s.venues)
    out[v.exchange] = {
      base: decToNumber(toDec(v.inventory.base)),
      quote: decToNumber(toDec(v.inventory.quote)),
    };
  return out;
}

export function arbitrageSummary(s: ArbitrageState): ArbitrageSummary {
  const books: Record<string, { bid: number | null; ask: number | null }> = {};
  for (const ex of s.config.exchanges) {
    const b = s.market[ex]?.book;
    books[ex] = { bid: b?.bids[0]?.[0] ?? null, ask: b?.asks[0]?.[0] ?? null };
  }
  return {
    pnlQuote: s.realizedPnl,
    trips: s.trips,
    lastSpread: s.lastSpread,
    marginPct: marginPct(s.config),
    inventory: arbitrageInventory(s),
    books,
    status: s.status,
    tripOpen: s.trip !== null,
    waiting: s.waiting ? `${s.waiting.side}_on_${s.waiting.exchange}` : null,
    pausedUntil: s.pausedUntil ?? null,
  };
}

// ---------------------------------------------------------------------------------------------------
// The step function

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepArbitrage(state: ArbitrageState, event: StrategyEvent): StepResult<ArbitrageState> {
  const cx = beginStep(state, event);
  if (cx.s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  return endStep(cx);
}

/** Copy-on-write of the venues and the trip (and the orders in them) before the first change. */
function own(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  const s = cx.s;
  const copy = (v: ArbVenueState): ArbVenueState => ({
    ...v,
    inventory: { ...v.inventory },
    prepare: v.prepare ? { ...v.prepare } : null,
    close: v.close ? { ...v.close } : null,
  });
  s.venues = [copy(s.venues[0]), copy(s.venues[1])];
  if (s.trip)
    s.trip = {
      ...s.trip,
      buy: { ...s.trip.buy },
      sell: { ...s.trip.sell },
      unwind: s.trip.unwind ? { ...s.trip.unwind } : null,
    };
}

/** Arbitrage takes no action, DCA setting nor liquidation (it trades spot): those log invalid_value. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price, e.exchange, e.symbol, e.book),
  filled: (cx, id, amount, price, fee) =>
    onOrderEvent(cx, id, (o) => {
      if (!validFill(amount, price, fee)) return null;
      o.filled = amount;
      o.avgPrice = price;
      o.fee = fee;
      o.done = true;
      return OK;
    }),
  partial: (cx, id, filled, price, fee) =>
    onOrderEvent(cx, id, (o) => {
      if (!validFill(filled, price, fee) || filled < o.filled) return null;
      o.filled = filled;
      o.avgPrice = price;
      o.fee = fee;
      return OK;
    }),
  cancelled: (cx, id, filled, price, fee) =>
    onOrderEvent(cx, id, (o) => {
      if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= o.filled) {
        o.filled = filled;
        o.avgPrice = price ?? o.avgPrice;
        o.fee = fee ?? o.fee;
      }
      o.done = true;
      return o.filled > 0 ? OK : { why: 'cancelled' };
    }),
  rejected: (cx, id, reason, message) =>
    onOrderEvent(cx, id, (o) => {
      o.done = true;
      return { why: reason, message };
    }),
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  other: refuseEvent,
});

/** What an order event said: why the order failed (null: it did not), and the venue's message. */
interface Outcome {
  why: RejectReason | 'cancelled' | null;
  message?: string;
}
const OK: Outcome = { why: null };

// --- ticks -------------------------------------------------------------------------------------------

function onTick(cx: Cx, price: number, exchange?: string, symbol?: string, book?: BookSnapshot): void {
  const s = cx.s;
  const ex = exchange ?? s.config.exchanges[0];
  if (!positive(price) || !s.config.exchanges.includes(ex)) return;
  if (symbol !== undefined && symbol !== s.config.symbol) return;
  s.market = { ...s.market, [ex]: { price, book: validBook(book), ts: cx.ts } };
  if (ex === s.config.exchanges[0]) s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status === 'starting') {
    if (s.venues[0].prepare === null && s.venues[1].prepare === null) maybePrepare(cx);
    return;
  }
  const trip = s.trip;
  if (trip) {
    if (trip.phase === 'unwinding' && trip.unwind === null) {
      own(cx);
      placeUnwind(cx);
    }
    return;
  }
  if (s.status === 'running') decide(cx);
}

function validBook(book: BookSnapshot | undefined): BookSnapshot | null {
  if (!book || !Array.isArray(book.bids) || !Array.isArray(book.asks)) return null;
  return book;
}

/** The first tick with a price of each venue: one market buy per venue of a quarter of the capital. */
function maybePrepare(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  const prices = c.exchanges.map((ex) => {
    const m = s.market[ex];
    return m ? (m.book?.asks[0]?.[0] ?? m.price) : null;
  });
  if (prices[0] == null || prices[1] == null) return;
  own(cx);
  // amountQuote / 2 per venue, half of that in base.
  const quarter = decToNumber(toDec(c.amountQuote) / 4n);
  const plans = c.exchanges.map((ex, i) => {
    const r = c.rules[ex]!;
    const price = prices[i]!;
    return { ex, price, amount: roundDownToStep(quarter / price, r.amountStep), rules: r };
  });
  for (const p of plans) {
    if (!minOk(p.rules, p.amount, p.price)) {
      log(cx, 'warn', 'below_min_cost', {
        role: 'arb_prepare',
        reason: p.amount > 0 && p.amount < p.rules.minAmount ? 'min_amount' : 'min_cost',
        amount: p.amount,
        price: p.price,
        cost: formatAmount(decToString(decMul(toDec(p.amount), toDec(p.price)))),
        min_cost: p.rules.minCost,
        min_amount: p.rules.minAmount,
        symbol: c.symbol,
        exchange: p.ex,
      });
      markStopped(cx, 'entry_failed');
      return;
    }
  }
  plans.forEach((p, i) => {
    const id = nextId(s);
    s.venues[i]!.prepare = newRef(id, p.ex, 'buy', p.price, p.amount);
    cx.places.push({
      type: 'place_order',
      exchange: p.ex,
      symbol: c.symbol,
      clientOrderId: id,
      side: 'buy',
      orderType: 'market',
      amount: p.amount,
      quoteAmount: Number(formatAmount(decToString(decMul(toDec(p.amount), toDec(p.price))), 8)),
      role: 'arb_prepare',
    });
  });
}

function newRef(
  id: string,
  exchange: string,
  side: 'buy' | 'sell',
  price: number,
  amount: number,
): ArbOrderRef {
  return { ...newOrderRef(id, { exchange, side }, price, amount), done: false };
}

function venueOf(s: ArbitrageState, exchange: string): ArbVenueState {
  return s.venues[0].exchange === exchange ? s.venues[0] : s.venues[1];
}

/** Both books fresh: the decision, the spread for the page, a trip or the waiting reason. */
function decide(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  const books: Record<string, BookSnapshot> = {};
  for (const ex of c.exchanges) {
    const m = s.market[ex];
    if (!m || !m.book || cx.ts - m.ts > ARB_BOOK_MAX_AGE_MS) return;
    books[ex] = m.book;
  }
  const d = arbDecision({
    exchanges: c.exchanges,
    books,
    inventory: arbitrageInventory(s),
    rules: c.rules,
    tradeQuote: c.amountQuote * (c.tradeFraction ?? ARB_DEFAULT_TRADE_FRACTION),
    marginPct: marginPct(c),
  });
  const spread: Record<string, ArbSpread> = {};
  for (const dir of d.directions) spread[dir.key] = { edgePct: dir.edgePct, feesPct: dir.feesPct };
  s.lastSpread = spread;
  if (s.lastTripEndTs !== null && cx.ts < s.lastTripEndTs + (c.cooldownMs ?? ARB_DEFAULT_COOLDOWN_MS)) return;
  if (s.pausedUntil != null && cx.ts < s.pausedUntil) return;
  if (d.best) {
    openTrip(cx, d.best);
    return;
  }
  // An opportunity the inventory cannot take: say which side ran out, once per cause.
  let blocked: ArbDirection | null = null;
  for (const dir of d.directions)
    if (
      (dir.reason === 'no_base' || dir.reason === 'no_quote') &&
      (blocked === null || (dir.edgePct ?? 0) > (blocked.edgePct ?? 0))
    )
      blocked = dir;
  if (!blocked) return;
  const side = blocked.reason === 'no_base' ? 'base' : 'quote';
  const exchange = side === 'base' ? blocked.sellExchange : blocked.buyExchange;
  const w = s.waiting;
  if (w && w.direction === blocked.key && w.side === side && w.exchange === exchange) return;
  const waiting: ArbWaiting = { direction: blocked.key, side, exchange };
  s.waiting = waiting;
  const inv = venueOf(s, exchange).inventory;
  const need =
    side === 'base'
      ? blocked.desiredQty
      : Number(
          formatAmount(
            decToString(
              decMul(
                decMul(toDec(blocked.desiredQty), toDec(blocked.buyAvg)),
                toDec(1) + toDec(c.rules[exchange]!.takerFee),
              ),
            ),
            8,
          ),
        );
  log(cx, 'warn', 'arb_waiting_inventory', {
    direction: blocked.key,
    side,
    exchange,
    have: formatAmount(side === 'base' ? inv.base : inv.quote),
    need,
    edge_pct: blocked.edgePct ?? 0,
    fees_pct: blocked.feesPct,
  });
}

function openTrip(cx: Cx, d: ArbDirection): void {
  own(cx);
  const s = cx.s;
  const c = s.config;
  const buyId = nextId(s);
  const sellId = nextId(s);
  s.tripsOpened += 1;
  s.waiting = null;
  const trip: ArbTrip = {
    id: buyId,
    qty: d.qty,
    openedAt: cx.ts,
    buy: newRef(buyId, d.buyExchange, 'buy', d.buyAvg, d.qty),
    sell: newRef(sellId, d.sellExchange, 'sell', d.sellAvg, d.qty),
    phase: 'legs',
    unwindLeg: null,
    unwindLeft: '0',
    unwind: null,
    unwindAttempts: 0,
    expectedBuyAvg: d.buyAvg,
    expectedSellAvg: d.sellAvg,
    expectedNet: d.expectedNet,
  };
  s.trip = trip;
  log(cx, 'info', 'arb_opportunity', {
    direction: d.key,
    buy_exchange: d.buyExchange,
    sell_exchange: d.sellExchange,
    qty: d.qty,
    buy_avg: d.buyAvg,
    sell_avg: d.sellAvg,
    edge_pct: d.tradeEdgePct ?? 0,
    fees_pct: d.feesPct,
    margin_pct: marginPct(c),
    expected_net: d.expectedNet,
  });
  const leg = (id: string, exchange: string, side: 'buy' | 'sell', role: 'arb_buy' | 'arb_sell') =>
    ({
      type: 'place_order',
      exchange,
      symbol: c.symbol,
      clientOrderId: id,
      side,
      orderType: 'market',
      amount: d.qty,
      role,
      lotId: buyId,
    }) satisfies PlaceOrderCommand;
  cx.places.push(
    leg(buyId, d.buyExchange, 'buy', 'arb_buy'),
    leg(sellId, d.sellExchange, 'sell', 'arb_sell'),
  );
}

// --- order events ------------------------------------------------------------------------------------

type Found =
  | { kind: 'prepare'; ref: ArbOrderRef; venue: ArbVenueState }
  | { kind: 'close'; ref: ArbOrderRef; venue: ArbVenueState }
  | { kind: 'leg'; ref: ArbOrderRef; leg: 'buy' | 'sell' }
  | { kind: 'unwind'; ref: ArbOrderRef };

function find(s: ArbitrageState, id: string): Found | null {
  for (const v of s.venues) {
    if (v.prepare && !v.prepare.done && v.prepare.clientOrderId === id)
      return { kind: 'prepare', ref: v.prepare, venue: v };
    if (v.close && !v.close.done && v.close.clientOrderId === id)
      return { kind: 'close', ref: v.close, venue: v };
  }
  const t = s.trip;
  if (t) {
    if (!t.buy.done && t.buy.clientOrderId === id) return { kind: 'leg', ref: t.buy, leg: 'buy' };
    if (!t.sell.done && t.sell.clientOrderId === id) return { kind: 'leg', ref: t.sell, leg: 'sell' };
    if (t.unwind && !t.unwind.done && t.unwind.clientOrderId === id) return { kind: 'unwind', ref: t.unwind };
  }
  return null;
}

/**
 * An event about order `id`: `apply` updates the order's ref (null: an invalid event, ignored). Events
 * of unknown or settled orders are ignored (re-deliveries are harmless).
 */
function onOrderEvent(cx: Cx, id: string, apply: (o: ArbOrderRef) => Outcome | null): void {
  if (!find(cx.s, id)) return;
  own(cx);
  const f = find(cx.s, id)!;
  const outcome = apply(f.ref);
  if (!outcome || !f.ref.done) return;
  const { why, message } = outcome;
  const o = f.ref;
  if (o.filled > 0) applyFill(cx.s, o);
  switch (f.kind) {
    case 'prepare':
      prepareDone(cx, f.venue, o, why, message);
      break;
    case 'leg':
      if (o.filled <= 0 && why)
        log(
          cx,
          'warn',
          'order_rejected',
          rejectParams(
            { role: f.leg === 'buy' ? 'arb_buy' : 'arb_sell', reason: why, exchange: o.exchange },
            message,
          ),
        );
      legsProgress(cx);
      break;
    case 'unwind':
      unwindDone(cx, o, why, message);
      break;
    case 'close':
      closeDone(cx, f.venue, o, why, message);
      break;
  }
  if (cx.s.status === 'stopping') continueStop(cx);
}

/** A settled order's fill moves the venue's inventory: a buy adds base and costs quote + fee, a sell
 *  the reverse (fees are in quote). */
function applyFill(s: ArbitrageState, o: ArbOrderRef): void {
  const inv = venueOf(s, o.exchange).inventory;
  const q = toDec(o.filled);
  const value = decMul(q, toDec(o.avgPrice));
  const fee = toDec(o.fee);
  if (o.side === 'buy') {
    inv.base = decToString(toDec(inv.base) + q);
    inv.quote = decToString(toDec(inv.quote) - value - fee);
  } else {
    inv.base = decToString(toDec(inv.base) - q);
    inv.quote = decToString(toDec(inv.quote) + value - fee);
  }
}

function prepareDone(
  cx: Cx,
  v: ArbVenueState,
  o: ArbOrderRef,
  why: RejectReason | 'cancelled' | null,
  message: string | undefined,
): void {
  const s = cx.s;
  if (o.filled > 0) {
    log(cx, 'info', 'arb_prepared', {
      exchange: v.exchange,
      qty: o.filled,
      price: o.avgPrice,
      fee: o.fee,
      base: v.inventory.base,
      quote: formatAmount(v.inventory.quote),
    });
  } else {
    log(
      cx,
      'warn',
      why === 'min_cost' ? 'below_min_cost' : 'order_rejected',
      rejectParams({ role: 'arb_prepare', reason: why ?? 'unknown', exchange: v.exchange }, message),
    );
    // The other venue's base (if it filled) is sold back at the stop.
    if (s.status === 'starting') beginStop(cx, 'close_market', 'entry_failed');
    return;
  }
  if (s.status !== 'starting') return;
  const [a, b] = s.venues;
  if (a.prepare?.done && b.prepare?.done && a.prepare.filled > 0 && b.prepare.filled > 0) {
    s.status = 'running';
    log(cx, 'info', 'started', {
      symbol: s.config.symbol,
      amount: s.config.amountQuote,
      exchanges: s.config.exchanges.join(','),
      margin_pct: marginPct(s.config),
    });
  }
}

/** Share of `fee` for `part` of `whole` (exact). */
function feeShare(fee: number, part: Dec, whole: Dec): Dec {
  if (whole <= 0n || part >= whole) return toDec(fee);
  return decDiv(decMul(toDec(fee), part), whole);
}

/** Both legs settled: the matched part is the round trip's trade; what one leg filled beyond the
 *  other is unwound on its venue. */
function legsProgress(cx: Cx): void {
  const s = cx.s;
  const t = s.trip;
  if (!t || t.phase !== 'legs' || !t.buy.done || !t.sell.done) return;
  const fb = toDec(t.buy.filled);
  const fs = toDec(t.sell.filled);
  const matched = fb < fs ? fb : fs;
  if (matched > 0n) {
    const buyFee = decToNumber(feeShare(t.buy.fee, matched, fb));
    const sellFee = decToNumber(feeShare(t.sell.fee, matched, fs));
    const pnl = roundPnl(
      decMul(matched, toDec(t.sell.avgPrice) - toDec(t.buy.avgPrice)) - toDec(buyFee) - toDec(sellFee),
    );
    recordTrade(cx, {
      lotId: t.id,
      qty: decToNumber(matched),
      buyPrice: t.buy.avgPrice,
      sellPrice: t.sell.avgPrice,
      buyTime: cx.ts,
      sellTime: cx.ts,
      buyFee,
      sellFee,
      pnlNet: pnl,
      buyExchange: t.buy.exchange,
      sellExchange: t.sell.exchange,
    });
    s.trips += 1;
    log(cx, 'info', 'arb_round_trip', {
      buy_exchange: t.buy.exchange,
      sell_exchange: t.sell.exchange,
      qty: decToNumber(matched),
      buy_price: t.buy.avgPrice,
      sell_price: t.sell.avgPrice,
      fees: decToNumber(toDec(buyFee) + toDec(sellFee)),
      pnl_net: pnl,
      expected_net: t.expectedNet,
    });
  }
  if (fb === fs) {
    if (matched > 0n) s.failStreak = 0;
    return finishTrip(cx);
  }
  pauseAfterFailedLeg(cx);
  const leg: 'buy' | 'sell' = fb > fs ? 'buy' : 'sell';
  const filled = t[leg];
  const other = t[leg === 'buy' ? 'sell' : 'buy'];
  const excess = fb > fs ? fb - fs : fs - fb;
  log(cx, 'warn', 'arb_leg_failed', {
    trip: t.id,
    failed_exchange: other.exchange,
    failed_side: other.side,
    failed_filled: other.filled,
    filled_exchange: filled.exchange,
    filled_side: filled.side,
    filled_qty: filled.filled,
    unwind_qty: decToNumber(excess),
  });
  t.phase = 'unwinding';
  t.unwindLeg = leg;
  t.unwindLeft = decToString(excess);
  placeUnwind(cx);
}

/** Sends the unwind of what is left (the filled leg's venue, opposite side), or ends the trip when it
 *  cannot be sent (below the minimum, attempts used up). */
function placeUnwind(cx: Cx): void {
  const s = cx.s;
  const t = s.trip!;
  const leg = t[t.unwindLeg!];
  const r = s.config.rules[leg.exchange]!;
  const amount = roundDownToStep(decToNumber(toDec(t.unwindLeft)), r.amountStep);
  const m = s.market[leg.exchange];
  const side: 'buy' | 'sell' = leg.side === 'buy' ? 'sell' : 'buy';
  const price = (side === 'sell' ? m?.book?.bids[0]?.[0] : m?.book?.asks[0]?.[0]) ?? m?.price ?? leg.avgPrice;
  if (!minOk(r, amount, price)) {
    log(cx, 'warn', 'arb_unwind_skipped', {
      trip: t.id,
      exchange: leg.exchange,
      side,
      amount,
      price,
      reason: 'below_min_cost',
      min_cost: r.minCost,
      min_amount: r.minAmount,
    });
    return finishTrip(cx);
  }
  if (t.unwindAttempts >= ARB_MAX_UNWIND_ATTEMPTS) {
    log(cx, 'warn', 'arb_unwind_failed', {
      trip: t.id,
      exchange: leg.exchange,
      side,
      amount,
      attempts: t.unwindAttempts,
    });
    return finishTrip(cx);
  }
  t.unwindAttempts += 1;
  const id = nextId(s);
  t.unwind = newRef(id, leg.exchange, side, price, amount);
  cx.places.push({
    type: 'place_order',
    exchange: leg.exchange,
    symbol: s.config.symbol,
    clientOrderId: id,
    side,
    orderType: 'market',
    amount,
    role: 'arb_unwind',
    lotId: t.id,
  });
}

function unwindDone(cx: Cx, o: ArbOrderRef, why: RejectReason | 'cancelled' | null, message?: string): void {
  const s = cx.s;
  const t = s.trip!;
  const leg = t[t.unwindLeg!];
  t.unwind = null;
  if (o.filled > 0) {
    const q = toDec(o.filled);
    const legShare = decToNumber(feeShare(leg.fee, q, toDec(leg.filled)));
    const unwoundBuy = leg.side === 'buy';
    const buyPrice = unwoundBuy ? leg.avgPrice : o.avgPrice;
    const sellPrice = unwoundBuy ? o.avgPrice : leg.avgPrice;
    const buyFee = unwoundBuy ? legShare : o.fee;
    const sellFee = unwoundBuy ? o.fee : legShare;
    const pnl = roundPnl(decMul(q, toDec(sellPrice) - toDec(buyPrice)) - toDec(buyFee) - toDec(sellFee));
    recordTrade(cx, {
      lotId: t.id,
      key: t.unwindAttempts <= 1 ? `${t.id}#unwind` : `${t.id}#unwind-${t.unwindAttempts}`,
      qty: decToNumber(q),
      buyPrice,
      sellPrice,
      buyTime: cx.ts,
      sellTime: cx.ts,
      buyFee,
      sellFee,
      pnlNet: pnl,
      buyExchange: leg.exchange,
      sellExchange: leg.exchange,
    });
    log(cx, 'warn', 'arb_unwound', {
      exchange: leg.exchange,
      side: o.side,
      qty: decToNumber(q),
      price: o.avgPrice,
      leg_price: leg.avgPrice,
      fees: decToNumber(toDec(buyFee) + toDec(sellFee)),
      pnl_net: pnl,
    });
    const left = toDec(t.unwindLeft) - q;
    t.unwindLeft = decToString(left > 0n ? left : 0n);
  } else {
    log(
      cx,
      'warn',
      'order_rejected',
      rejectParams({ role: 'arb_unwind', reason: why ?? 'unknown', exchange: leg.exchange }, message),
    );
    // Funds, minimum or precision refusals will not pass by retrying.
    if (why !== 'exchange_error' && why !== 'unknown' && why !== 'cancelled')
      t.unwindAttempts = ARB_MAX_UNWIND_ATTEMPTS;
  }
  const r = s.config.rules[leg.exchange]!;
  if (toDec(t.unwindLeft) < toDec(r.amountStep)) return finishTrip(cx);
  if (t.unwindAttempts >= ARB_MAX_UNWIND_ATTEMPTS) {
    log(cx, 'warn', 'arb_unwind_failed', {
      trip: t.id,
      exchange: leg.exchange,
      amount: decToNumber(toDec(t.unwindLeft)),
      attempts: t.unwindAttempts,
    });
    return finishTrip(cx);
  }
  // Retried at the next tick (a fresh price; never in a loop within one step).
}

/** A leg failed: no new trip for a while, longer for each failure in a row (logged with the time). */
function pauseAfterFailedLeg(cx: Cx): void {
  const s = cx.s;
  const streak = (s.failStreak ?? 0) + 1;
  const ms = Math.min(ARB_FAIL_PAUSE_MAX_MS, ARB_FAIL_PAUSE_MS * 2 ** Math.min(streak - 1, 20));
  s.failStreak = streak;
  s.pausedUntil = cx.ts + ms;
  log(cx, 'warn', 'arb_paused', { seconds: ms / 1000, failed_in_a_row: streak, until: s.pausedUntil });
}

function finishTrip(cx: Cx): void {
  const s = cx.s;
  s.trip = null;
  s.lastTripEndTs = cx.ts;
}

// --- stopping ----------------------------------------------------------------------------------------

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  own(cx);
  markStopping(cx, mode, reason);
  continueStop(cx);
}

/** Once nothing is in flight (prepares, the trip with its unwind): close_market sells each venue's base
 *  at market, then the bot stops; cancel_only stops at once (the assets stay). */
function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping') return;
  if (s.trip) return;
  for (const v of s.venues) if ((v.prepare && !v.prepare.done) || (v.close && !v.close.done)) return;
  if (s.stopMode === 'close_market') {
    let placed = false;
    for (const v of s.venues) {
      if (v.closeAttempts >= ARB_MAX_CLOSE_ATTEMPTS) continue;
      const r = s.config.rules[v.exchange]!;
      const amount = roundDownToStep(decToNumber(toDec(v.inventory.base)), r.amountStep);
      if (!(amount > 0)) continue;
      const m = s.market[v.exchange];
      const price = m?.book?.bids[0]?.[0] ?? m?.price ?? v.prepare?.avgPrice ?? 0;
      if (!minOk(r, amount, price)) {
        v.closeAttempts = ARB_MAX_CLOSE_ATTEMPTS;
        log(cx, 'warn', 'below_min_cost', {
          role: 'arb_close',
          reason: amount < r.minAmount ? 'min_amount' : 'min_cost',
          amount,
          price,
          cost: formatAmount(decToString(decMul(toDec(amount), toDec(price)))),
          min_cost: r.minCost,
          min_amount: r.minAmount,
          symbol: s.config.symbol,
          exchange: v.exchange,
        });
        continue;
      }
      v.closeAttempts += 1;
      const id = nextId(s);
      v.close = newRef(id, v.exchange, 'sell', price, amount);
      cx.places.push({
        type: 'place_order',
        exchange: v.exchange,
        symbol: s.config.symbol,
        clientOrderId: id,
        side: 'sell',
        orderType: 'market',
        amount,
        role: 'arb_close',
      });
      placed = true;
    }
    if (placed) return;
  }
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}

function closeDone(
  cx: Cx,
  v: ArbVenueState,
  o: ArbOrderRef,
  why: RejectReason | 'cancelled' | null,
  message: string | undefined,
): void {
  if (o.filled > 0) {
    log(cx, 'info', 'arb_closed', {
      exchange: v.exchange,
      qty: o.filled,
      price: o.avgPrice,
      fee: o.fee,
      base_left: v.inventory.base,
    });
    return;
  }
  if (why !== 'exchange_error' && why !== 'unknown' && why !== 'cancelled')
    v.closeAttempts = ARB_MAX_CLOSE_ATTEMPTS;
  log(cx, 'warn', 'close_failed', {
    ...rejectParams({ reason: why ?? 'unknown', exchange: v.exchange }, message),
    attempt: v.closeAttempts,
    max_attempts: ARB_MAX_CLOSE_ATTEMPTS,
  });
}

// ---------------------------------------------------------------------------------------------------
// The Strategy

/**
 * Whether `a` and `b` differ only in what ticks bring (prices, books, the live spread, the time): a
 * tick without a decision is not written; the page reads the runner's in-memory state for the spread.
 */
export function samePersistedArbitrage(a: ArbitrageState, b: ArbitrageState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.venues === b.venues &&
    a.trip === b.trip &&
    a.trips === b.trips &&
    a.tripsOpened === b.tripsOpened &&
    a.lastTripEndTs === b.lastTripEndTs &&
    a.failStreak === b.failStreak &&
    a.pausedUntil === b.pausedUntil &&
    a.realizedPnl === b.realizedPnl &&
    a.waiting === b.waiting &&
    a.stopMode === b.stopMode &&
    a.stopReason === b.stopReason &&
    a.config === b.config
  );
}

/** The Arbitrage bot as a `Strategy` (bots.kind 'arbitrage'). */
export const arbitrageBot: Strategy<ArbitrageState, ArbitrageConfig> = {
  kind: 'arbitrage',
  create: createArbitrageBot,
  step: stepArbitrage,
  samePersisted: samePersistedArbitrage,
  realizedPnl: (s) => s.realizedPnl,
  extraMarkets: (s) => [{ exchange: s.config.exchanges[1], symbol: s.config.symbol }],
  bookDepth: () => ARB_BOOK_DEPTH,
};
