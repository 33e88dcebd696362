// The spot part of a paper account: limit and market orders on the spot wallet, their
// reservations while they rest, and their fills (rules at the top of venue.ts).
import { InvalidOrderError } from '../errors';
import { money, roundToStep } from '../precision';
import type { CreateOrderRequest, Market, Order, OrderBook } from '../types';
import type { PaperAccount } from './account';
import { copyOrder } from './store';

/** Quote a resting buy reserves: its cost plus the maker fee. */
export function reservedQuote(order: Order, market: Market): number {
  return money((order.price ?? 0) * order.amount * (1 + market.maker));
}

function reserve(acct: PaperAccount, coin: string, amount: number): void {
  const b = acct.bal(coin);
  b.free = money(b.free - amount);
  b.used = money(b.used + amount);
}

function release(acct: PaperAccount, coin: string, amount: number): void {
  const b = acct.bal(coin);
  b.used = money(Math.max(0, b.used - amount));
  b.free = money(b.free + amount);
}

/** Releases what a resting spot order reserved (cancel). */
export function releaseSpotOrder(acct: PaperAccount, order: Order, market: Market): void {
  if (order.side === 'buy') release(acct, market.quote, reservedQuote(order, market));
  else release(acct, market.base, order.remaining);
}

export async function placeSpotLimit(
  acct: PaperAccount,
  req: CreateOrderRequest,
  market: Market,
  amount: number,
  price: number,
  last: number,
): Promise<Order> {
  const crosses = req.side === 'buy' ? last <= price : last >= price;
  const cost = money(amount * price);
  if (req.side === 'buy') {
    const need = money(cost * (1 + (crosses ? market.taker : market.maker)));
    if (acct.bal(market.quote).free < need) acct.insufficient(market.quote, need);
  } else if (acct.bal(market.base).free < amount) {
    acct.insufficient(market.base, amount);
  }
  const order = acct.newOrder(req, amount, price);
  acct.remember(order);
  if (crosses) {
    settleSpot(acct, order, market, price, market.taker, false);
  } else {
    if (req.side === 'buy') reserve(acct, market.quote, reservedQuote(order, market));
    else reserve(acct, market.base, amount);
    acct.insertResting(order);
  }
  acct.dirty.set(order.id, order);
  await acct.saver.persistOrThrow();
  if (crosses) acct.emit(order);
  return copyOrder(order);
}

export async function placeSpotMarket(
  acct: PaperAccount,
  req: CreateOrderRequest,
  market: Market,
  amount: number,
  book: OrderBook,
): Promise<Order> {
  const levels = req.side === 'buy' ? book.asks : book.bids;
  if (levels.length === 0) {
    throw new InvalidOrderError(`The ${market.symbol} book is empty`, acct.exchange, 'other');
  }
  let left = amount;
  let cost = 0;
  let lastPrice = levels[0]![0];
  for (const [p, size] of levels) {
    if (left <= 0) break;
    const take = Math.min(left, size);
    cost += take * p;
    left -= take;
    lastPrice = p;
  }
  if (left > 1e-12) cost += left * lastPrice;
  cost = money(cost);
  const average = roundToStep(cost / amount, market.priceStep / 1000);
  acct.checkMinCost(market, amount, cost / amount);
  if (req.side === 'buy') {
    const need = money(cost * (1 + market.taker));
    if (acct.bal(market.quote).free < need) acct.insufficient(market.quote, need);
  } else if (acct.bal(market.base).free < amount) {
    acct.insufficient(market.base, amount);
  }
  const order = acct.newOrder(req, amount, null);
  acct.remember(order);
  settleSpot(acct, order, market, average, market.taker, false, cost);
  order.price = average;
  acct.dirty.set(order.id, order);
  await acct.saver.persistOrThrow();
  acct.emit(order);
  return copyOrder(order);
}

/** Fills the whole order at `price` and moves the balances (reserved funds when it rested). */
export function settleSpot(
  acct: PaperAccount,
  order: Order,
  market: Market,
  price: number,
  feeRate: number,
  rested: boolean,
  cost?: number,
): void {
  const gross = cost ?? money(order.amount * price);
  const fee = money(gross * feeRate);
  const base = acct.bal(market.base);
  const quote = acct.bal(market.quote);
  if (order.side === 'buy') {
    if (rested) {
      const reserved = reservedQuote(order, market);
      quote.used = money(Math.max(0, quote.used - reserved));
      // Maker fee equals the reserved rate; any rounding remainder goes back to free.
      quote.free = money(quote.free + reserved - gross - fee);
    } else {
      quote.free = money(quote.free - gross - fee);
    }
    base.free = money(base.free + order.amount);
  } else {
    if (rested) base.used = money(Math.max(0, base.used - order.amount));
    else base.free = money(base.free - order.amount);
    quote.free = money(quote.free + gross - fee);
  }
  order.filled = order.amount;
  order.remaining = 0;
  order.cost = gross;
  order.average = price;
  order.fee = { cost: fee, currency: market.quote };
  order.status = 'closed';
  order.lastUpdateTimestamp = acct.now();
  acct.closedIds.push(order.id);
  acct.pruneClosed();
}
