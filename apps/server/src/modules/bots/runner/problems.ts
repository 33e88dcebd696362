import { AuthenticationError, venueClientIdOf, type Venue } from '@bytx/venues';
import type { BotRow } from '../bots.rows';
import { venueSymbol } from '../derivatives';
import type { BotHandle } from './bot-handle';
import { hasActions, type RunnerDeps } from './types';

/** key_can_withdraw: a live key's re-check found withdrawal rights (modules/bots/key-problems.ts). */
/** cannot_run: an exchange error nobody maps, still there after the runner's bounded tries. */
export type PausingProblem = 'auth_failed' | 'pair_delisted' | 'key_can_withdraw' | 'cannot_run';

/** What the problem watch needs from the runner of this process. */
export interface ProblemHost {
  readonly deps: RunnerDeps;
  isClosed(): boolean;
  handle(botId: string): BotHandle | undefined;
  handles(): Iterable<BotHandle>;
  /** Waits for the bots being attached now; those that went on to run here. */
  attached(): Promise<BotHandle[]>;
  /** The bot's running handle, once its attach under way (if any) has ended. */
  whenAttached(botId: string): Promise<BotHandle | undefined>;
  drop(botId: string): void;
  /** Runs the bot here again (reconciled first). */
  get(botId: string): Promise<unknown>;
}

/**
 * Bots that cannot trade now (issue: one broken bot never breaks anything else): a delisted pair or a
 * refused key pauses the bot — no ticks, no orders, status still active with `problem` and the reason
 * in its event log, its lots kept — and it resumes by itself when the problem is gone.
 */
export class ProblemWatch {
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | undefined;

  constructor(private readonly host: ProblemHost) {}

  private get deps() {
    return this.host.deps;
  }

  /** Listens to listing changes and tries the paused bots again every `problemCheckMs`. */
  start(): void {
    this.unlisten = this.deps.market().onListing?.((e) => {
      void this.onListing(e).catch((err: unknown) => this.deps.log.error({ err }, 'listing change failed'));
    });
    this.timer = setInterval(
      () =>
        void this.recheck().catch((err: unknown) => this.deps.log.error({ err }, 'problem recheck failed')),
      this.deps.problemCheckMs ?? 30_000,
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unlisten?.();
  }

  /**
   * Pauses a bot: it stops here, stays active with `problem`, and keeps its lots. A delisted pair's
   * open orders are cancelled where the venue still can; with a refused key nothing can be sent.
   */
  async pause(botId: string, problem: PausingProblem, detail: string): Promise<void> {
    // A bot being attached (its reconcile can meet the problem) is paused once attached, else it
    // would start running after its problem was written.
    const h = this.host.handle(botId) ?? (await this.host.whenAttached(botId));
    if (h) {
      h.pausing = true;
      await h.idle();
      this.host.drop(botId);
    }
    const row = h?.row ?? (await this.deps.store.byId(botId));
    if (!row || row.status !== 'active') return;
    if (problem === 'pair_delisted') await this.cancelOpenOrders(row, h?.venue ?? null);
    await this.deps.store.write({
      botId,
      problem,
      problemDetail: detail,
      events: [{ botId, level: 'warn', code: problem, params: { message: detail } }],
    });
    const store = this.deps.store;
    if (hasActions(store)) await store.releaseLease(botId, this.deps.runnerId).catch(() => undefined);
  }

  /** Cancels what is still open of a paused bot's orders (best effort; the journal marks the intent). */
  private async cancelOpenOrders(row: BotRow, current: Venue | null): Promise<void> {
    const venues = new Map<string, Venue | null>();
    if (current && !current.closed) venues.set(row.exchange, current);
    for (const o of await this.deps.store.liveOrders(row.id)) {
      const exchange = o.exchange ?? row.exchange;
      if (!venues.has(exchange)) {
        venues.set(
          exchange,
          await this.deps
            .venues()
            .forUser(row.userId, exchange)
            .catch(() => null),
        );
      }
      const venue = venues.get(exchange);
      if (!venue) continue;
      try {
        // Sent in the exchange's form of the journal's id (packages/venues/src/exchanges/client-ids.ts).
        const found = await venue.fetchOrderByClientId(venueClientIdOf(exchange, o.clientOrderId), o.symbol);
        if (found?.status === 'open') await venue.cancelOrder(found.id, o.symbol);
        await this.deps.store.updateOrder(o.clientOrderId, { cancelRequested: true }, row.id);
      } catch (err) {
        this.deps.log.warn({ err, botId: row.id }, 'could not cancel an order of a paused bot');
      }
    }
  }

  /** The problem is gone: the bot is reconciled with its venue and trades again. */
  async unpause(botId: string, was: string): Promise<void> {
    await this.deps.store.write({
      botId,
      problem: null,
      problemDetail: null,
      events: [{ botId, level: 'info', code: 'problem_cleared', params: { problem: was } }],
    });
    if (this.deps.autoRun && !this.host.isClosed()) await this.host.get(botId);
  }

  /** Listing changes of the market (the simulator's control; live delistings show as order refusals). */
  private async onListing(e: { exchange: string; symbol: string; listed: boolean }): Promise<void> {
    if (!e.listed) {
      const onPair = (h: BotHandle) =>
        h.row.exchange === e.exchange && (h.row.symbol === e.symbol || h.marketSymbol === e.symbol);
      const hit = new Set([...this.host.handles()].filter(onPair));
      // A bot still attaching (a start, a resume, the unpause of a relisting) has already joined the
      // market, and may have placed its orders, but is not running yet: paused as soon as it is.
      for (const h of await this.host.attached()) if (onPair(h)) hit.add(h);
      // Through the handle, so that whoever waits on the bot (a start waiting for its first orders)
      // waits for the pause as well.
      await Promise.all(
        [...hit].map((h) => {
          h.pauseFor('pair_delisted', `${e.symbol} was delisted by ${e.exchange}`);
          return h.pauseDone ?? Promise.resolve();
        }),
      );
      return;
    }
    const rows = (await this.deps.store.withProblem?.('pair_delisted', e)) ?? [];
    for (const r of rows) await this.unpause(r.id, 'pair_delisted');
  }

  /**
   * Tries the problems that may have gone away: a refused key is tried again (an order query on the
   * bot's pair), a delisted pair is looked up again. Runs every `problemCheckMs` and on resume.
   */
  async recheck(userId?: string): Promise<void> {
    const store = this.deps.store;
    if (!store.withProblem || this.host.isClosed()) return;
    for (const r of await store.withProblem('auth_failed')) {
      if (userId && r.userId !== userId) continue;
      try {
        const venue = await this.deps.venues().forUser(r.userId, r.exchange);
        await venue.fetchOpenOrders(r.symbol);
      } catch (err) {
        if (!(err instanceof AuthenticationError)) {
          this.deps.log.warn({ err, botId: r.id }, 'key check of a paused bot failed');
        }
        continue;
      }
      await this.unpause(r.id, 'auth_failed');
    }
    for (const r of await store.withProblem('pair_delisted')) {
      if (userId && r.userId !== userId) continue;
      const market = this.deps.market();
      market.invalidateMarkets?.(r.exchange);
      const symbol = venueSymbol(r.symbol, r.marketType ?? 'Spot');
      if (await market.listedSymbol(r.exchange, symbol).catch(() => null)) {
        await this.unpause(r.id, 'pair_delisted');
      }
    }
  }
}
