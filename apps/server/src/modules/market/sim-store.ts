import type { Candle, CandleSeriesSnapshot, MarketSimulator, Timeframe } from '@bytx/venues';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { simCandles, simState } from '../../db/schema/index';

/** Candles upserted per statement. */
const CANDLE_BATCH = 500;

/**
 * Persistence of the simulated market (issue: a restart is invisible). The walk's state is written
 * after every tick and at once when a control price is set (`flushState` is awaited by the control
 * route), so after a SIGKILL the walk continues from its last tick and a held price still holds.
 * Candles are written every `candleEveryMs` (only the candles that changed since the last write), so
 * at most that much of the newest candle is re-built from the restored price after a crash.
 */
export class SimMarketStore {
  private writing: Promise<void> | null = null;
  private dirty = false;
  /** Per series: open time of the first and of the newest candle already written. */
  private readonly written = new Map<string, { first: number; last: number }>();

  constructor(
    private readonly db: Db,
    private readonly sim: MarketSimulator,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Restores walk and candles; false when nothing usable was stored (a fresh market). */
  async load(): Promise<boolean> {
    const [row] = await this.db.select({ state: simState.state }).from(simState).where(eq(simState.id, 1));
    if (!row || !this.sim.restore(parseState(row.state))) return false;
    const rows = await this.db.select().from(simCandles);
    const bySeries = new Map<string, CandleSeriesSnapshot>();
    for (const r of rows) {
      const key = `${r.exchange}|${r.symbol}|${r.timeframe}`;
      let s = bySeries.get(key);
      if (!s) {
        s = { exchange: r.exchange, symbol: r.symbol, timeframe: r.timeframe as Timeframe, candles: [] };
        bySeries.set(key, s);
      }
      s.candles.push([r.ts, r.open, r.high, r.low, r.close, r.volume]);
    }
    this.sim.restoreCandles([...bySeries.values()]);
    for (const s of this.sim.candleSeries()) {
      const first = s.candles[0]?.[0];
      const last = s.candles[s.candles.length - 1]?.[0];
      if (first !== undefined && last !== undefined) {
        this.written.set(`${s.exchange}|${s.symbol}|${s.timeframe}`, { first, last });
      }
    }
    return true;
  }

  /** After a tick: writes the state now, or right after the write in flight (ticks coalesce). */
  scheduleState(): void {
    if (this.writing) this.dirty = true;
    else void this.writeState();
  }

  /**
   * Writes the walk's current state; resolves once a write that started after this call is done
   * (writes never overlap, and a later one always carries the newer state). The control route awaits
   * it before answering, so a price it set survives a SIGKILL right after.
   */
  flushState(): Promise<void> {
    if (this.writing) return this.writing.then(() => this.flushState());
    return this.writeState();
  }

  private writeState(): Promise<void> {
    const run = (async () => {
      try {
        const state = JSON.stringify(this.sim.snapshot());
        const updatedAt = new Date();
        await this.db
          .insert(simState)
          .values({ id: 1, state, updatedAt })
          .onConflictDoUpdate({ target: simState.id, set: { state, updatedAt } });
      } catch (err) {
        this.onError(err);
      } finally {
        this.writing = null;
        if (this.dirty) {
          this.dirty = false;
          void this.writeState();
        }
      }
    })();
    this.writing = run;
    return run;
  }

  /** Writes the candles that changed since the last write, and forgets those the simulator dropped. */
  async flushCandles(): Promise<void> {
    try {
      const rows: (typeof simCandles.$inferInsert)[] = [];
      const pruned: { exchange: string; symbol: string; timeframe: string; before: number }[] = [];
      for (const s of this.sim.candleSeries()) {
        const key = `${s.exchange}|${s.symbol}|${s.timeframe}`;
        const seen = this.written.get(key);
        const first = s.candles[0]?.[0];
        const last = s.candles[s.candles.length - 1]?.[0];
        if (first === undefined || last === undefined) continue;
        for (const c of s.candles) {
          if (seen && c[0] < seen.last) continue;
          rows.push(candleRow(s.exchange, s.symbol, s.timeframe, c));
        }
        if (seen && first > seen.first) pruned.push({ ...s, before: first });
        this.written.set(key, { first, last });
      }
      for (let i = 0; i < rows.length; i += CANDLE_BATCH) {
        await this.db
          .insert(simCandles)
          .values(rows.slice(i, i + CANDLE_BATCH))
          .onConflictDoUpdate({
            target: [simCandles.exchange, simCandles.symbol, simCandles.timeframe, simCandles.ts],
            set: {
              open: sql`excluded.open`,
              high: sql`excluded.high`,
              low: sql`excluded.low`,
              close: sql`excluded.close`,
              volume: sql`excluded.volume`,
            },
          });
      }
      for (const p of pruned) {
        await this.db
          .delete(simCandles)
          .where(
            and(
              eq(simCandles.exchange, p.exchange),
              eq(simCandles.symbol, p.symbol),
              eq(simCandles.timeframe, p.timeframe),
              lt(simCandles.ts, p.before),
            ),
          );
      }
    } catch (err) {
      this.onError(err);
    }
  }
}

/** The stored walk; a damaged text restores nothing (a fresh market) rather than stopping the start. */
function parseState(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function candleRow(exchange: string, symbol: string, timeframe: string, c: Candle) {
  return {
    exchange,
    symbol,
    timeframe,
    ts: c[0],
    open: c[1],
    high: c[2],
    low: c[3],
    close: c[4],
    volume: c[5],
  };
}
