/**
 * Arbitrage bot: its defaults, limits and waits, the configuration check, a new bot
 * (createArbitrageBot), and the state's read-outs for the views (inventory, summary).
 */
import { decToNumber, decToString, toDec } from '../money';
import { checkMarketRules, nonNegative, positive } from '../shared/checks';
import { failWith, StrategyConfigError } from '../shared/config-error';
import type { ArbitrageConfig, ArbitrageState, ArbitrageSummary, ArbVenueState } from './types';

/** Levels per side of the books the bot decides on. */
export const ARB_BOOK_DEPTH = 10;
export const ARB_DEFAULT_MARGIN_PCT = 0.1;
export const ARB_DEFAULT_TRADE_FRACTION = 0.25;
export const ARB_DEFAULT_COOLDOWN_MS = 2_000;
/** After a trip whose leg failed, no new trip for this long (ms), doubled for each further failure in
 *  a row up to ARB_FAIL_PAUSE_MAX_MS: a venue that keeps refusing one leg (its account short of what
 *  the bot counts on, e.g. another bot on the same account) must not turn every spread into a loss. */
export const ARB_FAIL_PAUSE_MS = 60_000;
export const ARB_FAIL_PAUSE_MAX_MS = 3_600_000;
/** A book older than this (ms, against the current tick) is not traded on: after a restart or a
 *  silent venue the other venue's last book may be stale. */
export const ARB_BOOK_MAX_AGE_MS = 10_000;
/** Market orders tried per venue at a close_market stop, and unwind attempts per trip. */
export const ARB_MAX_CLOSE_ATTEMPTS = 3;
export const ARB_MAX_UNWIND_ATTEMPTS = 3;
/** Thrown by createArbitrageBot for a configuration the strategy cannot run. */
export class ArbitrageConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('ArbitrageConfigError', code, message);
  }
}

// ---------------------------------------------------------------------------------------------------
// Config and creation

export function validateArbitrageConfig(config: ArbitrageConfig): void {
  const fail = failWith(ArbitrageConfigError);
  if (!config || typeof config !== 'object') fail('invalid_config', 'config is required');
  const ex = config.exchanges;
  if (
    !Array.isArray(ex) ||
    ex.length !== 2 ||
    typeof ex[0] !== 'string' ||
    typeof ex[1] !== 'string' ||
    !ex[0] ||
    !ex[1] ||
    ex[0] === ex[1]
  )
    fail('invalid_exchanges', 'exchanges must be two different exchange names');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.amountQuote) || config.amountQuote > 1e12)
    fail('invalid_amount', 'amountQuote must be a positive number of quote');
  if (!config.rules || typeof config.rules !== 'object') fail('invalid_market', 'rules are required');
  for (const e of ex) {
    const r = config.rules[e];
    if (!r) fail('invalid_market', `rules of ${e} are required`);
    checkMarketRules(r!, fail, true);
  }
  if (config.marginPct !== undefined && (!nonNegative(config.marginPct) || config.marginPct >= 100))
    fail('invalid_margin', 'marginPct must be a percentage from 0 to below 100');
  if (config.tradeFraction !== undefined && (!positive(config.tradeFraction) || config.tradeFraction > 1))
    fail('invalid_trade_fraction', 'tradeFraction must be above 0 and at most 1');
  if (config.cooldownMs !== undefined && (!nonNegative(config.cooldownMs) || config.cooldownMs > 86_400_000))
    fail('invalid_cooldown', 'cooldownMs must be from 0 to one day');
}

/** A new bot in status 'starting': the first tick with a price of each venue prepares the inventory. */
export function createArbitrageBot(botId: string, config: ArbitrageConfig): ArbitrageState {
  if (typeof botId !== 'string' || !botId)
    throw new ArbitrageConfigError('invalid_bot_id', 'botId is required');
  validateArbitrageConfig(config);
  const [a, b] = config.exchanges;
  const c: ArbitrageConfig = {
    ...config,
    exchanges: [a, b],
    rules: { [a]: { ...config.rules[a]! }, [b]: { ...config.rules[b]! } },
  };
  const half = decToString(toDec(config.amountQuote) / 2n);
  const venue = (exchange: string): ArbVenueState => ({
    exchange,
    inventory: { base: '0', quote: half },
    prepare: null,
    close: null,
    closeAttempts: 0,
  });
  return {
    version: 1,
    botId,
    config: c,
    status: 'starting',
    seq: 0,
    lastTs: null,
    lastPrice: null,
    venues: [venue(a), venue(b)],
    market: {},
    lastSpread: null,
    trip: null,
    trips: 0,
    tripsOpened: 0,
    lastTripEndTs: null,
    failStreak: 0,
    pausedUntil: null,
    realizedPnl: '0',
    waiting: null,
    stopMode: null,
    stopReason: null,
  };
}

export function marginPct(c: ArbitrageConfig): number {
  return c.marginPct ?? ARB_DEFAULT_MARGIN_PCT;
}

// ---------------------------------------------------------------------------------------------------
// Reading a state

/** The bot's base and quote per exchange, as numbers. */
export function arbitrageInventory(s: ArbitrageState): Record<string, { base: number; quote: number }> {
  const out: Record<string, { base: number; quote: number }> = {};
  for (const v of s.venues)
    out[v.exchange] = {
      base: decToNumber(toDec(v.inventory.base)),
      quote: decToNumber(toDec(v.inventory.quote)),
    };
  return out;
}

export function arbitrageSummary(s: ArbitrageState): ArbitrageSummary {
  const books: Record<string, { bid: number | null; ask: number | null }> = {};
  for (const ex of s.config.exchanges) {
    const b = s.market[ex]?.book;
    books[ex] = { bid: b?.bids[0]?.[0] ?? null, ask: b?.asks[0]?.[0] ?? null };
  }
  return {
    pnlQuote: s.realizedPnl,
    trips: s.trips,
    lastSpread: s.lastSpread,
    marginPct: marginPct(s.config),
    inventory: arbitrageInventory(s),
    books,
    status: s.status,
    tripOpen: s.trip !== null,
    waiting: s.waiting ? `${s.waiting.side}_on_${s.waiting.exchange}` : null,
    pausedUntil: s.pausedUntil ?? null,
  };
}
