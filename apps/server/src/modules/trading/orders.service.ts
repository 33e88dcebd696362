import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  exchangeDisplayName,
  fillMessage,
  SPOT,
  SPOT_MESSAGES,
  type SpotCancelResponse,
  type SpotOrderBody,
  type SpotOrderResponse,
  type SpotOrdersResponse,
} from '@bytx/contract';
import {
  createManualOrder,
  MANUAL_ACTIONS,
  MANUAL_KIND,
  ManualConfigError,
  type ManualConfig,
  type ManualState,
} from '@bytx/engine';
import { money } from '@bytx/venues';
import type { AppContext } from '../../context';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors';
import type { BotRow, BotsRepository } from '../bots/bots.repository';
import type { BotsService } from '../bots/bots.service';
import { dcaMarketRules } from '../bots/market-rules';
import { strategyIdOf, type BotRunner } from '../bots/runner';
import {
  contractSize,
  guarded,
  looseBool,
  MANUAL_INPUT_MESSAGES,
  SYMBOL,
  type TradingInputs,
} from './inputs';
import { preview, tooManyOpen, type OrderChecks, type Prepared } from './order-checks';
import { fillView, orderSummary, orderView, type ManualOrderJson } from './order-view';
import type { ManualFilter, ManualOrdersRepository } from './orders.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OPEN_ENTRY: readonly string[] = ['pending', 'open', 'partially_filled'];

/**
 * The spot and futures screens' orders (issue 16, docs/trading.md). Every order is one bot of kind
 * 'manual' run by the bot runner: the order is journalled before it is sent and reconciled after a
 * crash, its take profit rests on the exchange once the entry fills and its stop loss is watched by the
 * runner. The checks (order-checks.ts) run in the order of docs/trading.md with the contract's
 * SPOT_MESSAGES; a bad input changes nothing.
 */
export class ManualOrdersService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly orders: ManualOrdersRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
    private readonly inputs: TradingInputs,
    private readonly checks: OrderChecks,
  ) {}

  /** POST /api/spot/order: checks and rounds, then (unless dry_run) places the order through the runner. */
  async order(userId: string, body: SpotOrderBody): Promise<SpotOrderResponse> {
    const dryRun = looseBool(body.dry_run);
    if (dryRun === null) throw badRequest(MANUAL_INPUT_MESSAGES.badDryRun, { field: 'dry_run' });
    return guarded(this.ctx.log, async () => {
      const p = await this.checks.prepare(userId, body);
      if (dryRun) return { success: true, preview: preview(p), message: '' };
      const { row, state } = await this.submit(userId, p, {});
      const order = orderView(row, state);
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
      () => tooManyOpen(),
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
        order: orderView(row, this.stateOf(row)),
      });
    }
    state = this.stateOf(row, state);
    const s = orderSummary(row, state);
    if (s.entryStatus === 'rejected') {
      throw new HttpError(422, SPOT_MESSAGES.executeFailed, {
        reason: s.error ?? state.entry?.rejectMessage ?? row.stopReason ?? 'the exchange refused the order',
        order: orderView(row, state),
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

  /** The filter of a list: the exchange, and the market the symbol names (a swap symbol: futures). */
  private filter(userId: string, exchangeRaw: string, symbolRaw: string | undefined): ManualFilter {
    const exchange = this.inputs.knownExchange(exchangeRaw);
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
      open: open.map((r) => orderView(r, this.stateOf(r))),
      recent: ended.map((r) => orderView(r, this.stateOf(r))),
      fills: fills.map(fillView),
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
    const before = orderView(row, this.stateOf(row));
    if (row.status !== 'active') {
      throw conflict(fillMessage(SPOT_MESSAGES.notCancellable, { status: before.status }));
    }
    await this.bots.stop(row, 'cancel_only');
    const after = (await this.repo.byId(id)) ?? row;
    return {
      success: true,
      order: orderView(after, this.stateOf(after)),
      message: OPEN_ENTRY.includes(before.status) ? SPOT_MESSAGES.cancelled : SPOT_MESSAGES.exitsCancelled,
    };
  }

  /**
   * POST /api/futures/close: the whole position of the pair's perpetual closed by a reduce-only market
   * order. The take profits and stop-loss watches of the user's manual orders on that market are
   * cancelled first (nothing would be left for them to close).
   */
  async closePosition(userId: string, exchangeRaw: string, symbolRaw: string): Promise<SpotCancelResponse> {
    return guarded(this.ctx.log, async () => {
      const exchange = await this.inputs.connectedExchange(userId, exchangeRaw);
      const target = await this.inputs.target(exchange, symbolRaw, true);
      const venue = await this.inputs.venue(userId, exchange);
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
        if (orderSummary(r, this.stateOf(r)).held > 0) await this.bots.stop(r, 'cancel_only');
      }
      const price = (await this.inputs.priceNow(target)) ?? pos.markPrice;
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
          value: money(pos.contracts * contractSize(target) * price),
          tp: null,
          sl: null,
          reduceOnly: true,
          leverage,
        },
        { close: true },
        Number.MAX_SAFE_INTEGER,
      );
      return { success: true, order: orderView(row, state), message: SPOT_MESSAGES.closing };
    });
  }
}
