// The derivatives part of a paper account: swap orders on the derivatives wallet and isolated
// Margin orders on the spot wallet, their positions (fills, funding, margin interest,
// liquidation), leverage and transfers between the wallets (rules at the top of venue.ts; formulas
// in ../derivatives.ts and docs/venues.md).
import { InvalidOrderError } from '../errors';
import {
  HOUR_MS,
  averageEntry,
  fundingPayment,
  fundingTimeFloor,
  fundingTimesBetween,
  hoursBetween,
  initialMargin,
  liquidationPrice,
  marginInterest,
  notionalValue,
  positionPnl,
  simulatedFundingRate,
  type ContractSpec,
} from '../derivatives';
import { money, roundDecimals, roundToStep, stepDecimals } from '../precision';
import type {
  CreateOrderRequest,
  Liquidation,
  Market,
  Order,
  OrderBook,
  Position,
  PositionSide,
  Ticker,
  TransferWallet,
} from '../types';
import type { PaperAccount } from './account';
import { releaseSpotOrder } from './spot';
import { copyOrder, type PaperPosition } from './store';

/** Liquidation records kept per account. */
const KEEP_LIQUIDATIONS = 1_000;

/** The position an order trades: its market type, wallet, settle currency and contract. */
export interface DerivKind {
  marketType: 'Perpetual' | 'Inverse' | 'Margin';
  wallet: TransferWallet;
  settle: string;
  spec: ContractSpec;
}

/** What a fill did to a position (for the order's record). */
interface FillResult {
  /** Contracts that actually traded (less than the order's amount for a capped reduce-only). */
  filled: number;
}

/** What kind of position an order trades: null for a plain spot order. */
function derivKind(market: Market, marginMode: 'isolated' | undefined): DerivKind | null {
  if (market.type === 'swap') {
    const inverse = market.inverse === true;
    return {
      marketType: inverse ? 'Inverse' : 'Perpetual',
      wallet: 'swap',
      settle: market.settle ?? (inverse ? market.base : market.quote),
      spec: { inverse, contractSize: market.contractSize ?? 1 },
    };
  }
  if (marginMode === 'isolated') {
    return {
      marketType: 'Margin',
      wallet: 'spot',
      settle: market.quote,
      spec: { inverse: false, contractSize: 1 },
    };
  }
  return null;
}

export function derivKindOfOrder(market: Market, order: Order): DerivKind | null {
  return derivKind(market, order.marginMode);
}

/** The request's kind; refuses margin on a market without it and reduce-only on plain spot. */
export function derivKindOfRequest(
  acct: PaperAccount,
  market: Market,
  req: CreateOrderRequest,
): DerivKind | null {
  if (req.marginMode !== undefined && req.marginMode !== 'isolated') {
    throw new InvalidOrderError(
      `Unknown margin mode '${String(req.marginMode)}': only 'isolated' is supported`,
      acct.exchange,
      'other',
    );
  }
  if (req.marginMode === 'isolated' && market.type !== 'swap' && !market.margin) {
    throw new InvalidOrderError(`${market.symbol} does not allow margin trading`, acct.exchange, 'other');
  }
  const kind = derivKind(market, req.marginMode);
  if (!kind && req.reduceOnly) {
    throw new InvalidOrderError(
      `reduceOnly applies to derivatives and margin orders only, not to spot ${market.symbol}`,
      acct.exchange,
      'other',
    );
  }
  return kind;
}

/**
 * Takes a resting order off the book, releases what it reserved (margin of a derivatives or margin
 * order, funds of a spot one) and marks it cancelled.
 */
export function cancelResting(acct: PaperAccount, order: Order, market: Market): void {
  acct.resting.cancel(order.id);
  const kind = derivKindOfOrder(market, order);
  if (kind) {
    const r = acct.deriv.orderMargin[order.id];
    if (r) acct.releaseIn(kind.wallet, kind.settle, r.amount);
    delete acct.deriv.orderMargin[order.id];
  } else releaseSpotOrder(acct, order, market);
  acct.markCanceled(order);
}

/** Contracts rounded to the market's amount step decimals (no float drift in sizes). */
function qty(x: number, market: Market): number {
  return roundDecimals(Math.max(0, x), stepDecimals(market.amountStep));
}

/** Contracts of an order on `side` that would reduce the open position (0 when none). */
function reducible(acct: PaperAccount, symbol: string, side: PositionSide): number {
  const pos = acct.positions.get(symbol);
  return pos && pos.side !== side ? pos.contracts : 0;
}

/**
 * Free funds a fill of `amount` at `price` needs: the initial margin and fee of the part that opens
 * (the part that closes pays its fee from the margin it releases).
 */
function openingNeed(
  acct: PaperAccount,
  market: Market,
  kind: DerivKind,
  req: CreateOrderRequest,
  amount: number,
  price: number,
  leverage: number,
  feeRate: number,
): number {
  if (req.reduceOnly) return 0;
  const side: PositionSide = req.side === 'buy' ? 'long' : 'short';
  const open = qty(amount - reducible(acct, req.symbol, side), market);
  if (!(open > 0)) return 0;
  return money(
    initialMargin(kind.spec, open, price, leverage) + notionalValue(kind.spec, open, price) * feeRate,
  );
}

function refuseReduceOnly(acct: PaperAccount, symbol: string, side: PositionSide): never {
  const pos = acct.positions.get(symbol);
  throw new InvalidOrderError(
    `ReduceOnly Order is rejected: ${pos ? `a ${side === 'long' ? 'buy' : 'sell'} would increase the ${pos.side} position` : 'there is no position'} on ${symbol}`,
    acct.exchange,
    'other',
  );
}

export async function placeDerivLimit(
  acct: PaperAccount,
  req: CreateOrderRequest,
  market: Market,
  kind: DerivKind,
  amount: number,
  price: number,
  ticker: Ticker,
): Promise<Order> {
  const side: PositionSide = req.side === 'buy' ? 'long' : 'short';
  const crosses = req.side === 'buy' ? ticker.last <= price : ticker.last >= price;
  if (req.reduceOnly && !(reducible(acct, req.symbol, side) > 0)) refuseReduceOnly(acct, req.symbol, side);
  const leverage = acct.leverageOf(req.symbol);
  let reserve = 0;
  if (crosses) {
    const need = openingNeed(acct, market, kind, req, amount, price, leverage, market.taker);
    if (acct.balIn(kind.wallet, kind.settle).free < need) acct.insufficientIn(kind.wallet, kind.settle, need);
  } else if (!req.reduceOnly) {
    // The whole amount's initial margin plus maker fee, at the leverage of now.
    reserve = money(
      initialMargin(kind.spec, amount, price, leverage) +
        notionalValue(kind.spec, amount, price) * market.maker,
    );
    if (acct.balIn(kind.wallet, kind.settle).free < reserve)
      acct.insufficientIn(kind.wallet, kind.settle, reserve);
  }
  const order = acct.newOrder(req, amount, price);
  acct.remember(order);
  if (crosses) {
    fillDeriv(acct, order, market, kind, price, market.taker, leverage, ticker.timestamp);
  } else {
    const b = acct.balIn(kind.wallet, kind.settle);
    b.free = money(b.free - reserve);
    b.used = money(b.used + reserve);
    acct.deriv.orderMargin[order.id] = { amount: reserve, leverage };
    acct.insertResting(order);
  }
  acct.dirty.set(order.id, order);
  await acct.saver.persistOrThrow();
  if (crosses) acct.emit(order);
  return copyOrder(order);
}

export async function placeDerivMarket(
  acct: PaperAccount,
  req: CreateOrderRequest,
  market: Market,
  kind: DerivKind,
  requested: number,
  book: OrderBook,
): Promise<Order> {
  const levels = req.side === 'buy' ? book.asks : book.bids;
  if (levels.length === 0) {
    throw new InvalidOrderError(`The ${market.symbol} book is empty`, acct.exchange, 'other');
  }
  const side: PositionSide = req.side === 'buy' ? 'long' : 'short';
  let amount = requested;
  if (req.reduceOnly) {
    const canReduce = reducible(acct, req.symbol, side);
    if (!(canReduce > 0)) refuseReduceOnly(acct, req.symbol, side);
    // Capped at the position: a reduce-only order never opens the other way.
    amount = Math.min(amount, canReduce);
  }
  // Walk the book for size; inverse contracts average harmonically (their coin value adds up).
  let left = amount;
  let units = 0;
  let lastPrice = levels[0]![0];
  for (const [p, size] of levels) {
    if (left <= 0) break;
    const take = Math.min(left, size);
    units += kind.spec.inverse ? take / p : take * p;
    left -= take;
    lastPrice = p;
  }
  if (left > 1e-12) units += kind.spec.inverse ? left / lastPrice : left * lastPrice;
  const rawAverage = kind.spec.inverse ? amount / units : units / amount;
  const average = roundToStep(rawAverage, market.priceStep / 1000);
  if (!req.reduceOnly) acct.checkMinCost(market, amount, average);
  const leverage = acct.leverageOf(req.symbol);
  const need = openingNeed(acct, market, kind, req, amount, average, leverage, market.taker);
  if (acct.balIn(kind.wallet, kind.settle).free < need) acct.insufficientIn(kind.wallet, kind.settle, need);
  const order = acct.newOrder(req, amount, null);
  acct.remember(order);
  fillDeriv(acct, order, market, kind, average, market.taker, leverage, book.timestamp);
  order.price = average;
  acct.dirty.set(order.id, order);
  await acct.saver.persistOrThrow();
  acct.emit(order);
  return copyOrder(order);
}

/** Fills a crossed resting derivatives or margin order: its reservation back to free, then the fill. */
export function fillRestingDeriv(
  acct: PaperAccount,
  order: Order,
  market: Market,
  kind: DerivKind,
  price: number,
  ts: number,
): void {
  // The reservation goes back to free, then the fill takes its margin and fee from there.
  const r = acct.deriv.orderMargin[order.id];
  if (r) acct.releaseIn(kind.wallet, kind.settle, r.amount);
  delete acct.deriv.orderMargin[order.id];
  const leverage = r?.leverage ?? acct.leverageOf(order.symbol);
  fillDeriv(acct, order, market, kind, order.price ?? price, market.maker, leverage, ts);
}

/**
 * Fills a derivatives or margin order at `price`: first the part that reduces the open position
 * (PnL realized, never below minus the margin released: isolated), then the part that opens
 * (margin at `leverage`), unless reduce-only. A reduce-only order finding less to reduce than its
 * amount fills what it can and ends `canceled` (filled > 0) or `canceled` unfilled.
 */
function fillDeriv(
  acct: PaperAccount,
  order: Order,
  market: Market,
  kind: DerivKind,
  price: number,
  feeRate: number,
  leverage: number,
  marketTs: number,
): FillResult {
  const symbol = order.symbol;
  const side: PositionSide = order.side === 'buy' ? 'long' : 'short';
  const b = acct.balIn(kind.wallet, kind.settle);
  const pos = acct.positions.get(symbol);
  const closeQty = pos && pos.side !== side ? Math.min(order.amount, pos.contracts) : 0;
  const openQty = order.reduceOnly ? 0 : qty(order.amount - closeQty, market);
  let fee = 0;
  let cost = 0;
  if (pos && closeQty > 0) {
    const all = closeQty >= pos.contracts;
    const released = all ? pos.collateral : money((pos.collateral * closeQty) / pos.contracts);
    const pnl = Math.max(positionPnl(kind.spec, pos.side, closeQty, pos.entryPrice, price), -released);
    b.used = money(Math.max(0, b.used - released));
    b.free = money(b.free + released + pnl);
    const value = notionalValue(kind.spec, closeQty, price);
    const closeFee = Math.min(money(value * feeRate), Math.max(0, b.free));
    b.free = money(b.free - closeFee);
    fee += closeFee;
    cost += value;
    if (all) removePosition(acct, symbol);
    else {
      pos.borrowed = money(pos.borrowed - (pos.borrowed * closeQty) / pos.contracts);
      pos.contracts = qty(pos.contracts - closeQty, market);
      pos.collateral = money(pos.collateral - released);
      pos.timestamp = acct.now();
    }
  }
  if (openQty > 0) {
    const value = notionalValue(kind.spec, openQty, price);
    const margin = initialMargin(kind.spec, openQty, price, leverage);
    const openFee = money(value * feeRate);
    b.free = money(b.free - margin - openFee);
    b.used = money(b.used + margin);
    fee += openFee;
    cost += value;
    // Margin borrows the rest of the value (quote) for a long, the base it sells for a short.
    const borrowed = kind.marketType !== 'Margin' ? 0 : side === 'long' ? money(value - margin) : openQty;
    let p = acct.positions.get(symbol);
    if (p) {
      p.entryPrice = averageEntry(kind.spec, p.contracts, p.entryPrice, openQty, price);
      p.contracts = qty(p.contracts + openQty, market);
      p.collateral = money(p.collateral + margin);
      p.borrowed = money(p.borrowed + borrowed);
      p.leverage = leverage;
      p.timestamp = acct.now();
    } else {
      p = {
        symbol,
        marketType: kind.marketType,
        side,
        contracts: openQty,
        contractSize: kind.spec.contractSize,
        inverse: kind.spec.inverse,
        entryPrice: price,
        collateral: margin,
        leverage,
        settle: kind.settle,
        wallet: kind.wallet,
        borrowed,
        fundingPaid: 0,
        interestPaid: 0,
        // Funding times and hours before the opening are not charged.
        lastFundingAt: fundingTimeFloor(marketTs),
        lastInterestAt: Math.floor(marketTs / HOUR_MS) * HOUR_MS,
        openedAt: marketTs,
        timestamp: acct.now(),
      };
      acct.positions.set(symbol, p);
      acct.deriv.positions.push(p);
      // Watch the mark (funding, liquidation).
      acct.follow(symbol);
    }
    if (kind.marketType === 'Margin' && borrowed > 0) {
      // Interest is charged for the first hour when borrowing, then at every whole hour.
      const interest = marginInterest(side === 'long' ? borrowed : borrowed * price);
      p.collateral = money(p.collateral - interest);
      p.interestPaid = money(p.interestPaid + interest);
      b.used = money(Math.max(0, b.used - interest));
    }
  }
  const filled = qty(closeQty + openQty, market);
  order.filled = filled;
  order.remaining = qty(order.amount - filled, market);
  order.cost = money(cost);
  order.average = filled > 0 ? price : null;
  order.fee = { cost: money(fee), currency: kind.settle };
  order.status = filled >= order.amount ? 'closed' : 'canceled';
  order.lastUpdateTimestamp = acct.now();
  acct.closedIds.push(order.id);
  acct.pruneClosed();
  return { filled };
}

function removePosition(acct: PaperAccount, symbol: string): void {
  acct.positions.delete(symbol);
  acct.deriv.positions = acct.deriv.positions.filter((p) => p.symbol !== symbol);
}

function specOf(pos: PaperPosition): ContractSpec {
  return { inverse: pos.inverse, contractSize: pos.contractSize };
}

/** The liquidation price on the market's tick (0: never for a long; null: never for a short). */
function liquidationPriceOf(acct: PaperAccount, pos: PaperPosition): number | null {
  const raw = liquidationPrice(specOf(pos), pos.side, pos.contracts, pos.entryPrice, pos.collateral);
  if (raw === null || raw === 0) return raw;
  const step = acct.markets[pos.symbol]?.priceStep ?? 1e-8;
  return Math.max(step, roundToStep(raw, step));
}

/**
 * Funding (swaps) at every funding time passed since the last one charged, at the mark now; margin
 * interest (Margin) for every whole hour passed. Both come out of (or, received funding, go into)
 * the position's collateral. Returns whether anything changed.
 */
export function chargeCarry(acct: PaperAccount, symbol: string, mark: number, ts: number): boolean {
  const pos = acct.positions.get(symbol);
  if (!pos) return false;
  const b = acct.balIn(pos.wallet, pos.settle);
  let changed = false;
  if (pos.marketType === 'Margin') {
    const hours = hoursBetween(pos.lastInterestAt, ts);
    if (hours > 0) {
      const borrowedValue = pos.side === 'long' ? pos.borrowed : pos.borrowed * mark;
      const interest = marginInterest(borrowedValue, hours);
      pos.collateral = money(pos.collateral - interest);
      pos.interestPaid = money(pos.interestPaid + interest);
      b.used = money(Math.max(0, b.used - interest));
      pos.lastInterestAt = Math.floor(ts / HOUR_MS) * HOUR_MS;
      changed = true;
    }
    return changed;
  }
  for (const t of fundingTimesBetween(pos.lastFundingAt, ts)) {
    const pay = fundingPayment(specOf(pos), pos.side, pos.contracts, mark, simulatedFundingRate(symbol, t));
    pos.collateral = money(pos.collateral - pay);
    pos.fundingPaid = money(pos.fundingPaid + pay);
    b.used = money(Math.max(0, b.used - pay));
    pos.lastFundingAt = t;
    pos.timestamp = acct.now();
    changed = true;
  }
  return changed;
}

/**
 * Liquidates the symbol's position when the mark is at or past its liquidation price: cancels the
 * position's open orders (every order of a swap symbol; the margin orders of a spot symbol), closes
 * it at the liquidation price losing the collateral, and records it.
 */
export function checkLiquidation(
  acct: PaperAccount,
  symbol: string,
  mark: number,
): { canceled: Order[]; record: Liquidation } | null {
  const pos = acct.positions.get(symbol);
  const market = acct.markets[symbol];
  if (!pos || !market) return null;
  const liq = liquidationPriceOf(acct, pos);
  if (liq === null || liq === 0) return null;
  if (pos.side === 'long' ? mark > liq : mark < liq) return null;
  const canceled: Order[] = [];
  for (const o of acct.orders.values()) {
    if (o.status !== 'open' || o.symbol !== symbol) continue;
    if (pos.marketType === 'Margin' && o.marginMode !== 'isolated') continue;
    cancelResting(acct, o, market);
    canceled.push(o);
  }
  const b = acct.balIn(pos.wallet, pos.settle);
  // The whole isolated margin is lost: the close at the liquidation price realizes −(collateral −
  // maintenance margin) and the maintenance margin left is the liquidation fee.
  b.used = money(Math.max(0, b.used - pos.collateral));
  removePosition(acct, symbol);
  const record: Liquidation = {
    symbol,
    side: pos.side,
    contracts: pos.contracts,
    price: liq,
    ts: acct.now(),
    loss: money(Math.max(0, pos.collateral)),
    settle: pos.settle,
  };
  acct.deriv.liquidations.push(record);
  if (acct.deriv.liquidations.length > KEEP_LIQUIDATIONS) {
    acct.deriv.liquidations.splice(0, acct.deriv.liquidations.length - KEEP_LIQUIDATIONS);
  }
  return { canceled, record };
}

export function toPosition(acct: PaperAccount, pos: PaperPosition, mark: number): Position {
  const spec = specOf(pos);
  const market = acct.markets[pos.symbol];
  return {
    symbol: pos.symbol,
    marketType: pos.marketType,
    side: pos.side,
    contracts: pos.contracts,
    contractSize: pos.contractSize,
    entryPrice: pos.entryPrice,
    markPrice: mark,
    notional: notionalValue(spec, pos.contracts, mark),
    leverage: pos.leverage,
    collateral: pos.collateral,
    marginMode: 'isolated',
    liquidationPrice: liquidationPriceOf(acct, pos),
    unrealizedPnl: positionPnl(spec, pos.side, pos.contracts, pos.entryPrice, mark),
    settle: pos.settle,
    fundingPaid: pos.fundingPaid,
    ...(pos.marketType === 'Margin'
      ? {
          borrowed: {
            currency: pos.side === 'long' ? pos.settle : (market?.base ?? ''),
            amount: pos.borrowed,
          },
          interestPaid: pos.interestPaid,
        }
      : {}),
    timestamp: pos.timestamp,
  };
}

/** Checks and sets the leverage of a swap or margin symbol (the caller saves). */
export function setLeverageOf(acct: PaperAccount, leverage: number, symbol: string): void {
  const market = acct.markets[symbol];
  if (!market) {
    throw new InvalidOrderError(`${acct.exchange} does not list ${symbol}`, acct.exchange, 'bad_symbol');
  }
  if (market.type !== 'swap' && !market.margin) {
    throw new InvalidOrderError(
      `${symbol} has no leverage: it is a spot market without margin`,
      acct.exchange,
      'other',
    );
  }
  const max = market.maxLeverage ?? 1;
  if (!Number.isInteger(leverage) || leverage < 1 || leverage > max) {
    throw new InvalidOrderError(
      `Leverage must be a whole number from 1 to ${max} on ${symbol} (got ${String(leverage)})`,
      acct.exchange,
      'other',
    );
  }
  acct.deriv.leverage[symbol] = leverage;
}

/** Checks and moves free funds between the spot and the derivatives wallet (the caller saves). */
export function transferFunds(
  acct: PaperAccount,
  code: string,
  amount: number,
  from: TransferWallet,
  to: TransferWallet,
): void {
  const wallets: readonly string[] = ['spot', 'swap'];
  if (!wallets.includes(from) || !wallets.includes(to) || from === to) {
    throw new InvalidOrderError(
      `A transfer goes between 'spot' and 'swap' (got '${String(from)}' to '${String(to)}')`,
      acct.exchange,
      'other',
    );
  }
  const value = money(amount);
  if (!(Number.isFinite(amount) && value > 0)) {
    throw new InvalidOrderError('Transfer amount must be a positive number', acct.exchange, 'min_amount');
  }
  const src = acct.balIn(from, code);
  if (src.free < value) acct.insufficientIn(from, code, value);
  src.free = money(src.free - value);
  const dst = acct.balIn(to, code);
  dst.free = money(dst.free + value);
}
