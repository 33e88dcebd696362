import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  SIGNAL_MESSAGES,
  type SignalBotView,
  type SignalCreateBody,
  type SignalCreateResponse,
  type SignalLogResponse,
  type SignalReason,
  type SignalRow,
  type SignalStopResponse,
} from '@bytx/contract';
import { createSignalBot, SignalConfigError, signalSummary, type SignalState } from '@bytx/engine';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../../../context';
import { bots as botsTable } from '../../../../db/schema/index';
import { badRequest, HttpError, notFound } from '../../../../lib/errors';
import { parseLooseNumber, problemText } from '../../bot-input';
import type { BotRow, BotsRepository } from '../../bots.repository';
import type { BotsService } from '../../bots.service';
import { dcaMarketRules } from '../../market-rules';
import { strategyIdOf, type BotRunner } from '../../runner';
import type { SignalBotRow, SignalEventRow, SignalRepository } from './repository';
import { newSecret } from './secrets';
import { SIGNAL, type SignalConfigJson, type SignalWebhook } from './webhook';
import { createAndLaunch } from '../create';

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;
const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;
const isEmpty = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && asciiTrim(v) === '');

/**
 * The webhook URL of a bot, on PUBLIC_URL (config.publicUrl, no trailing slash): never on the request's
 * Host header, which whoever sends the request chooses (issue 37 point 13).
 */
export const webhookUrl = (publicUrl: string, id: string) => `${publicUrl}/api/signalbot/webhook/${id}`;

/**
 * The Signal bot's calls (`/signalbot`, issue 15 §2): create (exchange connected, pair listed, amount
 * and max position checked), list (active first), stop, rotate the webhook secret (shown once: at
 * creation and on rotation; stored as a hash, secrets.ts), and the signal log. Every call acts on the session user's bots only: another user's bot is a 404, as if it
 * did not exist.
 */
export class SignalService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly signals: SignalRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
    private readonly webhook: SignalWebhook,
  ) {}

  stateOf(row: BotRow): SignalState {
    return (this.runner.handle(row.id)?.state as SignalState | undefined) ?? (row.state as SignalState);
  }

  view(
    row: BotRow,
    hook: SignalBotRow | undefined,
    counts: { accepted: number; rejected: number } | undefined,
    price: number | null,
  ): SignalBotView {
    const cfg = row.config as SignalConfigJson;
    const [, quote = ''] = row.symbol.split('/');
    let s = { qty: 0, avgEntry: 0, cost: 0, pnlQuote: String(row.pnl) };
    try {
      s = signalSummary(this.stateOf(row));
    } catch {
      // A state that cannot be read shows the stored PnL and no position.
    }
    const fees = s.qty > 0 ? s.avgEntry * s.qty - s.cost : 0;
    const value = price !== null ? s.qty * price : 0;
    return {
      id: row.id,
      exchange: row.exchange,
      symbol: row.symbol,
      quote,
      amount: cfg.amount,
      max_position: cfg.max_position,
      status: row.problem ? 'error' : row.status,
      problem: row.problem,
      reason: row.problem ? problemText(row.problem, row.problemDetail) : null,
      webhook_url: webhookUrl(this.ctx.config.publicUrl, row.id),
      secret_rotated_at: hook?.secretRotatedAt?.toISOString() ?? null,
      secret_rotated_reason: hook?.secretRotatedReason ?? null,
      position_qty: round(s.qty, 12),
      avg_entry: round(s.avgEntry, 10),
      price,
      position_value: round(value, 8),
      pnl_realized: round(Number(s.pnlQuote) || 0, 8),
      // Value at the price minus what the position cost, buy fees included.
      pnl_unrealized: price !== null && s.qty > 0 ? round(value - s.cost - fees, 8) : 0,
      signals_accepted: counts?.accepted ?? 0,
      signals_rejected: counts?.rejected ?? 0,
      created_at: row.startedAt.toISOString(),
      stopped_at: row.stoppedAt?.toISOString() ?? null,
    };
  }

  private async priceOf(row: BotRow): Promise<number | null> {
    return this.bots.priceOf(row.exchange, row.symbol, row.symbol).catch(() => null);
  }

  /** POST /api/signalbot/bots. */
  async create(userId: string, body: SignalCreateBody): Promise<SignalCreateResponse> {
    const exchange = asciiTrim(body.exchange ?? '').toLowerCase();
    if (!exchange) throw badRequest(SIGNAL_MESSAGES.noExchange, { field: 'exchange' });
    if (isEmpty(body.symbol)) throw badRequest(SIGNAL_MESSAGES.noSymbol, { field: 'symbol' });
    const amount = parseLooseNumber(body.amount);
    if (amount === null || amount <= 0) throw badRequest(SIGNAL_MESSAGES.badAmount, { field: 'amount' });
    if (amount > LIMITS.maxAmount) {
      throw badRequest(
        fillMessage(SIGNAL_MESSAGES.amountTooHigh, { field: 'Amount per signal', max: LIMITS.maxAmount }),
        { field: 'amount' },
      );
    }
    const max = parseLooseNumber(body.max_position);
    if (max === null || max <= 0) {
      throw badRequest(SIGNAL_MESSAGES.badMaxPosition, { field: 'max_position' });
    }
    if (max > LIMITS.maxAmount) {
      throw badRequest(
        fillMessage(SIGNAL_MESSAGES.amountTooHigh, { field: 'Max position', max: LIMITS.maxAmount }),
        { field: 'max_position' },
      );
    }
    if (amount > max) {
      throw badRequest(fillMessage(SIGNAL_MESSAGES.amountOverMax, { amount, max }), { field: 'amount' });
    }
    const connected =
      (EXCHANGE_KEYS as readonly string[]).includes(exchange) &&
      (await this.bots.venues.connectionKind(userId, exchange)) !== null;
    if (!connected) throw badRequest(SIGNAL_MESSAGES.notConnected, { field: 'exchange' });

    const wanted = asciiTrim(String(body.symbol));
    const notListed = () =>
      badRequest(
        fillMessage(SIGNAL_MESSAGES.symbolNotListed, {
          symbol: wanted,
          exchange: exchangeDisplayName(exchange),
        }),
        { field: 'symbol' },
      );
    const symbol = await this.bots.market.listedSymbol(exchange, wanted).catch(() => null);
    if (!symbol || symbol.includes(':')) throw notListed();
    const market = await this.bots.market.market(exchange, symbol).catch(() => null);
    if (!market || !market.active) throw notListed();
    const price = await this.bots.priceOf(exchange, symbol, symbol).catch(() => null);
    if (price === null || !(price > 0)) {
      throw new HttpError(
        503,
        fillMessage(SIGNAL_MESSAGES.priceUnavailable, { symbol, exchange: exchangeDisplayName(exchange) }),
      );
    }
    // A buy of `amount` must reach the market's minimum after its base is rounded down a step.
    const need = Math.max(market.minCost, market.minAmount * price) + market.amountStep * price;
    if (amount < need) {
      const [, quote = ''] = symbol.split('/');
      throw badRequest(
        fillMessage(SIGNAL_MESSAGES.belowMinCost, {
          min: ceil2(need),
          quote,
          symbol,
          exchange: exchangeDisplayName(exchange),
        }),
        { field: 'amount' },
      );
    }
    if (await this.repo.activeFor(userId, exchange, symbol, SIGNAL)) {
      throw new HttpError(409, fillMessage(SIGNAL_MESSAGES.alreadyActive, { exchange, symbol }));
    }
    const cap = this.bots.startCap();
    if ((await this.repo.countActive(userId, cap.except)) >= cap.max) throw cap.full();

    const id = randomUUID();
    let state: SignalState;
    try {
      state = createSignalBot(strategyIdOf(id), {
        amountQuote: amount,
        maxPositionQuote: max,
        rules: dcaMarketRules(market),
        symbol,
      });
    } catch (err) {
      if (err instanceof SignalConfigError) throw badRequest(err.message);
      throw err;
    }
    // The price read now, so a first signal before the first tick is sized right.
    state = { ...state, lastPrice: price, lastTs: Date.now() };
    const config: SignalConfigJson = { amount, max_position: max };
    // Answered once, below; only its hash is kept.
    const { secret, hash } = newSecret();
    const row = await createAndLaunch(
      { ctx: this.ctx, repo: this.repo, runner: this.runner, bots: this.bots },
      { id, userId, kind: SIGNAL, exchange, symbol, config, state },
      { alreadyActive: SIGNAL_MESSAGES.alreadyActive, startFailed: SIGNAL_MESSAGES.createFailed },
      {
        cap,
        // The secret's hash is stored with the bot; without it the bot is removed again.
        afterInsert: async () => {
          try {
            await this.signals.insertBot(id, hash);
          } catch (err) {
            await this.ctx.db.delete(botsTable).where(eq(botsTable.id, id));
            throw err;
          }
        },
      },
    );
    const bot = this.view(row, undefined, undefined, price);
    return {
      success: true,
      message: SIGNAL_MESSAGES.created,
      bot,
      id,
      webhook_url: bot.webhook_url,
      secret,
    };
  }

  /** GET /api/signalbot/bots: the user's signal bots, active first (oldest first), then the stopped. */
  async list(userId: string): Promise<SignalBotView[]> {
    const active = await this.repo.listByUser(userId, 'active', SIGNAL);
    const closed = await this.repo.listByUser(userId, 'closed', SIGNAL);
    const rows = [...active, ...closed];
    const counts = await this.signals.counts(rows.map((r) => r.id));
    const hooks = await this.signals.bots(rows.map((r) => r.id));
    const prices = await Promise.all(
      rows.map((r) => (r.status === 'active' ? this.priceOf(r) : Promise.resolve(null))),
    );
    return rows.map((r, i) => this.view(r, hooks.get(r.id), counts.get(r.id), prices[i] ?? null));
  }

  /** A signal bot of this user (any status), else 404: another user's bot is not revealed. */
  private async ownBot(userId: string, id: string): Promise<BotRow> {
    const row = await this.repo.byId(id);
    if (!row || row.userId !== userId || row.kind !== SIGNAL) throw notFound(SIGNAL_MESSAGES.notFound);
    return row;
  }

  /** POST /api/signalbot/bots/{id}/stop: keep_assets keeps the position, else it is sold at market. */
  async stop(userId: string, id: string, keepAssets: boolean): Promise<SignalStopResponse> {
    const row = await this.ownBot(userId, id);
    if (row.status !== 'active') return { success: true, message: SIGNAL_MESSAGES.alreadyStopped };
    // Signals recorded before the stop are fed first (in order), so the stop's close sees them.
    await this.webhook.drain(id);
    await this.bots.stop(row, keepAssets ? 'cancel_only' : 'close_market');
    return {
      success: true,
      message: keepAssets ? SIGNAL_MESSAGES.stoppedKeepAssets : SIGNAL_MESSAGES.stopped,
    };
  }

  /**
   * POST /api/signalbot/bots/{id}/secret (after a recent authentication, routes.ts): a new secret,
   * answered this once; the old one stops working at once. A `warn` event goes to the bot's event log.
   */
  async rotateSecret(userId: string, id: string): Promise<string> {
    await this.ownBot(userId, id);
    if (!(await this.signals.bot(id))) throw notFound(SIGNAL_MESSAGES.notFound);
    const { secret, hash } = newSecret();
    await this.signals.replaceSecrets([{ botId: id, hash }], 'user');
    return secret;
  }

  /** GET /api/signalbot/bots/{id}/signals: the log, newest first; a page past the end answers the last. */
  async log(userId: string, id: string, page: number, perPage: number): Promise<SignalLogResponse> {
    await this.ownBot(userId, id);
    let { rows, total } = await this.signals.page(id, page, perPage);
    const pages = Math.max(1, Math.ceil(total / perPage));
    if (page > pages && total > 0) {
      page = pages;
      ({ rows, total } = await this.signals.page(id, page, perPage));
    }
    // The orders as the journal has them now (a live exchange may fill after the signal was marked).
    const ids = rows.flatMap((r) => r.orders.map((o) => o.client_order_id));
    const fresh = new Map((await this.webhook.ordersOf(id, ids)).map((o) => [o.client_order_id, o]));
    return {
      success: true,
      signals: rows.map((r) => this.row(r, fresh)),
      page,
      per_page: perPage,
      pages,
      total,
    };
  }

  private row(
    r: SignalEventRow,
    fresh: Map<
      string,
      { client_order_id: string; side: 'buy' | 'sell'; amount: number; price: number | null; status: string }
    >,
  ): SignalRow {
    return {
      id: String(r.id),
      seq: r.seq,
      received_at: r.receivedAt.toISOString(),
      source_ip: r.sourceIp,
      payload: r.payload ?? null,
      status: r.status,
      reason: (r.reason as SignalReason | null) ?? null,
      reason_text: r.reasonText,
      orders: r.orders.map((o) => {
        const f = fresh.get(o.client_order_id);
        return f
          ? {
              client_order_id: f.client_order_id,
              side: f.side,
              amount: f.amount,
              price: f.price,
              status: f.status,
            }
          : o;
      }),
    };
  }
}
