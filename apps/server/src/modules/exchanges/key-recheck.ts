import { exchangeDisplayName, exchangeKeyOf, type ExchangeKey } from '@bytx/contract';
import { AuthenticationError, isCcxtVenue } from '@bytx/venues';
import { and, eq, isNull, lte, or } from 'drizzle-orm';
import type { AppHooks } from '../../context';
import type { Database } from '../../db/client';
import { scheduledJobs } from '../../db/schema/index';
import type { ConnectionRow, ConnectionsRepository } from './connections.repository';
import type { DbVenueRegistry } from './venue-registry';

/**
 * Live keys checked again (issue 38 point 9, docs/exchanges.md "Key re-check"). A key accepted on connect
 * can later be revoked on the exchange, or be given withdrawal rights there; neither is seen until an order
 * fails. So once a day, and whenever bots resume (the user's resume, a process start), each live key makes
 * a signed call (fetchBalance: a revoked key fails with AuthenticationError) and, where the exchange shows
 * a key's rights, the withdrawal check of connect (packages/venues/src/withdraw-permission.ts).
 *
 * What it found is stored on the connection (`key_problem`, `key_checked_at`: the settings page shows it)
 * and handed to the `afterKeyCheck` hooks: the bot module pauses the bots on a revoked key (`auth_failed`)
 * or one that can withdraw (`key_can_withdraw`), and resumes the latter when a later check finds it good.
 * An exchange that does not answer (network, 5xx, rate limit) changes nothing: the next check decides.
 */

export type KeyProblem = 'revoked' | 'can_withdraw';
/** `unreachable`: the exchange did not answer (or the keys cannot be opened); nothing was changed. */
export type KeyCheckOutcome = 'ok' | KeyProblem | 'unreachable';

export const KEY_RECHECK_JOB = 'key_recheck';
/** How often every live key is checked (ms): once a day. */
export const KEY_RECHECK_EVERY_MS = 86_400_000;
/** How often a process looks whether the daily run is due (ms). */
const CHECK_EVERY_MS = 5 * 60_000;
/** A claimed run not finished by then (its process died) may be claimed again (ms). */
const CLAIM_MS = 30 * 60_000;
/** A check of the same connection asked again within this time answers the last outcome (ms): a start
 * resuming 50 bots of one key, or a user pressing resume twice, makes one signed call, not 50. */
const REUSE_MS = 60_000;

/** The reason a paused bot's event log carries (English; the bot screens show BOT_PROBLEMS in en/es). */
export const keyProblemDetail = (exchange: ExchangeKey, problem: KeyProblem): string =>
  problem === 'revoked'
    ? `${exchangeDisplayName(exchange)} refused the API key when it was checked again (revoked or expired).`
    : `The ${exchangeDisplayName(exchange)} API key can now withdraw funds. Create a trade-only key and connect it again.`;

export interface KeyRecheckDeps {
  database: Database;
  repo: ConnectionsRepository;
  registry: DbVenueRegistry;
  hooks: AppHooks;
  log: {
    info(obj: unknown, msg: string): void;
    warn(obj: unknown, msg: string): void;
    error(obj: unknown, msg: string): void;
  };
  /** Who claims the daily run (one process per run on a shared PostgreSQL). */
  holder: string;
  now?: () => number;
}

export interface KeyRecheckResult {
  checked: number;
  revoked: number;
  canWithdraw: number;
  unreachable: number;
}

export class KeyRechecker {
  private readonly inFlight = new Map<string, Promise<KeyCheckOutcome>>();
  private readonly recent = new Map<string, { at: number; outcome: KeyCheckOutcome }>();
  private timer: NodeJS.Timeout | null = null;
  private first: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private closed = false;
  /** Tests set 0 to check the same key twice in a row. */
  reuseMs = REUSE_MS;

  constructor(private readonly deps: KeyRecheckDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Checks one connection's key now (shared with a check of it already under way). */
  async checkConnection(userId: string, exchange: string): Promise<KeyCheckOutcome | null> {
    const key = exchangeKeyOf(exchange);
    if (!key) return null;
    const row = await this.deps.repo.get(userId, key);
    if (!row || row.mode !== 'live') return null;
    return this.check(row);
  }

  /** Every live key of the user (on resume). */
  async checkUser(userId: string): Promise<void> {
    for (const row of await this.deps.repo.list(userId)) {
      if (row.mode === 'live') await this.check(row);
    }
  }

  /** Every live key of every user (the daily run, and once at start: bots resume then). */
  async checkAll(): Promise<KeyRecheckResult> {
    const result: KeyRecheckResult = { checked: 0, revoked: 0, canWithdraw: 0, unreachable: 0 };
    for (const row of await this.deps.repo.listLive()) {
      if (this.closed) break;
      const outcome = await this.check(row);
      result.checked++;
      if (outcome === 'revoked') result.revoked++;
      else if (outcome === 'can_withdraw') result.canWithdraw++;
      else if (outcome === 'unreachable') result.unreachable++;
    }
    return result;
  }

  private check(row: ConnectionRow): Promise<KeyCheckOutcome> {
    const id = `${row.id}|${row.apiKeyEnc ?? ''}`;
    const last = this.recent.get(id);
    if (last && this.now() - last.at < this.reuseMs) return Promise.resolve(last.outcome);
    const running = this.inFlight.get(id);
    if (running) return running;
    const p = this.run(row).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, p);
    return p;
  }

  private async run(row: ConnectionRow): Promise<KeyCheckOutcome> {
    const exchange = exchangeKeyOf(row.exchange);
    if (!exchange) return 'unreachable';
    const outcome = await this.ask(row.userId, exchange);
    const id = `${row.id}|${row.apiKeyEnc ?? ''}`;
    this.recent.set(id, { at: this.now(), outcome });
    if (outcome === 'unreachable') return outcome;
    const problem = outcome === 'ok' ? null : outcome;
    // Not marked: the key was replaced (or the connection removed) while it was being checked.
    if (!(await this.deps.repo.markKeyCheck(row, problem, new Date(this.now())))) return outcome;
    if (problem) this.deps.log.warn({ userId: row.userId, exchange, problem }, 'live key re-check failed');
    for (const hook of this.deps.hooks.afterKeyCheck ?? []) {
      try {
        await hook(row.userId, exchange, problem);
      } catch (err) {
        this.deps.log.error({ err, userId: row.userId, exchange }, 'key re-check hook failed');
      }
    }
    return outcome;
  }

  /** The signed call and the withdrawal check, on the connection's own venue (its keys, its ccxt). */
  private async ask(userId: string, exchange: ExchangeKey): Promise<KeyCheckOutcome> {
    try {
      const venue = await this.deps.registry.forUser(userId, exchange);
      await venue.fetchBalance();
      if (!isCcxtVenue(venue)) return 'ok';
      return (await venue.checkWithdrawPermission()) === true ? 'can_withdraw' : 'ok';
    } catch (err) {
      if (err instanceof AuthenticationError) return 'revoked';
      // Only the class: a ccxt message can carry a signed URL.
      this.deps.log.warn(
        { userId, exchange, error: err instanceof Error ? err.name : typeof err },
        'live key re-check: no answer',
      );
      return 'unreachable';
    }
  }

  // --- the daily run --------------------------------------------------------------------------------

  /** Checks every key once soon after the start (bots resume then), then daily, claimed in `scheduled_jobs`. */
  start(firstDelayMs = 5_000): void {
    this.timer = setInterval(() => void this.tick(), CHECK_EVERY_MS);
    this.timer.unref();
    this.first = setTimeout(() => {
      void this.guard(this.checkAll()).then(() => this.tick());
    }, firstDelayMs);
    this.first.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.first) clearTimeout(this.first);
    this.timer = null;
    this.first = null;
    await this.running?.catch(() => undefined);
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async guard<T>(p: Promise<T>): Promise<T | null> {
    try {
      return await p;
    } catch (err) {
      this.deps.log.error({ err }, 'live key re-check failed');
      return null;
    }
  }

  /** Runs the daily check if it is due and this process gets the claim; null when not run. */
  async tick(): Promise<KeyRecheckResult | null> {
    if (this.running || this.closed) return null;
    const p = this.guard(this.claimAndRun());
    this.running = p;
    try {
      return await p;
    } finally {
      this.running = null;
    }
  }

  private async claimAndRun(): Promise<KeyRecheckResult | null> {
    const { db } = this.deps.database;
    const now = new Date(this.now());
    // First run a day after the first start: the start itself already checked every key.
    await db
      .insert(scheduledJobs)
      .values({ name: KEY_RECHECK_JOB, nextRunAt: new Date(now.getTime() + KEY_RECHECK_EVERY_MS) })
      .onConflictDoNothing();
    const [due] = await db
      .update(scheduledJobs)
      .set({ claimedBy: this.deps.holder, claimedUntil: new Date(now.getTime() + CLAIM_MS) })
      .where(
        and(
          eq(scheduledJobs.name, KEY_RECHECK_JOB),
          lte(scheduledJobs.nextRunAt, now),
          or(isNull(scheduledJobs.claimedUntil), lte(scheduledJobs.claimedUntil, now)),
        ),
      )
      .returning({ nextRunAt: scheduledJobs.nextRunAt });
    if (!due) return null;
    let result: KeyRecheckResult | null = null;
    try {
      result = await this.checkAll();
      this.deps.log.info({ ...result }, 'live keys re-checked');
      return result;
    } finally {
      await db
        .update(scheduledJobs)
        .set({
          nextRunAt: new Date(now.getTime() + KEY_RECHECK_EVERY_MS),
          lastRunAt: now,
          lastResult: result,
          claimedBy: null,
          claimedUntil: null,
        })
        .where(and(eq(scheduledJobs.name, KEY_RECHECK_JOB), eq(scheduledJobs.claimedBy, this.deps.holder)));
    }
  }
}
