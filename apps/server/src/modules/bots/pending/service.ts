import {
  asciiTrim,
  DCA_MESSAGES,
  fillMessage,
  PENDING_COMPLETED_DAYS,
  PENDING_COMPLETED_MAX,
  PENDING_MESSAGES,
  type DrawdownRecord,
  type PendingOrderView,
} from '@bytx/contract';
import { LOT_ACTIONS, type LotInfo } from '@bytx/engine';
import { badRequest, conflict, HttpError, notFound } from '../../../lib/errors';
import type { BotEventRow, BotRow, BotsRepository } from '../bots.repository';
import type { BotsService } from '../bots.service';
import { strategyIdOf, type BotRunner } from '../runner';
import type { CompletedRow, PendingRepository } from './repository';

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** An open lot found for a user action: its bot and what the bot's strategy says of it now. */
interface Located {
  row: BotRow;
  lot: LotInfo;
}

export interface PendingListQuery {
  exchange?: string | undefined;
  symbol?: string | undefined;
  bot_id?: string | undefined;
  page: number;
  per_page: number;
  status: 'open' | 'completed' | 'all';
}

/** The bot's take profit in percent from its stored config (every kind with lots stores `tp`). */
function tpOf(config: unknown): number | null {
  const tp = (config as { tp?: unknown } | null)?.tp;
  return typeof tp === 'number' && Number.isFinite(tp) ? tp : null;
}

function quoteOf(symbol: string): string {
  return symbol.split('/')[1]?.split(':')[0] ?? 'USDT';
}

/**
 * Pending orders (spec part 2 §7): the open lots of the user's active bots, whatever their kind (read
 * through each strategy's `lots`), and their completed sales (history rows). Every action on a lot is
 * a strategy action carried out by the bot's runner (journal before send, forwarded to the process
 * that holds the bot), so a crash in the middle neither loses nor doubles an order.
 */
export class PendingService {
  constructor(
    private readonly repo: BotsRepository,
    private readonly pending: PendingRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
  ) {}

  /** The bot's current state: the runner's when it holds the bot here, else the stored one. */
  private stateOf(row: BotRow): unknown {
    return this.runner.handle(row.id)?.state ?? row.state;
  }

  /** The open lots of an active bot (none when its kind has no lots or its state cannot be read). */
  lotsOf(row: BotRow, state: unknown = this.stateOf(row)): LotInfo[] {
    if (row.status !== 'active') return [];
    const strategy = this.runner.strategyOf(row.kind);
    if (!strategy?.lots) return [];
    try {
      return strategy.lots(state as object);
    } catch {
      return []; // A damaged state lists nothing; the other bots answer normally.
    }
  }

  /** Current prices of these pairs from the shared market data (cached by the hub), null if none. */
  async prices(rows: { exchange: string; symbol: string }[]): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>();
    await Promise.all(
      [...new Set(rows.map((r) => `${r.exchange}|${r.symbol}`))].map(async (key) => {
        const [exchange, symbol] = key.split('|') as [string, string];
        const last = await this.bots.market
          .ticker(exchange, symbol)
          .then((t) => t.last)
          .catch(() => null);
        out.set(key, typeof last === 'number' && Number.isFinite(last) && last > 0 ? last : null);
      }),
    );
    return out;
  }

  openView(row: BotRow, lot: LotInfo, price: number | null): PendingOrderView {
    const entry = lot.entryPrice;
    return {
      id: lot.id,
      bot_id: row.id,
      kind: row.kind,
      created_at: new Date(lot.openedAt).toISOString(),
      exchange: row.exchange,
      symbol: row.symbol,
      entry_price: round(entry, 10),
      limit_price: round(lot.tpPrice, 10),
      amount_quote: round(lot.cost, 8),
      amount_base: lot.qty,
      qty: lot.qty,
      quote: quoteOf(row.symbol),
      status: 'open',
      tp_pct: tpOf(row.config),
      result: price === null ? null : round((price - entry) * lot.qty, 8),
      drawdown_pct: price === null || entry <= 0 ? null : round(((price - entry) / entry) * 100, 4),
      auto_fund: lot.autoFund,
      auto_fund_steps: lot.autoFundSteps,
      busy: lot.busy,
      closed_at: null,
      sell_price: null,
    };
  }

  completedView(c: CompletedRow): PendingOrderView {
    const qty = Number(c.qty);
    const buy = Number(c.buyPrice);
    return {
      id: c.key,
      bot_id: c.botId,
      kind: c.kind,
      created_at: c.buyTime.toISOString(),
      exchange: c.exchange,
      symbol: c.symbol,
      entry_price: buy,
      limit_price: Number(c.sellPrice),
      amount_quote: round(qty * buy, 8),
      amount_base: qty,
      qty,
      quote: quoteOf(c.symbol),
      status: 'completed',
      tp_pct: tpOf(c.config),
      result: Number(c.pnlNet),
      drawdown_pct: null,
      auto_fund: false,
      auto_fund_steps: 0,
      busy: null,
      closed_at: c.sellTime.toISOString(),
      sell_price: Number(c.sellPrice),
    };
  }

  /** The user's bots the query names: one bot, the active bots of one pair, or every active bot. */
  private async botsFor(userId: string, q: PendingListQuery): Promise<BotRow[]> {
    if (q.bot_id) return [await this.bots.ownBot(userId, q.bot_id)];
    // Kept until the next write to the user's bots (the read cache's memo, as `pnls_actuales`): the
    // answer is recomputed every second and after every tick of a followed pair, and re-reading the
    // whole rows each time was most of its cost. Shared: only read, never changed.
    const rows = await this.bots.reads.memo(userId, 'active rows', () =>
      this.repo.listByUser(userId, 'active'),
    );
    if (!q.exchange && !q.symbol) return rows;
    const ex = q.exchange?.toLowerCase();
    const sym = q.symbol === undefined ? undefined : asciiTrim(q.symbol);
    return rows.filter((r) => (!ex || r.exchange === ex) && (!sym || r.symbol === sym));
  }

  async list(userId: string, q: PendingListQuery) {
    const rows = await this.botsFor(userId, q);
    let open: PendingOrderView[] = [];
    if (q.status !== 'completed') {
      const lotsByBot = rows.map((row) => ({ row, lots: this.lotsOf(row) }));
      const prices = await this.prices(lotsByBot.filter((b) => b.lots.length > 0).map((b) => b.row));
      open = lotsByBot
        .flatMap(({ row, lots }) =>
          lots.map((lot) => this.openView(row, lot, prices.get(`${row.exchange}|${row.symbol}`) ?? null)),
        )
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
    }
    let completed: PendingOrderView[] = [];
    if (q.status !== 'open') {
      const only = q.bot_id
        ? { botId: q.bot_id }
        : {
            ...(q.exchange ? { exchange: q.exchange.toLowerCase() } : {}),
            ...(q.symbol ? { symbol: asciiTrim(q.symbol) } : {}),
          };
      const since = Date.now() - PENDING_COMPLETED_DAYS * DAY_MS;
      completed = (await this.completedSince(userId, since, only)).map((c) => this.completedView(c));
    }
    const all = open.concat(completed);
    const pages = Math.max(1, Math.ceil(all.length / q.per_page));
    const page = Math.min(q.page, pages);
    const orders = all.slice((page - 1) * q.per_page, page * q.per_page);
    const completedPnl = completed.reduce((s, o) => s + (o.result ?? 0), 0);
    return {
      success: true,
      orders,
      rows: orders,
      page,
      pages,
      total: all.length,
      summary: { open: open.length, completed: completed.length, completed_pnl: round(completedPnl, 8) },
    };
  }

  /**
   * The user's newest sales (at most PENDING_COMPLETED_MAX) from `since` (ms) on, newest first. Read
   * from the hour `since` falls in and kept until the next write to the user's bots (the read cache's
   * memo), then cut at `since` here: the newest MAX sales from an earlier start, cut at `since`, are
   * exactly the newest MAX from `since`, since every sale after `since` is newer than every one before.
   */
  private async completedSince(
    userId: string,
    since: number,
    only: { botId?: string; exchange?: string; symbol?: string },
  ): Promise<CompletedRow[]> {
    const from = Math.floor(since / HOUR_MS) * HOUR_MS;
    const rows = await this.bots.reads.memo(userId, `completed|${from}|${JSON.stringify(only)}`, () =>
      this.pending.completed(userId, new Date(from), PENDING_COMPLETED_MAX, only),
    );
    return rows.filter((r) => r.sellTime.getTime() >= since);
  }

  /** The user's open lot with this id, or null (another user's ids are not found either). */
  private async locateOpen(userId: string, id: string): Promise<Located | null> {
    const prefix = id.slice(0, id.indexOf('-'));
    if (!prefix) return null;
    for (const row of await this.repo.listByUser(userId, 'active')) {
      if (strategyIdOf(row.id) !== prefix) continue;
      const lot = this.lotsOf(row).find((l) => l.id === id);
      if (lot) return { row, lot };
    }
    return null;
  }

  /** The open lot for an action: 404 when unknown, 409 when completed, busy or its bot cannot trade. */
  private async openFor(userId: string, id: string): Promise<Located> {
    const found = await this.locateOpen(userId, id);
    if (!found) {
      if (await this.pending.completedById(userId, id)) throw conflict(PENDING_MESSAGES.completed);
      throw notFound(PENDING_MESSAGES.notFound);
    }
    if (found.row.problem) throw conflict(PENDING_MESSAGES.botNotRunning);
    return found;
  }

  /** Steps the lot action through the bot's runner; returns the lot afterwards (null: it is gone). */
  private async act(
    found: Located,
    name: string,
    params: Record<string, unknown>,
  ): Promise<{ lot: LotInfo | null; since: Date }> {
    const since = new Date(Date.now() - 1);
    const state = await this.runner.act<object>(found.row.id, {
      type: 'action',
      name,
      params: { lotId: found.lot.id, ...params },
      ts: Date.now(),
    });
    const lot = this.lotsOf(found.row, state).find((l) => l.id === found.lot.id) ?? null;
    return { lot, since };
  }

  /** Why the bot refused or failed the action, from its event log (newest warning since `since`). */
  private async why(botId: string, lotId: string, since: Date): Promise<string> {
    const events = await this.repo.events(botId, 20);
    const e = events.find((x: BotEventRow) => {
      if (x.ts < since || x.level === 'info') return false;
      const p = (x.params ?? {}) as Record<string, unknown>;
      return p.lot_id === undefined || p.lot_id === lotId;
    });
    if (!e) return 'the bot did not carry it out';
    const p = (e.params ?? {}) as Record<string, unknown>;
    const detail = [p.reason, p.message].filter((x) => typeof x === 'string' && x).join(': ');
    return detail ? `${e.code} (${detail})` : e.code;
  }

  private async price(row: BotRow): Promise<number | null> {
    return (await this.prices([row])).get(`${row.exchange}|${row.symbol}`) ?? null;
  }

  async addFunds(userId: string, id: string, amount: number) {
    const found = await this.openFor(userId, id);
    if (found.lot.busy) throw conflict(PENDING_MESSAGES.busy);
    const { row } = found;
    const price = await this.price(row);
    if (price === null) throw new HttpError(503, 'No price for this pair yet; try again in a moment.');
    const market = await this.bots.market.market(row.exchange, row.symbol).catch(() => null);
    const minCost = market ? Math.max(market.minCost, market.minAmount * price) : 0;
    if (amount < minCost) {
      throw badRequest(
        fillMessage(DCA_MESSAGES.belowMinCost, {
          pair: row.symbol,
          x: round(minCost, 2),
          n: round(minCost / price, 8),
          p: round(price, 8),
        }),
        { field: 'amount_quote' },
      );
    }
    const { lot, since } = await this.act(found, LOT_ACTIONS.addFunds, { amount });
    if (lot && (lot.qty > found.lot.qty || lot.busy === 'adding')) {
      return { success: true, message: PENDING_MESSAGES.fundsAdded, row: this.openView(row, lot, price) };
    }
    if (!lot) {
      // Its take profit filled meanwhile: the funds became a lot of their own (nothing is lost).
      return { success: true, message: PENDING_MESSAGES.fundsAdded, row: null };
    }
    throw badRequest(`No se pudo agregar fondos: ${await this.why(row.id, id, since)}`);
  }

  async sell(userId: string, id: string) {
    const found = await this.openFor(userId, id);
    if (found.lot.busy) throw conflict(PENDING_MESSAGES.busy);
    const { lot, since } = await this.act(found, LOT_ACTIONS.sell, {});
    if (!lot) {
      const sold = await this.pending.completedById(userId, id);
      return {
        success: true,
        message: PENDING_MESSAGES.sold,
        row: sold ? this.completedView(sold) : null,
      };
    }
    if (lot.busy === 'selling' || lot.qty < found.lot.qty) {
      // Sent; the venue answers later (a live exchange): the row shows it as being sold.
      return {
        success: true,
        message: PENDING_MESSAGES.sold,
        row: this.openView(found.row, lot, await this.price(found.row)),
      };
    }
    throw badRequest(await this.why(found.row.id, id, since));
  }

  async remove(userId: string, id: string) {
    const found = await this.openFor(userId, id);
    if (found.lot.busy === 'deleting') return { success: true, message: PENDING_MESSAGES.deleted };
    if (found.lot.busy) throw conflict(PENDING_MESSAGES.busy);
    const { lot, since } = await this.act(found, LOT_ACTIONS.forget, {});
    if (!lot || lot.busy === 'deleting') return { success: true, message: PENDING_MESSAGES.deleted };
    throw badRequest(await this.why(found.row.id, id, since));
  }

  async toggleAutoFund(userId: string, id: string, enabled: boolean) {
    const found = await this.openFor(userId, id);
    const { lot, since } = await this.act(found, LOT_ACTIONS.autoFund, { enabled });
    if (lot && lot.autoFund === enabled) return { success: true, enabled };
    throw badRequest(`${PENDING_MESSAGES.autoFundFailed}: ${await this.why(found.row.id, id, since)}`);
  }

  /** Drawdown and auto-fund flag of every open lot of the user (optionally only these ids). */
  async drawdowns(userId: string, ids?: string[]) {
    const wanted = ids ? new Set(ids) : null;
    // The user's active rows as `list` reads them (kept until the next write to the user's bots).
    const rows = await this.bots.reads.memo(userId, 'active rows', () =>
      this.repo.listByUser(userId, 'active'),
    );
    const lotsByBot = rows.map((row) => ({ row, lots: this.lotsOf(row) }));
    const prices = await this.prices(lotsByBot.filter((b) => b.lots.length > 0).map((b) => b.row));
    const byId: Record<string, DrawdownRecord> = {};
    for (const { row, lots } of lotsByBot) {
      const price = prices.get(`${row.exchange}|${row.symbol}`) ?? null;
      for (const lot of lots) {
        if (wanted && !wanted.has(lot.id)) continue;
        byId[lot.id] = {
          pct:
            price === null || lot.entryPrice <= 0
              ? null
              : round(((price - lot.entryPrice) / lot.entryPrice) * 100, 4),
          enabled: lot.autoFund,
        };
      }
    }
    return { success: true, by_id: byId };
  }
}
