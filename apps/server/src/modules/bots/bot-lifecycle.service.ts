import { DCA_MESSAGES, fillMessage, type BotProblem } from '@bytx/contract';
import type { StopMode } from '@bytx/engine';
import { AuthenticationError, VenueError } from '@bytx/venues';
import type { AppContext } from '../../context';
import { badRequest, HttpError } from '../../lib/errors';
import { venueErrorAnswer } from '../../lib/venue-errors';
import type { BotAccess } from './bot-access';
import type { BotRow, BotsRepository } from './bots.repository';
import type { BotRunner } from './runner';

/** stop_reason of a bot stopped because its exchange connection was removed or replaced. */
export const CONNECTION_CHANGED = 'connection_changed';

/**
 * A bot's life after its kind's checks passed, the same for every kind: launched until its first
 * decisions are carried out (or its start failed), stopped, resumed after a restart, and stopped when
 * its connection or its user's account goes away.
 */
export class BotLifecycle {
  private readonly ctx: AppContext;
  private readonly repo: BotsRepository;

  constructor(
    private readonly access: BotAccess,
    private readonly runner: BotRunner,
  ) {
    this.ctx = access.ctx;
    this.repo = access.repo;
  }

  /**
   * Runs a just-inserted bot here (BOT_RUNNER) until its first decisions are carried out, and turns a
   * start that cannot trade (venue silent, key refused, pair unlisted, entry refused) into a clear
   * error with the bot ended. Answers the bot row as it is now (null without a runner).
   */
  async launch(id: string, startFailed: string = DCA_MESSAGES.startFailed): Promise<BotRow | null> {
    if (this.ctx.config.BOT_RUNNER) {
      let h: Awaited<ReturnType<BotRunner['get']>>;
      try {
        h = await this.runner.get(id);
        await h.idle();
        if (h.pauseDone) await h.pauseDone;
      } catch (err) {
        // Attaching failed (the venue did not answer): the bot ends here, holding nothing.
        await this.failStart(id, err instanceof Error ? err.message : String(err));
        const answer = err instanceof VenueError ? venueErrorAnswer(err) : null;
        throw new HttpError(
          answer?.statusCode ?? 502,
          fillMessage(startFailed, { reason: answer?.message ?? 'the exchange did not answer' }),
        );
      }
      const paused = await this.repo.byId(id);
      if (paused?.problem) {
        // The first order met a refused key or an unlisted pair: a start that cannot trade is no start.
        const reason = paused.problemDetail ?? paused.problem;
        await this.failStart(id, reason);
        throw badRequest(fillMessage(startFailed, { reason }));
      }
      const after = await this.repo.byId(id);
      if (after && after.status !== 'active') {
        const events = await this.repo.events(id, 20);
        const why = events.find((e) => e.level !== 'info') ?? events[0];
        const reason =
          why && typeof why.params === 'object' && why.params && 'message' in why.params
            ? String(why.params.message)
            : (after.stopReason ?? 'the entry order failed');
        throw badRequest(fillMessage(startFailed, { reason }));
      }
      return after ? { ...after, state: h.state as unknown } : null;
    }
    return null;
  }

  /** A start that could not complete: the bot ends with status error, its reason logged, no pair lock held. */
  async failStart(botId: string, reason: string): Promise<void> {
    this.runner.drop(botId);
    await this.repo.write({
      botId,
      status: 'error',
      stopReason: `start_failed: ${reason}`,
      stoppedAt: new Date(),
      events: [{ botId, level: 'error', code: 'start_failed', params: { message: reason } }],
    });
  }

  /**
   * Stops a bot with `mode` and waits until its strategy reports it stopped (≤ 20 s, else 504). A bot
   * whose connection was removed just ends (nothing can be cancelled); a delisted pair cannot be sold.
   */
  async stop(row: BotRow, mode: StopMode): Promise<void> {
    if (!(await this.access.venues.connectionKind(row.userId, row.exchange))) {
      await this.repo.write({
        botId: row.id,
        status: 'stopped',
        stopReason: 'exchange_disconnected',
        stoppedAt: new Date(),
        events: [
          { botId: row.id, level: 'warn', code: 'stopped', params: { reason: 'exchange_disconnected' } },
        ],
      });
      return;
    }
    if (row.problem === 'pair_delisted' && mode === 'close_market') {
      throw badRequest(DCA_MESSAGES.delistedStopKeepsAssets);
    }
    if (!(await this.runner.stopBot(row.id, mode))) {
      throw new HttpError(
        504,
        'The bot is still stopping: orders are being cancelled. Check again in a moment.',
      );
    }
  }

  /**
   * Makes sure this process runs every active bot of the user (after a restart or a lost lease). Each
   * bot on its own: one that cannot run is marked with its problem and listed so; the others resume.
   */
  async resume(userId: string) {
    // Every live key of the user is checked again first (issue 38 point 9): a revoked key, or one that
    // gained withdrawal rights, pauses its bots before they run (modules/bots/key-problems.ts).
    await this.ctx.services.keys?.checkUser(userId);
    if (this.ctx.config.BOT_RUNNER) await this.runner.recheckProblems(userId);
    const rows = await this.repo.listByUser(userId, 'active');
    let resumed = 0;
    const problems: { id: string; exchange: string; symbol: string; problem: BotProblem }[] = [];
    for (const r of rows) {
      if (r.problem && r.problem !== 'cannot_run') {
        problems.push({ id: r.id, exchange: r.exchange, symbol: r.symbol, problem: r.problem });
        continue;
      }
      if (!this.ctx.config.BOT_RUNNER) continue;
      try {
        if (r.problem === 'cannot_run')
          await this.repo.write({ botId: r.id, problem: null, problemDetail: null });
        // Never a bot another live runner process holds: one strategy instance per bot.
        if (await this.runner.adopt(r.id)) resumed++;
      } catch (err) {
        const problem: BotProblem = err instanceof AuthenticationError ? 'auth_failed' : 'cannot_run';
        const detail = err instanceof Error ? err.message : String(err);
        this.ctx.log.warn({ err, botId: r.id }, 'bot could not be resumed');
        this.runner.drop(r.id);
        await this.repo.write({
          botId: r.id,
          problem,
          problemDetail: detail,
          events: [{ botId: r.id, level: 'warn', code: problem, params: { message: detail } }],
        });
        problems.push({ id: r.id, exchange: r.exchange, symbol: r.symbol, problem });
      }
    }
    return { success: true, active: rows.length, resumed, problems };
  }

  /**
   * The user's connection to `exchange` is about to be removed or its venue replaced (the
   * beforeConnectionChange hook): every active bot (and manual order) of the user on that exchange
   * stops with cancel_only while the venue is still open (its orders cancelled there, assets kept),
   * with the reason in its event log (`connection_changed`) and in stop_reason.
   */
  async stopForConnection(userId: string, exchange: string) {
    const ex = exchange.toLowerCase();
    // A bot trading on several exchanges (arbitrage) stops when any of them goes away.
    const follows = (r: BotRow) => {
      if (r.exchange === ex) return true;
      try {
        const extra = this.runner.strategyOf(r.kind)?.extraMarkets?.(r.state as object) ?? [];
        return extra.some((m) => m.exchange === ex);
      } catch {
        return false;
      }
    };
    // Manual orders (the spot and futures screens) too: their entries and exits are cancelled there.
    const rows = (await this.repo.listByUser(userId, 'active', undefined, true)).filter(follows);
    for (const r of rows) {
      await this.repo.event({
        botId: r.id,
        level: 'warn',
        code: 'connection_changed',
        params: { exchange: ex },
      });
      let ok = false;
      try {
        ok = await this.runner.stopBot(r.id, 'cancel_only', 15_000);
      } catch (err) {
        this.ctx.log.warn({ err, botId: r.id }, 'could not stop bot before its connection changed');
      }
      if (ok) {
        await this.repo.updateBot(r.id, { stopReason: CONNECTION_CHANGED });
        continue;
      }
      // Not confirmed in time: the bot ends here anyway, it cannot trade on a venue that is going away.
      this.runner.drop(r.id);
      await this.repo.write({
        botId: r.id,
        status: 'stopped',
        stopReason: CONNECTION_CHANGED,
        stoppedAt: new Date(),
        events: [{ botId: r.id, level: 'warn', code: 'stopped', params: { reason: CONNECTION_CHANGED } }],
      });
    }
  }

  /**
   * Stops every active bot of a user, keeping assets (account deletion). All at once: each bot
   * waits only for its own exchange calls, not for the bots before it.
   */
  async stopAllForUser(userId: string) {
    const rows = await this.repo.listByUser(userId, 'active', undefined, true);
    await Promise.all(
      rows.map(async (r) => {
        try {
          await this.runner.stopBot(r.id, 'cancel_only', 15_000);
        } catch (err) {
          this.ctx.log.warn({ err, botId: r.id }, 'could not stop bot before account deletion');
          await this.repo.updateBot(r.id, {
            status: 'stopped',
            stopReason: 'account_deleted',
            stoppedAt: new Date(),
          });
        }
      }),
    );
  }
}
