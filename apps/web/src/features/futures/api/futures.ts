import {
  SPOT_MESSAGES,
  type DerivativesPositionView,
  type DerivativesWalletResponse,
  type FuturesFundingResponse,
  type GetLeverageResponse,
  type SetLeverageResponse,
  type SpotOrderView,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';
import { tradingKeys } from '../../../shared/trading/api';
import {
  currentLocale,
  FIXED,
  formatFixed,
  formatMoney,
  formatPercent,
  formatPrice,
} from '../../../shared/ui/numbers';

export type { DerivativesPositionView, DerivativesWalletResponse, FuturesFundingResponse };

/** The position panel is polled every 5 s (the spec's active-position refresh, like the bot lists). */
export const POSITIONS_POLL_MS = 5_000;
/** The funding rate and next funding time are read again each minute; the countdown ticks each second. */
export const FUNDING_RELOAD_MS = 60_000;
export const COUNTDOWN_TICK_MS = 1_000;

/** POST /api/futures/close: a reduce-only market order for the whole position. */
export interface FuturesCloseResponse {
  success: true;
  order?: SpotOrderView;
  message: string;
}

/** The futures screen's messages of the contract (`futures.messages.<key>` in the web). */
export const FUTURES_MESSAGES = {
  noPosition: SPOT_MESSAGES.noPosition,
  closing: SPOT_MESSAGES.closing,
} as const;

/**
 * The user's pair of a swap symbol: 'BTC/USDT:USDT' → 'BTC/USDT'. The leverage store
 * (`/api/set_leverage`) is keyed by the pair, as the manual orders read it.
 */
export const pairOf = (symbol: string) => symbol.split(':')[0] ?? symbol;

/**
 * React Query keys. The leverage is the trading screen's own query (its order panel sizes the margin
 * with it), so a change shows in both at once and the screen's `refresh` reloads it.
 */
export const futuresKeys = {
  all: ['futures'] as const,
  positions: (exchange: string) => ['futures', 'positions', exchange] as const,
  funding: (exchange: string, symbol: string) => ['futures', 'funding', exchange, symbol] as const,
  leverage: (exchange: string, symbol: string) => tradingKeys.leverage(exchange, pairOf(symbol)),
};

/** The futures screen's calls (issue 16; docs/trading.md). */
export const futuresApi = {
  /** The swap wallet and every open position of the connection (entry, mark, liquidation, margin, PnL). */
  positions: (exchange: string) =>
    api<DerivativesWalletResponse>('/api/wallet/derivatives', { query: { exchange } }),
  close: (exchange: string, symbol: string) =>
    api<FuturesCloseResponse>('/api/futures/close', { body: { exchange, symbol } }),
  funding: (exchange: string, symbol: string) =>
    api<FuturesFundingResponse>('/api/futures/funding', { query: { exchange, symbol } }),
  leverage: (exchange: string, symbol: string) =>
    api<GetLeverageResponse>('/api/set_leverage', { query: { exchange, symbol: pairOf(symbol) } }),
  setLeverage: (exchange: string, symbol: string, leverage: number) =>
    api<SetLeverageResponse>('/api/set_leverage', {
      body: { exchange, symbol: pairOf(symbol), leverage },
    }),
};

// --- formatting (pure, tested) -------------------------------------------------------------------------

const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

/** hh:mm:ss until `target` (ms since the epoch); 00:00:00 once it has passed or when unknown. */
export function countdown(target: number | null | undefined, now: number): string {
  const left = finite(target) ? Math.max(0, Math.floor((target - now) / 1000)) : 0;
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  return [h, m, s].map((v) => String(v).padStart(2, '0')).join(':');
}

/*
 * The figures below are in the house style (shared/ui/numbers): the user's separators, read from
 * i18next's language unless a locale is given (the panels re-render on a language change).
 */

/** A funding rate (fraction) in percent with its sign: 0.0001 → '+0.0100%'. */
export function fundingPercent(rate: number | null | undefined, locale = currentLocale()): string {
  if (!finite(rate)) return '—';
  return formatPercent(locale, rate * 100, { decimals: 4, signed: true });
}

/** Green when positive, red when negative, dimmed at zero or unknown. */
export const signColor = (n: number | null | undefined) =>
  !finite(n) || n === 0 ? 'dimmed' : n > 0 ? 'teal' : 'red';

/** Quantities with the spec's 6 decimals. */
export const fmtQty = (n: number | null | undefined, locale = currentLocale()) =>
  formatFixed(locale, n, FIXED.quantity);
/** Values (margin, PnL) with the spec's 2 decimals. */
export const fmtValue = (n: number | null | undefined, locale = currentLocale()) => formatMoney(locale, n);
/** A signed value: '+12.35' / '-3.10' (a value that rounds to zero has no sign). */
export const fmtSigned = (n: number | null | undefined, locale = currentLocale()) =>
  formatMoney(locale, n, undefined, { signed: true });
/** Prices: 2 decimals from 100, 4 from 1, about 4 significant digits below (BTC 65,000.10, XRP 0.5234). */
export const fmtPrice = (n: number | null | undefined, locale = currentLocale()) => formatPrice(locale, n);

/** Unrealized PnL against the margin posted (ROE), in percent; null without margin. */
export const roePercent = (p: Pick<DerivativesPositionView, 'unrealized_pnl' | 'margin'>) =>
  finite(p.margin) && p.margin > 0 && finite(p.unrealized_pnl) ? (p.unrealized_pnl / p.margin) * 100 : null;

/** The figures the position panel shows, formatted. */
export function positionFigures(p: DerivativesPositionView) {
  const roe = roePercent(p);
  return {
    size: fmtQty(p.contracts),
    value: fmtValue(p.contracts * p.mark_price),
    entry: fmtPrice(p.entry_price),
    mark: fmtPrice(p.mark_price),
    liquidation: p.liquidation_price === null ? '—' : fmtPrice(p.liquidation_price),
    margin: fmtValue(p.margin),
    leverage: `${p.leverage}x`,
    pnl: fmtSigned(p.unrealized_pnl),
    roe: roe === null ? '—' : formatPercent(currentLocale(), roe, { signed: true }),
    funding: fmtSigned(p.funding_paid),
  };
}

/** The positions of a swap symbol (Perpetual or Inverse; a Margin position is a spot pair). */
export const positionsOf = (positions: DerivativesPositionView[], symbol: string) =>
  positions.filter((p) => p.symbol === symbol && p.market_type !== 'Margin');
