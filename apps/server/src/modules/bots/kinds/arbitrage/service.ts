import { randomUUID } from 'node:crypto';
import {
  ARBITRAGE_DEFAULT_SYMBOL,
  ARBITRAGE_EXCHANGES,
  ARBITRAGE_HISTORY_LIMIT,
  ARBITRAGE_MESSAGES,
  asciiTrim,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  type ArbitrageBotView,
  type ArbitrageHistoryRow,
  type ArbitrageLogEntry,
  type ArbitrageSpreadView,
  type ArbitrageStartBody,
  type ArbitrageStatusResponse,
} from '@bytx/contract';
import {
  ARB_DEFAULT_TRADE_FRACTION,
  arbitrageBot,
  ArbitrageConfigError,
  arbitrageSummary,
  createArbitrageBot,
  type ArbitrageConfig,
  type ArbitrageState,
  type ArbitrageSummary,
} from '@bytx/engine';
import type { Market } from '@bytx/venues';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../../../context';
import { bots as botsTable, botTrades } from '../../../../db/schema/index';
import { badRequest, conflict, HttpError } from '../../../../lib/errors';
import { parseLooseNumber, problemText } from '../../bot-input';
import type { BotRow, BotsRepository } from '../../bots.repository';
import type { BotsService } from '../../bots.service';
import { dcaMarketRules } from '../../market-rules';
import { strategyIdOf, type BotRunner } from '../../runner';
import { createAndLaunch } from '../create';

/** `bots.kind` of the Arbitrage bot (the engine's arbitrageBot.kind). */
export const ARBITRAGE = arbitrageBot.kind;

/** What the bot row's `config` keeps: the call as validated (the strategy's own config is in the state). */
export interface ArbitrageConfigJson {
  monto_usdt: number;
  symbol: string;
  exchanges: [string, string];
}

/** Users whose last status answer is kept at most (then all are dropped: a cache, not a store). */
const MAX_KEPT_STATUS = 20_000;

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;
const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;
const floor2 = (x: number) => Math.floor(x * 100 + 1e-9) / 100;

/** The spread of one direction as the page shows it (percent, rounded for display). */
function spreadView(s: { edgePct: number | null; feesPct: number } | undefined, marginPct: number) {
  if (!s) return null;
  const view: ArbitrageSpreadView = {
    edge_pct: s.edgePct === null ? null : round(s.edgePct, 6),
    fees_pct: round(s.feesPct, 6),
    margin_pct: marginPct,
  };
  return view;
}

/**
 * The Arbitrage bot (`/arbitraje`, spec part 2 §2, §5, §7; issue 15 §1): Binance ↔ Bybit on one spot
 * symbol. Starting one after the spec's checks in its order then ours, stopping it, its round trips
 * (history), and its live status. The strategy is the engine's arbitrageBot, run by the generic runner
 * like every kind: the bot row's exchange is Binance, Bybit's market is followed as an extra market.
 */
export class ArbitrageService {
  /** The last status answer of each user and what it was computed from (statusText). */
  private readonly lastStatus = new Map<
    string,
    { connected: boolean; row: BotRow | null; state: unknown; paused: boolean; body: string }
  >();

  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
  ) {}

  /** The live state (the runner's, with the latest books and spread), else the stored one. */
  private stateOf(row: BotRow): ArbitrageState {
    return (this.runner.handle(row.id)?.state as ArbitrageState | undefined) ?? (row.state as ArbitrageState);
  }

  summaryOf(row: BotRow): ArbitrageSummary | null {
    try {
      return arbitrageSummary(this.stateOf(row));
    } catch {
      return null;
    }
  }

  /** Both exchanges of the page are connected (paper or live). */
  async connected(userId: string): Promise<boolean> {
    const kinds = await Promise.all(
      ARBITRAGE_EXCHANGES.map((ex) => this.bots.venues.connectionKind(userId, ex).catch(() => null)),
    );
    return kinds.every((k) => k !== null);
  }

  /** The user's active arbitrage bot (at most one by the start's check), else null. */
  async activeBot(userId: string): Promise<BotRow | null> {
    const rows = await this.repo.listByUser(userId, 'active', ARBITRAGE);
    return rows[0] ?? null;
  }

  /**
   * POST /api/start_arbitraje: the spec's checks in its order with its messages (part 2 §5: both
   * exchanges connected, then the amount), then ours (the symbol on both venues, the amount against
   * the minimum orders, the free USDT on each venue, one active arbitrage bot per user), then the bot
   * is created and run until its first decisions (the inventory's market buys) are carried out.
   */
  async start(userId: string, body: ArbitrageStartBody): Promise<{ id: string; message: string }> {
    if (!(await this.connected(userId))) {
      throw badRequest(ARBITRAGE_MESSAGES.notConnected, { field: 'exchange' });
    }
    const amount = parseLooseNumber(body.monto_usdt);
    if (amount === null || !(amount > 0)) {
      throw badRequest(ARBITRAGE_MESSAGES.invalidAmount, { field: 'monto_usdt' });
    }
    if (amount > LIMITS.maxAmount) {
      throw badRequest(fillMessage(ARBITRAGE_MESSAGES.amountTooHigh, { max: LIMITS.maxAmount }), {
        field: 'monto_usdt',
      });
    }
    const raw = body.symbol === undefined ? ARBITRAGE_DEFAULT_SYMBOL : asciiTrim(body.symbol);
    if (!/^[A-Z0-9]{1,20}\/[A-Z0-9]{1,20}$/.test(raw)) {
      throw badRequest(ARBITRAGE_MESSAGES.badSymbol, { field: 'symbol' });
    }
    const exchanges: [string, string] = [ARBITRAGE_EXCHANGES[0], ARBITRAGE_EXCHANGES[1]];
    const markets: Record<string, Market> = {};
    const prices: Record<string, number> = {};
    for (const ex of exchanges) {
      const notListed = () =>
        badRequest(
          fillMessage(ARBITRAGE_MESSAGES.symbolNotListed, { symbol: raw, exchange: exchangeDisplayName(ex) }),
          { field: 'symbol' },
        );
      const listed = await this.bots.market.listedSymbol(ex, raw).catch(() => null);
      if (listed !== raw) throw notListed();
      const m = await this.bots.market.market(ex, raw).catch(() => null);
      if (!m || !m.active || m.type === 'swap') throw notListed();
      markets[ex] = m;
      const t = await this.bots.market.ticker(ex, raw).catch(() => null);
      if (!t || !(t.last > 0)) {
        throw new HttpError(
          503,
          fillMessage(ARBITRAGE_MESSAGES.priceUnavailable, {
            symbol: raw,
            exchange: exchangeDisplayName(ex),
          }),
        );
      }
      prices[ex] = t.last;
    }
    this.checkMinimum(amount, raw, markets, prices);
    await this.checkFunds(userId, amount, exchanges);
    const active = await this.activeBot(userId);
    if (active) throw conflict(fillMessage(ARBITRAGE_MESSAGES.alreadyActive, { symbol: active.symbol }));
    const cap = this.bots.startCap();
    if ((await this.repo.countActive(userId, cap.except)) >= cap.max) throw cap.full();

    const id = randomUUID();
    const config: ArbitrageConfig = {
      exchanges,
      symbol: raw,
      amountQuote: amount,
      rules: Object.fromEntries(exchanges.map((ex) => [ex, dcaMarketRules(markets[ex]!)])),
    };
    let state: ArbitrageState;
    try {
      state = createArbitrageBot(strategyIdOf(id), config);
    } catch (err) {
      if (err instanceof ArbitrageConfigError) throw badRequest(err.message);
      throw err;
    }
    const cfgJson: ArbitrageConfigJson = { monto_usdt: amount, symbol: raw, exchanges };
    await createAndLaunch(
      { ctx: this.ctx, repo: this.repo, runner: this.runner, bots: this.bots },
      { id, userId, kind: ARBITRAGE, exchange: exchanges[0], symbol: raw, config: cfgJson, state },
      { alreadyActive: ARBITRAGE_MESSAGES.alreadyActive, startFailed: ARBITRAGE_MESSAGES.startFailed },
      { cap },
    );
    return { id, message: ARBITRAGE_MESSAGES.started };
  }

  /**
   * A round trip trades amount × tradeFraction (a quarter) on each venue, bounded by what the start
   * bought (a quarter of the amount per venue): each must reach the venue's minimum order with one
   * amount step lost to rounding down and the taker fee on top.
   */
  private checkMinimum(
    amount: number,
    symbol: string,
    markets: Record<string, Market>,
    prices: Record<string, number>,
  ) {
    const fraction = Math.min(ARB_DEFAULT_TRADE_FRACTION, 0.25);
    let worst: { min: number; venueMin: number; exchange: string; price: number } | null = null;
    for (const [ex, m] of Object.entries(markets)) {
      const price = prices[ex]!;
      const venueMin = Math.max(m.minCost, m.minAmount * price);
      // The trip's quote: a quarter of the amount, less one amount step and the fees of the start's buy
      // (the trip buys with what is left of the venue's quote after it) and the book's half spread.
      const need = (venueMin + m.amountStep * price) * (1 + 2 * m.taker + 0.002);
      const min = need / fraction;
      if (amount < min && (!worst || min > worst.min)) worst = { min, venueMin, exchange: ex, price };
    }
    if (worst) {
      throw badRequest(
        fillMessage(ARBITRAGE_MESSAGES.belowMinimum, {
          min: ceil2(worst.min),
          exchange: exchangeDisplayName(worst.exchange),
          symbol,
          venueMin: ceil2(worst.venueMin),
          price: worst.price,
        }),
        { field: 'monto_usdt' },
      );
    }
  }

  /** Each venue holds half of the amount: its free USDT must cover it (when the venue answers). */
  private async checkFunds(userId: string, amount: number, exchanges: [string, string]) {
    const need = amount / 2;
    for (const ex of exchanges) {
      const venue = await this.bots.venues.forUser(userId, ex).catch(() => null);
      if (!venue) continue;
      const balances = await venue.fetchBalance().catch(() => null);
      if (!balances) continue; // The check itself failed: the venue refuses what it cannot fill.
      const free = balances.USDT?.free ?? 0;
      if (free + 1e-9 < need) {
        throw badRequest(
          fillMessage(ARBITRAGE_MESSAGES.insufficientFunds, {
            exchange: exchangeDisplayName(ex),
            free: floor2(free),
            need: ceil2(need),
            amount,
          }),
          { field: 'monto_usdt' },
        );
      }
    }
  }

  /** POST /api/stop_arbitraje: close_market (sell the bot's base on both venues) unless keep_assets. */
  async stop(userId: string, keepAssets: boolean) {
    const row = await this.activeBot(userId);
    if (!row) return { success: true, message: ARBITRAGE_MESSAGES.notActive, already_stopped: true };
    await this.bots.stop(row, keepAssets ? 'cancel_only' : 'close_market');
    return {
      success: true,
      message: keepAssets ? ARBITRAGE_MESSAGES.stoppedKeepAssets : ARBITRAGE_MESSAGES.stopped,
      id: row.id,
    };
  }

  /**
   * POST /api/historial_arbitraje: the round trips (and unwinds) of every arbitrage bot of the user,
   * newest first: `exchange` is the buy venue, `sell_exchange` the sell venue (equal for an unwind).
   */
  async history(userId: string): Promise<ArbitrageHistoryRow[]> {
    const rows = await this.ctx.db
      .select({
        id: botTrades.id,
        botId: botTrades.botId,
        symbol: botTrades.symbol,
        exchange: botTrades.exchange,
        sellExchange: botTrades.sellExchange,
        qty: botTrades.qty,
        buyPrice: botTrades.buyPrice,
        sellPrice: botTrades.sellPrice,
        fees: botTrades.fees,
        pnlNet: botTrades.pnlNet,
        sellTime: botTrades.sellTime,
      })
      .from(botTrades)
      .innerJoin(botsTable, eq(botsTable.id, botTrades.botId))
      .where(and(eq(botTrades.userId, userId), eq(botsTable.kind, ARBITRAGE), isNull(botTrades.deletedAt)))
      .orderBy(desc(botTrades.sellTime), desc(botTrades.id))
      .limit(ARBITRAGE_HISTORY_LIMIT);
    return rows.map((r) => ({
      exchange_compra: r.exchange,
      exchange_venta: r.sellExchange ?? r.exchange,
      precio_compra: Number(r.buyPrice),
      precio_venta: Number(r.sellPrice),
      monto: Number(r.qty),
      comision_total: Number(r.fees),
      ganancia: Number(r.pnlNet),
      timestamp: r.sellTime.toISOString(),
      id: String(r.id),
      bot_id: r.botId,
      symbol: r.symbol,
    }));
  }

  /**
   * POST /api/estado_bot_arbitraje: active or not, both exchanges connected, the live figures. The bot's
   * row is kept by the read cache until the next write to the user's bots (read-cache.ts `memo`); the
   * connections are kept in memory too (connections-cache.ts); the figures (books, spread, inventory)
   * are the runner's live state, read on every call: a tick changes them without any write.
   */
  async status(userId: string): Promise<ArbitrageStatusResponse> {
    return (await this.statusOf(userId)).answer;
  }

  /**
   * The status answer serialized, the same text while nothing it is computed from changed: the
   * connections, the bot's row (the same object while the read cache keeps it), the runner's state
   * (never changed in place: each step makes a new one, stepArbitrage) and whether a pause is still
   * running. An answer that read the hub's ticker (no book in the state yet) is not kept.
   */
  async statusText(userId: string): Promise<string> {
    const [connected, row] = await Promise.all([
      this.connected(userId),
      this.bots.reads.memo(userId, 'arbitrage active row', () => this.activeBot(userId)),
    ]);
    const state = row ? this.stateOf(row) : null;
    const until = (state as { pausedUntil?: number | null } | null)?.pausedUntil ?? null;
    const paused = until !== null && until > Date.now();
    const kept = this.lastStatus.get(userId);
    if (
      kept &&
      kept.connected === connected &&
      kept.row === row &&
      kept.state === state &&
      kept.paused === paused
    ) {
      return kept.body;
    }
    const { answer, ticker } = await this.statusOf(userId, { connected, row });
    const body = JSON.stringify(answer);
    if (!ticker && this.bots.reads.enabled) {
      if (this.lastStatus.size >= MAX_KEPT_STATUS) this.lastStatus.clear();
      this.lastStatus.set(userId, { connected, row, state, paused, body });
    }
    return body;
  }

  private async statusOf(
    userId: string,
    read?: { connected: boolean; row: BotRow | null },
  ): Promise<{ answer: ArbitrageStatusResponse; ticker: boolean }> {
    const [connected, row] = read
      ? [read.connected, read.row]
      : await Promise.all([
          this.connected(userId),
          this.bots.reads.memo(userId, 'arbitrage active row', () => this.activeBot(userId)),
        ]);
    const used = { ticker: false };
    const bot = row ? await this.view(row, used) : null;
    return { answer: { success: true, activo: row !== null, connected, bot }, ticker: used.ticker };
  }

  /** `used.ticker` is set when a venue's book was not in the state and the hub's ticker was read. */
  async view(row: BotRow, used?: { ticker: boolean }): Promise<ArbitrageBotView> {
    const cfg = row.config as ArbitrageConfigJson;
    const s = this.summaryOf(row);
    const exchanges = cfg.exchanges ?? [...ARBITRAGE_EXCHANGES];
    const [a, b] = exchanges;
    const books: ArbitrageBotView['books'] = {};
    for (const ex of exchanges) {
      const top = s?.books[ex];
      if (top && (top.bid !== null || top.ask !== null)) {
        books[ex] = { bid: top.bid, ask: top.ask };
        continue;
      }
      // No book in the state (no runner here, or before the first tick): the hub's ticker.
      if (used) used.ticker = true;
      const t = await this.bots.market.ticker(ex, row.symbol).catch(() => null);
      books[ex] = { bid: t?.bid ?? null, ask: t?.ask ?? null };
    }
    const margin = s?.marginPct ?? 0;
    const spread = s?.lastSpread
      ? {
          binance_to_bybit: spreadView(s.lastSpread[`${a}_to_${b}`], margin),
          bybit_to_binance: spreadView(s.lastSpread[`${b}_to_${a}`], margin),
        }
      : null;
    const inventory: ArbitrageBotView['inventory'] = {};
    for (const [ex, inv] of Object.entries(s?.inventory ?? {})) {
      inventory[ex] = { base: round(inv.base, 12), quote: round(inv.quote, 8) };
    }
    return {
      id: row.id,
      symbol: row.symbol,
      monto_usdt: cfg.monto_usdt,
      pnl: round(Number(s?.pnlQuote ?? row.pnl) || 0, 8),
      trips: s?.trips ?? 0,
      spread,
      books,
      inventory,
      waiting: s?.waiting ?? null,
      paused_until:
        s?.pausedUntil != null && s.pausedUntil > Date.now() ? new Date(s.pausedUntil).toISOString() : null,
      status: row.problem ? 'error' : row.status,
      phase: s ? (s.tripOpen ? 'trip_open' : s.status) : null,
      problem: row.problem ? problemText(row.problem, row.problemDetail).en : null,
      started_at: row.startedAt.toISOString(),
    };
  }

  /** GET /api/arbitraje/log: the event log of the active arbitrage bot, else of the latest one. */
  async log(userId: string, limit = 100): Promise<{ botId: string | null; events: ArbitrageLogEntry[] }> {
    const row =
      (await this.activeBot(userId)) ??
      (await this.ctx.db
        .select()
        .from(botsTable)
        .where(and(eq(botsTable.userId, userId), eq(botsTable.kind, ARBITRAGE)))
        .orderBy(desc(botsTable.startedAt))
        .limit(1)
        .then((r) => r[0] ?? null));
    if (!row) return { botId: null, events: [] };
    const events = await this.repo.events(row.id, limit);
    return {
      botId: row.id,
      events: events.map((e) => ({
        id: String(e.id),
        ts: e.ts.toISOString(),
        type: e.code,
        level: e.level,
        data: e.params ?? {},
      })),
    };
  }
}
