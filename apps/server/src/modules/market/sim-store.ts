import type { Candle, CandleSeriesSnapshot, MarketSimulator, Timeframe } from '@bytx/venues';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { simCandles, simState } from '../../db/schema/index';

/** Candles upserted per statement. */
const CANDLE_BATCH = 500;

/**
 * Least time between two writes of the walk's state after ticks (ms). The state is ~80 KB of JSON and
 * one row: written every second (the old rule) it was 5 MB a minute of dead row versions and
 * write-ahead log on PGlite, which has no autovacuum (issue 37 point 14, docs/database.md "What the
 * server writes"). Every 30 s it is 120 writes an hour; a SIGKILL loses at most 30 s of the walk, which
 * then continues from the saved state (a held price is written at once, see `flushState`).
 */
export const SIM_STATE_EVERY_MS = 30_000;

export interface SimMarketStoreOptions {
  /** Least time between state writes after ticks (ms), default {@link SIM_STATE_EVERY_MS}. */
  stateEveryMs?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
}

/**
 * Persistence of the simulated market (issue: a restart is invisible). The walk's state is written at
 * most every `stateEveryMs` after ticks and at once when a control price is set (`flushState` is
 * awaited by the control route) or the server closes, so after a SIGKILL the walk continues from its
 * last save and a held price still holds. Candles are written once each, when they close (and the
 * open ones at close), so after a crash the open candles are re-built from the restored price.
 */
export class SimMarketStore {
  private writing: Promise<void> | null = null;
  private dirty = false;
  /** When the last state write started (ms, the store's clock); 0: never. */
  private lastStateAt = 0;
  private readonly stateEveryMs: number;
  private readonly now: () => number;
  /** State writes since this store was made (tests bound it per minute). */
  stateWrites = 0;
  /** Candle rows written since this store was made. */
  candleWrites = 0;
  /** Per series: open time of the first candle and of the newest closed candle already written. */
  private readonly written = new Map<string, { first: number; last: number }>();

  constructor(
    private readonly db: Db,
    private readonly sim: MarketSimulator,
    private readonly onError: (err: unknown) => void = () => undefined,
    opts: SimMarketStoreOptions = {},
  ) {
    this.stateEveryMs = opts.stateEveryMs ?? SIM_STATE_EVERY_MS;
    this.now = opts.now ?? Date.now;
  }

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
      // The newest stored candle may still be open (written at close): it is written again once closed.
      const last = s.candles.length > 1 ? s.candles[s.candles.length - 2]![0] : -Infinity;
      if (first !== undefined) {
        this.written.set(`${s.exchange}|${s.symbol}|${s.timeframe}`, { first, last });
      }
    }
    return true;
  }

  /**
   * After a tick: writes the state when the last write is `stateEveryMs` old (ticks in between are
   * carried by the next write, or by `flushState` at close).
   */
  scheduleState(): void {
    if (this.now() - this.lastStateAt < this.stateEveryMs) return;
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
    this.lastStateAt = this.now();
    this.stateWrites++;
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

  /**
   * Writes the closed candles not written yet (each once: an open candle changes every tick, and
   * re-writing it every flush was an UPDATE per series every 10 s), and forgets those the simulator
   * dropped. `includeOpen` (at close) writes the open candles too, so a clean restart loses nothing.
   */
  async flushCandles(includeOpen = false): Promise<void> {
    try {
      const rows: (typeof simCandles.$inferInsert)[] = [];
      const pruned: { exchange: string; symbol: string; timeframe: string; before: number }[] = [];
      for (const s of this.sim.candleSeries()) {
        const key = `${s.exchange}|${s.symbol}|${s.timeframe}`;
        const seen = this.written.get(key);
        const first = s.candles[0]?.[0];
        const last = s.candles[s.candles.length - 1]?.[0];
        if (first === undefined || last === undefined) continue;
        // The newest candle is the open one: written when the next one starts (or at close).
        const lastClosed = s.candles.length > 1 ? s.candles[s.candles.length - 2]![0] : -Infinity;
        for (const c of s.candles) {
          if (seen && c[0] <= seen.last) continue;
          if (c[0] === last && !includeOpen) continue;
          rows.push(candleRow(s.exchange, s.symbol, s.timeframe, c));
        }
        if (seen && first > seen.first) pruned.push({ ...s, before: first });
        this.written.set(key, { first, last: Math.max(seen?.last ?? -Infinity, lastClosed) });
      }
      this.candleWrites += rows.length;
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
