/**
 * The intra-candle price path of the backtest (docs/bots/backtest-engine.md): a rising candle (close ≥
 * open) goes open → low → high → close, a falling one open → high → low → close. Each point is a tick
 * at the candle's open time plus `k × PATH_POINT_OFFSET_MS` (k = 0 … 3), so times stay increasing.
 */
import type { BacktestCandle, BacktestColumns } from './types';

/** Path points per candle. */
export const PATH_POINTS = 4;
/** Time between two path points of one candle (ms). */
export const PATH_POINT_OFFSET_MS = 1;

/** The four prices of a candle's path, in order. */
export function candlePath(
  open: number,
  high: number,
  low: number,
  close: number,
): [number, number, number, number] {
  return close >= open ? [open, low, high, close] : [open, high, low, close];
}

/** Price of path point k (0 … 3) of a candle; the same as `candlePath(…)[k]` without allocating. */
export function pathPoint(k: number, open: number, high: number, low: number, close: number): number {
  if (k === 0) return open;
  if (k === 3) return close;
  const rising = close >= open;
  return (k === 1) === rising ? low : high;
}

function columnError(k: string, len: number, n: number): string {
  return `column ${k} has ${len} values, ts has ${n}`;
}

/** Candles as typed columns (the run reads these). */
export interface CandleColumns {
  n: number;
  ts: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
}

/** Thrown for candles the run cannot take (the message names the index and the fault). */
export class BacktestInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BacktestInputError';
  }
}

type Fault = 'shape' | 'time' | 'prices' | 'range' | 'order';

/** The error for candle i (built here: a template literal inside the checking loop keeps V8 from
 *  optimizing it, ~10× slower). */
function bad(
  i: number,
  fault: Fault,
  t: number,
  o: number,
  h: number,
  l: number,
  c: number,
  prev: number,
): never {
  const what =
    fault === 'shape'
      ? 'not [ts, open, high, low, close, volume?]'
      : fault === 'time'
        ? `time ${t} is not a number`
        : fault === 'prices'
          ? 'prices must be positive numbers'
          : fault === 'range'
            ? `low ${l} / high ${h} do not hold open ${o} and close ${c}`
            : `time ${t} is not after the previous candle's ${prev}`;
  throw new BacktestInputError(`candle ${i}: ${what}`);
}

/**
 * Columns of `candles` (tuples, or columns: Float64Array columns are used as they are, not copied),
 * checked: finite positive prices, low ≤ open, close ≤ high, open times strictly increasing and far
 * enough apart for the path points.
 */
export function toColumns(candles: readonly BacktestCandle[] | BacktestColumns): CandleColumns {
  if (!Array.isArray(candles)) return fromColumns(candles as BacktestColumns);
  const tuples = candles as readonly BacktestCandle[];
  const n = tuples.length;
  const ts = new Float64Array(n);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = tuples[i];
    if (!Array.isArray(k) || k.length < 5) bad(i, 'shape', 0, 0, 0, 0, 0, 0);
    ts[i] = k[0];
    open[i] = k[1];
    high[i] = k[2];
    low[i] = k[3];
    close[i] = k[4];
  }
  const cols = { n, ts, open, high, low, close };
  checkColumns(cols);
  return cols;
}

/** Columns as given when they are Float64Arrays (no copy), else copied into Float64Arrays; checked. */
function fromColumns(c: BacktestColumns): CandleColumns {
  const n = c.ts.length;
  for (const k of ['open', 'high', 'low', 'close'] as const) {
    if (c[k].length !== n) throw new BacktestInputError(columnError(k, c[k].length, n));
  }
  const f = (a: ArrayLike<number>) => (a instanceof Float64Array ? a : Float64Array.from(a));
  const cols = { n, ts: f(c.ts), open: f(c.open), high: f(c.high), low: f(c.low), close: f(c.close) };
  checkColumns(cols);
  return cols;
}

function checkColumns(cols: CandleColumns): void {
  const { n, ts, open, high, low, close } = cols;
  const minGap = (PATH_POINTS - 1) * PATH_POINT_OFFSET_MS;
  let prev = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const t = ts[i]!;
    const o = open[i]!;
    const h = high[i]!;
    const l = low[i]!;
    const c = close[i]!;
    if (!Number.isFinite(t)) bad(i, 'time', t, o, h, l, c, prev);
    if (!(o > 0 && h > 0 && l > 0 && c > 0 && h < Infinity)) bad(i, 'prices', t, o, h, l, c, prev);
    if (!(l <= o && l <= c && h >= o && h >= c)) bad(i, 'range', t, o, h, l, c, prev);
    if (!(t > prev + minGap)) bad(i, 'order', t, o, h, l, c, prev);
    prev = t;
  }
}
