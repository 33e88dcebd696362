import { and, eq, isNull, lte, or } from 'drizzle-orm';
import type { Database } from './client';
import { scheduledJobs } from './schema/index';
import { ScheduledJob } from './scheduled-job';

export const MAINTENANCE_JOB = 'db_maintenance';
/** How often the maintenance runs (ms): retention, then on PGlite VACUUM and CHECKPOINT. */
export const MAINTENANCE_EVERY_MS = 10 * 60_000;
/** How often a process looks whether the run is due (ms). */
const CHECK_EVERY_MS = 60_000;
/** The first look after a start (ms): late enough not to slow the start, early enough for short runs. */
const FIRST_CHECK_MS = 30_000;
/** A claimed run not finished by then (its process died) may be claimed again (ms). */
const CLAIM_MS = 10 * 60_000;
/** Rows deleted per statement (a big backlog is deleted in bounded steps, each its own transaction). */
const DELETE_BATCH = 5_000;
const DAY_MS = 86_400_000;

export interface MaintenanceResult {
  /** bot_events rows older than the retention deleted. */
  events: number;
  /** sim_candles rows older than the retention deleted. */
  candles: number;
  /** Tables vacuumed (PGlite only: PostgreSQL has autovacuum). */
  vacuumed: number;
  /** A CHECKPOINT ran (PGlite only). */
  checkpoint: boolean;
}

export interface MaintenanceDeps {
  database: Database;
  retentionDays: number;
  /** Who claims the run (one process per run on a shared PostgreSQL). */
  holder: string;
  log: { error(obj: unknown, msg: string): void; debug(obj: unknown, msg: string): void };
  now?: () => number;
}

/**
 * Keeps the database's size flat (issue 37 point 14, docs/database.md "What the server writes"):
 *
 * - retention: bot event-log rows (`bot_events`) and simulated-market candles (`sim_candles`, minute to
 *   4-hour ones) older than `RETENTION_DAYS` are deleted; trades (`bot_trades`, the histories), orders and everything else are
 *   kept for ever;
 * - on PGlite (no autovacuum, no background checkpointer): every user table is vacuumed, so the space
 *   of updated and deleted rows is reused instead of appended, and a CHECKPOINT lets PostgreSQL recycle
 *   the write-ahead log's segments instead of adding new ones (it grew to 257 MB in 45 minutes).
 *
 * Every MAINTENANCE_EVERY_MS, claimed in `scheduled_jobs` like the dust job, so one process runs it.
 */
export class MaintenanceJob extends ScheduledJob<MaintenanceResult> {
  constructor(private readonly deps: MaintenanceDeps) {
    super({
      everyMs: CHECK_EVERY_MS,
      firstMs: FIRST_CHECK_MS,
      failure: 'database maintenance failed',
      log: deps.log,
      now: () => deps.now?.() ?? Date.now(),
    });
  }

  protected async claimAndRun(): Promise<MaintenanceResult | null> {
    const { db } = this.deps.database;
    const now = new Date(this.now());
    // The first run is due at once: a server restarted every few minutes still gets its maintenance.
    await db.insert(scheduledJobs).values({ name: MAINTENANCE_JOB, nextRunAt: now }).onConflictDoNothing();
    const [due] = await db
      .update(scheduledJobs)
      .set({ claimedBy: this.deps.holder, claimedUntil: new Date(now.getTime() + CLAIM_MS) })
      .where(
        and(
          eq(scheduledJobs.name, MAINTENANCE_JOB),
          lte(scheduledJobs.nextRunAt, now),
          or(isNull(scheduledJobs.claimedUntil), lte(scheduledJobs.claimedUntil, now)),
        ),
      )
      .returning({ nextRunAt: scheduledJobs.nextRunAt });
    if (!due) return null;
    let result: MaintenanceResult | null = null;
    try {
      result = await this.run(now.getTime());
      this.deps.log.debug({ ...result }, 'database maintenance done');
      return result;
    } finally {
      await db
        .update(scheduledJobs)
        .set({
          nextRunAt: new Date(now.getTime() + MAINTENANCE_EVERY_MS),
          lastRunAt: now,
          lastResult: result,
          claimedBy: null,
          claimedUntil: null,
        })
        .where(and(eq(scheduledJobs.name, MAINTENANCE_JOB), eq(scheduledJobs.claimedBy, this.deps.holder)));
    }
  }

  /** One run at `now` (ms), whatever the schedule says. */
  async run(now: number): Promise<MaintenanceResult> {
    const cutoff = now - this.deps.retentionDays * DAY_MS;
    const events = await this.deleteInBatches(
      `DELETE FROM bot_events WHERE id IN (SELECT id FROM bot_events WHERE ts < $1 LIMIT ${DELETE_BATCH})`,
      [new Date(cutoff).toISOString()],
    );
    const candles = await this.deleteInBatches(
      // Daily, weekly and monthly candles are kept: a long chart needs its years, and the simulator keeps
      // at most 1,000 candles a series anyway (sim_candles cannot grow without end).
      `DELETE FROM sim_candles WHERE ctid IN (SELECT ctid FROM sim_candles WHERE ts < $1 AND timeframe NOT IN ('1d', '1w', '1M') LIMIT ${DELETE_BATCH})`,
      [cutoff],
    );
    let vacuumed = 0;
    let checkpoint = false;
    if (this.deps.database.driver === 'pglite') {
      const { sql } = this.deps.database;
      const tables = await sql.query(
        `SELECT quote_ident(schemaname) || '.' || quote_ident(relname) AS name FROM pg_stat_user_tables ORDER BY relname`,
      );
      // One table a statement: the event loop gets a turn between them (PGlite runs on this thread).
      for (const t of tables) {
        await sql.exec(`VACUUM ${String(t.name)}`);
        vacuumed++;
      }
      await sql.exec('CHECKPOINT');
      checkpoint = true;
    }
    return { events, candles, vacuumed, checkpoint };
  }

  private async deleteInBatches(text: string, params: unknown[]): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.deps.database.sql.query(`${text} RETURNING 1 AS x`, params);
      total += rows.length;
      if (rows.length < DELETE_BATCH) return total;
    }
  }
}
