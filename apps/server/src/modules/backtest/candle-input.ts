import { BACKTEST_LIMITS, BACKTEST_MESSAGES, fillMessage } from '@bytx/contract';
import { parse as parseCsv } from 'csv-parse/sync';
import { badRequest } from '../../lib/errors';

/**
 * Inline and CSV candles of a backtest upload, checked (docs/backtest.md "Candles"). This file runs in
 * the backtest worker thread (worker.ts, upload.ts), not on the server's event loop: it imports nothing
 * heavy (no ccxt, no database), so a worker starts fast.
 */
/** Candles as columns (what the worker takes, transferred without a copy). Times in ms. */
export interface CandleColumns {
  length: number;
  ts: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

export function allocColumns(n: number): CandleColumns {
  return {
    length: n,
    ts: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
}

/** Why a candle is not usable (null: it is), given the previous candle's time. */
export function candleProblem(
  ts: number,
  o: number,
  h: number,
  l: number,
  c: number,
  v: number,
  prevTs: number,
): string | null {
  if (!Number.isFinite(ts) || ts < 0 || !Number.isInteger(ts)) return 'the time is not a valid time';
  if (ts <= prevTs) return 'the times must be ascending';
  for (const [name, x] of [
    ['open', o],
    ['high', h],
    ['low', l],
    ['close', c],
  ] as const) {
    if (!Number.isFinite(x) || x <= 0) return `${name} must be a number greater than 0`;
  }
  if (!Number.isFinite(v) || v < 0) return 'volume must be a number of at least 0';
  if (l > Math.min(o, c) || h < Math.max(o, c)) return 'low must be ≤ open and close, high ≥ both';
  return null;
}

/** Inline candles `[[ts_ms, open, high, low, close, volume?], …]`, checked (a 400 names the first bad one). */
export function inlineCandles(rows: readonly (readonly number[])[]): CandleColumns {
  const n = rows.length;
  if (n > BACKTEST_LIMITS.maxCandles) {
    throw badRequest(`candles: at most ${BACKTEST_LIMITS.maxCandles} candles`, { field: 'candles' });
  }
  const out = allocColumns(n);
  let prev = -Infinity;
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    const [ts = NaN, o = NaN, h = NaN, l = NaN, c = NaN, v = 0] = r;
    if (r.length < 5 || r.length > 6 || candleProblem(ts, o, h, l, c, v, prev) !== null) {
      throw badRequest(fillMessage(BACKTEST_MESSAGES.badCandle, { index: i }), { field: 'candles' });
    }
    out.ts[i] = ts;
    out.open[i] = o;
    out.high[i] = h;
    out.low[i] = l;
    out.close[i] = c;
    out.volume[i] = v;
    prev = ts;
  }
  if (n < 2) throw badRequest(BACKTEST_MESSAGES.tooFewCandles, { field: 'candles' });
  return out;
}

const TIME_COLUMNS = ['ts', 'time', 'timestamp', 'date', 'datetime', 'open_time', 'unix'];
const COLUMN_NAMES: Record<string, 'open' | 'high' | 'low' | 'close' | 'volume'> = {
  open: 'open',
  o: 'open',
  high: 'high',
  h: 'high',
  low: 'low',
  l: 'low',
  close: 'close',
  c: 'close',
  volume: 'volume',
  vol: 'volume',
  v: 'volume',
};

/**
 * A CSV time: ms since the epoch, seconds (a whole number below 10^11, as TradingView exports), or
 * an ISO date; NaN when it is none of these.
 */
function csvTime(s: string): number {
  if (/^\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
  }
  return s ? Date.parse(s) : NaN;
}

const csvNumber = (s: string | undefined): number =>
  s === undefined || s.trim() === '' ? NaN : Number(s.trim().replace(/^\+/, ''));

/**
 * A CSV of candles, parsed with csv-parse: columns ts (or time / timestamp / date), open, high, low,
 * close, volume (optional), in that order when there is no header; comma, semicolon or tab separated.
 * A malformed file or a bad value is a 400 naming its line.
 */
export function csvCandles(text: string): CandleColumns {
  if (Buffer.byteLength(text, 'utf8') > BACKTEST_LIMITS.csvMaxBytes) {
    throw badRequest(BACKTEST_MESSAGES.csvTooLarge, { field: 'csv' });
  }
  const malformed = (line: number, reason: string) =>
    badRequest(fillMessage(BACKTEST_MESSAGES.csvMalformed, { line, reason }), { field: 'csv', line });
  let records: { info: { lines: number }; record: string[] }[];
  try {
    records = parseCsv(text, {
      info: true,
      trim: true,
      skip_empty_lines: true,
      delimiter: [',', ';', '\t'],
      bom: true,
    }) as unknown as { info: { lines: number }; record: string[] }[];
  } catch (err) {
    const e = err as { lines?: number; message?: string };
    throw malformed(typeof e.lines === 'number' ? e.lines : 1, e.message ?? String(err));
  }
  if (records.length === 0) throw badRequest(BACKTEST_MESSAGES.tooFewCandles, { field: 'csv' });
  // A header: its first field is not a time.
  const first = records[0]!.record;
  let idx = { ts: 0, open: 1, high: 2, low: 3, close: 4, volume: 5 };
  let start = 0;
  if (first.length > 0 && Number.isNaN(csvTime(first[0]!))) {
    const names = first.map((f) => f.trim().toLowerCase());
    const find = (want: string) => names.findIndex((n) => COLUMN_NAMES[n] === want);
    const ts = names.findIndex((n) => TIME_COLUMNS.includes(n));
    const found = { ts, open: find('open'), high: find('high'), low: find('low'), close: find('close') };
    if (Object.values(found).some((i) => i < 0))
      throw badRequest(BACKTEST_MESSAGES.csvNoColumns, { field: 'csv' });
    idx = { ...found, volume: find('volume') };
    start = 1;
  } else if (first.length < 5) {
    throw badRequest(BACKTEST_MESSAGES.csvNoColumns, { field: 'csv' });
  }
  const n = records.length - start;
  if (n > BACKTEST_LIMITS.maxCandles) {
    throw badRequest(`csv: at most ${BACKTEST_LIMITS.maxCandles} candles`, { field: 'csv' });
  }
  const out = allocColumns(n);
  let prev = -Infinity;
  for (let i = 0; i < n; i++) {
    const { info, record } = records[i + start]!;
    const ts = csvTime((record[idx.ts] ?? '').trim());
    const o = csvNumber(record[idx.open]);
    const h = csvNumber(record[idx.high]);
    const l = csvNumber(record[idx.low]);
    const c = csvNumber(record[idx.close]);
    const v = idx.volume < 0 || (record[idx.volume] ?? '').trim() === '' ? 0 : csvNumber(record[idx.volume]);
    const problem = candleProblem(ts, o, h, l, c, v, prev);
    if (problem) throw malformed(info.lines, problem);
    out.ts[i] = ts;
    out.open[i] = o;
    out.high[i] = h;
    out.low[i] = l;
    out.close[i] = c;
    out.volume[i] = v;
    prev = ts;
  }
  if (n < 2) throw badRequest(BACKTEST_MESSAGES.tooFewCandles, { field: 'csv' });
  return out;
}
