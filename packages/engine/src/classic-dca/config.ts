/**
 * Classic DCA: defaults, limits and waits, the configuration check and a new bot (createClassicDca).
 */
import { checkMarketRules, positive } from '../shared/checks';
import { failWith, StrategyConfigError } from '../shared/config-error';
import type { Candle, ClassicCycleSales, ClassicDcaConfig, ClassicDcaState, ClassicPosition } from './types';

export const CLASSIC_DCA_DEFAULTS = {
  trendFilter: true,
  smartAveraging: true,
  smartAmount: 10,
  maPeriod: 70,
  candleMs: 60_000,
  tpVncPct: 0.5,
} as const;

/** The take-profit percentages a VNC may use. */
export const TP_VNC_OPTIONS: readonly number[] = [0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 20, 50, 100];

/** First wait after a buy was refused for funds or an exchange error; doubles up to the cap. */
export const CLASSIC_FIRST_BACKOFF_MS = 10_000;
export const CLASSIC_MAX_BACKOFF_MS = 300_000;
/** Wait before a refused take profit is placed again. */
export const CLASSIC_TP_RETRY_MS = 60_000;
/** Market sells sent at a close_market stop (retried after a cancel or an exchange error). */
export const CLASSIC_MAX_CLOSE_ATTEMPTS = 3;

/** Thrown by createClassicDca for a configuration the strategy cannot run. */
export class ClassicDcaConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('ClassicDcaConfigError', code, message);
  }
}

/** Checks a configuration (defaults already applied); throws ClassicDcaConfigError. */
export function validateClassicDcaConfig(config: ClassicDcaConfig): void {
  const fail = failWith(ClassicDcaConfigError);
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.amount) || config.amount > 1e12)
    fail('invalid_amount', 'amount must be a positive number of quote');
  if (!positive(config.tpPct) || config.tpPct < 0.5 || config.tpPct > 1000)
    fail('invalid_tp', 'tpPct must be between 0.5 and 1000 (percent)');
  if (!positive(config.sepPct) || config.sepPct < 0.5 || config.sepPct > 50)
    fail('invalid_sep', 'sepPct must be between 0.5 and 50 (percent)');
  if (!Number.isInteger(config.os) || config.os < 1 || config.os > 100)
    fail('invalid_os', 'os must be an integer from 1 to 100');
  checkMarketRules(config.market, fail, true);
  if (config.sl !== null && !positive(config.sl)) fail('invalid_sl', 'sl must be a positive number or null');
  if (config.tpPlus !== null && !positive(config.tpPlus))
    fail('invalid_tp_plus', 'tpPlus must be a positive number or null');
  if (!positive(config.smartAmount) || config.smartAmount > 1e12)
    fail('invalid_smart_amount', 'smartAmount must be a positive number of quote');
  if (!Number.isInteger(config.maPeriod) || config.maPeriod < 1 || config.maPeriod > 1000)
    fail('invalid_ma_period', 'maPeriod must be an integer from 1 to 1000');
  if (!Number.isInteger(config.candleMs) || config.candleMs < 1000)
    fail('invalid_candle_ms', 'candleMs must be an integer of at least 1000');
  if (!TP_VNC_OPTIONS.includes(config.tpVncPct))
    fail('invalid_tp_vnc', `tpVncPct must be one of ${TP_VNC_OPTIONS.join(', ')}`);
}

function validCandle(c: unknown): c is Candle {
  if (!c || typeof c !== 'object') return false;
  const k = c as Candle;
  return (
    Number.isFinite(k.t) && positive(k.o) && positive(k.h) && positive(k.l) && positive(k.c) && k.h >= k.l
  );
}

export const ZERO_POSITION: ClassicPosition = { qty: '0', quote: '0', fee: '0' };
export const ZERO_SALES: ClassicCycleSales = { qty: '0', quote: '0', fee: '0', buyQuote: '0', buyFee: '0' };

/**
 * A new classic DCA bot. `candles` are recent closed candles of the pair (interval `candleMs`), so the
 * moving average is ready at once; the last maPeriod + 2 are kept. Missing optional fields of the
 * config take CLASSIC_DCA_DEFAULTS (sl / tpPlus null, r / rOs false).
 */
export function createClassicDca(
  botId: string,
  config: ClassicDcaConfig,
  candles: Candle[] = [],
): ClassicDcaState {
  if (typeof botId !== 'string' || !botId)
    throw new ClassicDcaConfigError('invalid_bot_id', 'botId is required');
  const c: ClassicDcaConfig = {
    ...config,
    market: { ...config.market },
    sl: config.sl ?? null,
    tpPlus: config.tpPlus ?? null,
    r: Boolean(config.r),
    rOs: Boolean(config.rOs),
    trendFilter: config.trendFilter ?? CLASSIC_DCA_DEFAULTS.trendFilter,
    smartAveraging: config.smartAveraging ?? CLASSIC_DCA_DEFAULTS.smartAveraging,
    smartAmount: config.smartAmount ?? CLASSIC_DCA_DEFAULTS.smartAmount,
    maPeriod: config.maPeriod ?? CLASSIC_DCA_DEFAULTS.maPeriod,
    candleMs: config.candleMs ?? CLASSIC_DCA_DEFAULTS.candleMs,
    tpVncPct: config.tpVncPct ?? CLASSIC_DCA_DEFAULTS.tpVncPct,
  };
  validateClassicDcaConfig(c);
  const byT = new Map<number, Candle>();
  for (const k of Array.isArray(candles) ? candles : []) {
    if (validCandle(k)) byT.set(k.t, { t: k.t, o: k.o, h: k.h, l: k.l, c: k.c });
  }
  const seeded = [...byT.values()].sort((a, b) => a.t - b.t).slice(-(c.maPeriod + 2));
  return {
    version: 1,
    botId,
    config: c,
    status: 'running',
    seq: 1,
    lastPrice: null,
    lastTs: null,
    candles: seeded,
    forming: null,
    cycle: 1,
    cycles: 0,
    cycleOpen: false,
    cycleStart: null,
    entry: null,
    trendLogged: 0,
    position: ZERO_POSITION,
    sales: ZERO_SALES,
    orders: [],
    filledLevels: [],
    safetyFills: 0,
    skippedLevels: [],
    buyRetryAt: null,
    buyBackoffMs: 0,
    tpRetryAt: null,
    tpBlocked: false,
    closeAttempts: 0,
    realizedPnl: '0',
    stopMode: null,
    stopReason: null,
    residual: null,
    autoFund: false,
    autoFundSteps: 0,
    lotBusy: null,
  };
}
