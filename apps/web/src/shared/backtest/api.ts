import type {
  BacktestDeleteResponse,
  BacktestKind,
  BacktestStartBody,
  BacktestStartResponse,
  BacktestView,
} from '@bytx/contract';
import { api } from '../api/client';

export {
  BACKTEST_INTERVALS,
  BACKTEST_LIMITS,
  BACKTEST_PERIODS,
  type BacktestChartCandle,
  type BacktestEquityPoint,
  type BacktestFill,
  type BacktestInterval,
  type BacktestKind,
  type BacktestPeriod,
  type BacktestStatus,
  type BacktestSummary,
  type BacktestTrade,
  type BacktestView,
} from '@bytx/contract';

/**
 * POST /api/backtest as the dialog sends it: the kind, the start form's params exactly as its start
 * call sends them, exchange, symbol, interval, and one source of candles (a period, from/to, or csv).
 */
export type BacktestRequest = BacktestStartBody & { kind: BacktestKind; params: Record<string, unknown> };

/** The backtest calls (issue 19, docs/backtest.md); the server's refusals are thrown as ApiError. */
export const backtestApi = {
  start: (body: BacktestRequest) => api<BacktestStartResponse>('/api/backtest', { body }),
  get: (id: string) => api<BacktestView>(`/api/backtest/${encodeURIComponent(id)}`),
  cancel: (id: string) =>
    api<BacktestDeleteResponse>(`/api/backtest/${encodeURIComponent(id)}`, { method: 'DELETE' }),
};
