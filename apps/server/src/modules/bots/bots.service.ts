import {
  asciiTrim,
  DCA_MESSAGES,
  DERIVATIVES_MESSAGES,
  type MarketType,
  LIMITS,
  type ClosedBotView,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  type BotEventView,
  type BotProblem,
} from '@bytx/contract';
import type { StopMode } from '@bytx/engine';
import { AuthenticationError, VenueError } from '@bytx/venues';
import type { AppContext, MarketHub, VenueRegistry } from '../../context';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors';
import { venueErrorAnswer } from '../../lib/venue-errors';
import type { BotRow, BotsRepository } from './bots.repository';
import { assertLiveSupports } from './capability-check';
import { derivativesOf, isDerivatives, settleOf, venueSymbol, type DerivativesMarket } from './derivatives';
import type { ReadCache } from './read-cache';
import type { BotRunner } from './runner';
import {
  listedPair,
  minCostOf,
  parseDcaStart,
  priceOf,
  type DcaStartFields,
  type DcaStartParams,
  type StartParamDeps,
} from './start-params';

/** stop_reason of a bot stopped because its exchange connection was removed or replaced. */
export const CONNECTION_CHANGED = 'connection_changed';

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;

export { minCostOf };

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
 * What every bot kind shares: the pair checks, a bot's event log, leverage and market type, the
 * prices and PnL of all active bots, resuming them, and stopping them when a connection or the account
 * goes away. Kind services (grid-dca/, classic-dca/) build on it.
 */
export class BotsService {
  readonly kinds = new Map<string, KindFigures>();
  /** The read cache of the polled lists (the repository's: its writes invalidate it). */
  readonly reads: ReadCache;

  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly runner: BotRunner,
  ) {
    this.reads = repo.reads;
  }

  /**
   * Stops a bot with `mode` and waits until its strategy reports it stopped (≤ 20 s, else 504). A bot
   * whose connection was removed just ends (nothing can be cancelled); a delisted pair cannot be sold.
   */
  async stop(row: BotRow, mode: StopMode): Promise<void> {
    if (!(await this.venues.connectionKind(row.userId, row.exchange))) {
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
   * What the start-form parsers need (start-params.ts) for this user: the connection checked where the
   * spec checks it, the saved market type, the derivatives market with the user's leverage.
   */
  paramDeps(userId: string): StartParamDeps {
    return {
      market: this.market,
      connection: (exchange) => this.venues.connectionKind(userId, exchange),
      savedApartado: async () => (await this.repo.settings(userId)).apartado,
      derivativesMarket: (exchange, pair, type, leverage) =>
        this.derivativesMarket(userId, exchange, pair, type, leverage),
    };
  }

  /**
   * The start checks every kind shares, in the spec's order with its messages (part 2 §5): the form's
   * parameters (parseDcaStart: TP and separation, exchange selected and connected, pair listed, amount,
   * # OS, market type, the minimum cost at the current price), then the account's (checkAccount).
   */
  async checkStart(userId: string, body: DcaStartFields, kind: string, alreadyActive: string) {
    const parsed = await parseDcaStart(body, this.paramDeps(userId));
    await this.checkAccount(userId, parsed, kind, alreadyActive);
    return parsed;
  }

  /**
   * The account's start checks after the form's: one active bot of `kind` per pair, one derivatives bot
   * per market, MAX_BOTS_PER_USER, the margin; then the leverage is set on the exchange.
   */
  async checkAccount(userId: string, p: DcaStartParams, kind: string, alreadyActive: string): Promise<void> {
    const { exchange, symbol, apartado } = p;
    if (await this.repo.activeFor(userId, exchange, symbol, kind)) {
      throw conflict(fillMessage(alreadyActive, { exchange, symbol }));
    }
    await this.checkOneDerivativesBot(userId, exchange, symbol, apartado);
    const max = this.ctx.config.MAX_BOTS_PER_USER;
    if ((await this.repo.countActive(userId, this.leftoverKinds())) >= max) {
      throw conflict(fillMessage(DCA_MESSAGES.tooManyBots, { max }));
    }
    await this.checkMargin(userId, exchange, apartado, p.market, p.leverage, p.amount, p.price);
    await this.applyLeverage(userId, exchange, apartado, p.marketSymbol, p.leverage);
  }

  /** The current price of the traded market (its own ticker, else the pair's: paper marks are the spot price). */
  async priceOf(exchange: string, marketSymbol: string, pair: string): Promise<number> {
    return priceOf(this.market, exchange, marketSymbol, pair);
  }

  /**
   * The derivatives market a bot of `type` trades for the pair, checked: listed on the exchange, the
   * leverage (the one sent, else the stored one, else 1) within its maximum, and the account able to
   * trade it — the leverage is set on the exchange now, so a venue without derivatives (or a live
   * exchange whose API lacks them) is refused with what it lacks before any bot exists.
   */
  async derivativesMarket(
    userId: string,
    exchange: string,
    pair: string,
    type: MarketType,
    leverageSent: number | undefined,
  ): Promise<{ market: DerivativesMarket; marketSymbol: string; leverage: number }> {
    // A live exchange that cannot trade this market type is named first (issue 38 point 8).
    await assertLiveSupports(this.ctx.services.venues, userId, exchange, type);
    // The venue trades inverse swaps (docs/venues.md), but a bot's lots are base amounts and an inverse
    // position is counted in 1-USD contracts: converting at each order's price would leave dust on every
    // reduce-only close, so bots refuse Inverse until the strategies size in contracts.
    if (type === 'Inverse') {
      throw badRequest(DERIVATIVES_MESSAGES.inverseBotsNotYet, { field: 'apartado' });
    }
    const marketSymbol = venueSymbol(pair, type);
    const m: DerivativesMarket | null = await this.market.market(exchange, marketSymbol).catch(() => null);
    const noMarket = () =>
      badRequest(
        fillMessage(DERIVATIVES_MESSAGES.noMarket, { exchange: exchangeDisplayName(exchange), type, pair }),
        { field: 'apartado' },
      );
    if (!m || !m.active) throw noMarket();
    if (type === 'Margin' && m.margin !== true) throw noMarket();
    const leverage = leverageSent ?? (await this.repo.settings(userId, exchange, pair)).leverage ?? 1;
    const max = Math.min(m.maxLeverage ?? LIMITS.maxLeverage, LIMITS.maxLeverage);
    if (leverage > max) {
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.leverageAboveMarket, {
          leverage,
          symbol: marketSymbol,
          exchange,
          max,
        }),
        { field: 'leverage' },
      );
    }
    return { market: m, marketSymbol, leverage };
  }

  /**
   * A derivatives bot's first order needs `amount / leverage` of margin in the market's settle currency
   * (the base coin on an inverse swap): refused with the numbers when the wallet lacks it. When the
   * balance cannot be read the start proceeds (the venue refuses what it cannot fill).
   */
  async checkMargin(
    userId: string,
    exchange: string,
    type: MarketType,
    market: DerivativesMarket,
    leverage: number,
    amount: number,
    price: number,
  ): Promise<void> {
    if (!isDerivatives(type)) return;
    const quote = market.quote;
    const currency = settleOf(market, type);
    const margin = amount / leverage;
    const need = currency === quote || currency === 'USD' ? margin : margin / price;
    const swap = type === 'Perpetual' || type === 'Inverse';
    const venue = await this.venues.forUser(userId, exchange).catch(() => null);
    const balances = venue
      ? await derivativesOf(venue)
          .fetchBalance(swap ? { type: 'swap' } : undefined)
          .catch(() => null)
      : null;
    if (!balances) return;
    const free = balances[currency]?.free ?? 0;
    if (free + 1e-12 < need) {
      const d = currency === quote ? 2 : 8;
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.insufficientMargin, {
          need: Math.ceil(need * 10 ** d) / 10 ** d,
          currency,
          amount,
          quote,
          leverage,
          wallet: swap ? 'derivatives' : 'spot (margin)',
          free: Math.floor(free * 10 ** d) / 10 ** d,
        }),
        { field: 'amount' },
      );
    }
  }

  /**
   * Sets a derivatives bot's leverage on the exchange before the bot exists: a venue without
   * derivatives (or a live exchange whose API lacks them) is refused with what it lacks.
   */
  async applyLeverage(
    userId: string,
    exchange: string,
    type: MarketType,
    marketSymbol: string,
    leverage: number,
  ): Promise<void> {
    if (!isDerivatives(type)) return;
    const venue = derivativesOf(await this.venues.forUser(userId, exchange));
    const unsupported = (reason: string) =>
      badRequest(
        fillMessage(DERIVATIVES_MESSAGES.unsupported, {
          type,
          exchange: exchangeDisplayName(exchange),
          reason,
        }),
        { field: 'apartado' },
      );
    if (!venue.setLeverage) throw unsupported(`${exchange} does not support setLeverage through its API`);
    try {
      await venue.setLeverage(leverage, marketSymbol);
    } catch (err) {
      if (err instanceof VenueError && err.action === 'retry') throw err;
      throw unsupported(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * The exchange keeps one position per market: a second active derivatives bot of the account on the
   * same exchange symbol (whatever its kind) is refused. The partial unique index
   * bots_one_derivatives_per_market keeps two starts at once from both passing.
   */
  async checkOneDerivativesBot(userId: string, exchange: string, pair: string, type: MarketType) {
    if (!isDerivatives(type)) return;
    const target = venueSymbol(pair, type);
    const rows = await this.repo.listByUser(userId, 'active');
    const other = rows.find(
      (r) =>
        r.exchange === exchange &&
        isDerivatives(r.marketType) &&
        venueSymbol(r.symbol, r.marketType) === target &&
        !this.kinds.get(r.kind)?.leftover,
    );
    if (other) throw conflict(this.oneBotMessage(exchange, target, type));
  }

  oneBotMessage(exchange: string, symbol: string, type: string): string {
    return fillMessage(DERIVATIVES_MESSAGES.oneBotPerMarket, {
      exchange: exchangeDisplayName(exchange),
      symbol,
      type,
    });
  }

  /** A unique violation on insert: the derivatives index's own message, else `fallback` (same kind and pair). */
  uniqueViolation(
    err: unknown,
    exchange: string,
    symbol: string,
    type: string,
    fallback: string,
  ): Error | null {
    const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
    if (String(e.cause?.code ?? e.code) !== '23505') return null;
    const constraint = e.cause?.constraint ?? e.constraint ?? '';
    const text = `${constraint} ${String((e.cause as Error | undefined)?.message ?? (err as Error).message)}`;
    if (text.includes('bots_one_derivatives_per_market')) {
      return conflict(this.oneBotMessage(exchange, venueSymbol(symbol, type), type));
    }
    return conflict(fillMessage(fallback, { exchange, symbol }));
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

  /** Closed bots of a kind (the bot history modal: spec part 2 §3 "Bot history entry"). */
  async closed(userId: string, kind: string): Promise<ClosedBotView[]> {
    const rows = await this.repo.listByUser(userId, 'closed', kind);
    return rows.map((r) => {
      const cfg = r.config as { amount?: number; tp?: number; os?: number; r?: boolean; r_os?: boolean };
      return {
        id: r.id,
        exchange: r.exchange,
        symbol: r.symbol,
        amount: cfg.amount ?? 0,
        tp: cfg.tp ?? 0,
        os: cfg.os ?? 0,
        r: cfg.r ?? false,
        r_os: cfg.r_os ?? false,
        datetime_inicio: r.startedAt.toISOString(),
        datetime_cierre: r.stoppedAt?.toISOString() ?? null,
        pnl: Number(r.pnl),
      };
    });
  }

  /** The cap a started bot's insert must respect (MAX_BOTS_PER_USER; a leftover kind is not counted). */
  startCap(): { max: number; except: string[]; full: () => Error } {
    const max = this.ctx.config.MAX_BOTS_PER_USER;
    return {
      max,
      except: this.leftoverKinds(),
      full: () => conflict(fillMessage(DCA_MESSAGES.tooManyBots, { max })),
    };
  }

  private leftoverKinds(): string[] {
    return [...this.kinds].filter(([, k]) => k.leftover).map(([kind]) => kind);
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
  async minCost(exchange: string, symbol: string) {
    const ex = exchange.toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = await this.listed(ex, symbol);
    const market = await this.market.market(ex, sym).catch(() => null);
    if (!market)
      throw badRequest(
        fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
      );
    const t = await this.market.ticker(ex, sym);
    const price = t.last;
    const minCost = Math.max(market.minCost, market.minAmount * price);
    return {
      success: true,
      min_cost: round(minCost, 8),
      min_amount: round(price > 0 ? Math.max(market.minAmount, minCost / price) : market.minAmount, 10),
      price,
    };
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
  async events(userId: string, botId: string, limit: number): Promise<BotEventView[]> {
    await this.ownBot(userId, botId);
    const rows = await this.repo.events(botId, limit);
    return rows.map((r) => ({
      id: r.id,
      ts: r.ts.toISOString(),
      level: r.level,
      code: r.code,
      params: (r.params ?? {}) as Record<string, unknown>,
    }));
  }
  /**
   * Stores the leverage of the user's pair on an exchange (spec part 2 §7 set_leverage): an integer from
   * 1 to 200, at most the maximum of the pair's derivatives market where the exchange has one. A bot
   * started later uses it (sent to the exchange before its first order); running bots keep theirs.
   */
  async setLeverage(
    userId: string,
    exchange: string | undefined,
    symbol: string | undefined,
    leverage: number,
  ) {
    if (!exchange || !exchange.trim()) throw badRequest(DERIVATIVES_MESSAGES.leverageNoExchange);
    const ex = exchange.trim().toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = symbol && asciiTrim(symbol) ? await this.listed(ex, symbol) : '';
    const max = sym ? await this.maxLeverage(ex, sym) : null;
    if (max !== null && leverage > max) {
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.leverageAboveMarket, {
          leverage,
          symbol: sym,
          exchange: exchangeDisplayName(ex),
          max,
        }),
        { field: 'leverage' },
      );
    }
    await this.repo.saveSetting(userId, { exchange: ex, symbol: sym }, { leverage });
    return {
      success: true as const,
      leverage,
      max_leverage: max,
      message: fillMessage(DERIVATIVES_MESSAGES.leverageConfigured, { leverage }),
    };
  }

  /** The stored leverage of a pair (else of the exchange, else 1) and the market's maximum. */
  async leverage(userId: string, exchange: string, symbol: string | undefined) {
    const ex = exchange.trim().toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = symbol && asciiTrim(symbol) ? await this.listed(ex, symbol) : '';
    const own = sym ? (await this.repo.settings(userId, ex, sym)).leverage : null;
    const leverage = own ?? (await this.repo.settings(userId, ex, '')).leverage ?? 1;
    return {
      success: true as const,
      exchange: ex,
      symbol: sym,
      leverage,
      max_leverage: sym ? await this.maxLeverage(ex, sym) : null,
    };
  }

  /** The highest leverage the pair's swap markets allow on the exchange (≤ 200), null without one. */
  private async maxLeverage(exchange: string, pair: string): Promise<number | null> {
    let best: number | null = null;
    for (const type of ['Perpetual', 'Inverse'] as const) {
      const m: DerivativesMarket | null = await this.market
        .market(exchange, venueSymbol(pair, type))
        .catch(() => null);
      if (m?.active && m.maxLeverage) best = Math.max(best ?? 0, m.maxLeverage);
    }
    return best === null ? null : Math.min(best, LIMITS.maxLeverage);
  }

  async setApartado(userId: string, apartado: string) {
    await this.repo.saveSetting(userId, {}, { apartado });
    return { success: true, apartado };
  }
  async apartado(userId: string) {
    return (await this.repo.settings(userId)).apartado ?? 'Spot';
  }
  async prices(userId: string) {
    const rows = await this.repo.listByUser(userId, 'active');
    const pairs = [...new Map(rows.map((r) => [`${r.exchange}|${r.symbol}`, r])).values()];
    const out: { exchange: string; symbol: string; price: number }[] = [];
    for (const r of pairs) {
      const t = await this.market.ticker(r.exchange, r.symbol).catch(() => null);
      if (t) out.push({ exchange: r.exchange, symbol: r.symbol, price: t.last });
    }
    return out;
  }
  async pnls(userId: string, bots?: { symbol: string; exchange: string }[]) {
    // Kept until the next write to the user's bots; the figures below follow prices and the clock.
    let rows = await this.reads.memo(userId, 'active rows', () => this.repo.listByUser(userId, 'active'));
    if (bots) {
      const wanted = new Set(bots.map((b) => `${b.exchange.toLowerCase()}|${asciiTrim(b.symbol)}`));
      rows = rows.filter((r) => wanted.has(`${r.exchange}|${r.symbol}`));
    }
    const now = Date.now();
    const pnls = await Promise.all(
      rows.map(async (r) => {
        const state: unknown = this.runner.handle(r.id)?.state ?? r.state;
        const kind = this.kinds.get(r.kind);
        const price = kind?.needsPrice
          ? ((await this.market.ticker(r.exchange, r.symbol).catch(() => null))?.last ?? null)
          : null;
        const f = kind?.figures(r, state, price, now) ?? {
          pnl: Number(r.pnl) || 0,
          ttr: Math.round((now - r.startedAt.getTime()) / 1000),
        };
        return { symbol: r.symbol, exchange: r.exchange, kind: r.kind, pnl: f.pnl, ttr: f.ttr };
      }),
    );
    const total = round(
      pnls.reduce((s, p) => s + p.pnl, 0),
      8,
    );
    return { success: true, pnls, total_pnl: total };
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
}
