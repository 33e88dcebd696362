/**
 * Arbitrage bot: the decision (arbDecision), a pure function of both books, fees, minimums and inventory:
 * the trip size executable on both books and whether its spread beats both taker fees plus the margin.
 */
import {
  type Dec,
  decDiv,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  toDec,
} from '../money';
import type { MarketRules } from '../strategy';
import { positive } from '../shared/checks';
import { roundPnl } from '../shared/trades';
import type { ArbDecision, ArbDecisionInput, ArbDirection, ArbDirectionReason } from './types';

/** Decimals of the percentages the bot logs and shows. */
const PCT_DECIMALS = 6;

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

export function minOk(m: MarketRules, qty: number, price: number): boolean {
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
