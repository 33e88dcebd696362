/**
 * The backtest worker (a `worker_threads` entry of the pool, pool.ts; docs/backtest.md "The run"): it
 * stays up between tasks and takes one at a time, off the server's event loop:
 * - `parse`: the body of `POST /api/backtest` as bytes (upload.ts) → one `parsed` answer, the candles
 *   transferred back as columns;
 * - `run`: the engine's `runBacktest` on the candles it is given → `progress` at most 10 times a second,
 *   then one `result` (or `error`); a 1 in the shared `cancel` flag ends the run at its next check.
 * It posts `ready` once its listener is attached (the pool sends it nothing before).
 */
import { parentPort, workerData, type TransferListItem } from 'node:worker_threads';
import { BACKTEST_LIMITS, type BacktestChartCandle } from '@bytx/contract';
import * as engine from '@bytx/engine';
import { runBacktest, type BacktestResult, type MarketRules, type Strategy } from '@bytx/engine';
import type { CandleColumns } from './candle-input';
import { parseUpload, type UploadResult } from './upload';

export interface WorkerInput {
  /**
   * The bot kind whose strategy runs (the backtest kind's module, modules/bots/kinds/<kind>/kind.ts):
   * found here among the engine's strategies, so the worker loads the engine and not the server's kinds.
   */
  strategy: string;
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

/** A task of the pool. */
export type WorkerTask = { type: 'parse'; bytes: Uint8Array } | { type: 'run'; input: WorkerInput };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'parsed'; upload: UploadResult }
  | { type: 'progress'; fraction: number }
  | {
      type: 'result';
      result: BacktestResult;
      chart: BacktestChartCandle[];
    }
  | { type: 'error'; message: string };

const isStrategy = (v: unknown): v is Strategy<unknown, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { kind?: unknown }).kind === 'string' &&
  typeof (v as { step?: unknown }).step === 'function' &&
  typeof (v as { create?: unknown }).create === 'function';

/** Every strategy the engine exports, by its kind (`bots.kind`). */
const STRATEGIES = new Map<string, Strategy<unknown, unknown>>(
  (Object.values(engine) as unknown[]).filter(isStrategy).map((s) => [s.kind, s]),
);

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
    const strategy = STRATEGIES.get(input.strategy);
    if (!strategy) throw new Error(`the engine has no strategy of kind '${input.strategy}'`);
    const result = runBacktest({
      strategy,
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

/** The buffers of candle columns (moved to the other thread, not copied). */
export function columnBuffers(c: Omit<CandleColumns, 'volume'> & { volume?: Float64Array }): ArrayBuffer[] {
  const arrays = [c.ts, c.open, c.high, c.low, c.close, ...(c.volume ? [c.volume] : [])];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** One task, its answers posted with `post` (the last one ends the task). */
export function runTask(
  task: WorkerTask,
  post: (m: WorkerMessage, transfer?: TransferListItem[]) => void,
): void {
  if (task.type === 'run') {
    runWorkerInput(task.input, (m) => post(m));
    return;
  }
  let upload: UploadResult;
  try {
    upload = parseUpload(task.bytes);
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  const c = upload.stage === 'parsed' ? upload.candles : null;
  post({ type: 'parsed', upload }, c ? columnBuffers(c) : []);
}

if (parentPort && (workerData as { backtestPool?: boolean } | null)?.backtestPool) {
  const port = parentPort;
  port.on('message', (task: WorkerTask) => runTask(task, (m, transfer) => port.postMessage(m, transfer)));
  port.postMessage({ type: 'ready' } satisfies WorkerMessage);
}
