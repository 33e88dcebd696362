/**
 * Arbitrage bot: a tick: the books kept per venue, the inventory prepared at start, and a round trip
 * opened when the decision says so.
 */
import { decMul, decToNumber, decToString, formatAmount, roundDownToStep, toDec } from '../money';
import type { BookSnapshot, PlaceOrderCommand } from '../strategy';
import { positive } from '../shared/checks';
import { nextId } from '../shared/context';
import { log } from '../shared/logging';
import { markStopped } from '../shared/stopping';
import type { ArbDirection, ArbSpread, ArbTrip, ArbWaiting } from './types';
import {
  ARB_BOOK_MAX_AGE_MS,
  ARB_DEFAULT_COOLDOWN_MS,
  ARB_DEFAULT_TRADE_FRACTION,
  arbitrageInventory,
  marginPct,
} from './config';
import { type Cx, newRef, own, venueOf } from './context';
import { arbDecision, minOk } from './decision';
import { placeUnwind } from './order-events';

export function onTick(cx: Cx, price: number, exchange?: string, symbol?: string, book?: BookSnapshot): void {
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
