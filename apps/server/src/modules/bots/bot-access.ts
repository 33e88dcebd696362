import type { AppContext, MarketHub, VenueRegistry } from '../../context';
import { HttpError, notFound } from '../../lib/errors';
import type { BotRow, BotsRepository } from './bots.repository';
import type { ReadCache } from './read-cache';
import { listedPair } from './start-params';

/** What the calls shared by every kind (pnls_actuales) need to know of one kind; each kind registers its own. */
export interface KindFigures {
  /** Whether `figures` needs the pair's current price (a kind holding a position shows unrealized PnL). */
  needsPrice: boolean;
  /** PnL in quote (realized, plus unrealized where the kind holds a position) and time in trade in seconds. */
  figures(row: BotRow, state: unknown, price: number | null, now: number): { pnl: number; ttr: number };
  /** Not a bot the user started but what one left behind (a VNC): not counted by MAX_BOTS_PER_USER. */
  leftover?: boolean;
}

/**
 * What the services of the bots module share (lifecycle, start checks, settings, views): the market
 * hub and the venues of the app, the pair as the exchange lists it, the user's own bot, and the figures
 * each kind registers.
 */
export class BotAccess {
  /** Each kind's figures (pnls_actuales, the start cap, one derivatives bot per market), by `bots.kind`. */
  readonly kinds = new Map<string, KindFigures>();
  /** The read cache of the polled lists (the repository's: its writes invalidate it). */
  readonly reads: ReadCache;

  constructor(
    readonly ctx: AppContext,
    readonly repo: BotsRepository,
  ) {
    this.reads = repo.reads;
  }

  /** The market hub; through the read cache's, so the prices a cached answer read are noted. */
  get market(): MarketHub {
    const m = this.reads.market ?? this.ctx.services.market;
    if (!m) throw new HttpError(503, 'Market data is not available.');
    return m;
  }
  get venues(): VenueRegistry {
    const v = this.ctx.services.venues;
    if (!v) throw new HttpError(503, 'Exchange connections are not available.');
    return v;
  }
  /** The exchange's own symbol for what the user sent (exact, ASCII-trimmed), else the spec's 400. */
  async listed(exchange: string, symbol: string): Promise<string> {
    return listedPair(this.market, exchange, symbol);
  }
  /** A bot of this user (any status), else 404: another user's bot is not revealed. */
  async ownBot(userId: string, botId: string): Promise<BotRow> {
    const row = await this.repo.byId(botId);
    if (!row || row.userId !== userId) throw notFound('Bot not found.');
    return row;
  }
  /** Kinds whose bots are leftovers (a VNC): not counted by MAX_BOTS_PER_USER. */
  leftoverKinds(): string[] {
    return [...this.kinds].filter(([, k]) => k.leftover).map(([kind]) => kind);
  }
}
