/**
 * Why this file is ~870 lines: manual trading (spot and futures orders, favourites, funding, market info)
 * grew here beside the bots' module. Moving it to modules/trading, split by concern, is issue 39 point 4
 * (open); add new trading calls there, not here.
 */
import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  SPOT,
  SPOT_MESSAGES,
  type FuturesFundingResponse,
  type SpotCancelResponse,
  type SpotFavoritesResponse,
  type SpotFill,
  type SpotMarketResponse,
  type SpotOrderBody,
  type SpotOrderPreview,
  type SpotOrderResponse,
  type SpotOrdersResponse,
  type SpotOrderView,
} from '@bytx/contract';
import {
  createManualOrder,
  MANUAL_ACTIONS,
  MANUAL_KIND,
  ManualConfigError,
  manualSummary,
  roundDownToStep,
  roundToStep,
  roundUpToStep,
  type ManualConfig,
  type ManualState,
  type ManualSummary,
} from '@bytx/engine';
import { money, VenueError, type Venue } from '@bytx/venues';
import type { AppContext } from '../../../context';
import { badRequest, conflict, HttpError, notFound, tooManyRequests } from '../../../lib/errors';
import { venueErrorAnswer } from '../../../lib/venue-errors';
import { parseLooseNumber } from '../bot-input';
import type { BotRow, BotsRepository } from '../bots.repository';
import type { BotsService } from '../bots.service';
import { settleOf, venueSymbol, type DerivativesMarket } from '../derivatives';
import { dcaMarketRules } from '../market-rules';
import { strategyIdOf, type BotRunner } from '../runner';
import type { ManualFilter, ManualRepository } from './repository';

/** What a manual order's `bots.config` keeps: the order as the user placed it, after rounding. */
export interface ManualOrderJson {
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: number | null;
  quantity: number;
  tp: number | null;
  sl: number | null;
  reduce_only: boolean;
  /** POST /api/futures/close: the reduce-only market order closing a whole position. */
  close?: boolean;
}

/** Texts of ours for inputs the spec's panel never sends wrong (kept beside SPOT_MESSAGES' style). */
export const MANUAL_INPUT_MESSAGES = {
  badReduceOnly: '❌ reduce_only must be true or false.',
  badDryRun: '❌ dry_run must be true or false.',
  noFunding: '❌ {exchange} does not give funding rates through its API.',
  noPositions: '❌ {exchange} does not give positions through its API.',
} as const;

/** The market an order goes to: the user's pair on the spot market, or its linear perpetual (futures). */
interface Target {
  exchange: string;
  /** The user's pair, 'BTC/USDT' (bots.symbol). */
  pair: string;
  /** The exchange's symbol: the pair, or 'BTC/USDT:USDT'. */
  marketSymbol: string;
  swap: boolean;
  market: DerivativesMarket;
  base: string;
  quote: string;
}

/** An order checked and rounded: what Confirm sends (dry_run answers it as the preview). */
interface Prepared {
  target: Target;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  /** The limit price (rounded), null for a market order. */
  price: number | null;
  /** The price the checks used: the limit price, or the market price read now. */
  entry: number;
  /** The market price read now. */
  marketPrice: number;
  quantity: number;
  value: number;
  tp: number | null;
  sl: number | null;
  reduceOnly: boolean;
  leverage: number;
}

const PAIR = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})$/;
const SYMBOL = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})(?::([A-Z0-9]{1,20}))?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OPEN_ENTRY: readonly string[] = ['pending', 'open', 'partially_filled'];

const isEmpty = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && asciiTrim(v) === '');
const word = (v: unknown) => (typeof v === 'string' ? asciiTrim(v).toLowerCase() : null);

/** A loose boolean input (true, false, 'true', 'false', 1, 0, '1', '0'; absent or empty: false), else null. */
function looseBool(v: unknown): boolean | null {
  if (isEmpty(v) || v === false || v === 0) return false;
  if (v === true || v === 1) return true;
  const w = word(v);
  if (w === 'true' || w === '1') return true;
  if (w === 'false' || w === '0') return false;
  return null;
}

/** `x` with `d` decimals, rounded up (what is required) or down (what is available). */
function fixed(x: number, d: number, dir: 'up' | 'down'): string {
  const f = 10 ** d;
  const v = dir === 'up' ? Math.ceil(x * f - 1e-7) / f : Math.floor(x * f + 1e-7) / f;
  return v.toFixed(d);
}

/**
 * The spot and futures screens' orders (issue 16, docs/trading.md). Every order is one bot of kind
 * 'manual' run by the bot runner: the order is journalled before it is sent and reconciled after a
 * crash, its take profit rests on the exchange once the entry fills and its stop loss is watched by the
 * runner. The checks run in the order of docs/trading.md with the contract's SPOT_MESSAGES; a bad
 * input changes nothing.
 */
export class ManualService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly orders: ManualRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
  ) {}

  // --- inputs -------------------------------------------------------------------------------------------

  /** The exchange sent, known and connected for this user; else badExchange / notConnected. */
  private async connectedExchange(userId: string, raw: unknown): Promise<string> {
    if (isEmpty(raw)) throw badRequest(SPOT_MESSAGES.badExchange, { field: 'exchange' });
    const exchange = asciiTrim(String(raw)).toLowerCase();
    const known = (EXCHANGE_KEYS as readonly string[]).includes(exchange);
    if (!known || (await this.bots.venues.connectionKind(userId, exchange)) === null) {
      throw badRequest(SPOT_MESSAGES.notConnected, { field: 'exchange' });
    }
    return exchange;
  }

  /** A known exchange key (lists of past orders need no connection); else notConnected. */
  private knownExchange(raw: string): string {
    const exchange = asciiTrim(raw).toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(exchange)) {
      throw badRequest(SPOT_MESSAGES.notConnected, { field: 'exchange' });
    }
    return exchange;
  }

  /**
   * The market a symbol names on the exchange: 'BTC/USDT' its spot pair, 'BTC/USDT:USDT' the linear
   * perpetual (futures; `swapOnly` reads a plain pair as its perpetual too). Not listed (or not active)
   * → notListed.
   */
  private async target(exchange: string, raw: unknown, swapOnly = false): Promise<Target> {
    if (isEmpty(raw)) throw badRequest(SPOT_MESSAGES.badFavorite, { field: 'symbol' });
    const sent = asciiTrim(String(raw)).toUpperCase();
    const notListed = () =>
      badRequest(
        fillMessage(SPOT_MESSAGES.notListed, { symbol: sent, exchange: exchangeDisplayName(exchange) }),
        { field: 'symbol' },
      );
    const m = SYMBOL.exec(sent);
    if (!m) throw notListed();
    const [, base = '', quote = '', settle] = m;
    const pair = `${base}/${quote}`;
    const swap = swapOnly || settle !== undefined;
    if (swap) {
      // A linear perpetual settles in its quote: BTC/USDT:USDT (an inverse swap is not traded here).
      if (settle !== undefined && settle !== quote) throw notListed();
      const marketSymbol = venueSymbol(pair, 'Perpetual');
      const market: DerivativesMarket | null = await this.bots.market
        .market(exchange, marketSymbol)
        .catch(() => null);
      if (!market || !market.active || market.type !== 'swap' || market.inverse) throw notListed();
      return { exchange, pair, marketSymbol, swap, market, base, quote };
    }
    const listed = await this.bots.market.listedSymbol(exchange, pair).catch(() => null);
    if (!listed || listed.includes(':')) throw notListed();
    const market: DerivativesMarket | null = await this.bots.market
      .market(exchange, listed)
      .catch(() => null);
    if (!market || !market.active) throw notListed();
    return { exchange, pair: listed, marketSymbol: listed, swap: false, market, base, quote };
  }

  /** The current price of the traded market, null when it cannot be read. */
  private async priceNow(t: Target): Promise<number | null> {
    const p = await this.bots.priceOf(t.exchange, t.marketSymbol, t.pair).catch(() => null);
    return p !== null && Number.isFinite(p) && p > 0 ? p : null;
  }

  /** The user's stored leverage of the pair (GET /api/set_leverage), within the market's maximum. */
  private async leverageOf(userId: string, t: Target): Promise<number> {
    if (!t.swap) return 1;
    const stored = await this.bots.leverage(userId, t.exchange, t.pair);
    const checked = await this.bots.derivativesMarket(
      userId,
      t.exchange,
      t.pair,
      'Perpetual',
      stored.leverage,
    );
    return checked.leverage;
  }

  /** The base units one contract is (1 on spot and on the simulated linear swaps). */
  private static contract(t: Target): number {
    return t.swap ? (t.market.contractSize ?? 1) : 1;
  }

  /**
   * Every check of an order in the documented order (docs/trading.md "Order rules"), then the rounding
   * to the market's steps. Answers what would be sent; throws the first problem with its message.
   */
  private async prepare(userId: string, body: SpotOrderBody): Promise<Prepared> {
    const exchange = await this.connectedExchange(userId, body.exchange);
    const target = await this.target(exchange, body.symbol);
    const { market, base, quote } = target;
    const display = { symbol: target.marketSymbol, exchange: exchangeDisplayName(exchange) };

    const s = word(body.side);
    const side = s === 'buy' || s === 'long' ? 'buy' : s === 'sell' || s === 'short' ? 'sell' : null;
    if (!side) throw badRequest(SPOT_MESSAGES.badSide, { field: 'side' });
    const ty = word(body.type);
    const type = ty === 'limit' || ty === 'market' ? ty : null;
    if (!type) throw badRequest(SPOT_MESSAGES.badType, { field: 'type' });
    const reduceOnly = looseBool(body.reduce_only);
    if (reduceOnly === null) throw badRequest(MANUAL_INPUT_MESSAGES.badReduceOnly, { field: 'reduce_only' });
    if (reduceOnly && !target.swap) throw badRequest(SPOT_MESSAGES.reduceOnlySpot, { field: 'reduce_only' });

    const marketPrice = await this.priceNow(target);
    if (marketPrice === null) throw new HttpError(503, SPOT_MESSAGES.noPrice);

    let price: number | null = null;
    if (type === 'limit') {
      const p = parseLooseNumber(body.price);
      if (p === null || !(p > 0) || p > LIMITS.maxPrice) {
        throw badRequest(SPOT_MESSAGES.badLimitPrice, { field: 'price' });
      }
      price = p;
    }
    const q = parseLooseNumber(body.quantity);
    if (q === null || !(q > 0) || q > LIMITS.maxAmount) {
      throw badRequest(SPOT_MESSAGES.badQuantity, { field: 'quantity' });
    }
    const exit = (v: unknown, field: 'tp' | 'sl'): number | null => {
      if (isEmpty(v)) return null;
      const n = parseLooseNumber(v);
      if (n === null || !(n > 0) || n > LIMITS.maxPrice) throw badRequest(SPOT_MESSAGES.badTpSl, { field });
      return n;
    };
    let tp = exit(body.tp, 'tp');
    let sl = exit(body.sl, 'sl');
    const sides = (entry: number) => {
      if (tp !== null && (side === 'buy' ? tp <= entry : tp >= entry)) {
        throw badRequest(side === 'buy' ? SPOT_MESSAGES.buyTpNotAbove : SPOT_MESSAGES.sellTpNotBelow, {
          field: 'tp',
        });
      }
      if (sl !== null && (side === 'buy' ? sl >= entry : sl <= entry)) {
        throw badRequest(side === 'buy' ? SPOT_MESSAGES.buySlNotBelow : SPOT_MESSAGES.sellSlNotAbove, {
          field: 'sl',
        });
      }
    };
    sides(price ?? marketPrice);

    // Rounding to the market's steps: quantity down, a buy's limit price down and a sell's up (never a
    // worse price than asked), TP and SL to the nearest step; then the same checks on what is sent.
    const quantity = roundDownToStep(q, market.amountStep);
    if (price !== null) {
      price =
        side === 'buy' ? roundDownToStep(price, market.priceStep) : roundUpToStep(price, market.priceStep);
      if (!(price > 0)) throw badRequest(SPOT_MESSAGES.badLimitPrice, { field: 'price' });
    }
    if (tp !== null) tp = roundToStep(tp, market.priceStep);
    if (sl !== null) sl = roundToStep(sl, market.priceStep);
    if (tp !== null && !(tp > 0)) throw badRequest(SPOT_MESSAGES.badTpSl, { field: 'tp' });
    if (sl !== null && !(sl > 0)) throw badRequest(SPOT_MESSAGES.badTpSl, { field: 'sl' });
    const entry = price ?? marketPrice;
    sides(entry);
    if (!(quantity > 0)) throw badRequest(SPOT_MESSAGES.badQuantity, { field: 'quantity' });
    const value = money(quantity * ManualService.contract(target) * entry);
    if (
      !target.swap &&
      type === 'limit' &&
      (SPOT.quotes as readonly string[]).includes(quote) &&
      value < SPOT.minValue
    ) {
      throw badRequest(fillMessage(SPOT_MESSAGES.minValue, { min: SPOT.minValue, quote }), {
        field: 'quantity',
      });
    }
    if (market.minAmount > 0 && quantity < market.minAmount) {
      throw badRequest(
        fillMessage(SPOT_MESSAGES.belowMinAmount, { ...display, min: market.minAmount, base }),
        {
          field: 'quantity',
        },
      );
    }
    if (market.minCost > 0 && value < market.minCost) {
      throw badRequest(fillMessage(SPOT_MESSAGES.belowMinCost, { ...display, min: market.minCost, quote }), {
        field: 'quantity',
      });
    }

    const leverage = await this.leverageOf(userId, target);
    const venue = await this.bots.venues.forUser(userId, exchange);
    if (reduceOnly) {
      // Reduce-only needs an open position on the other side (a sell reduces a long, a buy a short).
      const wanted = side === 'sell' ? 'long' : 'short';
      if (venue.fetchPositions) {
        const positions = await venue.fetchPositions([target.marketSymbol]);
        const pos = positions.find((p) => p.symbol === target.marketSymbol && p.contracts > 0);
        if (!pos || pos.side !== wanted) {
          throw badRequest(
            fillMessage(SPOT_MESSAGES.reduceOnlyNothing, { side: wanted, symbol: target.marketSymbol }),
            { field: 'reduce_only' },
          );
        }
      }
    } else {
      await this.checkBalance(venue, target, side, quantity, value, leverage);
    }
    if ((await this.orders.countOpen(userId)) >= SPOT.maxOpenOrders) throw this.tooManyOpen();
    return { target, side, type, price, entry, marketPrice, quantity, value, tp, sl, reduceOnly, leverage };
  }

  /**
   * Free funds for the order: a spot buy needs its value in the quote, a spot sell its quantity in the
   * base (spot wallet); a futures order (either side opens or adds) its margin, value ÷ leverage, in the
   * swap wallet's settle currency. Required is rounded up and available down (quote 2 decimals, base 6).
   */
  private async checkBalance(
    venue: Venue,
    t: Target,
    side: 'buy' | 'sell',
    quantity: number,
    value: number,
    leverage: number,
  ): Promise<void> {
    const wallet = await venue.fetchBalance(t.swap ? { type: 'swap' } : undefined);
    let need: number;
    let free: number;
    let decimals: number;
    if (t.swap) {
      need = value / leverage;
      free = wallet[settleOf(t.market, 'Perpetual')]?.free ?? 0;
      decimals = SPOT.valueDecimals;
    } else if (side === 'buy') {
      need = value;
      free = wallet[t.quote]?.free ?? 0;
      decimals = SPOT.valueDecimals;
    } else {
      need = quantity;
      free = wallet[t.base]?.free ?? 0;
      decimals = SPOT.quantityDecimals;
    }
    if (free + 1e-12 < need) {
      throw badRequest(
        fillMessage(SPOT_MESSAGES.insufficient, {
          required: fixed(need, decimals, 'up'),
          available: fixed(Math.max(0, free), decimals, 'down'),
        }),
        { field: 'quantity' },
      );
    }
  }

  private tooManyOpen(): HttpError {
    return tooManyRequests(fillMessage(SPOT_MESSAGES.tooManyOpen, { max: SPOT.maxOpenOrders }));
  }

  // --- orders -------------------------------------------------------------------------------------------

  /** POST /api/spot/order: checks and rounds, then (unless dry_run) places the order through the runner. */
  async order(userId: string, body: SpotOrderBody): Promise<SpotOrderResponse> {
    const dryRun = looseBool(body.dry_run);
    if (dryRun === null) throw badRequest(MANUAL_INPUT_MESSAGES.badDryRun, { field: 'dry_run' });
    return this.guarded(async () => {
      const p = await this.prepare(userId, body);
      if (dryRun) return { success: true, preview: this.preview(p), message: '' };
      const { row, state } = await this.submit(userId, p, {});
      const order = this.view(row, state);
      const filled = order.status === 'filled';
      const message = fillMessage(filled ? SPOT_MESSAGES.filled : SPOT_MESSAGES.placed, {
        side: order.side,
        quantity: filled ? order.filled : order.quantity,
        base: p.target.base,
        price: filled ? (order.average ?? p.entry) : p.entry,
        quote: p.target.quote,
      });
      return { success: true, order, message };
    });
  }

  /** Answers an expected refusal as it is; any other failure as the spec's '❌ Error executing trade.'. */
  private async guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (err instanceof VenueError) throw venueErrorAnswer(err);
      this.ctx.log.error({ err }, 'manual order failed');
      throw new HttpError(500, SPOT_MESSAGES.tradeError);
    }
  }

  private preview(p: Prepared): SpotOrderPreview {
    return {
      exchange: p.target.exchange,
      symbol: p.target.marketSymbol,
      side: p.side,
      type: p.type,
      price: p.entry,
      quantity: p.quantity,
      value: p.value,
      fee: money(p.value * SPOT.feeRate),
      net: money(p.value * SPOT.netFactor),
      tp: p.tp,
      sl: p.sl,
      base: p.target.base,
      quote: p.target.quote,
    };
  }

  /**
   * The order as a bot of kind 'manual': inserted (within the open-orders limit), then its entry sent
   * through the runner (`manual_place`). An entry the exchange refused → 422 '❌ Failed to execute
   * order.' with the exchange's reason; the order is kept as rejected (GET /api/spot/orders `recent`).
   */
  private async submit(
    userId: string,
    p: Prepared,
    extra: { close?: boolean },
    cap: number = SPOT.maxOpenOrders,
  ): Promise<{ row: BotRow; state: ManualState }> {
    const { target } = p;
    const id = randomUUID();
    const config: ManualConfig = {
      symbol: target.marketSymbol,
      side: p.side,
      orderType: p.type,
      ...(p.price !== null ? { price: p.price } : {}),
      amount: p.quantity,
      tp: p.tp,
      sl: p.sl,
      rules: dcaMarketRules(target.market),
      derivatives: target.swap,
      reduceOnly: p.reduceOnly,
    };
    let state: ManualState;
    try {
      state = createManualOrder(strategyIdOf(id), config);
    } catch (err) {
      if (err instanceof ManualConfigError) throw badRequest(err.message);
      throw err;
    }
    state = { ...state, lastPrice: p.entry, lastTs: Date.now() };
    const json: ManualOrderJson = {
      side: p.side,
      type: p.type,
      price: p.price,
      quantity: p.quantity,
      tp: p.tp,
      sl: p.sl,
      reduce_only: p.reduceOnly,
      ...(extra.close ? { close: true } : {}),
    };
    // The leverage is set on the exchange before an order that may open or add to a position (the
    // runner sets it again when it trades); a reduce-only order posts no margin.
    if (target.swap && !p.reduceOnly) {
      await this.bots.applyLeverage(userId, target.exchange, 'Perpetual', target.marketSymbol, p.leverage);
    }
    const runsHere = this.ctx.config.BOT_RUNNER;
    await this.orders.insertOrder(
      {
        id,
        userId,
        kind: MANUAL_KIND,
        exchange: target.exchange,
        symbol: target.pair,
        marketType: target.swap ? 'Perpetual' : 'Spot',
        leverage: p.leverage,
        config: json,
        state,
        status: 'active',
        leasedBy: runsHere ? this.runner.deps.runnerId : null,
        leaseUntil: runsHere ? new Date(Date.now() + 30_000) : null,
      },
      cap,
      () => this.tooManyOpen(),
    );
    try {
      state = await this.runner.act<ManualState>(id, {
        type: 'action',
        name: MANUAL_ACTIONS.place,
        // The market price read now: a market order's stop loss is watched from it.
        params: { price: p.marketPrice },
        ts: Date.now(),
      });
    } catch (err) {
      // Nothing journalled means nothing was sent: the order ends here. Otherwise the runner's
      // reconcile settles what the exchange did with it (the order stays open until then).
      if ((await this.repo.ordersOf(id)).length === 0) {
        await this.bots.failStart(id, err instanceof Error ? err.message : String(err));
      }
      throw err;
    }
    const h = this.runner.handle(id);
    if (h?.pauseDone) await h.pauseDone;
    let row = await this.repo.byId(id);
    if (!row) throw new Error(`manual order ${id} vanished`);
    const sent = ['open', 'cancelling', 'filled', 'cancelled'].includes(
      this.stateOf(row, state).entry?.status ?? '',
    );
    if (row.problem && !sent) {
      // The key was refused or the pair delisted before the entry was sent: no order, an error. (An
      // entry the exchange took stays with its order; the paused order resumes when the problem goes.)
      const reason = row.problemDetail ?? row.problem;
      await this.bots.failStart(id, reason);
      row = (await this.repo.byId(id)) ?? row;
      throw new HttpError(422, SPOT_MESSAGES.executeFailed, {
        reason,
        order: this.view(row, this.stateOf(row)),
      });
    }
    state = this.stateOf(row, state);
    const s = this.summary(row, state);
    if (s.entryStatus === 'rejected') {
      throw new HttpError(422, SPOT_MESSAGES.executeFailed, {
        reason: s.error ?? state.entry?.rejectMessage ?? row.stopReason ?? 'the exchange refused the order',
        order: this.view(row, state),
      });
    }
    return { row, state };
  }

  /** The live state of a running order, else the stored one (`fallback`: what the runner answered). */
  private stateOf(row: BotRow, fallback?: ManualState): ManualState {
    const live = this.runner.handle(row.id)?.state as ManualState | undefined;
    if (live) return live;
    if (fallback && row.status === 'active') return fallback;
    return row.state as ManualState;
  }

  private summary(row: BotRow, state: ManualState): ManualSummary {
    let s: ManualSummary | null = null;
    try {
      s = manualSummary(state);
    } catch {
      // A state that cannot be read shows the order as the row has it.
    }
    const fallback: ManualSummary = {
      entryStatus: row.status === 'active' ? 'pending' : 'rejected',
      exitState: 'none',
      filled: 0,
      average: null,
      fee: 0,
      cost: 0,
      held: 0,
      pnl: null,
      error: row.stopReason,
      open: row.status === 'active',
    };
    const out = s ?? fallback;
    // An order that ended before its entry was answered (its start failed) was never placed.
    if (row.status !== 'active' && out.entryStatus === 'pending') return { ...out, entryStatus: 'rejected' };
    return out;
  }

  view(row: BotRow, state: ManualState): SpotOrderView {
    const c = row.config as ManualOrderJson;
    const s = this.summary(row, state);
    const swap = row.marketType === 'Perpetual';
    const [, quote = ''] = row.symbol.split('/');
    return {
      id: row.id,
      exchange: row.exchange,
      symbol: swap ? venueSymbol(row.symbol, 'Perpetual') : row.symbol,
      market: swap ? 'swap' : 'spot',
      side: c.side,
      type: c.type,
      price: c.price,
      quantity: c.quantity,
      filled: s.filled,
      average: s.average,
      cost: s.cost,
      fee: s.fee,
      fee_currency: quote || null,
      status: s.entryStatus,
      reduce_only: c.reduce_only,
      tp: c.tp,
      sl: c.sl,
      exit_state: s.exitState,
      pnl: s.pnl,
      error: s.error,
      created_at: row.startedAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }

  /** The filter of a list: the exchange, and the market the symbol names (a swap symbol: futures). */
  private filter(userId: string, exchangeRaw: string, symbolRaw: string | undefined): ManualFilter {
    const exchange = this.knownExchange(exchangeRaw);
    if (symbolRaw === undefined || asciiTrim(symbolRaw) === '') return { userId, exchange };
    const sent = asciiTrim(symbolRaw).toUpperCase();
    const m = SYMBOL.exec(sent);
    if (!m || (m[3] !== undefined && m[3] !== m[2])) {
      throw badRequest(
        fillMessage(SPOT_MESSAGES.notListed, { symbol: sent, exchange: exchangeDisplayName(exchange) }),
        { field: 'symbol' },
      );
    }
    return {
      userId,
      exchange,
      pair: { symbol: `${m[1]}/${m[2]}`, marketType: m[3] === undefined ? 'Spot' : 'Perpetual' },
    };
  }

  /** GET /api/spot/orders: open orders, the recently ended and the last fills, newest first. */
  async list(userId: string, exchange: string, symbol: string | undefined): Promise<SpotOrdersResponse> {
    const f = this.filter(userId, exchange, symbol);
    const [open, ended, fills] = await Promise.all([
      this.orders.open(f),
      this.orders.ended(f, 50),
      this.orders.fills(f, SPOT.fillsLimit),
    ]);
    return {
      success: true,
      open: open.map((r) => this.view(r, this.stateOf(r))),
      recent: ended.map((r) => this.view(r, this.stateOf(r))),
      fills: fills.map((x): SpotFill => {
        const o = x.order;
        const close = (x.config as ManualOrderJson | null)?.close === true;
        const role =
          o.role === 'manual_entry'
            ? close
              ? 'close'
              : 'entry'
            : o.role === 'manual_tp'
              ? 'take_profit'
              : o.role === 'manual_sl'
                ? 'stop_loss'
                : 'close';
        const quantity = Number(o.filled);
        const price = Number(o.avgPrice ?? o.price ?? 0);
        const [, quote = ''] = x.botSymbol.split('/');
        return {
          id: o.clientOrderId,
          order_id: x.botId,
          symbol: x.marketType === 'Perpetual' ? venueSymbol(x.botSymbol, 'Perpetual') : x.botSymbol,
          side: o.side,
          role,
          price,
          quantity,
          value: money(quantity * price),
          fee: Number(o.fee),
          fee_currency: quote || null,
          time: o.updatedAt.toISOString(),
        };
      }),
    };
  }

  /** A manual order of this user (any status), else 404: another user's order is not revealed. */
  private async ownOrder(userId: string, id: string): Promise<BotRow> {
    const row = UUID.test(id) ? await this.repo.byId(id) : null;
    if (!row || row.userId !== userId || row.kind !== MANUAL_KIND)
      throw notFound(SPOT_MESSAGES.orderNotFound);
    return row;
  }

  /**
   * DELETE /api/spot/orders/{id}: an entry still open is cancelled (a part already filled stays held,
   * without exits); after the entry filled, its take profit is cancelled and its stop loss no longer
   * watched (the position is kept). Waits until the exchange confirmed the cancels.
   */
  async cancel(userId: string, id: string): Promise<SpotCancelResponse> {
    const row = await this.ownOrder(userId, id);
    const before = this.view(row, this.stateOf(row));
    if (row.status !== 'active') {
      throw conflict(fillMessage(SPOT_MESSAGES.notCancellable, { status: before.status }));
    }
    await this.bots.stop(row, 'cancel_only');
    const after = (await this.repo.byId(id)) ?? row;
    return {
      success: true,
      order: this.view(after, this.stateOf(after)),
      message: OPEN_ENTRY.includes(before.status) ? SPOT_MESSAGES.cancelled : SPOT_MESSAGES.exitsCancelled,
    };
  }

  // --- market, favourites, futures ----------------------------------------------------------------------

  /** GET /api/spot/market: steps, minimums, fees, price and the free balances the order would use. */
  async market(userId: string, exchangeRaw: string, symbolRaw: string): Promise<SpotMarketResponse> {
    const exchange = await this.connectedExchange(userId, exchangeRaw);
    const sent = asciiTrim(symbolRaw).toUpperCase();
    const m = SYMBOL.exec(sent);
    const swapSent = m?.[3] !== undefined;
    const t = await this.target(exchange, symbolRaw).catch((err: unknown) => {
      if (err instanceof HttpError && err.statusCode === 400) return null;
      throw err;
    });
    if (!t) {
      // Not listed: the pair list marks it; nothing to trade, nothing to read.
      return {
        success: true,
        exchange,
        symbol: sent,
        listed: false,
        base: m?.[1] ?? '',
        quote: m?.[2] ?? '',
        market: swapSent ? 'swap' : 'spot',
        amount_step: 0,
        price_step: 0,
        min_amount: 0,
        min_cost: 0,
        taker: 0,
        maker: 0,
        max_leverage: null,
        price: null,
        base_free: 0,
        quote_free: 0,
      };
    }
    const venue = await this.bots.venues.forUser(userId, exchange);
    const [price, wallet] = await Promise.all([
      this.priceNow(t),
      venue.fetchBalance(t.swap ? { type: 'swap' } : undefined),
    ]);
    const quoteCoin = t.swap ? settleOf(t.market, 'Perpetual') : t.quote;
    return {
      success: true,
      exchange,
      symbol: t.marketSymbol,
      listed: true,
      base: t.base,
      quote: t.quote,
      market: t.swap ? 'swap' : 'spot',
      amount_step: t.market.amountStep,
      price_step: t.market.priceStep,
      min_amount: t.market.minAmount,
      min_cost: t.market.minCost,
      taker: t.market.taker,
      maker: t.market.maker,
      max_leverage: t.swap ? Math.min(t.market.maxLeverage ?? LIMITS.maxLeverage, LIMITS.maxLeverage) : null,
      price,
      base_free: wallet[t.base]?.free ?? 0,
      quote_free: wallet[quoteCoin]?.free ?? 0,
    };
  }

  async favorites(userId: string): Promise<SpotFavoritesResponse> {
    return { success: true, favorites: await this.orders.favorites(userId) };
  }

  /** POST /api/spot/favorites: stars (or unstars) a pair such as BTC/USDT. */
  async setFavorite(
    userId: string,
    symbolRaw: string | undefined,
    favorite: boolean,
  ): Promise<SpotFavoritesResponse & { message: string }> {
    const symbol = asciiTrim(symbolRaw ?? '').toUpperCase();
    if (!PAIR.test(symbol)) throw badRequest(SPOT_MESSAGES.badFavorite, { field: 'symbol' });
    if (favorite) {
      if (!(await this.orders.addFavorite(userId, symbol, SPOT.maxFavorites))) {
        throw badRequest(fillMessage(SPOT_MESSAGES.tooManyFavorites, { max: SPOT.maxFavorites }));
      }
    } else {
      await this.orders.removeFavorite(userId, symbol);
    }
    return {
      success: true,
      favorites: await this.orders.favorites(userId),
      message: fillMessage(favorite ? SPOT_MESSAGES.favoriteAdded : SPOT_MESSAGES.favoriteRemoved, {
        symbol,
      }),
    };
  }

  /**
   * POST /api/futures/close: the whole position of the pair's perpetual closed by a reduce-only market
   * order. The take profits and stop-loss watches of the user's manual orders on that market are
   * cancelled first (nothing would be left for them to close).
   */
  async closePosition(userId: string, exchangeRaw: string, symbolRaw: string): Promise<SpotCancelResponse> {
    return this.guarded(async () => {
      const exchange = await this.connectedExchange(userId, exchangeRaw);
      const target = await this.target(exchange, symbolRaw, true);
      const venue = await this.bots.venues.forUser(userId, exchange);
      if (!venue.fetchPositions) {
        throw badRequest(
          fillMessage(MANUAL_INPUT_MESSAGES.noPositions, { exchange: exchangeDisplayName(exchange) }),
        );
      }
      const positions = await venue.fetchPositions([target.marketSymbol]);
      const pos = positions.find((p) => p.symbol === target.marketSymbol && p.contracts > 0);
      if (!pos) {
        throw badRequest(fillMessage(SPOT_MESSAGES.noPosition, { symbol: target.marketSymbol }));
      }
      const holding = await this.orders.open({
        userId,
        exchange,
        pair: { symbol: target.pair, marketType: 'Perpetual' },
      });
      for (const r of holding) {
        if (this.summary(r, this.stateOf(r)).held > 0) await this.bots.stop(r, 'cancel_only');
      }
      const price = (await this.priceNow(target)) ?? pos.markPrice;
      const side = pos.side === 'long' ? 'sell' : 'buy';
      const leverage = pos.leverage > 0 ? Math.round(pos.leverage) : 1;
      const { row, state } = await this.submit(
        userId,
        {
          target,
          side,
          type: 'market',
          price: null,
          entry: price,
          marketPrice: price,
          quantity: pos.contracts,
          value: money(pos.contracts * ManualService.contract(target) * price),
          tp: null,
          sl: null,
          reduceOnly: true,
          leverage,
        },
        { close: true },
        Number.MAX_SAFE_INTEGER,
      );
      return { success: true, order: this.view(row, state), message: SPOT_MESSAGES.closing };
    });
  }

  /** GET /api/futures/funding: the perpetual's funding rate, next funding time and mark price. */
  async funding(userId: string, exchangeRaw: string, symbolRaw: string): Promise<FuturesFundingResponse> {
    const exchange = await this.connectedExchange(userId, exchangeRaw);
    const target = await this.target(exchange, symbolRaw, true);
    const venue = await this.bots.venues.forUser(userId, exchange);
    if (!venue.fetchFundingRate) {
      throw badRequest(
        fillMessage(MANUAL_INPUT_MESSAGES.noFunding, { exchange: exchangeDisplayName(exchange) }),
      );
    }
    const [f, mark] = await Promise.all([venue.fetchFundingRate(target.marketSymbol), this.priceNow(target)]);
    return {
      success: true,
      exchange,
      symbol: target.marketSymbol,
      rate: f.rate,
      next_funding_time: f.nextFundingTime,
      mark_price: mark,
    };
  }
}
