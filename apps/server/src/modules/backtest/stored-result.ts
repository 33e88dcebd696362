import type { BacktestChartCandle, BacktestEquityPoint, BacktestFill, BacktestTrade } from '@bytx/contract';
import type { BacktestResult } from '@bytx/engine';

/** The result as stored (and answered), the summary apart. */
export interface StoredResult {
  trades: BacktestTrade[];
  fills: BacktestFill[];
  equity: BacktestEquityPoint[];
  candles: BacktestChartCandle[];
  assumptions: string[];
  truncated: { trades: boolean; fills: boolean };
}

export function storedResult(r: BacktestResult, chart: BacktestChartCandle[]): StoredResult {
  return {
    trades: r.trades.map((t) => ({
      buyTime: t.buyTime,
      sellTime: t.sellTime,
      qty: t.qty,
      buyPrice: t.buyPrice,
      sellPrice: t.sellPrice,
      fees: t.fees,
      pnlNet: t.pnlNet,
    })),
    fills: r.fills.map((f) => ({
      time: f.time,
      side: f.side,
      price: f.price,
      qty: f.qty,
      fee: f.fee,
      role: f.role,
      orderType: f.orderType,
    })),
    equity: r.equity,
    candles: chart,
    assumptions: r.assumptions,
    truncated: {
      trades: r.summary.closedTrades > r.trades.length,
      fills: r.summary.fills > r.fills.length,
    },
  };
}
