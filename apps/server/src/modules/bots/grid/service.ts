import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  DERIVATIVES_MESSAGES,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  GRID_MAX_LEVELS,
  GRID_MAX_STEP_PCT,
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
  createGridBot,
  gridBot,
  GridConfigError,
  gridLevelPrices,
  gridLevels,
  gridSlotQty,
  gridSummary,
  type GridConfig,
  type GridState,
  type GridSummary,
} from '@bytx/engine';
import type { AppContext } from '../../../context';
import { badRequest, HttpError, notFound } from '../../../lib/errors';
import { parseLooseNumber, problemText } from '../bot-input';
import type { BotRow, BotsRepository } from '../bots.repository';
import { minCostOf, type BotsService } from '../bots.service';
import { derivativesOf, isDerivatives, settleOf, venueSymbol, type DerivativesMarket } from '../derivatives';
import { dcaMarketRules } from '../market-rules';
import { strategyIdOf, type BotRunner } from '../runner';

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
const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;
const isEmpty = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && asciiTrim(v) === '');
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

/** The number of levels low × (1 + step)^i ≤ high (before price-step rounding): the count a message names. */
function levelCount(low: number, high: number, stepPct: number): number {
  return Math.floor(Math.log(high / low) / Math.log(1 + stepPct / 100) + 1e-9) + 1;
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
    const { high, low, step } = this.rangeOf(body);
    const type = isEmpty(body.marketType) ? 'Spot' : parseMarketType(body.marketType);
    if (!type) throw badRequest(GRID_MESSAGES.badMarketType, { field: 'marketType' });
    const pair = await this.listedPair(exchange, body.pair ?? '');
    const market = await this.marketOf(exchange, pair, type);
    let price = isEmpty(body.price) ? null : parseLooseNumber(body.price);
    if (price !== null && (price <= 0 || price > LIMITS.maxPrice)) {
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Price' }), { field: 'price' });
    }
    price ??= await this.bots.priceOf(exchange, venueSymbol(pair, type), pair);
    this.checkLevelCount(low, high, step);
    const g = gridLevels(price, low, high, step, { priceStep: market.priceStep });
    return {
      ok: true,
      buyLevels: [...g.buyLevels].reverse(),
      sellLevels: g.sellLevels,
      levels: g.levels,
      price,
    };
  }

  /** High, low and step of a form, parsed and checked in the spec's order (rules 5 and 6). */
  private rangeOf(body: { highPrice?: unknown; lowPrice?: unknown; stepPercentage?: unknown }) {
    const high = parseLooseNumber(body.highPrice);
    const low = parseLooseNumber(body.lowPrice);
    const step = parseLooseNumber(body.stepPercentage);
    if (high === null)
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'High Price' }), {
        field: 'highPrice',
      });
    if (low === null)
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Low Price' }), { field: 'lowPrice' });
    if (step === null)
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Step %' }), {
        field: 'stepPercentage',
      });
    if (!(low < high)) throw badRequest(GRID_MESSAGES.lowNotBelowHigh, { field: 'lowPrice' });
    if (!(step > 0)) throw badRequest(GRID_MESSAGES.stepNotPositive, { field: 'stepPercentage' });
    return { high, low, step };
  }

  /** Bounds checked after the spec's rules (its rule 7, the connection, comes first). */
  private checkBounds(high: number, low: number, step: number) {
    if (low <= 0)
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Low Price' }), { field: 'lowPrice' });
    if (high > LIMITS.maxPrice) {
      throw badRequest(fillMessage(GRID_MESSAGES.tooHigh, { field: 'High Price', max: LIMITS.maxPrice }), {
        field: 'highPrice',
      });
    }
    if (step > GRID_MAX_STEP_PCT) {
      throw badRequest(fillMessage(GRID_MESSAGES.stepTooHigh, { max: GRID_MAX_STEP_PCT }), {
        field: 'stepPercentage',
      });
    }
  }

  private checkLevelCount(low: number, high: number, step: number) {
    if (low <= 0 || step > GRID_MAX_STEP_PCT) this.checkBounds(high, low, step);
    const n = levelCount(low, high, step);
    if (n > GRID_MAX_LEVELS) {
      throw badRequest(
        fillMessage(GRID_MESSAGES.tooManyLevels, { levels: n, low, high, step, max: GRID_MAX_LEVELS }),
        { field: 'stepPercentage' },
      );
    }
  }

  private async listedPair(exchange: string, pair: string): Promise<string> {
    const listed = await this.bots.market.listedSymbol(exchange, pair).catch(() => null);
    if (!listed || listed.includes(':')) {
      throw badRequest(
        fillMessage(GRID_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
        { field: 'pair' },
      );
    }
    return listed;
  }

  private async marketOf(exchange: string, pair: string, type: MarketType): Promise<DerivativesMarket> {
    const m: DerivativesMarket | null = await this.bots.market
      .market(exchange, venueSymbol(pair, type))
      .catch(() => null);
    if (!m || !m.active || (type === 'Margin' && m.margin !== true)) {
      if (type === 'Spot') {
        throw badRequest(
          fillMessage(GRID_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
          { field: 'pair' },
        );
      }
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.noMarket, { exchange: exchangeDisplayName(exchange), type, pair }),
        { field: 'marketType' },
      );
    }
    return m;
  }

  /**
   * POST /api/gridbot/start: the spec's checks in its order with its messages (part 2 §5), then ours
   * (bounds, market type, position, leverage, the levels and the funds they need, with the numbers),
   * then the bot is created and run until its first decisions are carried out.
   */
  async start(userId: string, body: GridStartBody): Promise<{ bot: GridBotView; message: string }> {
    const who = body.user ?? body.user_id;
    if (isEmpty(who) || who === 'anonimo') throw badRequest(GRID_MESSAGES.noSession);
    const exchangeRaw = (body.exchange ?? '').trim().toLowerCase();
    if (!exchangeRaw) throw badRequest(GRID_MESSAGES.noExchange, { field: 'exchange' });
    if (isEmpty(body.pair)) throw badRequest(GRID_MESSAGES.noPair, { field: 'pair' });
    const fields = [
      body.highPrice,
      body.lowPrice,
      body.amountPerLevel,
      body.stepPercentage,
      body.profitCurrency,
    ];
    if (fields.some(isEmpty)) throw badRequest(GRID_MESSAGES.incomplete);
    const amount = parseLooseNumber(body.amountPerLevel);
    if (amount === null) {
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Amount per level' }), {
        field: 'amountPerLevel',
      });
    }
    const { high, low, step } = this.rangeOf(body);
    const exchange = exchangeRaw;
    const connected =
      (EXCHANGE_KEYS as readonly string[]).includes(exchange) &&
      exchange !== 'bybit_testnet' &&
      (await this.bots.venues.connectionKind(userId, exchange)) !== null;
    if (!connected) throw badRequest(GRID_MESSAGES.notConnected, { field: 'exchange' });

    this.checkBounds(high, low, step);
    if (amount <= 0) {
      throw badRequest(fillMessage(GRID_MESSAGES.notANumber, { field: 'Amount per level' }), {
        field: 'amountPerLevel',
      });
    }
    if (amount > LIMITS.maxAmount) {
      throw badRequest(
        fillMessage(GRID_MESSAGES.tooHigh, { field: 'Amount per level', max: LIMITS.maxAmount }),
        {
          field: 'amountPerLevel',
        },
      );
    }
    const profit = String(body.profitCurrency).trim().toLowerCase();
    if (profit !== 'quote' && profit !== 'base') {
      throw badRequest(GRID_MESSAGES.badProfitCurrency, { field: 'profitCurrency' });
    }
    const type = isEmpty(body.marketType) ? 'Spot' : parseMarketType(body.marketType);
    if (!type) throw badRequest(GRID_MESSAGES.badMarketType, { field: 'marketType' });
    const position = (
      isEmpty(body.position) ? 'long' : String(body.position).trim().toLowerCase()
    ) as GridPosition;
    if (!['long', 'short', 'neutral'].includes(position)) {
      throw badRequest(GRID_MESSAGES.badPosition, { field: 'position' });
    }
    if (position !== 'long' && !isDerivatives(type)) {
      throw badRequest(fillMessage(GRID_MESSAGES.positionNeedsDerivatives, { position }), {
        field: 'position',
      });
    }
    let leverageSent: number | undefined;
    if (!isEmpty(body.leverage)) {
      const l = parseLooseNumber(body.leverage);
      if (l === null || !Number.isInteger(l) || l < LIMITS.minLeverage || l > LIMITS.maxLeverage) {
        throw badRequest(
          `Leverage must be a whole number from ${LIMITS.minLeverage} to ${LIMITS.maxLeverage}.`,
          { field: 'leverage' },
        );
      }
      leverageSent = l;
    }
    const pair = await this.listedPair(exchange, body.pair ?? '');
    const traded = isDerivatives(type)
      ? await this.bots.derivativesMarket(userId, exchange, pair, type, leverageSent)
      : { market: await this.marketOf(exchange, pair, type), marketSymbol: pair, leverage: 1 };
    const market = traded.market;
    const price = await this.bots.priceOf(exchange, traded.marketSymbol, pair);

    // The levels: not too many, at least one slot, each order at or above the market's minimum.
    this.checkLevelCount(low, high, step);
    const levels = gridLevelPrices(low, high, step, market.priceStep);
    if (levels.length < 2) {
      throw badRequest(fillMessage(GRID_MESSAGES.noLevels, { low, high, step }), { field: 'stepPercentage' });
    }
    const rules = dcaMarketRules(market);
    const config: GridConfig = {
      symbol: pair,
      low,
      high,
      stepPct: step,
      amountPerLevel: amount,
      position,
      profitCurrency: profit,
      derivatives: isDerivatives(type),
      market: rules,
    };
    this.checkMinimum(config, levels, market, type, pair, traded.marketSymbol);
    await this.checkFunds(userId, exchange, config, levels, price, type, market, traded.leverage);

    const alreadyActive = await this.repo.activeFor(userId, exchange, pair, GRID);
    if (alreadyActive) {
      throw new HttpError(409, fillMessage(GRID_MESSAGES.alreadyActive, { exchange, symbol: pair }));
    }
    await this.bots.checkOneDerivativesBot(userId, exchange, pair, type);
    const cap = this.bots.startCap();
    if ((await this.repo.countActive(userId, cap.except)) >= cap.max) throw cap.full();
    await this.bots.applyLeverage(userId, exchange, type, traded.marketSymbol, traded.leverage);

    const id = randomUUID();
    let state: GridState;
    try {
      state = createGridBot(strategyIdOf(id), config);
    } catch (err) {
      if (err instanceof GridConfigError) throw badRequest(err.message);
      throw err;
    }
    const cfgJson: GridConfigJson = {
      low,
      high,
      step,
      amount_per_level: amount,
      position,
      profit_currency: profit,
      leverage: traded.leverage,
    };
    let row: BotRow;
    try {
      row = await this.repo.insertBot(
        {
          id,
          userId,
          kind: GRID,
          exchange,
          symbol: pair,
          marketType: type,
          leverage: traded.leverage,
          config: cfgJson,
          state,
          status: 'active',
          leasedBy: this.ctx.config.BOT_RUNNER ? this.runner.deps.runnerId : null,
          leaseUntil: this.ctx.config.BOT_RUNNER ? new Date(Date.now() + 30_000) : null,
        },
        cap,
      );
    } catch (err) {
      throw this.bots.uniqueViolation(err, exchange, pair, type, GRID_MESSAGES.alreadyActive) ?? err;
    }
    const after = await this.bots.launch(id, GRID_MESSAGES.startFailedReason);
    if (after) row = after;
    return { bot: this.view(row), message: GRID_MESSAGES.started };
  }

  /** Every order of the grid must reach the market's minimum: refused with the amount per level it needs. */
  private checkMinimum(
    config: GridConfig,
    levels: number[],
    market: DerivativesMarket,
    type: MarketType,
    pair: string,
    marketSymbol: string,
  ) {
    const quote = pair.split('/')[1] ?? '';
    if (type === 'Inverse') {
      const min = minCostOf(market, type, levels[0] ?? 0);
      if (config.amountPerLevel < min) {
        throw badRequest(
          fillMessage(GRID_MESSAGES.belowMinCost, {
            min: ceil2(min),
            quote,
            symbol: marketSymbol,
            price: levels[0] ?? 0,
          }),
          { field: 'amountPerLevel' },
        );
      }
      return;
    }
    let worst: { need: number; price: number } | null = null;
    for (let i = 0; i + 1 < levels.length; i++) {
      const level = levels[i]!;
      const qty = gridSlotQty(config, level);
      if (qty >= market.minAmount && qty > 0 && qty * level >= market.minCost - 1e-12) continue;
      // What this slot needs: the minimum at its level, plus one amount step lost to rounding down.
      const need = Math.max(market.minCost, market.minAmount * level) + market.amountStep * level;
      if (!worst || need > worst.need) worst = { need, price: level };
    }
    if (worst) {
      throw badRequest(
        fillMessage(GRID_MESSAGES.belowMinCost, {
          min: ceil2(worst.need),
          quote,
          symbol: marketSymbol,
          price: worst.price,
        }),
        { field: 'amountPerLevel' },
      );
    }
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
