/**
 * Grid bot: its limits and waits, the configuration check, a new bot (createGridBot), and the state's
 * summary for the views.
 */
import { decToNumber, toDec } from '../money';
import { nonNegative, positive } from '../shared/checks';
import { failWith, StrategyConfigError } from '../shared/config-error';
import type { GridConfig, GridState, GridSummary } from './types';
import { GRID_MAX_LEVELS, gridLevelPrices, gridMinViolation, gridSlotQty } from './levels';

/** Wait before an order refused for funds or an exchange error (or cancelled by the venue) is placed again. */
export const GRID_RETRY_MS = 60_000;
/** First wait after the start market order was refused for funds / an exchange error; doubles up to the cap. */
export const GRID_FIRST_BACKOFF_MS = 10_000;
export const GRID_MAX_BACKOFF_MS = 300_000;
/** Market orders sent at a close_market stop (retried after a cancel or an exchange error). */
export const GRID_MAX_CLOSE_ATTEMPTS = 3;
/** Thrown by createGridBot for a configuration the strategy cannot run. */
export class GridConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('GridConfigError', code, message);
  }
}

// ---------------------------------------------------------------------------------------------------
// Config and creation

/** Checks a configuration; throws GridConfigError with a code and an English message (with numbers). */
export function validateGridConfig(config: GridConfig): void {
  const fail = failWith(GridConfigError);
  if (!config || typeof config !== 'object') fail('invalid_config', 'config is required');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.low)) fail('invalid_low', 'low must be a positive price');
  if (!positive(config.high)) fail('invalid_high', 'high must be a positive price');
  if (!(config.low < config.high)) fail('low_not_below_high', 'Low Price must be less than High Price.');
  if (!positive(config.stepPct) || config.stepPct >= 100)
    fail('invalid_step', 'stepPct must be greater than 0 and below 100');
  if (!positive(config.amountPerLevel) || config.amountPerLevel > 1e12)
    fail('invalid_amount', 'amountPerLevel must be a positive number of quote');
  if (config.position !== 'long' && config.position !== 'short' && config.position !== 'neutral')
    fail('invalid_position', 'position must be long, short or neutral');
  if (config.profitCurrency !== 'quote' && config.profitCurrency !== 'base')
    fail('invalid_profit_currency', 'profitCurrency must be quote or base');
  if (typeof config.derivatives !== 'boolean') fail('invalid_derivatives', 'derivatives must be a boolean');
  if (config.position !== 'long' && !config.derivatives)
    fail('position_needs_derivatives', `A ${config.position} grid needs a derivatives market (not Spot).`);
  const m = config.market;
  if (!m || !positive(m.amountStep) || !positive(m.priceStep))
    fail('invalid_market', 'market amountStep and priceStep must be positive');
  if (
    !nonNegative(m.minAmount) ||
    !nonNegative(m.minCost) ||
    !nonNegative(m.takerFee) ||
    !nonNegative(m.makerFee)
  )
    fail('invalid_market', 'market minimums and fees must be non-negative numbers');
  const levels = gridLevelPrices(config.low, config.high, config.stepPct, m.priceStep);
  if (levels.length < 2)
    fail(
      'too_few_levels',
      `The range ${config.low}–${config.high} at ${config.stepPct}% holds fewer than 2 levels.`,
    );
  if (levels.length > GRID_MAX_LEVELS)
    fail(
      'too_many_levels',
      `The range ${config.low}–${config.high} at ${config.stepPct}% needs more than ${GRID_MAX_LEVELS} levels.`,
    );
  // The smallest order (the top slot: the lowest base at the highest price is still ≥ the lowest slot's
  // cost, so the slot with the smallest cost is checked at its own lower level).
  for (let i = 0; i + 1 < levels.length; i++) {
    const qty = gridSlotQty(config, levels[i]!);
    const v = gridMinViolation(m, qty, levels[i]!);
    if (v)
      fail(
        'below_min_cost',
        `amountPerLevel ${config.amountPerLevel} buys ${qty} at ${levels[i]}: below the market minimum (cost ${m.minCost}, amount ${m.minAmount}).`,
      );
  }
}

/** A new grid in status 'starting'; the first tick lays the grid out around its price. */
export function createGridBot(botId: string, config: GridConfig): GridState {
  if (typeof botId !== 'string' || !botId) throw new GridConfigError('invalid_bot_id', 'botId is required');
  validateGridConfig(config);
  const c: GridConfig = { ...config, market: { ...config.market } };
  return {
    version: 1,
    botId,
    config: c,
    status: 'starting',
    seq: 1,
    lastPrice: null,
    lastTs: null,
    levels: gridLevelPrices(c.low, c.high, c.stepPct, c.market.priceStep),
    emptyLevel: null,
    slots: [],
    init: null,
    close: null,
    closeAttempts: 0,
    profitBuy: null,
    profitQuote: '0',
    profitBase: '0',
    realizedPnl: '0',
    rounds: 0,
    inRange: null,
    stopMode: null,
    stopReason: null,
    initRetryAt: null,
    initBackoffMs: 0,
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading a state

/** Base held (+) or owed (−) by the grid: open slots plus the base bought with profit (exact). */
export function netBase(s: GridState): bigint {
  let n = toDec(s.profitBase);
  for (const slot of s.slots) {
    if (!slot.open) continue;
    const q = toDec(slot.open.qty);
    n += slot.open.side === 'buy' ? q : -q;
  }
  return n;
}

/** What the server lists of a grid. */
export function gridSummary(state: GridState): GridSummary {
  const buyPrices: number[] = [];
  const sellPrices: number[] = [];
  for (const slot of state.slots) {
    const o = slot.order;
    if (!o || o.cancelling) continue;
    (o.side === 'buy' ? buyPrices : sellPrices).push(o.price);
  }
  buyPrices.sort((a, b) => a - b);
  sellPrices.sort((a, b) => a - b);
  return {
    pnlQuote: state.realizedPnl,
    rounds: state.rounds,
    openBuys: buyPrices.length,
    openSells: sellPrices.length,
    baseHeld: decToNumber(netBase(state)),
    levels: [...state.levels],
    buyPrices,
    sellPrices,
    inRange: state.inRange,
    status: state.status,
  };
}
