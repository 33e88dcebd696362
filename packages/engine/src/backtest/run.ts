/**
 * `runBacktest` (docs/bots/backtest-engine.md): the strategy's own `step()` over past candles against the
 * simulated spot venue, pure and synchronous. Each candle is walked along its path (path.ts); at each
 * point the tick is stepped, the commands are carried out in order, the answers delivered, then the
 * resting orders the point reaches fill and their fills are delivered, all before the next point.
 *
 * Fast path: a candle whose whole range lies strictly inside the strategy's quiet band (and before its
 * `until`) and reaches no resting order is only noted (`noteQuietTick` for its four points, which is
 * what `step()` would do for them); within a stepped candle each point is checked the same way. The
 * result is the same as stepping every point (`fastPath: false`).
 */
import type { PlaceOrderCommand, StopReason, Strategy, StrategyEvent } from '../strategy';
import { BacktestInputError, PATH_POINT_OFFSET_MS, toColumns, type CandleColumns } from './path';
import type { BacktestInput, BacktestResult, BacktestTrade, EquityPoint } from './types';
import { BacktestVenue } from './venue';

const DEFAULT_PROGRESS_EVERY = 16_384;
const DEFAULT_MAX_EQUITY_POINTS = 2_000;
const DEFAULT_MAX_ROWS = 20_000;
/** Events delivered for one path point before the run gives up (a strategy that never settles). */
const MAX_EVENTS_PER_POINT = 1_000_000;
/** Most band checks answered "step it" in a row after bands that admitted no price (Stepper.band). */
const BAND_SKIP_MAX = 64;
const T1 = PATH_POINT_OFFSET_MS;
const T2 = 2 * PATH_POINT_OFFSET_MS;
const T3 = 3 * PATH_POINT_OFFSET_MS;

function check(ok: boolean, what: string): void {
  if (!ok) throw new BacktestInputError(what);
}

/** The stepping side of a run: the state, the venue, and what the commands produced. */
class Stepper<S, C> {
  steps = 0;
  quietTicks = 0;
  stopReason: StopReason | null = null;
  tradeCount = 0;
  realized = 0;
  readonly trades: BacktestTrade[] = [];
  /** The quiet band combined with the venue's orders: a price strictly between qLo and qHi at a time
   *  before qUntil is a tick that changes nothing but what noteQuietTick writes. */
  qLo = Number.POSITIVE_INFINITY;
  qHi = Number.NEGATIVE_INFINITY;
  qUntil = Number.NEGATIVE_INFINITY;
  bandValid = false;

  constructor(
    public state: S,
    readonly strategy: Strategy<S, C>,
    readonly venue: BacktestVenue,
    readonly fast: boolean,
    private readonly maxTrades: number,
  ) {}

  /** Band checks still to answer "not quiet" without asking the strategy (see `band`). */
  private skip = 0;
  private skipNext = 1;

  /**
   * Recomputes qLo / qHi / qUntil for the current state and orders, for a candle whose last point is at
   * `lastT`. Asking for a band costs more than a quiet step (the Grid Bot DCA walks up to 2 × 64 ladder
   * positions), so after a band that cannot take a candle (none, empty, or ending before `lastT`, as the
   * classic DCA's at every candle end) the next checks are answered "step it" without asking, 1, 2, 4 …
   * up to BAND_SKIP_MAX in a row, until a band can take a candle again. Stepping a quiet tick is always
   * allowed (the fast path stands for it), so this changes the cost, never the result.
   */
  band(lastT: number): void {
    this.bandValid = true;
    if (this.skip > 0) {
      this.skip--;
      this.none();
      this.bandValid = false;
      return;
    }
    const b = this.strategy.quietBand!(this.state);
    if (b !== null) {
      this.qLo = Math.max(b.low, this.venue.maxBuy);
      this.qHi = Math.min(b.high, this.venue.minSell);
      this.qUntil = b.until;
    }
    if (b === null || !(this.qLo < this.qHi) || !(b.until > lastT)) {
      if (b === null) this.none();
      this.skip = this.skipNext;
      this.skipNext = Math.min(this.skipNext * 2, BAND_SKIP_MAX);
    } else {
      this.skipNext = 1;
    }
  }

  private none(): void {
    this.qLo = Number.POSITIVE_INFINITY;
    this.qHi = Number.NEGATIVE_INFINITY;
    this.qUntil = Number.NEGATIVE_INFINITY;
  }

  /**
   * Quiet ticks taken on the fast path and not yet written into the state: their highest and lowest
   * price (with times) and the last one. `flush` writes them with noteQuietTick (highest and lowest in
   * time order, then the last), which leaves the state as noting every one of them would: what a quiet
   * tick writes depends only on the extremes and the last tick (the last price and time, the classic
   * DCA's forming candle; strategy.ts `noteQuietTick`). The run keeps them in locals on its hot loop.
   */
  flush(hi: number, hiT: number, lo: number, loT: number, last: number, lastT: number): void {
    // hiT ≠ loT (two points of the path) and lastT, a close, comes after both.
    const s = this.state;
    const st = this.strategy;
    if (hiT < loT) {
      st.noteQuietTick!(s, hi, hiT);
      st.noteQuietTick!(s, lo, loT);
    } else {
      st.noteQuietTick!(s, lo, loT);
      st.noteQuietTick!(s, hi, hiT);
    }
    st.noteQuietTick!(s, last, lastT);
  }

  /**
   * Walks a candle the fast path could not take whole: each point inside the band as it was at the
   * candle's start is noted as quiet until the first point that is stepped; the points after that are
   * stepped too (a band costs more to compute than a quiet step: it is computed once per candle).
   */
  candle(o: number, h: number, l: number, c: number, t: number): void {
    const rising = c >= o;
    this.point(o, t);
    this.point(rising ? l : h, t + T1);
    this.point(rising ? h : l, t + T2);
    this.point(c, t + T3);
  }

  point(p: number, t: number): void {
    if (this.fast && !this.bandValid) this.band(t);
    if (this.bandValid && p > this.qLo && p < this.qHi && t < this.qUntil) {
      this.strategy.noteQuietTick!(this.state, p, t);
      this.quietTicks++;
      return;
    }
    const v = this.venue;
    v.setPrice(p, t);
    this.deliver({ type: 'tick', price: p, ts: t });
    this.drain();
    v.match();
    this.drain();
    this.bandValid = false;
  }

  private drain(): void {
    let n = 0;
    for (let e = this.venue.next(); e !== undefined; e = this.venue.next()) {
      if (++n > MAX_EVENTS_PER_POINT)
        throw new Error('the strategy does not settle: too many events at one price');
      this.deliver(e);
    }
  }

  private deliver(event: StrategyEvent): void {
    const r = this.strategy.step(this.state, event);
    this.steps++;
    this.state = r.state;
    const cmds = r.commands;
    for (let i = 0; i < cmds.length; i++) {
      const cmd = cmds[i]!;
      switch (cmd.type) {
        case 'place_order':
          this.place(cmd);
          break;
        case 'cancel_order':
          this.venue.cancel(cmd.clientOrderId);
          break;
        case 'record_trade': {
          const t = cmd.trade;
          this.tradeCount++;
          this.realized += t.pnlNet;
          if (this.trades.length < this.maxTrades) {
            this.trades.push({
              lotId: t.lotId,
              ...(t.key !== undefined ? { key: t.key } : {}),
              buyTime: t.buyTime,
              sellTime: t.sellTime,
              qty: t.qty,
              buyPrice: t.buyPrice,
              sellPrice: t.sellPrice,
              buyFee: t.buyFee,
              sellFee: t.sellFee,
              fees: t.buyFee + t.sellFee,
              pnlNet: t.pnlNet,
            });
          }
          break;
        }
        case 'stopped':
          this.stopReason = cmd.reason;
          break;
        case 'log':
          break;
      }
    }
  }

  private place(cmd: PlaceOrderCommand): void {
    this.venue.place(cmd);
  }
}

/**
 * Runs `input.strategy` with `input.config` over `input.candles` (docs/bots/backtest-engine.md).
 * Throws `BacktestInputError` for unusable input and the strategy's own config error from `create`.
 */
export function runBacktest<S, C>(input: BacktestInput<S, C>): BacktestResult {
  const cols = toColumns(input.candles);
  const n = cols.n;
  check(n > 0, 'no candles');
  const m = input.market;
  check(
    m !== null &&
      typeof m === 'object' &&
      [m.takerFee, m.makerFee, m.minCost, m.minAmount, m.amountStep, m.priceStep].every(
        (x) => Number.isFinite(x) && x >= 0,
      ) &&
      m.takerFee < 1 &&
      m.makerFee < 1,
    'market: fees, minimums and steps must be numbers ≥ 0 (fees below 1)',
  );
  const initialQuote = input.initialQuote;
  const initialBase = input.initialBase ?? 0;
  const slippagePct = input.slippagePct ?? 0;
  check(Number.isFinite(initialQuote) && initialQuote >= 0, 'initialQuote must be a number ≥ 0');
  check(Number.isFinite(initialBase) && initialBase >= 0, 'initialBase must be a number ≥ 0');
  check(
    Number.isFinite(slippagePct) && slippagePct >= 0 && slippagePct < 100,
    'slippagePct must be in [0, 100)',
  );
  const every = Math.max(1, Math.floor(input.progressEvery ?? DEFAULT_PROGRESS_EVERY));
  const maxEquity = Math.max(4, Math.floor(input.maxEquityPoints ?? DEFAULT_MAX_EQUITY_POINTS));
  const strategy = input.strategy;
  const botId = input.botId ?? 'bt';
  const state: S =
    input.initialState !== undefined
      ? structuredClone(input.initialState)
      : strategy.create(botId, input.config);
  const venue = new BacktestVenue(
    m,
    initialQuote,
    initialBase,
    slippagePct,
    input.maxFills ?? DEFAULT_MAX_ROWS,
  );
  venue.costBasis = initialBase * cols.open[0]!;
  venue.capitalPeak = venue.costBasis;
  const fast =
    input.fastPath !== false &&
    typeof strategy.quietBand === 'function' &&
    typeof strategy.noteQuietTick === 'function' &&
    !(typeof strategy.bookDepth === 'function' && strategy.bookDepth(state) > 0);
  check(
    typeof strategy.extraMarkets !== 'function' || strategy.extraMarkets(state).length === 0,
    'a backtest runs on one market: this strategy follows others',
  );
  const run = new Stepper(state, strategy, venue, fast, input.maxTrades ?? DEFAULT_MAX_ROWS);

  const { ts, open, high, low, close } = cols;
  const equity = new Float64Array(n);
  let quote = venue.quote;
  let base = venue.base;
  let inMarket = 0;
  let quietCandles = 0;
  let done = 0;
  let cancelled = false;
  // The quiet candles [from, i) not yet written into the state (Stepper.flush); -1: none.
  let from = -1;
  for (let start = 0; start < n; start += every) {
    const end = Math.min(n, start + every);
    let i = start;
    while (i < end) {
      if (fast) {
        if (!run.bandValid) run.band(ts[i]! + T3);
        const j = quietUntil(cols, equity, i, end, run.qLo, run.qHi, run.qUntil - T3, quote, base);
        if (j > i) {
          if (from < 0) from = i;
          if (base > 0) inMarket += j - i;
          i = j;
          if (i === end) break;
        }
      }
      if (from >= 0) {
        flushQuiet(run, cols, from, i);
        quietCandles += i - from;
        from = -1;
      }
      const c = close[i]!;
      run.candle(open[i]!, high[i]!, low[i]!, c, ts[i]!);
      quote = venue.quote;
      base = venue.base;
      equity[i] = quote + base * c;
      if (base > 0) inMarket++;
      i++;
    }
    done = end;
    if (input.shouldCancel?.() === true && end < n) {
      cancelled = true;
      break;
    }
    input.onProgress?.(end / n);
  }
  if (from >= 0) {
    flushQuiet(run, cols, from, done);
    quietCandles += done - from;
  }
  run.quietTicks += quietCandles * 4;

  // Summary over the candles processed.
  const initialEquity = initialQuote + initialBase * open[0]!;
  let peak = initialEquity;
  let ddQuote = 0;
  let ddPct = 0;
  for (let i = 0; i < done; i++) {
    const e = equity[i]!;
    if (e > peak) peak = e;
    else {
      const d = peak - e;
      if (d > ddQuote) ddQuote = d;
      // d / peak > ddPct without a division per candle (peak > 0 here whenever d > 0 matters).
      if (d > ddPct * peak && peak > 0) ddPct = d / peak;
    }
  }
  const lastI = done - 1;
  const lastClose = close[lastI]!;
  const finalEquity = equity[lastI]!;
  const netPnl = finalEquity - initialEquity;
  const bh = lastClose / open[0]! - 1;
  const qty = venue.base;
  const cycles = (run.state as { cycles?: unknown }).cycles;
  return {
    summary: {
      from: ts[0]!,
      to: ts[lastI]!,
      candles: done,
      initialEquity,
      finalEquity: round(finalEquity),
      netPnl: round(netPnl),
      returnPct: initialEquity > 0 ? round((netPnl / initialEquity) * 100) : 0,
      realizedPnl: round(run.realized),
      maxDrawdownPct: round(ddPct * 100),
      maxDrawdownQuote: round(ddQuote),
      feesPaid: round(venue.feesPaid),
      closedTrades: run.tradeCount,
      cycles: typeof cycles === 'number' ? cycles : null,
      fills: venue.fillCount,
      capitalPeak: round(venue.capitalPeak),
      timeInMarketPct: round((inMarket / done) * 100),
      openPosition: {
        qty: round(qty),
        avgEntry: qty > 0 ? round(venue.costBasis / qty) : null,
        value: round(qty * lastClose),
      },
      buyAndHoldPct: round(bh * 100),
      buyAndHoldPnl: round(initialEquity * bh),
      rejections: { ...venue.rejections },
      stopReason: run.stopReason,
    },
    trades: run.trades,
    fills: venue.fills,
    equity: downsample(equity, ts, done, maxEquity),
    assumptions: assumptions(m, slippagePct),
    cancelled,
    stats: { quietCandles, steps: run.steps, quietTicks: run.quietTicks },
  };
}

/**
 * The fast path's scan: from candle i on, while a candle lies strictly inside (lo, hi) and its open time
 * is before `before` (its last point before the band's `until`), marks its equity (quote and base do not
 * change on quiet candles). Returns the first candle that is not quiet (or `end`).
 */
function quietUntil(
  cols: CandleColumns,
  equity: Float64Array,
  i: number,
  end: number,
  lo: number,
  hi: number,
  before: number,
  quote: number,
  base: number,
): number {
  const { ts, low, high, close } = cols;
  for (; i < end; i++) {
    if (!(low[i]! > lo && high[i]! < hi && ts[i]! < before)) break;
    equity[i] = quote + base * close[i]!;
  }
  return i;
}

/** Writes the quiet candles [a, b) into the state: their highest and lowest points and the last close. */
function flushQuiet<S, C>(run: Stepper<S, C>, cols: CandleColumns, a: number, b: number): void {
  const { ts, open, high, low, close } = cols;
  let hi = a;
  let lo = a;
  for (let i = a + 1; i < b; i++) {
    if (high[i]! > high[hi]!) hi = i;
    if (low[i]! < low[lo]!) lo = i;
  }
  // A rising candle reaches its low at the second point and its high at the third; a falling one the reverse.
  const hiT = ts[hi]! + (close[hi]! >= open[hi]! ? T2 : T1);
  const loT = ts[lo]! + (close[lo]! >= open[lo]! ? T1 : T2);
  run.flush(high[hi]!, hiT, low[lo]!, loT, close[b - 1]!, ts[b - 1]! + T3);
}

/** Money figures to 10 decimals (float noise of the running sums off). */
function round(x: number): number {
  return Number.isFinite(x) ? Number(x.toFixed(10)) : x;
}

/**
 * At most `max` points of equity[0 … n): all of them when they fit; otherwise the first, the last and
 * the lowest and highest point of each of (max − 2) / 2 equal buckets, in time order.
 */
export function downsample(equity: Float64Array, ts: Float64Array, n: number, max: number): EquityPoint[] {
  const out: EquityPoint[] = [];
  if (n <= max) {
    for (let i = 0; i < n; i++) out.push({ time: ts[i]!, equity: round(equity[i]!) });
    return out;
  }
  const buckets = Math.floor((max - 2) / 2);
  const size = Math.ceil((n - 2) / buckets);
  out.push({ time: ts[0]!, equity: round(equity[0]!) });
  for (let b = 1; b < n - 1; b += size) {
    const e = Math.min(n - 1, b + size);
    let lo = b;
    let hi = b;
    for (let i = b + 1; i < e; i++) {
      if (equity[i]! < equity[lo]!) lo = i;
      if (equity[i]! > equity[hi]!) hi = i;
    }
    const first = Math.min(lo, hi);
    const second = Math.max(lo, hi);
    out.push({ time: ts[first]!, equity: round(equity[first]!) });
    if (second !== first) out.push({ time: ts[second]!, equity: round(equity[second]!) });
  }
  out.push({ time: ts[n - 1]!, equity: round(equity[n - 1]!) });
  return out;
}

function pct(x: number): string {
  return `${Number((x * 100).toFixed(6))} %`;
}

function assumptions(m: BacktestInput<unknown, unknown>['market'], slippagePct: number): string[] {
  return [
    'Each candle is walked open → low → high → close when it closes at or above its open, open → high → low → close otherwise; the bot sees a price tick at each of these four points.',
    'A resting limit order fills completely at its own price when the path reaches it: no partial fills, no slippage on limits, no queue position; volume is not used.',
    'A limit order placed beyond the current price fills at once at its own price, as a taker.',
    `Market orders fill at the tick price with ${slippagePct} % slippage (buys higher, sells lower), as a taker.`,
    `Fees: maker ${pct(m.makerFee)}, taker ${pct(m.takerFee)} of the order value, paid in quote.`,
    `Orders below the market minimum (amount ${m.minAmount}, value ${m.minCost}) or beyond the free balance are refused as the exchange would.`,
    'Spot only: no leverage, funding or liquidation.',
    'Equity = quote + base × close, marked at each candle close; buy-and-hold puts the starting equity into the base at the first open, without fees.',
  ];
}
