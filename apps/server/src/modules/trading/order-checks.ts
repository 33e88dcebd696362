import {
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  SPOT,
  SPOT_MESSAGES,
  type SpotOrderBody,
  type SpotOrderPreview,
} from '@bytx/contract';
import { roundDownToStep, roundToStep, roundUpToStep } from '@bytx/engine';
import { money, type Venue } from '@bytx/venues';
import { badRequest, HttpError, tooManyRequests } from '../../lib/errors';
import { parseLooseNumber } from '../bots/bot-input';
import { settleOf } from '../bots/derivatives';
import {
  contractSize,
  isEmpty,
  looseBool,
  MANUAL_INPUT_MESSAGES,
  word,
  type Target,
  type TradingInputs,
} from './inputs';
import type { ManualOrdersRepository } from './orders.repository';

/** An order checked and rounded: what Confirm sends (dry_run answers it as the preview). */
export interface Prepared {
  target: Target;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  /** The limit price (rounded), null for a market order. */
  price: number | null;
  /** The price the checks used: the limit price, or the market price read now. */
  entry: number;
  /** The market price read now. */
  marketPrice: number;
  quantity: number;
  value: number;
  tp: number | null;
  sl: number | null;
  reduceOnly: boolean;
  leverage: number;
}

/** `x` with `d` decimals, rounded up (what is required) or down (what is available). */
function fixed(x: number, d: number, dir: 'up' | 'down'): string {
  const f = 10 ** d;
  const v = dir === 'up' ? Math.ceil(x * f - 1e-7) / f : Math.floor(x * f + 1e-7) / f;
  return v.toFixed(d);
}

/** 429: the user already has SPOT.maxOpenOrders open orders. */
export function tooManyOpen(): HttpError {
  return tooManyRequests(fillMessage(SPOT_MESSAGES.tooManyOpen, { max: SPOT.maxOpenOrders }));
}

/** What dry_run answers: the order as it would be sent, with its fee and net value. */
export function preview(p: Prepared): SpotOrderPreview {
  return {
    exchange: p.target.exchange,
    symbol: p.target.marketSymbol,
    side: p.side,
    type: p.type,
    price: p.entry,
    quantity: p.quantity,
    value: p.value,
    fee: money(p.value * SPOT.feeRate),
    net: money(p.value * SPOT.netFactor),
    tp: p.tp,
    sl: p.sl,
    base: p.target.base,
    quote: p.target.quote,
  };
}

/**
 * The order rules of docs/trading.md, in their documented order, with the contract's SPOT_MESSAGES:
 * the first problem is thrown with its message, and a bad input changes nothing.
 */
export class OrderChecks {
  constructor(
    private readonly inputs: TradingInputs,
    private readonly orders: ManualOrdersRepository,
  ) {}

  /**
   * Every check of an order in the documented order (docs/trading.md "Order rules"), then the rounding
   * to the market's steps. Answers what would be sent; throws the first problem with its message.
   */
  async prepare(userId: string, body: SpotOrderBody): Promise<Prepared> {
    const exchange = await this.inputs.connectedExchange(userId, body.exchange);
    const target = await this.inputs.target(exchange, body.symbol);
    const { market, base, quote } = target;
    const display = { symbol: target.marketSymbol, exchange: exchangeDisplayName(exchange) };

    const s = word(body.side);
    const side = s === 'buy' || s === 'long' ? 'buy' : s === 'sell' || s === 'short' ? 'sell' : null;
    if (!side) throw badRequest(SPOT_MESSAGES.badSide, { field: 'side' });
    const ty = word(body.type);
    const type = ty === 'limit' || ty === 'market' ? ty : null;
    if (!type) throw badRequest(SPOT_MESSAGES.badType, { field: 'type' });
    const reduceOnly = looseBool(body.reduce_only);
    if (reduceOnly === null) throw badRequest(MANUAL_INPUT_MESSAGES.badReduceOnly, { field: 'reduce_only' });
    if (reduceOnly && !target.swap) throw badRequest(SPOT_MESSAGES.reduceOnlySpot, { field: 'reduce_only' });

    const marketPrice = await this.inputs.priceNow(target);
    if (marketPrice === null) throw new HttpError(503, SPOT_MESSAGES.noPrice);

    let price: number | null = null;
    if (type === 'limit') {
      const p = parseLooseNumber(body.price);
      if (p === null || !(p > 0) || p > LIMITS.maxPrice) {
        throw badRequest(SPOT_MESSAGES.badLimitPrice, { field: 'price' });
      }
      price = p;
    }
    const q = parseLooseNumber(body.quantity);
    if (q === null || !(q > 0) || q > LIMITS.maxAmount) {
      throw badRequest(SPOT_MESSAGES.badQuantity, { field: 'quantity' });
    }
    const exit = (v: unknown, field: 'tp' | 'sl'): number | null => {
      if (isEmpty(v)) return null;
      const n = parseLooseNumber(v);
      if (n === null || !(n > 0) || n > LIMITS.maxPrice) throw badRequest(SPOT_MESSAGES.badTpSl, { field });
      return n;
    };
    let tp = exit(body.tp, 'tp');
    let sl = exit(body.sl, 'sl');
    const sides = (entry: number) => {
      if (tp !== null && (side === 'buy' ? tp <= entry : tp >= entry)) {
        throw badRequest(side === 'buy' ? SPOT_MESSAGES.buyTpNotAbove : SPOT_MESSAGES.sellTpNotBelow, {
          field: 'tp',
        });
      }
      if (sl !== null && (side === 'buy' ? sl >= entry : sl <= entry)) {
        throw badRequest(side === 'buy' ? SPOT_MESSAGES.buySlNotBelow : SPOT_MESSAGES.sellSlNotAbove, {
          field: 'sl',
        });
      }
    };
    sides(price ?? marketPrice);

    // Rounding to the market's steps: quantity down, a buy's limit price down and a sell's up (never a
    // worse price than asked), TP and SL to the nearest step; then the same checks on what is sent.
    const quantity = roundDownToStep(q, market.amountStep);
    if (price !== null) {
      price =
        side === 'buy' ? roundDownToStep(price, market.priceStep) : roundUpToStep(price, market.priceStep);
      if (!(price > 0)) throw badRequest(SPOT_MESSAGES.badLimitPrice, { field: 'price' });
    }
    if (tp !== null) tp = roundToStep(tp, market.priceStep);
    if (sl !== null) sl = roundToStep(sl, market.priceStep);
    if (tp !== null && !(tp > 0)) throw badRequest(SPOT_MESSAGES.badTpSl, { field: 'tp' });
    if (sl !== null && !(sl > 0)) throw badRequest(SPOT_MESSAGES.badTpSl, { field: 'sl' });
    const entry = price ?? marketPrice;
    sides(entry);
    if (!(quantity > 0)) throw badRequest(SPOT_MESSAGES.badQuantity, { field: 'quantity' });
    const value = money(quantity * contractSize(target) * entry);
    if (
      !target.swap &&
      type === 'limit' &&
      (SPOT.quotes as readonly string[]).includes(quote) &&
      value < SPOT.minValue
    ) {
      throw badRequest(fillMessage(SPOT_MESSAGES.minValue, { min: SPOT.minValue, quote }), {
        field: 'quantity',
      });
    }
    if (market.minAmount > 0 && quantity < market.minAmount) {
      throw badRequest(
        fillMessage(SPOT_MESSAGES.belowMinAmount, { ...display, min: market.minAmount, base }),
        {
          field: 'quantity',
        },
      );
    }
    if (market.minCost > 0 && value < market.minCost) {
      throw badRequest(fillMessage(SPOT_MESSAGES.belowMinCost, { ...display, min: market.minCost, quote }), {
        field: 'quantity',
      });
    }

    const leverage = await this.inputs.leverageOf(userId, target);
    const venue = await this.inputs.venue(userId, exchange);
    if (reduceOnly) {
      // Reduce-only needs an open position on the other side (a sell reduces a long, a buy a short).
      const wanted = side === 'sell' ? 'long' : 'short';
      if (venue.fetchPositions) {
        const positions = await venue.fetchPositions([target.marketSymbol]);
        const pos = positions.find((p) => p.symbol === target.marketSymbol && p.contracts > 0);
        if (!pos || pos.side !== wanted) {
          throw badRequest(
            fillMessage(SPOT_MESSAGES.reduceOnlyNothing, { side: wanted, symbol: target.marketSymbol }),
            { field: 'reduce_only' },
          );
        }
      }
    } else {
      await this.checkBalance(venue, target, side, quantity, value, leverage);
    }
    if ((await this.orders.countOpen(userId)) >= SPOT.maxOpenOrders) throw tooManyOpen();
    return { target, side, type, price, entry, marketPrice, quantity, value, tp, sl, reduceOnly, leverage };
  }

  /**
   * Free funds for the order: a spot buy needs its value in the quote, a spot sell its quantity in the
   * base (spot wallet); a futures order (either side opens or adds) its margin, value ÷ leverage, in the
   * swap wallet's settle currency. Required is rounded up and available down (quote 2 decimals, base 6).
   */
  private async checkBalance(
    venue: Venue,
    t: Target,
    side: 'buy' | 'sell',
    quantity: number,
    value: number,
    leverage: number,
  ): Promise<void> {
    const wallet = await venue.fetchBalance(t.swap ? { type: 'swap' } : undefined);
    let need: number;
    let free: number;
    let decimals: number;
    if (t.swap) {
      need = value / leverage;
      free = wallet[settleOf(t.market, 'Perpetual')]?.free ?? 0;
      decimals = SPOT.valueDecimals;
    } else if (side === 'buy') {
      need = value;
      free = wallet[t.quote]?.free ?? 0;
      decimals = SPOT.valueDecimals;
    } else {
      need = quantity;
      free = wallet[t.base]?.free ?? 0;
      decimals = SPOT.quantityDecimals;
    }
    if (free + 1e-12 < need) {
      throw badRequest(
        fillMessage(SPOT_MESSAGES.insufficient, {
          required: fixed(need, decimals, 'up'),
          available: fixed(Math.max(0, free), decimals, 'down'),
        }),
        { field: 'quantity' },
      );
    }
  }
}
