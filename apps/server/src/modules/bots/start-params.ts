import {
  asciiTrim,
  DCA_MESSAGES,
  DERIVATIVES_MESSAGES,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  MIN_TP_SEP_PCT,
  type MarketType,
} from '@bytx/contract';
import type { MarketHub } from '../../context';
import { badRequest } from '../../lib/errors';
import { parseLooseNumber } from './bot-input';
import { isDerivatives, type DerivativesMarket } from './derivatives';

/**
 * The parameter checks of the start forms, shared by each kind's start call and by the backtest
 * (issue 19): numbers, ranges and the pair's market rules, in the spec's order with its messages.
 * What needs the user's account (the connection, funds, an already active bot, the bot cap) is not
 * here: `connection` is called where the spec checks it, and each caller adds its own account checks.
 */
export interface StartParamDeps {
  market: MarketHub;
  /** The user's connection to the exchange, at the spec's point ('paper' | 'live'; null: not connected). */
  connection(exchange: string): Promise<'paper' | 'live' | null>;
  /** The user's saved market type (apartado), the default of a form that sends none. */
  savedApartado(): Promise<string | null | undefined>;
  /** A derivatives market type's market and leverage, checked (the backtest refuses derivatives here). */
  derivativesMarket(
    exchange: string,
    pair: string,
    type: MarketType,
    leverageSent: number | undefined,
  ): Promise<{ market: DerivativesMarket; marketSymbol: string; leverage: number }>;
}

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The smallest order of a market at `price`, in quote: the larger of its minimum cost and minimum
 * amount × price; an inverse swap counts contracts of `contractSize` USD each.
 */
export function minCostOf(market: DerivativesMarket, type: string, price: number): number {
  if (type === 'Inverse') return Math.max(market.minCost, market.minAmount * (market.contractSize ?? 1));
  return Math.max(market.minCost, market.minAmount * price);
}

/** The current price of the traded market (its own ticker, else the pair's: paper marks are the spot price). */
export async function priceOf(
  market: MarketHub,
  exchange: string,
  marketSymbol: string,
  pair: string,
): Promise<number> {
  if (marketSymbol !== pair) {
    const t = await market.ticker(exchange, marketSymbol).catch(() => null);
    if (t && Number.isFinite(t.last) && t.last > 0) return t.last;
  }
  return (await market.ticker(exchange, pair)).last;
}

/** The exchange's own symbol for what the user sent (exact, ASCII-trimmed), else the spec's 400. */
export async function listedPair(
  market: MarketHub,
  exchange: string,
  symbol: string,
  message: string = DCA_MESSAGES.pairNotAvailable,
  extra?: Record<string, unknown>,
): Promise<string> {
  const listed = await market.listedSymbol(exchange, symbol).catch(() => null);
  // The user names a pair; a swap symbol (BTC/USDT:USDT) is that pair with another market type.
  if (!listed || listed.includes(':')) {
    throw badRequest(fillMessage(message, { exchange: exchangeDisplayName(exchange) }), extra);
  }
  return listed;
}

/** What a Grid Bot DCA or classic DCA start form sends (both share these fields). */
export interface DcaStartFields {
  tp?: unknown;
  separacion?: unknown;
  exchange?: string | undefined;
  symbol?: string | undefined;
  amount?: unknown;
  os?: unknown;
  apartado?: string | undefined;
  direction?: 'LONG' | 'SHORT' | undefined;
  leverage?: number | undefined;
}

export interface DcaStartParams {
  tp: number;
  sep: number;
  exchange: string;
  connection: 'paper' | 'live';
  symbol: string;
  market: DerivativesMarket;
  amount: number;
  os: number;
  apartado: MarketType;
  price: number;
  direction: 'LONG' | 'SHORT';
  leverage: number;
  marketSymbol: string;
}

/**
 * The start form of the Grid Bot DCA and the classic DCA, checked in the spec's order with its
 * messages (part 2 §5): TP and separation, exchange selected and connected, pair listed, amount, # OS,
 * market type, the minimum cost at the current price.
 */
export async function parseDcaStart(body: DcaStartFields, deps: StartParamDeps): Promise<DcaStartParams> {
  const tp = parseLooseNumber(body.tp ?? '');
  const sep = parseLooseNumber(body.separacion ?? '');
  if (tp === null || sep === null || tp < MIN_TP_SEP_PCT || sep < MIN_TP_SEP_PCT) {
    throw badRequest(DCA_MESSAGES.minPct, {
      field: tp === null || tp < MIN_TP_SEP_PCT ? 'tp' : 'separacion',
    });
  }
  if (tp > LIMITS.maxTpPct) throw badRequest(DCA_MESSAGES.tpTooHigh, { field: 'tp' });
  if (sep > LIMITS.maxSepPct) throw badRequest(DCA_MESSAGES.sepTooHigh, { field: 'separacion' });
  const exchange = (body.exchange ?? '').trim().toLowerCase();
  if (!exchange) throw badRequest(DCA_MESSAGES.noExchange);
  if (!(EXCHANGE_KEYS as readonly string[]).includes(exchange)) throw badRequest(DCA_MESSAGES.notConnected);
  const connection = await deps.connection(exchange);
  if (!connection) throw badRequest(DCA_MESSAGES.notConnected);
  if (!asciiTrim(body.symbol ?? '')) throw badRequest(DCA_MESSAGES.noPair);
  const symbol = await listedPair(deps.market, exchange, body.symbol ?? '');
  const market = await deps.market.market(exchange, symbol).catch(() => null);
  if (!market || !market.active)
    throw badRequest(fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }));
  const amount = parseLooseNumber(body.amount ?? '');
  if (amount === null || amount <= 0) throw badRequest(DCA_MESSAGES.badAmount);
  if (amount > LIMITS.maxAmount) throw badRequest(DCA_MESSAGES.amountTooHigh, { field: 'amount' });
  const os = parseLooseNumber(body.os ?? '');
  if (os === null || !Number.isInteger(os) || os < 1 || os > LIMITS.maxOs) {
    throw badRequest(`# OS must be a whole number from 1 to ${LIMITS.maxOs}.`);
  }
  const apartado = (body.apartado ?? (await deps.savedApartado()) ?? 'Spot') as MarketType;
  const direction = body.direction ?? 'LONG';
  if (direction === 'SHORT' && !isDerivatives(apartado)) {
    throw badRequest(DERIVATIVES_MESSAGES.shortOnSpot, { field: 'direction' });
  }
  const traded = isDerivatives(apartado)
    ? await deps.derivativesMarket(exchange, symbol, apartado, body.leverage)
    : { market, marketSymbol: symbol, leverage: 1 };
  const price = await priceOf(deps.market, exchange, traded.marketSymbol, symbol);
  const minCost = minCostOf(traded.market, apartado, price);
  if (amount < minCost) {
    throw badRequest(
      fillMessage(DCA_MESSAGES.belowMinCost, {
        pair: symbol,
        x: round(minCost, 2),
        n: round(minCost / price, 8),
        p: round(price, 8),
      }),
    );
  }
  return {
    tp,
    sep,
    exchange,
    connection,
    symbol,
    market: traded.market,
    amount,
    os,
    apartado,
    price,
    direction,
    leverage: traded.leverage,
    marketSymbol: traded.marketSymbol,
  };
}
