/**
 * The backtest worker (a `worker_threads` entry; docs/backtest.md): runs the engine's `runBacktest` on
 * the candles it is given, off the server's event loop. It posts `progress` at most 10 times a second,
 * then one `result` (or `error`); a 1 in the shared `cancel` flag ends the run at its next check.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BACKTEST_LIMITS, type BacktestChartCandle } from '@bytx/contract';
import {
  classicDca,
  gridBot,
  gridBotDca,
  runBacktest,
  type BacktestResult,
  type MarketRules,
  type Strategy,
} from '@bytx/engine';

export interface WorkerInput {
  kind: 'grid_dca' | 'classic_dca' | 'grid';
  config: unknown;
  initialState: unknown;
  market: MarketRules;
  initialQuote: number;
  slippagePct: number;
  candles: {
    length: number;
    ts: Float64Array;
    open: Float64Array;
    high: Float64Array;
    low: Float64Array;
    close: Float64Array;
  };
  /** Int32Array over a SharedArrayBuffer: [0] = 1 asks the run to stop. */
  cancel: Int32Array;
}

export type WorkerMessage =
  | { type: 'progress'; fraction: number }
  | {
      type: 'result';
      result: BacktestResult;
      chart: BacktestChartCandle[];
    }
  | { type: 'error'; message: string };

const STRATEGIES: Record<WorkerInput['kind'], Strategy<unknown, unknown>> = {
  grid_dca: gridBotDca,
  classic_dca: classicDca,
  grid: gridBot,
};

/** Progress messages at most this often (ms). */
const PROGRESS_MS = 100;

/** The chart's candles: at most `max`, each bucket's first open, highest high, lowest low and last close. */
export function chartCandles(
  c: {
    ts: ArrayLike<number>;
    open: ArrayLike<number>;
    high: ArrayLike<number>;
    low: ArrayLike<number>;
    close: ArrayLike<number>;
  },
  length: number,
  max: number = BACKTEST_LIMITS.maxChartPoints,
): BacktestChartCandle[] {
  const per = Math.max(1, Math.ceil(length / max));
  const out: BacktestChartCandle[] = [];
  for (let i = 0; i < length; i += per) {
    const end = Math.min(length, i + per);
    let h = -Infinity;
    let l = Infinity;
    for (let j = i; j < end; j++) {
      if (c.high[j]! > h) h = c.high[j]!;
      if (c.low[j]! < l) l = c.low[j]!;
    }
    out.push([c.ts[i]!, c.open[i]!, h, l, c.close[end - 1]!]);
  }
  return out;
}

export function runWorkerInput(input: WorkerInput, post: (m: WorkerMessage) => void): void {
  let lastPost = 0;
  try {
    const result = runBacktest({
      strategy: STRATEGIES[input.kind],
      config: input.config,
      initialState: input.initialState,
      candles: input.candles,
      market: input.market,
      initialQuote: input.initialQuote,
      slippagePct: input.slippagePct,
      progressEvery: 8_192,
      onProgress: (fraction) => {
        const now = Date.now();
        if (now - lastPost < PROGRESS_MS && fraction < 1) return;
        lastPost = now;
        post({ type: 'progress', fraction });
      },
      shouldCancel: () => Atomics.load(input.cancel, 0) === 1,
    });
    const chart = chartCandles(input.candles, input.candles.length, BACKTEST_LIMITS.maxChartPoints);
    post({ type: 'result', result, chart });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

if (parentPort && (workerData as { backtest?: WorkerInput } | null)?.backtest) {
  const port = parentPort;
  runWorkerInput((workerData as { backtest: WorkerInput }).backtest, (m) => port.postMessage(m));
}
