import {
  fillMessage,
  findUnsafeInput,
  LIMITS,
  SIGNAL_ACTIONS,
  SIGNAL_LIMITS,
  SIGNAL_MESSAGES,
  SIGNAL_REASONS,
  signalWebhookPayload,
  type SignalAction,
  type SignalReason,
  type SignalStatus,
  type SignalWebhookResponse,
} from '@bytx/contract';
import { SIGNAL_ACTION, type SignalSkipReason, type SignalState } from '@bytx/engine';
import type { AppContext } from '../../../../context';
import type { SignalEventOrder } from '../../../../db/schema/index';
import { parseLooseNumber } from '../../bot-input';
import type { BotRow, BotsRepository } from '../../bots.repository';
import type { BotRunner } from '../../runner';
import { addressKey, parseSignalTime, SignalRateLimiter, withinWindow } from './guards';
import type { SignalEventRow, SignalRepository } from './repository';
import { secretMatches } from './secrets';

export { SignalRateLimiter } from './guards';

/** `bots.kind` of the Signal bot (the engine's signalBot.kind). */
export const SIGNAL = 'signal';

/** What the bot row's `config` keeps: the form as validated. */
export interface SignalConfigJson {
  amount: number;
  max_position: number;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A webhook request as the route hands it over. */
export interface WebhookRequest {
  id: string;
  /** The body as text (undefined: no body). */
  raw: string | undefined;
  /** The body was over SIGNAL_LIMITS.bodyBytes (never read). */
  tooLarge?: boolean;
  ip: string;
}

export interface WebhookAnswer {
  statusCode: number;
  body: SignalWebhookResponse;
  /** Seconds (429). */
  retryAfter?: number;
}

/** A symbol as TradingView may send it: `ETH/USDT`, `ETHUSDT`, `BINANCE:ETHUSDT`, `eth-usdt`. */
export function normalizeSymbol(s: string): string {
  const noPrefix = s.includes(':') ? s.slice(s.lastIndexOf(':') + 1) : s;
  return noPrefix.replace(/[\s/_-]/g, '').toUpperCase();
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The payload as logged: everything but the secret. */
function withoutSecret(o: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (k !== 'secret') copy[k] = v;
  return copy;
}

/** The engine's skip reasons as the log's reason codes. */
const SKIP_REASONS: Record<SignalSkipReason, SignalReason> = {
  max_position: 'max_position',
  below_min_cost: 'below_min_cost',
  no_position: 'no_position',
  no_price: 'no_price',
  not_running: 'bot_stopped',
  invalid: 'invalid_value',
};

/** The HTTP status of each rejection. */
const REJECT_STATUS: Partial<Record<SignalReason, number>> = {
  wrong_secret: 401,
  malformed: 400,
  too_large: 413,
  bad_action: 400,
  wrong_symbol: 400,
  bad_amount: 400,
  over_max_position: 400,
  bot_stopped: 409,
  rate_limited: 429,
  too_many_failures: 429,
  bad_time: 400,
  stale_time: 400,
};

const reasonText = (reason: SignalReason, params: Record<string, string | number> = {}) =>
  fillMessage(SIGNAL_REASONS[reason], params);

/**
 * The Signal bot's webhook (`POST /api/signalbot/webhook/{id}`, issue 15 §2) and the execution of
 * accepted signals. A signal is recorded first (status `accepted`, the bot's next seq, in one
 * transaction), then fed to the bot through the runner like any user action (journal before send),
 * then marked `executed` or `skipped` with the orders it produced. Whatever happens in between (a
 * crash, a restart), the signals still `accepted` are fed again in seq order at start, and the
 * strategy's `lastSeq` makes a second feed of the same seq a no-op, so a signal trades at most once.
 */
export class SignalWebhook {
  /** Authenticated signals per bot per minute. */
  readonly limiter: SignalRateLimiter;
  /** Requests without the right secret, per address (every bot) and per bot and address, per minute. */
  readonly failuresByAddress = new SignalRateLimiter(SIGNAL_LIMITS.failuresPerAddress);
  readonly failuresByBotAddress = new SignalRateLimiter(SIGNAL_LIMITS.failuresPerBotAddress);
  /**
   * Rows logged for requests without the right secret, per bot per minute: requests from many
   * addresses are each answered, but the bot's log (the database) grows by at most this many a minute.
   */
  private readonly failureRows = new SignalRateLimiter(SIGNAL_LIMITS.ratePerMinute);
  /** One feeding chain per bot in this process: signals reach the strategy in seq order. */
  private readonly chains = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly signals: SignalRepository,
    private readonly runner: BotRunner,
    ratePerMinute: number = SIGNAL_LIMITS.ratePerMinute,
  ) {
    this.limiter = new SignalRateLimiter(ratePerMinute);
  }

  close(): void {
    this.closed = true;
  }

  /** Answers one webhook request; every rejection of an identified bot is logged with its reason. */
  async receive(req: WebhookRequest): Promise<WebhookAnswer> {
    const notFound: WebhookAnswer = {
      statusCode: 404,
      body: { success: false, error: 'not_found', message: SIGNAL_MESSAGES.notFound },
    };
    // An unknown bot has nowhere to log: 404 and nothing else.
    if (!UUID_RE.test(req.id)) return notFound;
    const bot = await this.repo.byId(req.id);
    if (!bot || bot.kind !== SIGNAL) return notFound;
    const hook = await this.signals.bot(bot.id);
    if (!hook) return notFound;

    // What can be read of the body, for the log (never the secret).
    let parsed: unknown;
    let parseError: string | null = null;
    if (!req.tooLarge) {
      if (req.raw === undefined || req.raw.trim() === '') parseError = 'the body is empty';
      else {
        try {
          parsed = JSON.parse(req.raw);
        } catch {
          parseError = 'the body is not valid JSON';
        }
      }
      if (parseError === null && !isObject(parsed)) parseError = 'the body must be a JSON object';
      if (parseError === null) {
        const unsafe = findUnsafeInput(parsed, 'body');
        if (unsafe) parseError = `${unsafe.field}: ${unsafe.message}`;
      }
    }
    const obj = parseError === null && isObject(parsed) ? parsed : null;
    const base = {
      botId: bot.id,
      sourceIp: req.ip,
      payload: obj ? withoutSecret(obj) : null,
      signalKey: obj ? keyOf(obj.id) : null,
      action: obj && typeof obj.action === 'string' ? obj.action.slice(0, 40) : null,
      amount: null,
    };
    const reject = async (
      reason: SignalReason,
      params: Record<string, string | number> = {},
      log = true,
    ): Promise<WebhookAnswer> => {
      const text = reasonText(reason, params);
      if (log) {
        await this.signals.log({ ...base, status: 'rejected', reason, reasonText: text });
      }
      return {
        statusCode: REJECT_STATUS[reason] ?? 400,
        body: { success: false, status: 'rejected', error: reason, message: text },
      };
    };

    const now = Date.now();
    // The secret first: nothing else is told to a caller who does not know it. A request with the right
    // secret is never held back by the requests without it (issue 37 point 4): those are limited per
    // address, so forged requests cannot lock the owner out — even when both come from one address, as
    // every TradingView alert does (TradingView sends from a few shared addresses).
    if (!isObject(parsed) || !secretMatches(this.ctx, hook, parsed.secret)) {
      const addr = addressKey(req.ip);
      const pair = `${bot.id}|${addr}`;
      const byPair = this.failuresByBotAddress.peek(pair, now);
      const over = byPair ?? this.failuresByAddress.peek(addr, now);
      if (over) {
        // Logged once per window per key; the rest of a flood gets no row each.
        const max = byPair ? SIGNAL_LIMITS.failuresPerBotAddress : SIGNAL_LIMITS.failuresPerAddress;
        const answer = await reject(
          'too_many_failures',
          { max, retry: over.retryAfterS },
          over.log && this.failureRows.hit(bot.id, now).ok,
        );
        return { ...answer, retryAfter: over.retryAfterS };
      }
      this.failuresByBotAddress.hit(pair, now);
      this.failuresByAddress.hit(addr, now);
      const log = this.failureRows.hit(bot.id, now).ok;
      if (req.tooLarge) return reject('too_large', { max: SIGNAL_LIMITS.bodyBytes }, log);
      if (parseError !== null || !obj) return reject('malformed', { detail: parseError ?? 'no body' }, log);
      return reject('wrong_secret', {}, log);
    }

    // Authenticated: only these count toward the bot's own limit.
    const rl = this.limiter.hit(bot.id, now);
    if (!rl.ok) {
      const answer = await reject('rate_limited', { max: this.limiter.max, retry: rl.retryAfterS }, rl.log);
      return { ...answer, retryAfter: rl.retryAfterS };
    }
    if (parseError !== null || !obj) return reject('malformed', { detail: parseError ?? 'no body' });

    const p = signalWebhookPayload.safeParse(obj);
    if (!p.success) {
      const issue = p.error.issues[0];
      const detail = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid';
      return reject('malformed', { detail });
    }
    // Replays: a signal that carries its time is taken only within the window around the server's clock
    // (with an id, a replay inside the window is a duplicate; without a time, nothing bounds a replay).
    const rawTime = p.data.time ?? p.data.timestamp;
    const at = parseSignalTime(rawTime);
    if (at === 'bad') return reject('bad_time');
    if (at !== null && !withinWindow(at, now)) {
      return reject('stale_time', {
        time: new Date(at).toISOString(),
        age: Math.round((now - at) / 1000),
        max: SIGNAL_LIMITS.timeWindowS,
      });
    }
    const action = p.data.action.trim().toLowerCase();
    if (!(SIGNAL_ACTIONS as readonly string[]).includes(action)) {
      return reject('bad_action', { action: p.data.action.slice(0, 40) });
    }
    if (normalizeSymbol(p.data.symbol) !== normalizeSymbol(bot.symbol)) {
      return reject('wrong_symbol', { symbol: p.data.symbol, expected: bot.symbol });
    }
    const cfg = bot.config as SignalConfigJson;
    let amount: number | undefined;
    const rawAmount = p.data.amount;
    if (
      rawAmount !== undefined &&
      rawAmount !== null &&
      !(typeof rawAmount === 'string' && rawAmount === '')
    ) {
      const n = parseLooseNumber(rawAmount);
      if (n === null || n <= 0 || n > LIMITS.maxAmount) return reject('bad_amount');
      if (n > cfg.max_position) return reject('over_max_position', { amount: n, max: cfg.max_position });
      amount = n;
    }
    if (bot.status !== 'active') return reject('bot_stopped');

    const recorded = await this.signals.record({
      ...base,
      action,
      amount: amount === undefined ? null : String(amount),
    });
    if (recorded.duplicate) {
      const id = base.signalKey ?? '';
      await this.signals.log({
        ...base,
        action,
        status: 'duplicate',
        reason: null,
        reasonText: null,
      });
      return {
        statusCode: 200,
        body: { success: true, duplicate: true, message: fillMessage(SIGNAL_MESSAGES.duplicate, { id }) },
      };
    }
    await this.drain(bot.id);
    const row = await this.signals.byId(recorded.id);
    return this.answerFor(row, recorded.seq);
  }

  private answerFor(row: SignalEventRow | null, seq: number): WebhookAnswer {
    const status: SignalStatus = row?.status ?? 'accepted';
    if (status === 'accepted') {
      // Recorded; it will be executed as soon as the bot can take it (at the latest on the next start).
      return { statusCode: 202, body: { success: true, status, seq, message: SIGNAL_MESSAGES.accepted } };
    }
    if (status === 'skipped') {
      const why = row?.reasonText ?? '';
      return {
        statusCode: 200,
        body: {
          success: true,
          status,
          seq,
          error: (row?.reason as SignalReason | null) ?? undefined,
          message: fillMessage(SIGNAL_MESSAGES.skipped, { reason: why }),
        },
      };
    }
    return { statusCode: 200, body: { success: true, status, seq, message: SIGNAL_MESSAGES.executed } };
  }

  /**
   * Feeds the bot every signal still `accepted`, in seq order, after whatever this process is already
   * feeding it. A feed that fails (the exchange cannot be reached) stops there: the signal stays
   * `accepted` and is fed again with the next signal or at the next start.
   */
  drain(botId: string): Promise<void> {
    const prev = this.chains.get(botId) ?? Promise.resolve();
    const next = prev.then(() => this.feed(botId));
    const tail = next.catch((err: unknown) =>
      this.ctx.log.error({ err, botId }, 'signal feed failed; the signals stay accepted'),
    );
    this.chains.set(botId, tail);
    void tail.then(() => {
      if (this.chains.get(botId) === tail) this.chains.delete(botId);
    });
    return tail;
  }

  private async feed(botId: string): Promise<void> {
    const pending = await this.signals.accepted(botId);
    if (pending.length === 0) return;
    const bot = await this.repo.byId(botId);
    for (const row of pending) {
      if (this.closed) return;
      if (!bot || bot.status !== 'active') {
        // Stopped between record and execution: nothing is traded.
        await this.signals.settle(row, {
          status: 'skipped',
          reason: 'bot_stopped',
          reasonText: reasonText('bot_stopped'),
          orders: [],
        });
        continue;
      }
      const params: Record<string, unknown> = { seq: row.seq, action: row.action };
      if (row.amount !== null) params.amount = Number(row.amount);
      // The price now, for a process that runs the bot only for this action (no fresh tick there).
      const price = await this.ctx.services.market
        ?.ticker(bot.exchange, bot.symbol)
        .then((t) => t.last)
        .catch(() => null);
      if (price !== null && price !== undefined && Number.isFinite(price) && price > 0) params.price = price;
      const state = await this.runner.act<SignalState>(botId, {
        type: 'action',
        name: SIGNAL_ACTION,
        params,
        ts: this.runner.deps.now?.() ?? Date.now(),
      });
      await this.settle(bot, row, state);
    }
  }

  /**
   * Marks a fed signal from what the strategy says it did (`state.recent`, the last 50 signals) and
   * the journal rows of the client order ids it names (their fill, price and status).
   */
  private async settle(bot: BotRow, row: SignalEventRow, state: SignalState | undefined): Promise<void> {
    const seq = row.seq ?? 0;
    const out = state?.recent?.find((o) => o.seq === seq);
    if (!out) {
      const handled = (state?.lastSeq ?? 0) >= seq;
      await this.signals.settle(row, {
        status: 'skipped',
        reason: handled ? 'outcome_unknown' : 'bot_stopped',
        reasonText: reasonText(handled ? 'outcome_unknown' : 'bot_stopped'),
        orders: [],
      });
      return;
    }
    const orders = await this.ordersOf(bot.id, out.clientOrderIds);
    if (out.outcome === 'skipped') {
      const reason = SKIP_REASONS[out.reason ?? 'invalid'];
      await this.signals.settle(row, {
        status: 'skipped',
        reason,
        reasonText: reasonText(reason),
        orders,
      });
      return;
    }
    const refused =
      orders.length > 0 &&
      orders.every((o) => (o.status === 'rejected' || o.status === 'cancelled') && o.filled === 0);
    if (refused) {
      const detail = orders.map((o) => o.status).join(', ');
      await this.signals.settle(row, {
        status: 'skipped',
        reason: 'order_rejected',
        reasonText: reasonText('order_rejected', { detail }),
        orders: orders.map(({ filled: _f, ...o }) => o),
      });
      return;
    }
    await this.signals.settle(row, {
      status: 'executed',
      reason: null,
      reasonText: null,
      orders: orders.map(({ filled: _f, ...o }) => o),
    });
  }

  /** The journal rows of these client order ids, as the log shows them. */
  async ordersOf(botId: string, ids: string[]): Promise<(SignalEventOrder & { filled: number })[]> {
    const rows = await this.signals.orders(botId, ids);
    const byId = new Map(rows.map((r) => [r.clientOrderId, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      const filled = Number(r.filled) || 0;
      return [
        {
          client_order_id: id,
          side: r.side,
          amount: filled > 0 ? filled : Number(r.amount),
          price: r.avgPrice !== null ? Number(r.avgPrice) : r.price !== null ? Number(r.price) : null,
          status: r.status,
          filled,
        },
      ];
    });
  }

  /** At start: every bot with signals still `accepted` gets them fed again, in seq order. */
  async refeedAll(): Promise<void> {
    const ids = await this.signals.botsWithAccepted();
    for (const id of ids) {
      if (this.closed) return;
      await this.drain(id);
    }
  }
}

/** The payload's `id` as the idempotency key (a number is taken as its text); null when absent. */
function keyOf(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && v.trim() !== '') return v.trim().slice(0, SIGNAL_LIMITS.idChars);
  return null;
}

export type { SignalAction };
