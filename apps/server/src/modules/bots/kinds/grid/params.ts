import {
  asciiTrim,
  DERIVATIVES_MESSAGES,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  GRID_MAX_LEVELS,
  GRID_MAX_STEP_PCT,
  GRID_MESSAGES,
  LIMITS,
  parseMarketType,
  type GridPosition,
  type GridStartBody,
  type MarketType,
} from '@bytx/contract';
import {
  createGridBot,
  GridConfigError,
  gridLevelPrices,
  gridSlotQty,
  type GridConfig,
  type GridState,
} from '@bytx/engine';
import type { MarketHub } from '../../../../context';
import { badRequest } from '../../../../lib/errors';
import { parseLooseNumber } from '../../bot-input';
import { isDerivatives, venueSymbol, type DerivativesMarket } from '../../derivatives';
import { dcaMarketRules } from '../../market-rules';
import { listedPair, minCostOf, priceOf, type StartParamDeps } from '../../start-params';

/**
 * The Grid bot's start form (`POST /api/gridbot/start`, spec part 2 §5; issue 14 §3), shared by the
 * start call, the levels preview (`niveles`) and the backtest: the spec's checks in its order with its
 * messages, then ours (bounds, market type, position, leverage, the levels and the minimum order).
 * The account's checks (funds, an active grid, the bot cap) stay with the start call.
 */

const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;
export const isEmptyField = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && asciiTrim(v) === '');

/** The number of levels low × (1 + step)^i ≤ high (before price-step rounding): the count a message names. */
function levelCount(low: number, high: number, stepPct: number): number {
  return Math.floor(Math.log(high / low) / Math.log(1 + stepPct / 100) + 1e-9) + 1;
}

/** High, low and step of a form, parsed and checked in the spec's order (rules 5 and 6). */
export function gridRangeOf(body: { highPrice?: unknown; lowPrice?: unknown; stepPercentage?: unknown }) {
  const high = parseLooseNumber(body.highPrice);
  const low = parseLooseNumber(body.lowPrice);
  const step = parseLooseNumber(body.stepPercentage);
  if (high === null)
    throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'High Price' }), {
      field: 'highPrice',
    });
  if (low === null)
    throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Low Price' }), { field: 'lowPrice' });
  if (step === null)
    throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Step %' }), {
      field: 'stepPercentage',
    });
  if (!(low < high)) throw badRequest(GRID_MESSAGES.lowNotBelowHigh, { field: 'lowPrice' });
  if (!(step > 0)) throw badRequest(GRID_MESSAGES.stepNotPositive, { field: 'stepPercentage' });
  return { high, low, step };
}

/** Bounds checked after the spec's rules (its rule 7, the connection, comes first). */
export function checkGridBounds(high: number, low: number, step: number) {
  if (low <= 0)
    throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Low Price' }), { field: 'lowPrice' });
  if (high > LIMITS.maxPrice) {
    throw badRequest(fillMessage(GRID_MESSAGES.tooHigh, { field: 'High Price', max: LIMITS.maxPrice }), {
      field: 'highPrice',
    });
  }
  if (step > GRID_MAX_STEP_PCT) {
    throw badRequest(fillMessage(GRID_MESSAGES.stepTooHigh, { max: GRID_MAX_STEP_PCT }), {
      field: 'stepPercentage',
    });
  }
}

export function checkGridLevelCount(low: number, high: number, step: number) {
  if (low <= 0 || step > GRID_MAX_STEP_PCT) checkGridBounds(high, low, step);
  const n = levelCount(low, high, step);
  if (n > GRID_MAX_LEVELS) {
    throw badRequest(
      fillMessage(GRID_MESSAGES.tooManyLevels, { levels: n, low, high, step, max: GRID_MAX_LEVELS }),
      { field: 'stepPercentage' },
    );
  }
}

/** The exchange's own symbol of the pair, else the grid's 400. */
export function gridListedPair(market: MarketHub, exchange: string, pair: string): Promise<string> {
  return listedPair(market, exchange, pair, GRID_MESSAGES.pairNotAvailable, { field: 'pair' });
}

/** The pair's market of `type` (listed, active; margin-enabled for Margin), else a 400 naming it. */
export async function gridMarketOf(
  market: MarketHub,
  exchange: string,
  pair: string,
  type: MarketType,
): Promise<DerivativesMarket> {
  const m: DerivativesMarket | null = await market
    .market(exchange, venueSymbol(pair, type))
    .catch(() => null);
  if (!m || !m.active || (type === 'Margin' && m.margin !== true)) {
    if (type === 'Spot') {
      throw badRequest(
        fillMessage(GRID_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
        { field: 'pair' },
      );
    }
    throw badRequest(
      fillMessage(DERIVATIVES_MESSAGES.noMarket, { exchange: exchangeDisplayName(exchange), type, pair }),
      { field: 'marketType' },
    );
  }
  return m;
}

/** Every order of the grid must reach the market's minimum: refused with the amount per level it needs. */
export function checkGridMinimum(
  config: GridConfig,
  levels: number[],
  market: DerivativesMarket,
  type: MarketType,
  pair: string,
  marketSymbol: string,
) {
  const quote = pair.split('/')[1] ?? '';
  if (type === 'Inverse') {
    const min = minCostOf(market, type, levels[0] ?? 0);
    if (config.amountPerLevel < min) {
      throw badRequest(
        fillMessage(GRID_MESSAGES.belowMinCost, {
          min: ceil2(min),
          quote,
          symbol: marketSymbol,
          price: levels[0] ?? 0,
        }),
        { field: 'amountPerLevel' },
      );
    }
    return;
  }
  let worst: { need: number; price: number } | null = null;
  for (let i = 0; i + 1 < levels.length; i++) {
    const level = levels[i]!;
    const qty = gridSlotQty(config, level);
    if (qty >= market.minAmount && qty > 0 && qty * level >= market.minCost - 1e-12) continue;
    // What this slot needs: the minimum at its level, plus one amount step lost to rounding down.
    const need = Math.max(market.minCost, market.minAmount * level) + market.amountStep * level;
    if (!worst || need > worst.need) worst = { need, price: level };
  }
  if (worst) {
    throw badRequest(
      fillMessage(GRID_MESSAGES.belowMinCost, {
        min: ceil2(worst.need),
        quote,
        symbol: marketSymbol,
        price: worst.price,
      }),
      { field: 'amountPerLevel' },
    );
  }
}

export interface GridStartParams {
  exchange: string;
  pair: string;
  type: MarketType;
  position: GridPosition;
  profit: 'quote' | 'base';
  low: number;
  high: number;
  step: number;
  amount: number;
  market: DerivativesMarket;
  marketSymbol: string;
  leverage: number;
  price: number;
  levels: number[];
  config: GridConfig;
}

/**
 * The form checked in the spec's order with its messages (part 2 §5), then ours, up to the levels and
 * the minimum order; `deps.connection` is asked where the spec checks the connection (rule 7).
 */
export async function parseGridStart(body: GridStartBody, deps: StartParamDeps): Promise<GridStartParams> {
  const exchangeRaw = (body.exchange ?? '').trim().toLowerCase();
  if (!exchangeRaw) throw badRequest(GRID_MESSAGES.noExchange, { field: 'exchange' });
  if (isEmptyField(body.pair)) throw badRequest(GRID_MESSAGES.noPair, { field: 'pair' });
  const fields = [
    body.highPrice,
    body.lowPrice,
    body.amountPerLevel,
    body.stepPercentage,
    body.profitCurrency,
  ];
  if (fields.some(isEmptyField)) throw badRequest(GRID_MESSAGES.incomplete);
  const amount = parseLooseNumber(body.amountPerLevel);
  if (amount === null) {
    throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Amount per level' }), {
      field: 'amountPerLevel',
    });
  }
  const { high, low, step } = gridRangeOf(body);
  const exchange = exchangeRaw;
  const connected =
    (EXCHANGE_KEYS as readonly string[]).includes(exchange) &&
    exchange !== 'bybit_testnet' &&
    (await deps.connection(exchange)) !== null;
  if (!connected) throw badRequest(GRID_MESSAGES.notConnected, { field: 'exchange' });

  checkGridBounds(high, low, step);
  if (amount <= 0) {
    throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Amount per level' }), {
      field: 'amountPerLevel',
    });
  }
  if (amount > LIMITS.maxAmount) {
    throw badRequest(
      fillMessage(GRID_MESSAGES.tooHigh, { field: 'Amount per level', max: LIMITS.maxAmount }),
      {
        field: 'amountPerLevel',
      },
    );
  }
  const profit = String(body.profitCurrency).trim().toLowerCase();
  if (profit !== 'quote' && profit !== 'base') {
    throw badRequest(GRID_MESSAGES.badProfitCurrency, { field: 'profitCurrency' });
  }
  const type = isEmptyField(body.marketType) ? 'Spot' : parseMarketType(body.marketType);
  if (!type) throw badRequest(GRID_MESSAGES.badMarketType, { field: 'marketType' });
  const position = (
    isEmptyField(body.position) ? 'long' : String(body.position).trim().toLowerCase()
  ) as GridPosition;
  if (!['long', 'short', 'neutral'].includes(position)) {
    throw badRequest(GRID_MESSAGES.badPosition, { field: 'position' });
  }
  if (position !== 'long' && !isDerivatives(type)) {
    throw badRequest(fillMessage(GRID_MESSAGES.positionNeedsDerivatives, { position }), {
      field: 'position',
    });
  }
  let leverageSent: number | undefined;
  if (!isEmptyField(body.leverage)) {
    const l = parseLooseNumber(body.leverage);
    if (l === null || !Number.isInteger(l) || l < LIMITS.minLeverage || l > LIMITS.maxLeverage) {
      throw badRequest(
        `Leverage must be a whole number from ${LIMITS.minLeverage} to ${LIMITS.maxLeverage}.`,
        { field: 'leverage' },
      );
    }
    leverageSent = l;
  }
  const pair = await gridListedPair(deps.market, exchange, body.pair ?? '');
  const traded = isDerivatives(type)
    ? await deps.derivativesMarket(exchange, pair, type, leverageSent)
    : {
        market: await gridMarketOf(deps.market, exchange, pair, type),
        marketSymbol: pair,
        leverage: 1,
      };
  const market = traded.market;
  const price = await priceOf(deps.market, exchange, traded.marketSymbol, pair);

  // The levels: not too many, at least one slot, each order at or above the market's minimum.
  checkGridLevelCount(low, high, step);
  const levels = gridLevelPrices(low, high, step, market.priceStep);
  if (levels.length < 2) {
    throw badRequest(fillMessage(GRID_MESSAGES.noLevels, { low, high, step }), { field: 'stepPercentage' });
  }
  const config: GridConfig = {
    symbol: pair,
    low,
    high,
    stepPct: step,
    amountPerLevel: amount,
    position,
    profitCurrency: profit,
    derivatives: isDerivatives(type),
    market: dcaMarketRules(market),
  };
  checkGridMinimum(config, levels, market, type, pair, traded.marketSymbol);
  return {
    exchange,
    pair,
    type,
    position,
    profit,
    low,
    high,
    step,
    amount,
    market,
    marketSymbol: traded.marketSymbol,
    leverage: traded.leverage,
    price,
    levels,
    config,
  };
}

/** The grid's first state; a config the engine refuses is a 400 with its message. */
export function createGridState(botId: string, config: GridConfig): GridState {
  try {
    return createGridBot(botId, config);
  } catch (err) {
    if (err instanceof GridConfigError) throw badRequest(err.message);
    throw err;
  }
}
