import { randomUUID } from 'node:crypto';
import {
  EXCHANGE_KEYS,
  fillMessage,
  GRID_MESSAGES,
  LIMITS,
  parseMarketType,
  type GridBotDetail,
  type GridBotView,
  type GridHistoryView,
  type GridMarketType,
  type GridNivelesBody,
  type GridNivelesResponse,
  type GridPosition,
  type GridProfitCurrency,
  type GridStartBody,
  type MarketType,
} from '@bytx/contract';
import {
  gridBot,
  gridLevels,
  gridSummary,
  type GridConfig,
  type GridState,
  type GridSummary,
} from '@bytx/engine';
import type { AppContext } from '../../../../context';
import { badRequest, HttpError, notFound } from '../../../../lib/errors';
import { parseLooseNumber, problemText } from '../../bot-input';
import type { BotRow, BotsRepository } from '../../bots.repository';
import type { BotsService } from '../../bots.service';
import {
  derivativesOf,
  isDerivatives,
  settleOf,
  venueSymbol,
  type DerivativesMarket,
} from '../../derivatives';
import { strategyIdOf, type BotRunner } from '../../runner';
import {
  checkGridLevelCount,
  createGridState,
  gridListedPair,
  gridMarketOf,
  gridRangeOf,
  isEmptyField,
  parseGridStart,
} from './params';
import { createAndLaunch } from '../create';

/** `bots.kind` of the Grid bot (the engine's gridBot.kind). */
export const GRID = gridBot.kind;

/** What the bot row's `config` keeps: the form as validated. */
export interface GridConfigJson {
  low: number;
  high: number;
  step: number;
  amount_per_level: number;
  position: GridPosition;
  profit_currency: GridProfitCurrency;
  leverage: number;
}

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;
const isEmpty = isEmptyField;
const gridType = (t: string) => t.toLowerCase() as GridMarketType;

/** A stand-in state for a grid whose stored state cannot be read. */
function emptySummary(): GridSummary {
  return {
    pnlQuote: '0',
    rounds: 0,
    openBuys: 0,
    openSells: 0,
    baseHeld: 0,
    levels: [],
    buyPrices: [],
    sellPrices: [],
    inRange: null,
    status: 'stopped',
  };
}

/**
 * The Grid bot (`/grid-bot`, spec part 2 §2, §5, §7; issue 14 §3): the levels of a range, starting a
 * grid after the spec's checks in its order, the active and closed grids of the user, stopping one.
 * The strategy is the engine's gridBot, run by the generic runner like every kind.
 */
export class GridService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
  ) {}

  private stateOf(row: BotRow): GridState {
    return (this.runner.handle(row.id)?.state as GridState | undefined) ?? (row.state as GridState);
  }

  private summaryOf(row: BotRow): GridSummary {
    try {
      return gridSummary(this.stateOf(row));
    } catch {
      return emptySummary();
    }
  }

  view(row: BotRow, summary = this.summaryOf(row)): GridBotView {
    const cfg = row.config as GridConfigJson;
    const [, quote = ''] = row.symbol.split('/');
    return {
      id: row.id,
      exchange: row.exchange,
      symbol: row.symbol,
      market_type: gridType(row.marketType),
      market_symbol: venueSymbol(row.symbol, row.marketType),
      pnl_quote: round(Number(summary.pnlQuote) || Number(row.pnl) || 0, 8),
      quote,
      position: cfg.position,
      profit_currency: cfg.profit_currency,
      low_price: cfg.low,
      high_price: cfg.high,
      step_percentage: cfg.step,
      amount_per_level: cfg.amount_per_level,
      leverage: row.leverage,
      levels: summary.levels.length,
      open_buys: row.status === 'active' ? summary.openBuys : 0,
      open_sells: row.status === 'active' ? summary.openSells : 0,
      base_held: round(summary.baseHeld, 12),
      rounds: summary.rounds,
      status: row.problem ? 'error' : row.status,
      problem: row.problem,
      reason: row.problem ? problemText(row.problem, row.problemDetail) : null,
      started_at: row.startedAt.toISOString(),
    };
  }

  /** POST /api/gridbot/niveles: the levels of the range at the price (nothing is placed). */
  async niveles(body: GridNivelesBody): Promise<GridNivelesResponse> {
    const exchange = (body.exchange ?? '').trim().toLowerCase();
    if (!exchange || !(EXCHANGE_KEYS as readonly string[]).includes(exchange)) {
      throw badRequest(GRID_MESSAGES.noExchange);
    }
    if (isEmpty(body.pair)) throw badRequest(GRID_MESSAGES.noPair);
    if (isEmpty(body.highPrice) || isEmpty(body.lowPrice) || isEmpty(body.stepPercentage)) {
      throw badRequest(GRID_MESSAGES.incomplete);
    }
    const { high, low, step } = gridRangeOf(body);
    const type = isEmpty(body.marketType) ? 'Spot' : parseMarketType(body.marketType);
    if (!type) throw badRequest(GRID_MESSAGES.badMarketType, { field: 'marketType' });
    const pair = await gridListedPair(this.bots.market, exchange, body.pair ?? '');
    const market = await gridMarketOf(this.bots.market, exchange, pair, type);
    let price = isEmpty(body.price) ? null : parseLooseNumber(body.price);
    if (price !== null && (price <= 0 || price > LIMITS.maxPrice)) {
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Price' }), { field: 'price' });
    }
    price ??= await this.bots.priceOf(exchange, venueSymbol(pair, type), pair);
    checkGridLevelCount(low, high, step);
    const g = gridLevels(price, low, high, step, { priceStep: market.priceStep });
    return {
      ok: true,
      buyLevels: [...g.buyLevels].reverse(),
      sellLevels: g.sellLevels,
      levels: g.levels,
      price,
    };
  }

  /**
   * POST /api/gridbot/start: the spec's checks in its order with its messages (part 2 §5), then ours
   * (bounds, market type, position, leverage, the levels and the funds they need, with the numbers),
   * then the bot is created and run until its first decisions are carried out.
   */
  async start(userId: string, body: GridStartBody): Promise<{ bot: GridBotView; message: string }> {
    const who = body.user ?? body.user_id;
    if (isEmpty(who) || who === 'anonimo') throw badRequest(GRID_MESSAGES.noSession);
    const checked = await parseGridStart(body, this.bots.paramDeps(userId));
    const { exchange, pair, type, position, profit, low, high, step, amount, market, levels, config } =
      checked;
    const { marketSymbol, leverage, price } = checked;
    // The account's checks: the funds the levels need, one grid per pair, the bot cap, the leverage.
    await this.checkFunds(userId, exchange, config, levels, price, type, market, leverage);

    const alreadyActive = await this.repo.activeFor(userId, exchange, pair, GRID);
    if (alreadyActive) {
      throw new HttpError(409, fillMessage(GRID_MESSAGES.alreadyActive, { exchange, symbol: pair }));
    }
    await this.bots.checkOneDerivativesBot(userId, exchange, pair, type);
    const cap = this.bots.startCap();
    if ((await this.repo.countActive(userId, cap.except)) >= cap.max) throw cap.full();
    await this.bots.applyLeverage(userId, exchange, type, marketSymbol, leverage);

    const id = randomUUID();
    const state = createGridState(strategyIdOf(id), config);
    const cfgJson: GridConfigJson = {
      low,
      high,
      step,
      amount_per_level: amount,
      position,
      profit_currency: profit,
      leverage: leverage,
    };
    const row = await createAndLaunch(
      { ctx: this.ctx, repo: this.repo, runner: this.runner, bots: this.bots },
      { id, userId, kind: GRID, exchange, symbol: pair, marketType: type, leverage, config: cfgJson, state },
      { alreadyActive: GRID_MESSAGES.alreadyActive, startFailed: GRID_MESSAGES.startFailedReason },
      { cap },
    );
    return { bot: this.view(row), message: GRID_MESSAGES.started };
  }

  /**
   * What the grid needs at start against what the account has free (when the venue answers): spot long,
   * every level in quote (the buys below, the base bought at market for the sells above) plus the taker
   * fee; on derivatives the margin of every level's order at the leverage, in the settle currency.
   */
  private async checkFunds(
    userId: string,
    exchange: string,
    config: GridConfig,
    levels: number[],
    price: number,
    type: MarketType,
    market: DerivativesMarket,
    leverage: number,
  ) {
    const slots = levels.length - 1;
    const notional = slots * config.amountPerLevel;
    const quote = config.symbol.split('/')[1] ?? '';
    let need: number;
    let currency: string;
    let detail: string;
    if (!isDerivatives(type)) {
      need = notional * (1 + market.taker);
      currency = quote;
      detail = `${slots} levels × ${config.amountPerLevel} ${quote} + fees`;
    } else {
      currency = settleOf(market, type);
      const margin = notional / leverage;
      need = currency === quote ? margin : margin / price;
      detail = `${slots} levels × ${config.amountPerLevel} ${quote} at ${leverage}x`;
    }
    const venue = await this.bots.venues.forUser(userId, exchange).catch(() => null);
    if (!venue) return;
    const wallet = type === 'Perpetual' || type === 'Inverse' ? { type: 'swap' as const } : undefined;
    const balances = await derivativesOf(venue)
      .fetchBalance(wallet)
      .catch(() => null);
    if (!balances) return; // The check itself failed: the venue refuses what it cannot fill.
    const free = balances[currency]?.free ?? 0;
    if (free + 1e-12 < need) {
      const digits = currency === quote ? 2 : 8;
      throw badRequest(
        fillMessage(GRID_MESSAGES.insufficientFunds, {
          need: Math.ceil(need * 10 ** digits) / 10 ** digits,
          currency,
          detail,
          free: Math.floor(free * 10 ** digits) / 10 ** digits,
        }),
        { field: 'amountPerLevel' },
      );
    }
  }

  async active(userId: string): Promise<GridBotView[]> {
    const rows = await this.repo.listByUser(userId, 'active', GRID);
    return rows.map((r) => this.view(r));
  }

  /** A grid of this user (any status), else 404: another user's grid is not revealed. */
  private async ownGrid(userId: string, id: string): Promise<BotRow> {
    const row = await this.repo.byId(id);
    if (!row || row.userId !== userId || row.kind !== GRID) throw notFound(GRID_MESSAGES.notFound);
    return row;
  }

  /** POST /api/gridbot/detener: vender → close_market (sell all / buy back), else keep assets. */
  async stop(userId: string, id: string, vender: boolean) {
    const row = await this.ownGrid(userId, id);
    if (row.status !== 'active') {
      return { ok: true, success: true, message: GRID_MESSAGES.stopped, already_stopped: true };
    }
    await this.bots.stop(row, vender ? 'close_market' : 'cancel_only');
    return { ok: true, success: true, message: GRID_MESSAGES.stopped };
  }

  async history(userId: string): Promise<GridHistoryView[]> {
    const rows = await this.repo.listByUser(userId, 'closed', GRID);
    return rows.map((r) => {
      const s = this.summaryOf(r);
      return {
        id: r.id,
        exchange: r.exchange,
        symbol: r.symbol,
        market_type: gridType(r.marketType),
        position: (r.config as GridConfigJson).position,
        started_at: r.startedAt.toISOString(),
        stopped_at: r.stoppedAt?.toISOString() ?? null,
        stop_reason: r.stopReason,
        pnl_quote: round(Number(r.pnl) || Number(s.pnlQuote) || 0, 8),
        rounds: s.rounds,
      };
    });
  }

  async detail(userId: string, id: string): Promise<GridBotDetail> {
    const row = await this.ownGrid(userId, id);
    const summary = this.summaryOf(row);
    const orders =
      row.status === 'active'
        ? (await this.repo.liveOrders(row.id))
            .filter((o) => o.type === 'limit' && o.price !== null && !o.cancelRequested)
            .map((o) => ({ side: o.side, price: Number(o.price), amount: Number(o.amount) }))
        : [];
    const price =
      row.status === 'active'
        ? await this.bots
            .priceOf(row.exchange, venueSymbol(row.symbol, row.marketType), row.symbol)
            .catch(() => null)
        : null;
    return {
      ...this.view(row, summary),
      level_prices: summary.levels,
      orders,
      price,
      stopped_at: row.stoppedAt?.toISOString() ?? null,
      stop_reason: row.stopReason,
    };
  }
}
