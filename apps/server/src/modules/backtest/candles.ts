import { BACKTEST_INTERVAL_MS, BACKTEST_MESSAGES, fillMessage, type BacktestInterval } from '@bytx/contract';
import { hash32, mulberry32, simPriceStep, type MarketDataSource } from '@bytx/venues';
import type { Database } from '../../db/client';
import type { MarketHub } from '../../context';
import { HttpError } from '../../lib/errors';
import { allocColumns, candleProblem, type CandleColumns } from './candle-input';

/**
 * Past candles for backtests (docs/backtest.md "Candles"): the exchange's candles through the candle
 * cache (`candle_cache`, shared by every user: a range is fetched once). MARKET_DATA=live fetches them
 * with ccxt's fetchOHLCV, page by page (ccxt's own rate limiter spaces the calls); MARKET_DATA=simulated
 * generates the simulated market's history deterministically. Inline and CSV candles are checked in
 * the worker thread (candle-input.ts, upload.ts).
 */

export { allocColumns, csvCandles, inlineCandles, type CandleColumns } from './candle-input';

function sliceColumns(c: CandleColumns, n: number): CandleColumns {
  if (n === c.length) return c;
  return {
    length: n,
    ts: c.ts.slice(0, n),
    open: c.open.slice(0, n),
    high: c.high.slice(0, n),
    low: c.low.slice(0, n),
    close: c.close.slice(0, n),
    volume: c.volume.slice(0, n),
  };
}

/** The candles opening in [from, end). */
function trimColumns(c: CandleColumns, from: number, end: number): CandleColumns {
  let a = 0;
  while (a < c.length && c.ts[a]! < from) a++;
  let b = c.length;
  while (b > a && c.ts[b - 1]! >= end) b--;
  if (a === 0 && b === c.length) return c;
  return {
    length: b - a,
    ts: c.ts.slice(a, b),
    open: c.open.slice(a, b),
    high: c.high.slice(a, b),
    low: c.low.slice(a, b),
    close: c.close.slice(a, b),
    volume: c.volume.slice(a, b),
  };
}

/** The candle grid of a range: open times from `from` (aligned down) to before `end`, closed ones only. */
export function alignRange(
  interval: BacktestInterval,
  from: number,
  to: number,
  now: number,
): { from: number; end: number; count: number } {
  const iv = BACKTEST_INTERVAL_MS[interval];
  const start = Math.floor(from / iv) * iv;
  const end = Math.min(Math.ceil(to / iv) * iv, Math.floor(now / iv) * iv);
  return { from: start, end, count: Math.max(0, Math.round((end - start) / iv)) };
}

/** The market-data hub's source of an exchange (its own ccxt instance and rate limiter), when it has one. */
type HubWithSources = MarketHub & { sourceOf?: (exchange: string) => MarketDataSource };

/** Candles asked per fetchOHLCV call (exchanges answer at most their own maximum; paging goes on). */
const PAGE = 1000;
/** Rows per statement when reading or writing the cache. */
const READ_BATCH = 100_000;
const WRITE_BATCH = 5_000;

export interface CandleStoreDeps {
  database: Database;
  market: () => MarketHub;
  /** MARKET_DATA=simulated: the simulated market's current price of a pair (the history ends at it). */
  simulatedPrice: ((exchange: string, symbol: string) => number) | null;
  now: () => number;
}

/**
 * The candle cache and its sources. `load` answers the closed candles of [from, end) from the cache,
 * fetching (or generating) only what the cache lacks; what it fetches is stored for every later user.
 */
export class CandleStore {
  /** fetchOHLCV calls made (tests: a cached range costs none). */
  fetches = 0;

  constructor(private readonly deps: CandleStoreDeps) {}

  private get simulated(): boolean {
    return this.deps.simulatedPrice !== null;
  }

  /** The cache's exchange key: simulated candles never mix with an exchange's own. */
  private cacheKey(exchange: string): string {
    return this.simulated ? `sim:${exchange}` : exchange;
  }

  async load(
    exchange: string,
    symbol: string,
    interval: BacktestInterval,
    from: number,
    end: number,
    opts: { signal?: AbortSignal; priceStep?: number } = {},
  ): Promise<CandleColumns> {
    const iv = BACKTEST_INTERVAL_MS[interval];
    const key = this.cacheKey(exchange);
    // One candle more on each side: the simulated history joins the cached candles around a gap.
    const wide = await this.read(key, symbol, interval, from - iv, end + iv);
    const cached = trimColumns(wide, from, end);
    const missing = missingSpans(cached, from, end, iv);
    if (missing.length === 0) return cached;
    const parts: CandleColumns[] = [cached];
    for (const span of missing) {
      opts.signal?.throwIfAborted();
      const got = this.simulated
        ? this.generate(exchange, symbol, interval, span, wide, opts.priceStep)
        : await this.fetchLive(exchange, symbol, interval, span.from, span.end, opts.signal);
      if (got.length > 0) {
        await this.write(key, symbol, interval, got);
        parts.push(got);
      }
    }
    return mergeColumns(parts);
  }

  /**
   * The cached candles of [from, end), oldest first. Read as one text per chunk (`string_agg`): a row
   * object per candle costs several times more on the embedded database. PostgreSQL prints float8
   * exactly (shortest round-trip digits), so the numbers come back as they were stored.
   */
  private async read(
    exchange: string,
    symbol: string,
    interval: string,
    from: number,
    end: number,
  ): Promise<CandleColumns> {
    const parts: CandleColumns[] = [];
    let after = from - 1;
    for (;;) {
      const [row] = await this.deps.database.sql.query(
        `SELECT count(*)::int AS n, max(ts) AS last,
                string_agg(ts::text || ',' || o::text || ',' || h::text || ',' || l::text || ',' || c::text || ',' || v::text, ';' ORDER BY ts) AS t
           FROM (SELECT ts, o, h, l, c, v FROM candle_cache
                  WHERE exchange = $1 AND symbol = $2 AND "interval" = $3 AND ts > $4 AND ts < $5
                  ORDER BY ts LIMIT ${READ_BATCH}) s`,
        [exchange, symbol, interval, after, end],
      );
      const n = Number(row?.n ?? 0);
      if (n === 0 || typeof row?.t !== 'string') break;
      const out = allocColumns(n);
      const text = row.t;
      let i = 0;
      let pos = 0;
      while (i < n && pos < text.length) {
        let next = text.indexOf(';', pos);
        if (next < 0) next = text.length;
        const f = text.slice(pos, next).split(',');
        out.ts[i] = Number(f[0]);
        out.open[i] = Number(f[1]);
        out.high[i] = Number(f[2]);
        out.low[i] = Number(f[3]);
        out.close[i] = Number(f[4]);
        out.volume[i] = Number(f[5]);
        i++;
        pos = next + 1;
      }
      parts.push(sliceColumns(out, i));
      after = Number(row.last);
      if (n < READ_BATCH) break;
    }
    if (parts.length === 0) return allocColumns(0);
    return parts.length === 1 ? parts[0]! : concatColumns(parts);
  }

  /** Stores candles (a candle already cached is kept: the first fetch of a range wins). */
  private async write(exchange: string, symbol: string, interval: string, c: CandleColumns): Promise<void> {
    for (let i = 0; i < c.length; i += WRITE_BATCH) {
      const j = Math.min(c.length, i + WRITE_BATCH);
      await this.deps.database.sql.query(
        `INSERT INTO candle_cache (exchange, symbol, "interval", ts, o, h, l, c, v)
         SELECT $1, $2, $3, * FROM unnest($4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[])
         ON CONFLICT DO NOTHING`,
        [
          exchange,
          symbol,
          interval,
          Array.from(c.ts.subarray(i, j)),
          Array.from(c.open.subarray(i, j)),
          Array.from(c.high.subarray(i, j)),
          Array.from(c.low.subarray(i, j)),
          Array.from(c.close.subarray(i, j)),
          Array.from(c.volume.subarray(i, j)),
        ],
      );
    }
  }

  /**
   * The exchange's candles of [from, end) through the market hub's ccxt source: pages of PAGE candles
   * from `since`, each starting after the last one received, until the range is covered or the
   * exchange has no more (ccxt's rate limiter spaces the calls: enableRateLimit).
   */
  private async fetchLive(
    exchange: string,
    symbol: string,
    interval: BacktestInterval,
    from: number,
    end: number,
    signal?: AbortSignal,
  ): Promise<CandleColumns> {
    const hub = this.deps.market() as HubWithSources;
    const unavailable = (reason: string) =>
      new HttpError(502, fillMessage(BACKTEST_MESSAGES.marketDataUnavailable, { exchange, symbol, reason }));
    if (typeof hub.sourceOf !== 'function') throw unavailable('no market-data source');
    const source = hub.sourceOf(exchange);
    const iv = BACKTEST_INTERVAL_MS[interval];
    const out = allocColumns(Math.round((end - from) / iv));
    let n = 0;
    let since = from;
    while (since < end) {
      signal?.throwIfAborted();
      let page: number[][];
      try {
        this.fetches++;
        page = await source.fetchOHLCV(symbol, interval, since, PAGE);
      } catch (err) {
        if (err instanceof HttpError) throw err;
        throw unavailable(err instanceof Error ? err.message : String(err));
      }
      if (page.length === 0) break;
      let last = -Infinity;
      for (const row of page) {
        const [ts = NaN, o = NaN, h = NaN, l = NaN, c = NaN, v = 0] = row;
        if (ts > last) last = ts;
        if (!(ts >= since && ts < end) || n >= out.length) continue;
        if (n > 0 && ts <= out.ts[n - 1]!) continue;
        if (candleProblem(ts, o, h, l, c, Number.isFinite(v) ? v : 0, -Infinity) !== null) continue;
        out.ts[n] = ts;
        out.open[n] = o;
        out.high[n] = h;
        out.low[n] = l;
        out.close[n] = c;
        out.volume[n] = Number.isFinite(v) ? v : 0;
        n++;
      }
      if (!(last >= since)) break;
      since = Math.floor(last / iv) * iv + iv;
    }
    return sliceColumns(out, n);
  }

  /**
   * The simulated market's candles of a missing span, generated deterministically: every candle's
   * return is drawn from a generator seeded by (exchange, symbol, interval, open time), the walk runs
   * backwards from the candle after the span (cached) or from the current price, and when the candle
   * before the span is cached the walk is bent (log-linearly) to start at its close.
   */
  private generate(
    exchange: string,
    symbol: string,
    interval: BacktestInterval,
    span: { from: number; end: number },
    cached: CandleColumns,
    priceStep?: number,
  ): CandleColumns {
    const iv = BACKTEST_INTERVAL_MS[interval];
    const price = this.deps.simulatedPrice!(exchange, symbol);
    const base = symbol.split('/')[0] ?? '';
    const daily = SIM_DAILY_VOL[base] ?? 0.045;
    const sigma = daily * Math.sqrt(iv / 86_400_000);
    const draw = (ts: number) => {
      const r = mulberry32(hash32(`${exchange}:${symbol}:${interval}:${ts}`));
      return {
        ret: sigma * gaussian(r),
        wickHi: Math.abs(gaussian(r)),
        wickLo: Math.abs(gaussian(r)),
        v: r(),
      };
    };
    // The right anchor: the cached candle right after the span, else the current price walked back
    // from the newest closed candle to the span's end.
    const next = indexOfTs(cached, span.end);
    let right: number;
    if (next >= 0) right = cached.open[next]!;
    else {
      right = price;
      const nowEnd = Math.floor(this.deps.now() / iv) * iv;
      for (let ts = nowEnd - iv; ts >= span.end; ts -= iv) right /= Math.exp(draw(ts).ret);
    }
    const n = Math.round((span.end - span.from) / iv);
    const out = allocColumns(n);
    let close = right;
    for (let k = n - 1; k >= 0; k--) {
      const ts = span.from + k * iv;
      const d = draw(ts);
      const open = close / Math.exp(d.ret);
      out.ts[k] = ts;
      out.open[k] = open;
      out.close[k] = close;
      out.high[k] = Math.max(open, close) * (1 + d.wickHi * sigma * 0.4);
      out.low[k] = Math.min(open, close) * (1 - d.wickLo * sigma * 0.4);
      out.volume[k] = Number(((2_000 * (iv / 1000) * (0.5 + d.v)) / close).toPrecision(6));
      close = open;
    }
    // The left anchor: start exactly at the cached close before the span.
    const prev = indexOfTs(cached, span.from - iv);
    if (prev >= 0 && n > 0) {
      const bend = Math.log(cached.close[prev]! / out.open[0]!);
      for (let k = 0; k < n; k++) {
        const fo = Math.exp(bend * (1 - k / n));
        const fc = Math.exp(bend * (1 - (k + 1) / n));
        const o = out.open[k]! * fo;
        const c = out.close[k]! * fc;
        const hiWick = out.high[k]! / Math.max(out.open[k]!, out.close[k]!);
        const loWick = out.low[k]! / Math.min(out.open[k]!, out.close[k]!);
        out.open[k] = o;
        out.close[k] = c;
        out.high[k] = Math.max(o, c) * hiWick;
        out.low[k] = Math.min(o, c) * loWick;
      }
    }
    const step = priceStep && priceStep > 0 ? priceStep : simPriceStep(price);
    for (let k = 0; k < n; k++) {
      const o = roundTo(out.open[k]!, step);
      const c = roundTo(out.close[k]!, step);
      out.open[k] = o;
      out.close[k] = c;
      out.high[k] = Math.max(o, c, roundTo(out.high[k]!, step));
      out.low[k] = Math.max(step, Math.min(o, c, roundTo(out.low[k]!, step)));
    }
    return out;
  }
}

/** The simulated market's daily volatility by base asset (as packages/venues' simulator). */
const SIM_DAILY_VOL: Readonly<Record<string, number>> = { BTC: 0.025, ETH: 0.032, BNB: 0.028, BYTX: 0.06 };

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function roundTo(x: number, step: number): number {
  const digits = Math.max(0, Math.min(12, Math.ceil(-Math.log10(step)) + 1));
  return Math.max(step, Number((Math.round(x / step) * step).toFixed(digits)));
}

/** Index of the candle opening at `ts` (binary search), else -1. */
function indexOfTs(c: CandleColumns, ts: number): number {
  let lo = 0;
  let hi = c.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = c.ts[mid]!;
    if (t === ts) return mid;
    if (t < ts) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The runs of open times of [from, end) (step iv) the cached candles lack. */
export function missingSpans(
  cached: CandleColumns,
  from: number,
  end: number,
  iv: number,
): { from: number; end: number }[] {
  const spans: { from: number; end: number }[] = [];
  let expect = from;
  for (let i = 0; i <= cached.length; i++) {
    const ts = i < cached.length ? cached.ts[i]! : end;
    if (ts > expect) spans.push({ from: expect, end: Math.min(ts, end) });
    expect = Math.max(expect, ts + iv);
    if (expect >= end) break;
  }
  return spans.filter((s) => s.end > s.from);
}

/** Column sets one after the other (already in time order). */
function concatColumns(parts: CandleColumns[]): CandleColumns {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = allocColumns(n);
  let at = 0;
  for (const p of parts) {
    out.ts.set(p.ts.subarray(0, p.length), at);
    out.open.set(p.open.subarray(0, p.length), at);
    out.high.set(p.high.subarray(0, p.length), at);
    out.low.set(p.low.subarray(0, p.length), at);
    out.close.set(p.close.subarray(0, p.length), at);
    out.volume.set(p.volume.subarray(0, p.length), at);
    at += p.length;
  }
  return out;
}

/** Candle column sets merged by time (a time present twice keeps the first set's candle). */
export function mergeColumns(parts: CandleColumns[]): CandleColumns {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const rows: [number, number, number][] = [];
  nonEmpty.forEach((p, pi) => {
    for (let i = 0; i < p.length; i++) rows.push([p.ts[i]!, pi, i]);
  });
  rows.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = allocColumns(rows.length);
  let n = 0;
  for (const [ts, pi, i] of rows) {
    if (n > 0 && out.ts[n - 1] === ts) continue;
    const p = nonEmpty[pi]!;
    out.ts[n] = ts;
    out.open[n] = p.open[i]!;
    out.high[n] = p.high[i]!;
    out.low[n] = p.low[i]!;
    out.close[n] = p.close[i]!;
    out.volume[n] = p.volume[i]!;
    n++;
  }
  return sliceColumns(out, n);
}
