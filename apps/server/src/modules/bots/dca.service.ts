import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  BOT_PROBLEMS,
  DCA_MESSAGES,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  MIN_TP_SEP_PCT,
  type BotEventView,
  type BotProblem,
  type ClosedBotView,
  type DcaBotView,
  type DcaTradeView,
  type PendingOrderView,
  type StartBotDcaBody,
} from '@bytx/contract';
import { AuthenticationError, VenueError } from '@bytx/venues';
import { createDcaBot, DcaConfigError, type DcaConfig, type DcaState, type StopMode } from '@bytx/engine';
import type { AppContext, MarketHub, VenueRegistry } from '../../context';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors';
import { venueErrorAnswer } from '../../lib/venue-errors';
import { dcaMarketRules } from './market-rules';
import type { BotRow, BotsRepository } from './bots.repository';
import { strategyIdOf, type BotRunner } from './runner';

export interface DcaBotConfigJson {
  amount: number;
  tp: number;
  sep: number;
  os: number;
  apartado: string;
  leverage: number;
  direction: 'LONG' | 'SHORT';
}

/** stop_reason of a bot stopped because its exchange connection was removed or replaced. */
export const CONNECTION_CHANGED = 'connection_changed';

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;

/** Parses a form number: numbers as they are, strings with decimal commas turned into dots. */
export function parseLooseNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim().replace(/,/g, '.');
  if (s === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** SL / TP+: empty clears, else a price > 0 and ≤ LIMITS.maxPrice. */
function parseOptionalPrice(v: unknown, field: string): number | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
  const n = parseLooseNumber(v);
  if (n === null || n <= 0 || n > LIMITS.maxPrice) {
    throw badRequest(
      `${field === 'sl' ? 'SL' : 'TP+'} must be a price greater than 0 and at most ${LIMITS.maxPrice.toLocaleString('en-US')}, or empty to clear it.`,
    );
  }
  return n;
}

/**
 * SL and TP+ must be on the side of the price where they can trigger: for a LONG bot the SL sells
 * when the price falls to it (so it sits below the price) and TP+ when it rises to it; SHORT mirrors.
 */
export function slTpSideProblem(
  direction: 'LONG' | 'SHORT',
  price: number,
  sl: number | null | undefined,
  tpPlus: number | null | undefined,
): string | null {
  const long = direction === 'LONG';
  if (sl !== null && sl !== undefined && (long ? sl >= price : sl <= price)) {
    return fillMessage(long ? DCA_MESSAGES.slAbovePrice : DCA_MESSAGES.slBelowPrice, { price });
  }
  if (tpPlus !== null && tpPlus !== undefined && (long ? tpPlus <= price : tpPlus >= price)) {
    return fillMessage(long ? DCA_MESSAGES.tpPlusBelowPrice : DCA_MESSAGES.tpPlusAbovePrice, { price });
  }
  return null;
}

/** A bot problem in both languages, with its detail filled in. */
export function problemText(problem: BotProblem, detail: string | null): { en: string; es: string } {
  const t = BOT_PROBLEMS[problem];
  const d = { detail: detail ?? '' };
  return { en: fillMessage(t.en, d), es: fillMessage(t.es, d) };
}

/** A stand-in state for listing a bot whose stored state cannot be read. */
function brokenState(): DcaState {
  return {
    anchor: null,
    lots: [],
    waitingBuys: [],
    config: { sepPct: 0, tpPct: 0, os: 0 },
  } as unknown as DcaState;
}

export function rangeOf(state: DcaState): { low: number; high: number } {
  const a = state.anchor ?? 0;
  const c = state.config;
  return { low: a * (1 - c.sepPct / 100) ** c.os, high: a * (1 + c.tpPct / 100) };
}

export class DcaService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly runner: BotRunner,
  ) {}

  private get market(): MarketHub {
    const m = this.ctx.services.market;
    if (!m) throw new HttpError(503, 'Market data is not available.');
    return m;
  }
  private get venues(): VenueRegistry {
    const v = this.ctx.services.venues;
    if (!v) throw new HttpError(503, 'Exchange connections are not available.');
    return v;
  }

  view(row: BotRow): DcaBotView {
    const state = row.state as DcaState;
    const cfg = row.config as DcaBotConfigJson;
    const r = rangeOf(state);
    return {
      id: row.id,
      exchange: row.exchange,
      symbol: row.symbol,
      monto: cfg.amount,
      tp_pct: cfg.tp,
      os: cfg.os,
      sep_pct: cfg.sep,
      precio: state.anchor ?? 0,
      sl: row.sl === null ? null : Number(row.sl),
      tp_plus: row.tpPlus === null ? null : Number(row.tpPlus),
      ra_enabled: row.raEnabled,
      apartado: cfg.apartado,
      leverage: cfg.leverage,
      direction: cfg.direction,
      status: row.problem ? 'error' : row.status,
      problem: row.problem,
      reason: row.problem ? problemText(row.problem, row.problemDetail) : null,
      pnl: Number(row.pnl),
      open_lots: state.lots.length,
      // A delisted pair's buys were cancelled on the venue when the bot paused (re-placed on relisting).
      waiting_buys: row.problem === 'pair_delisted' ? 0 : state.waitingBuys.length,
      range_low: round(r.low),
      range_high: round(r.high),
      started_at: row.startedAt.toISOString(),
      stop_reason: row.stopReason,
    };
  }

  async active(userId: string): Promise<DcaBotView[]> {
    const rows = await this.repo.listByUser(userId, 'active');
    return rows.map((r) => {
      try {
        return this.view({ ...r, state: this.runner.handle(r.id)?.state ?? r.state });
      } catch (err) {
        // A row that cannot be read (a damaged state) is listed as such; the others answer normally.
        const detail = err instanceof Error ? err.message : String(err);
        return this.view({ ...r, state: brokenState(), problem: 'cannot_run', problemDetail: detail });
      }
    });
  }

  async closed(userId: string): Promise<ClosedBotView[]> {
    const rows = await this.repo.listByUser(userId, 'closed');
    return rows.map((r) => {
      const cfg = r.config as DcaBotConfigJson;
      return {
        id: r.id,
        exchange: r.exchange,
        symbol: r.symbol,
        amount: cfg.amount,
        tp: cfg.tp,
        os: cfg.os,
        r: false,
        r_os: false,
        datetime_inicio: r.startedAt.toISOString(),
        datetime_cierre: r.stoppedAt?.toISOString() ?? null,
        pnl: Number(r.pnl),
      };
    });
  }

  /** The user's active bot on (exchange, symbol), else 404. */
  async activeBot(userId: string, exchange: string, symbol: string): Promise<BotRow> {
    const sym = asciiTrim(symbol);
    const row = await this.repo.activeFor(userId, exchange.toLowerCase(), sym);
    if (!row) throw notFound(fillMessage(DCA_MESSAGES.noActiveBot, { exchange, symbol: sym }));
    return row;
  }

  /** The exchange's own symbol for what the user sent (exact, ASCII-trimmed), else the spec's 400. */
  private async listed(exchange: string, symbol: string): Promise<string> {
    const listed = await this.market.listedSymbol(exchange, symbol).catch(() => null);
    if (!listed) {
      throw badRequest(
        fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
      );
    }
    return listed;
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

  /** Validates a start request in the spec's order with its messages, then creates and starts the bot. */
  async start(userId: string, body: StartBotDcaBody): Promise<{ bot: DcaBotView; message: string }> {
    const tp = parseLooseNumber(body.tp ?? '');
    const sep = parseLooseNumber(body.separacion ?? '');
    if (tp === null || sep === null || tp < MIN_TP_SEP_PCT || sep < MIN_TP_SEP_PCT) {
      throw badRequest(DCA_MESSAGES.minPct, {
        field: tp === null || tp < MIN_TP_SEP_PCT ? 'tp' : 'separacion',
      });
    }
    if (tp > LIMITS.maxTpPct) throw badRequest(DCA_MESSAGES.tpTooHigh, { field: 'tp' });
    if (sep > LIMITS.maxSepPct) throw badRequest(DCA_MESSAGES.sepTooHigh, { field: 'separacion' });
    const exchange = (body.exchange ?? '').trim().toLowerCase();
    if (!exchange) throw badRequest(DCA_MESSAGES.noExchange);
    if (!(EXCHANGE_KEYS as readonly string[]).includes(exchange)) throw badRequest(DCA_MESSAGES.notConnected);
    const kind = await this.venues.connectionKind(userId, exchange);
    if (!kind) throw badRequest(DCA_MESSAGES.notConnected);
    if (!asciiTrim(body.symbol ?? '')) throw badRequest(DCA_MESSAGES.noPair);
    const symbol = await this.listed(exchange, body.symbol ?? '');
    const market = await this.market.market(exchange, symbol).catch(() => null);
    if (!market || !market.active)
      throw badRequest(
        fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
      );
    const amount = parseLooseNumber(body.amount ?? '');
    if (amount === null || amount <= 0) throw badRequest(DCA_MESSAGES.badAmount);
    if (amount > LIMITS.maxAmount) throw badRequest(DCA_MESSAGES.amountTooHigh, { field: 'amount' });
    const osRaw = parseLooseNumber(body.os ?? '');
    if (osRaw === null || !Number.isInteger(osRaw) || osRaw < 1 || osRaw > LIMITS.maxOs) {
      throw badRequest(`# OS must be a whole number from 1 to ${LIMITS.maxOs}.`);
    }
    const settings = await this.repo.settings(userId);
    const apartado = body.apartado ?? settings.apartado ?? 'Spot';
    if (kind === 'paper' && apartado !== 'Spot') {
      throw badRequest(fillMessage(DCA_MESSAGES.paperOnlySpot, { apartado }));
    }
    if (apartado !== 'Spot') {
      // A live venue places spot orders only: never send spot orders for a derivatives bot.
      throw badRequest(fillMessage(DCA_MESSAGES.derivativesNotYet, { apartado }));
    }
    const direction = body.direction ?? 'LONG';
    const leverage = body.leverage ?? (await this.repo.settings(userId, exchange, symbol)).leverage ?? 1;
    const ticker = await this.market.ticker(exchange, symbol);
    const price = ticker.last;
    const minCost = Math.max(market.minCost, market.minAmount * price);
    if (amount < minCost) {
      throw badRequest(
        fillMessage(DCA_MESSAGES.belowMinCost, {
          pair: symbol,
          x: round(minCost, 2),
          n: round(minCost / price, 8),
          p: round(price, 8),
        }),
      );
    }
    if (await this.repo.activeFor(userId, exchange, symbol)) {
      throw conflict(fillMessage(DCA_MESSAGES.alreadyActive, { exchange, symbol }));
    }
    const max = this.ctx.config.MAX_BOTS_PER_USER;
    if ((await this.repo.countActive(userId)) >= max) {
      throw conflict(fillMessage(DCA_MESSAGES.tooManyBots, { max }));
    }
    const id = randomUUID();
    const config: DcaConfig = {
      symbol,
      amount,
      tpPct: tp,
      sepPct: sep,
      os: osRaw,
      direction,
      market: dcaMarketRules(market),
      sl: null,
      tpPlus: null,
      raEnabled: false,
    };
    let state: DcaState;
    try {
      state = createDcaBot(strategyIdOf(id), config);
    } catch (err) {
      if (err instanceof DcaConfigError) throw badRequest(err.message);
      throw err;
    }
    const cfgJson: DcaBotConfigJson = { amount, tp, sep, os: osRaw, apartado, leverage, direction };
    let row: BotRow;
    try {
      row = await this.repo.insertBot({
        id,
        userId,
        kind: 'dca',
        exchange,
        symbol,
        config: cfgJson,
        state,
        status: 'active',
        leasedBy: this.ctx.config.BOT_RUNNER ? this.runner.deps.runnerId : null,
        leaseUntil: this.ctx.config.BOT_RUNNER ? new Date(Date.now() + 30_000) : null,
      });
    } catch (err) {
      // The partial unique index: a concurrent start of the same pair.
      if (
        String((err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code) ===
        '23505'
      ) {
        throw conflict(fillMessage(DCA_MESSAGES.alreadyActive, { exchange, symbol }));
      }
      throw err;
    }
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
          fillMessage(DCA_MESSAGES.startFailed, { reason: answer?.message ?? 'the exchange did not answer' }),
        );
      }
      const paused = await this.repo.byId(id);
      if (paused?.problem) {
        // The first order met a refused key or an unlisted pair: a start that cannot trade is no start.
        const reason = paused.problemDetail ?? paused.problem;
        await this.failStart(id, reason);
        throw badRequest(fillMessage(DCA_MESSAGES.startFailed, { reason }));
      }
      const after = await this.repo.byId(id);
      if (after && after.status !== 'active') {
        const events = await this.repo.events(id, 20);
        const why = events.find((e) => e.level !== 'info') ?? events[0];
        const reason =
          why && typeof why.params === 'object' && why.params && 'message' in why.params
            ? String(why.params.message)
            : (after.stopReason ?? 'the entry order failed');
        throw badRequest(fillMessage(DCA_MESSAGES.startFailed, { reason }));
      }
      if (after) row = { ...after, state: h.state };
    }
    return { bot: this.view(row), message: DCA_MESSAGES.botStarted };
  }

  /** A start that could not complete: the bot ends with status error, its reason logged, no pair lock held. */
  private async failStart(botId: string, reason: string): Promise<void> {
    this.runner.drop(botId);
    await this.repo.write({
      botId,
      status: 'error',
      stopReason: `start_failed: ${reason}`,
      stoppedAt: new Date(),
      events: [{ botId, level: 'error', code: 'start_failed', params: { message: reason } }],
    });
  }

  async stop(userId: string, exchange: string, symbol: string, mode: StopMode) {
    const row = await this.activeBot(userId, exchange, symbol);
    if (!(await this.venues.connectionKind(userId, row.exchange))) {
      // The connection was removed: nothing can be cancelled on the exchange; the bot just ends.
      await this.repo.write({
        botId: row.id,
        status: 'stopped',
        stopReason: 'exchange_disconnected',
        stoppedAt: new Date(),
        events: [
          { botId: row.id, level: 'warn', code: 'stopped', params: { reason: 'exchange_disconnected' } },
        ],
      });
      return { success: true, message: DCA_MESSAGES.botStopped };
    }
    if (row.problem === 'pair_delisted' && mode === 'close_market') {
      throw badRequest(DCA_MESSAGES.delistedStopKeepsAssets);
    }
    const ok = await this.runner.stopBot(row.id, mode);
    if (!ok)
      throw new HttpError(
        504,
        'The bot is still stopping: orders are being cancelled. Check again in a moment.',
      );
    return { success: true, message: DCA_MESSAGES.botStopped };
  }

  /**
   * The user's connection to `exchange` is about to be removed or its venue replaced (the
   * beforeConnectionChange hook): every active bot of the user on that exchange stops with
   * cancel_only while the venue is still open (its orders cancelled there, assets kept), with the
   * reason in its event log (`connection_changed`) and in stop_reason.
   */
  async stopForConnection(userId: string, exchange: string) {
    const ex = exchange.toLowerCase();
    const rows = (await this.repo.listByUser(userId, 'active')).filter((r) => r.exchange === ex);
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
    const rows = await this.repo.listByUser(userId, 'active');
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

  async updateSlTp(
    userId: string,
    exchange: string,
    symbol: string,
    patch: { sl?: unknown; tp_plus?: unknown },
  ) {
    const hasSl = patch.sl !== undefined;
    const hasTp = patch.tp_plus !== undefined;
    if (!hasSl && !hasTp) throw badRequest('Send one of sl or tp_plus.');
    const sl = hasSl ? parseOptionalPrice(patch.sl, 'sl') : undefined;
    const tpPlus = hasTp ? parseOptionalPrice(patch.tp_plus, 'tp_plus') : undefined;
    const row = await this.activeBot(userId, exchange, symbol);
    if ((sl ?? null) !== null || (tpPlus ?? null) !== null) {
      const price = (await this.market.ticker(row.exchange, row.symbol)).last;
      const problem = slTpSideProblem((row.config as DcaBotConfigJson).direction, price, sl, tpPlus);
      if (problem) throw badRequest(problem);
    }
    if (sl !== undefined) {
      await this.runner.act(row.id, { type: 'set_sl', sl, ts: Date.now() });
      await this.repo.updateBot(row.id, { sl: sl === null ? null : String(sl) });
    }
    if (tpPlus !== undefined) {
      await this.runner.act(row.id, { type: 'set_tp_plus', tpPlus, ts: Date.now() });
      await this.repo.updateBot(row.id, { tpPlus: tpPlus === null ? null : String(tpPlus) });
    }
    return { success: true, sl: sl ?? null, tp_plus: tpPlus ?? null };
  }

  async toggleRa(userId: string, exchange: string, symbol: string, enabled: boolean) {
    const row = await this.activeBot(userId, exchange, symbol);
    await this.runner.act(row.id, { type: 'set_ra', enabled, ts: Date.now() });
    await this.repo.updateBot(row.id, { raEnabled: enabled });
    return { success: true, enabled };
  }

  async relocate(userId: string, exchange: string, symbol: string) {
    const row = await this.activeBot(userId, exchange, symbol);
    const before = (row.state as DcaState).anchor;
    const state = await this.runner.act(row.id, { type: 'relocate', ts: Date.now() });
    if (state.status === 'stopped' || state.status === 'stopping') {
      return { success: false, error: 'The bot is stopping.' };
    }
    return { success: true, message: DCA_MESSAGES.relocated, precio: state.anchor ?? before };
  }

  private pendingOf(row: BotRow, state: DcaState): PendingOrderView[] {
    const quote = row.symbol.split('/')[1] ?? 'USDT';
    return state.lots.map((lot) => ({
      id: lot.id,
      bot_id: row.id,
      created_at: new Date(lot.buyTime).toISOString(),
      exchange: row.exchange,
      symbol: row.symbol,
      entry_price: lot.buyPrice,
      limit_price: lot.tp?.price ?? round(lot.buyPrice * (1 + state.config.tpPct / 100)),
      amount_quote: round(lot.qty * lot.buyPrice, 8),
      amount_base: lot.qty,
      qty: lot.qty,
      quote,
      status: 'open' as const,
    }));
  }

  async pendingOrders(
    userId: string,
    q: {
      exchange?: string | undefined;
      symbol?: string | undefined;
      bot_id?: string | undefined;
      page: number;
      per_page: number;
    },
  ) {
    let rows: BotRow[];
    if (q.bot_id) rows = [await this.ownBot(userId, q.bot_id)];
    else if (q.exchange && q.symbol) {
      const r = await this.repo.activeFor(userId, q.exchange.toLowerCase(), asciiTrim(q.symbol));
      rows = r ? [r] : [];
    } else rows = await this.repo.listByUser(userId, 'active');
    const all = rows
      .flatMap((r) => {
        try {
          return this.pendingOf(r, this.runner.handle(r.id)?.state ?? (r.state as DcaState));
        } catch {
          return []; // A bot whose state cannot be read has nothing to list; the others do.
        }
      })
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    const pages = Math.max(1, Math.ceil(all.length / q.per_page));
    const page = Math.min(q.page, pages);
    const orders = all.slice((page - 1) * q.per_page, page * q.per_page);
    return { success: true, orders, rows: orders, page, pages, total: all.length };
  }

  async history(userId: string, botId: string, page: number, perPage: number) {
    await this.ownBot(userId, botId);
    const { rows, total, totalPnl } = await this.repo.tradesPage(botId, page, perPage);
    const historial: DcaTradeView[] = rows.map((r) => ({
      id: r.id,
      buy_time: r.buyTime.toISOString(),
      sell_time: r.sellTime.toISOString(),
      qty: Number(r.qty),
      buy_price: Number(r.buyPrice),
      sell_price: Number(r.sellPrice),
      pnl_net: Number(r.pnlNet),
    }));
    return {
      success: true,
      historial,
      total_pnl: Number(totalPnl),
      page,
      pages: Math.max(1, Math.ceil(total / perPage)),
      total,
    };
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

  async setLeverage(
    userId: string,
    exchange: string | undefined,
    symbol: string | undefined,
    leverage: number,
  ) {
    if (!exchange) throw badRequest(DCA_MESSAGES.leverageNoExchange);
    const ex = exchange.toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = symbol && asciiTrim(symbol) ? await this.listed(ex, symbol) : '';
    await this.repo.saveSetting(userId, { exchange: ex, symbol: sym }, { leverage });
    return { success: true, leverage, message: `Leverage configured to ${leverage}x` };
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
    let rows = await this.repo.listByUser(userId, 'active');
    if (bots) {
      const wanted = new Set(bots.map((b) => `${b.exchange.toLowerCase()}|${asciiTrim(b.symbol)}`));
      rows = rows.filter((r) => wanted.has(`${r.exchange}|${r.symbol}`));
    }
    const now = Date.now();
    const pnls = rows.map((r) => {
      const state = this.runner.handle(r.id)?.state ?? (r.state as DcaState);
      return {
        symbol: r.symbol,
        exchange: r.exchange,
        pnl: Number(state.realizedPnl ?? r.pnl) || 0,
        ttr: Math.round((now - r.startedAt.getTime()) / 1000),
      };
    });
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
