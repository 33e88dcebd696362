import { asciiTrim, EXCHANGE_KEYS, exchangeDisplayName, fillMessage, SPOT_MESSAGES } from '@bytx/contract';
import { VenueError, type Venue } from '@bytx/venues';
import type { FastifyBaseLogger } from 'fastify';
import { badRequest, HttpError } from '../../lib/errors';
import { venueErrorAnswer } from '../../lib/venue-errors';
import type { BotsService } from '../bots/bots.service';
import { venueSymbol, type DerivativesMarket } from '../bots/derivatives';

/** Texts of ours for inputs the spec's panel never sends wrong (kept beside SPOT_MESSAGES' style). */
export const MANUAL_INPUT_MESSAGES = {
  badReduceOnly: '❌ reduce_only must be true or false.',
  badDryRun: '❌ dry_run must be true or false.',
  noFunding: '❌ {exchange} does not give funding rates through its API.',
  noPositions: '❌ {exchange} does not give positions through its API.',
} as const;

/** The market an order goes to: the user's pair on the spot market, or its linear perpetual (futures). */
export interface Target {
  exchange: string;
  /** The user's pair, 'BTC/USDT' (bots.symbol). */
  pair: string;
  /** The exchange's symbol: the pair, or 'BTC/USDT:USDT'. */
  marketSymbol: string;
  swap: boolean;
  market: DerivativesMarket;
  base: string;
  quote: string;
}

/** A pair as the user names it: BTC/USDT. */
export const PAIR = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})$/;
/** A pair or its perpetual: BTC/USDT, BTC/USDT:USDT. */
export const SYMBOL = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})(?::([A-Z0-9]{1,20}))?$/;

export const isEmpty = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && asciiTrim(v) === '');
export const word = (v: unknown) => (typeof v === 'string' ? asciiTrim(v).toLowerCase() : null);

/** A loose boolean input (true, false, 'true', 'false', 1, 0, '1', '0'; absent or empty: false), else null. */
export function looseBool(v: unknown): boolean | null {
  if (isEmpty(v) || v === false || v === 0) return false;
  if (v === true || v === 1) return true;
  const w = word(v);
  if (w === 'true' || w === '1') return true;
  if (w === 'false' || w === '0') return false;
  return null;
}

/** The base units one contract is (1 on spot and on the simulated linear swaps). */
export function contractSize(t: Target): number {
  return t.swap ? (t.market.contractSize ?? 1) : 1;
}

/** Answers an expected refusal as it is; any other failure as the spec's '❌ Error executing trade.'. */
export async function guarded<T>(log: FastifyBaseLogger, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof VenueError) throw venueErrorAnswer(err);
    log.error({ err }, 'manual order failed');
    throw new HttpError(500, SPOT_MESSAGES.tradeError);
  }
}

/**
 * What every trading call reads of its input, through the bots module's shared service (the users'
 * venues, the market hub, the stored leverage): the exchange, the market a symbol names, its price now.
 */
export class TradingInputs {
  constructor(private readonly bots: BotsService) {}

  /** The exchange sent, known and connected for this user; else badExchange / notConnected. */
  async connectedExchange(userId: string, raw: unknown): Promise<string> {
    if (isEmpty(raw)) throw badRequest(SPOT_MESSAGES.badExchange, { field: 'exchange' });
    const exchange = asciiTrim(String(raw)).toLowerCase();
    const known = (EXCHANGE_KEYS as readonly string[]).includes(exchange);
    if (!known || (await this.bots.venues.connectionKind(userId, exchange)) === null) {
      throw badRequest(SPOT_MESSAGES.notConnected, { field: 'exchange' });
    }
    return exchange;
  }

  /** A known exchange key (lists of past orders need no connection); else notConnected. */
  knownExchange(raw: string): string {
    const exchange = asciiTrim(raw).toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(exchange)) {
      throw badRequest(SPOT_MESSAGES.notConnected, { field: 'exchange' });
    }
    return exchange;
  }

  /**
   * The market a symbol names on the exchange: 'BTC/USDT' its spot pair, 'BTC/USDT:USDT' the linear
   * perpetual (futures; `swapOnly` reads a plain pair as its perpetual too). Not listed (or not active)
   * → notListed.
   */
  async target(exchange: string, raw: unknown, swapOnly = false): Promise<Target> {
    if (isEmpty(raw)) throw badRequest(SPOT_MESSAGES.badFavorite, { field: 'symbol' });
    const sent = asciiTrim(String(raw)).toUpperCase();
    const notListed = () =>
      badRequest(
        fillMessage(SPOT_MESSAGES.notListed, { symbol: sent, exchange: exchangeDisplayName(exchange) }),
        { field: 'symbol' },
      );
    const m = SYMBOL.exec(sent);
    if (!m) throw notListed();
    const [, base = '', quote = '', settle] = m;
    const pair = `${base}/${quote}`;
    const swap = swapOnly || settle !== undefined;
    if (swap) {
      // A linear perpetual settles in its quote: BTC/USDT:USDT (an inverse swap is not traded here).
      if (settle !== undefined && settle !== quote) throw notListed();
      const marketSymbol = venueSymbol(pair, 'Perpetual');
      const market: DerivativesMarket | null = await this.bots.market
        .market(exchange, marketSymbol)
        .catch(() => null);
      if (!market || !market.active || market.type !== 'swap' || market.inverse) throw notListed();
      return { exchange, pair, marketSymbol, swap, market, base, quote };
    }
    const listed = await this.bots.market.listedSymbol(exchange, pair).catch(() => null);
    if (!listed || listed.includes(':')) throw notListed();
    const market: DerivativesMarket | null = await this.bots.market
      .market(exchange, listed)
      .catch(() => null);
    if (!market || !market.active) throw notListed();
    return { exchange, pair: listed, marketSymbol: listed, swap: false, market, base, quote };
  }

  /** The current price of the traded market, null when it cannot be read. */
  async priceNow(t: Target): Promise<number | null> {
    const p = await this.bots.priceOf(t.exchange, t.marketSymbol, t.pair).catch(() => null);
    return p !== null && Number.isFinite(p) && p > 0 ? p : null;
  }

  /** The user's stored leverage of the pair (GET /api/set_leverage), within the market's maximum. */
  async leverageOf(userId: string, t: Target): Promise<number> {
    if (!t.swap) return 1;
    const stored = await this.bots.leverage(userId, t.exchange, t.pair);
    const checked = await this.bots.derivativesMarket(
      userId,
      t.exchange,
      t.pair,
      'Perpetual',
      stored.leverage,
    );
    return checked.leverage;
  }

  /** The user's venue on the exchange. */
  async venue(userId: string, exchange: string): Promise<Venue> {
    return this.bots.venues.forUser(userId, exchange);
  }
}
