/**
 * Grid Bot DCA: its limits and waits, the configuration check and a new bot (createDcaBot).
 */
import type { DcaConfig, DcaState } from './types';

/**
 * Open orders one bot may hold: its waiting buys plus its open lots (each with one take-profit sell).
 * Past it the ladder places fewer buys than # OS, and the event log says why (`order_cap`).
 */
export const DCA_MAX_OPEN_ORDERS = 200;

/** First wait after a buy was refused for funds or an exchange error; doubles up to the cap. */
export const DCA_FIRST_BACKOFF_MS = 10_000;
export const DCA_MAX_BACKOFF_MS = 300_000;
/** Wait before a refused take profit is placed again. */
export const DCA_TP_RETRY_MS = 60_000;
/** Market sells of a lot at a close_market stop: attempts when the venue cancels or errs. */
export const DCA_MAX_CLOSE_ATTEMPTS = 3;
/** At most one out_of_range log per this interval. */
export const DCA_RANGE_LOG_INTERVAL_MS = 600_000;
/** Decimals kept in a trade's pnlNet (exact decimal rounding, half away from zero). */
export const PNL_DECIMALS = 10;
/** Thrown by createDcaBot for a configuration the strategy cannot run. */
export class DcaConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DcaConfigError';
  }
}

export function positive(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0;
}
export function nonNegative(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}
function optionalPrice(x: unknown): boolean {
  return x === undefined || x === null || positive(x);
}

/** Checks a configuration; throws DcaConfigError with a code and an English message. */
export function validateDcaConfig(config: DcaConfig): void {
  const fail = (code: string, message: string): never => {
    throw new DcaConfigError(code, message);
  };
  if (config.direction !== 'LONG' && config.direction !== 'SHORT')
    fail('invalid_direction', 'direction must be LONG or SHORT');
  if (
    config.derivatives !== undefined &&
    config.derivatives !== null &&
    typeof config.derivatives !== 'boolean'
  )
    fail('invalid_derivatives', 'derivatives must be a boolean');
  if (config.direction === 'SHORT' && config.derivatives !== true)
    fail('short_needs_derivatives', 'SHORT needs a derivatives market (not Spot)');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.amount)) fail('invalid_amount', 'amount must be a positive number');
  if (!positive(config.tpPct)) fail('invalid_tp', 'tpPct must be a positive number');
  if (!positive(config.sepPct) || config.sepPct >= 100) fail('invalid_sep', 'sepPct must be in (0, 100)');
  if (!Number.isInteger(config.os) || config.os < 0 || config.os > 1000)
    fail('invalid_os', 'os must be an integer from 0 to 1000');
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
  if (!optionalPrice(config.sl)) fail('invalid_sl', 'sl must be a positive number or null');
  if (!optionalPrice(config.tpPlus)) fail('invalid_tp_plus', 'tpPlus must be a positive number or null');
}

/** A new bot in status 'starting'; the first tick anchors it and sends the entry market buy. */
export function createDcaBot(botId: string, config: DcaConfig): DcaState {
  if (typeof botId !== 'string' || !botId) throw new DcaConfigError('invalid_bot_id', 'botId is required');
  validateDcaConfig(config);
  return {
    version: 1,
    botId,
    config: {
      ...config,
      market: { ...config.market },
      sl: config.sl ?? null,
      tpPlus: config.tpPlus ?? null,
      raEnabled: Boolean(config.raEnabled),
    },
    status: 'starting',
    anchor: null,
    epoch: 0,
    seq: 1,
    lastPrice: null,
    lastTs: null,
    entry: null,
    lots: [],
    waitingBuys: [],
    buyRetryAt: null,
    buyBackoffMs: 0,
    skippedLevels: [],
    inRange: null,
    realizedPnl: '0',
    closedTrades: 0,
    stopMode: null,
    stopReason: null,
    closePhase: false,
    lastRangeLogTs: null,
    ladderK: null,
  };
}
