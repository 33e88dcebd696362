/**
 * Positions as the exchange reports them (issue 38 point 5): margin mode, the margin that backs the
 * position, liquidation price, contract size and the size in base units. ccxt's `collateral` of a cross
 * position is derived from the whole cross wallet (Binance: from the wallet balance behind the
 * liquidation price), so a cross position's margin is its initial margin (value ÷ leverage) instead;
 * an isolated one's is the margin posted to it (Binance: isolatedWallet, not isolatedMargin, which adds
 * the unrealized PnL). Sources per exchange below.
 */
import type { Position } from '../types';
import { toNumber } from './numbers';

export type MarginMode = 'isolated' | 'cross';

/** The fields of a ccxt position we read. */
export interface CcxtPosition {
  symbol?: unknown;
  side?: unknown;
  contracts?: unknown;
  contractSize?: unknown;
  entryPrice?: unknown;
  markPrice?: unknown;
  notional?: unknown;
  leverage?: unknown;
  collateral?: unknown;
  initialMargin?: unknown;
  liquidationPrice?: unknown;
  unrealizedPnl?: unknown;
  marginMode?: unknown;
  timestamp?: unknown;
  info?: Record<string, unknown>;
}

/** What the venue knows of the position's market (ccxt's market, as Market keeps it). */
export interface PositionMarket {
  settle?: string;
  quote?: string;
  contractSize?: number;
  inverse?: boolean;
}

/**
 * Where an exchange's margin mode is read when ccxt's `marginMode` is empty. Sources:
 * - Binance USDⓈ-M GET /fapi/v3/positionRisk: isolatedMargin / isolatedWallet are "0" for cross
 *   (ccxt reads marginType or isolatedMargin), https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Position-Information-V3
 * - Bybit v5 GET /v5/position/list: `tradeMode` 0 cross / 1 isolated on classic accounts only; on
 *   unified accounts it is deprecated (always 0) and the mode is the account's, GET /v5/account/info
 *   `marginMode` (ISOLATED_MARGIN, REGULAR_MARGIN = cross, PORTFOLIO_MARGIN = cross),
 *   https://bybit-exchange.github.io/docs/v5/position, https://bybit-exchange.github.io/docs/v5/account/account-info
 * - OKX GET /api/v5/account/positions: `mgnMode` cross / isolated (ccxt's marginMode),
 *   https://www.okx.com/docs-v5/en/#trading-account-rest-api-get-positions
 * Other exchanges: ccxt's `marginMode` (their position payloads name it), else isolated (the only
 * mode the platform sets, setLeverage → setMarginMode('isolated')).
 */
export function marginModeOf(
  ccxtId: string,
  p: CcxtPosition,
  accountMode: MarginMode | null = null,
): MarginMode {
  const m = typeof p.marginMode === 'string' ? p.marginMode.toLowerCase() : '';
  if (m === 'cross' || m === 'isolated') return m;
  if (ccxtId === 'bybit') {
    if (accountMode) return accountMode;
    const trade = toNumber(p.info?.tradeMode);
    if (trade === 0) return 'cross';
  }
  return 'isolated';
}

/** Bybit's account margin mode from GET /v5/account/info (source above); null when it does not say. */
export function bybitAccountMarginMode(info: unknown): MarginMode | null {
  const result = (info as { result?: { marginMode?: unknown } } | null)?.result;
  const mode = typeof result?.marginMode === 'string' ? result.marginMode : '';
  if (mode === 'ISOLATED_MARGIN') return 'isolated';
  if (mode === 'REGULAR_MARGIN' || mode === 'PORTFOLIO_MARGIN') return 'cross';
  return null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const positive = (v: unknown): number | null => {
  const n = toNumber(v);
  return n !== null && n > 0 ? n : null;
};

/**
 * Binance USDⓈ-M GET /fapi/v3/positionRisk (ccxt's default) has no `leverage` (v2 had it), so ccxt
 * leaves it empty; the row's positionInitialMargin is its notional at the mark ÷ its leverage, a whole
 * number on Binance: leverage = |notional| ÷ positionInitialMargin. Null when the row cannot say.
 * https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Position-Information-V3
 */
export function binanceLeverage(info: Record<string, unknown> | undefined): number | null {
  const notional = Math.abs(toNumber(info?.notional) ?? 0);
  const margin = positive(info?.positionInitialMargin);
  if (!(notional > 0) || margin === null) return null;
  const leverage = Math.round(notional / margin);
  return leverage >= 1 ? leverage : null;
}

/**
 * The field of the exchange's position row that holds the margin posted to an isolated position, where
 * ccxt's `collateral` is something else. Binance USDⓈ-M GET /fapi/v3/positionRisk: `isolatedWallet` is
 * the posted margin; `isolatedMargin` (ccxt's collateral) = isolatedWallet + unRealizedProfit, so it
 * moved with the mark price (Position.collateral is the margin posted, types.ts).
 * https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Position-Information-V3
 */
export const ISOLATED_COLLATERAL_FIELD: Readonly<Record<string, { field: string; source: string }>> = {
  binance: {
    field: 'isolatedWallet',
    source:
      'https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Position-Information-V3',
  },
};

/**
 * A ccxt position in our shape. `contracts` stay the exchange's contracts (OKX: contracts of 0.01 BTC);
 * `amount` is the size in base units (linear: contracts × contract size; inverse: contracts × contract
 * size in USD ÷ the mark price). Money fields are in `settle`.
 */
export function mapPosition(
  ccxtId: string,
  input: unknown,
  market: PositionMarket | undefined,
  marketType: Position['marketType'],
  accountMode: MarginMode | null = null,
): Position {
  const p = (input ?? {}) as CcxtPosition;
  const marginMode = marginModeOf(ccxtId, p, accountMode);
  const contracts = Math.abs(toNumber(p.contracts) ?? 0);
  const contractSize = positive(p.contractSize) ?? market?.contractSize ?? 1;
  const markPrice = toNumber(p.markPrice) ?? 0;
  const entryPrice = toNumber(p.entryPrice) ?? 0;
  const leverage = positive(p.leverage) ?? (ccxtId === 'binance' ? binanceLeverage(p.info) : null) ?? 1;
  const notional = Math.abs(toNumber(p.notional) ?? 0);
  const inverse = market?.inverse === true;
  const units = contracts * contractSize;
  const price = markPrice || entryPrice;
  const amount = inverse ? (price > 0 ? units / price : 0) : units;
  // Cross: the position's own initial margin (ccxt's collateral there is the cross wallet's share);
  // isolated: the margin posted to it (the exchange's own field where ccxt's includes the PnL).
  const initial = positive(p.initialMargin) ?? (notional > 0 ? notional / leverage : 0);
  const own = ISOLATED_COLLATERAL_FIELD[ccxtId];
  const posted = own ? positive(p.info?.[own.field]) : null;
  const collateral =
    marginMode === 'cross'
      ? initial
      : (posted ?? positive(p.collateral) ?? positive(p.initialMargin) ?? initial);
  return {
    symbol: str(p.symbol),
    marketType,
    side: p.side === 'short' ? 'short' : 'long',
    contracts,
    contractSize,
    amount,
    entryPrice,
    markPrice,
    notional,
    leverage,
    collateral,
    marginMode,
    // "0" or "" is the exchanges' "none" (a cross position the wallet covers, Bybit's empty liqPrice).
    liquidationPrice: positive(p.liquidationPrice),
    unrealizedPnl: toNumber(p.unrealizedPnl) ?? 0,
    settle: market?.settle ?? market?.quote ?? '',
    fundingPaid: 0,
    timestamp: toNumber(p.timestamp) ?? Date.now(),
  };
}
