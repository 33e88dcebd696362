import { asciiTrim, type BotEventView, type ClosedBotView } from '@bytx/contract';
import type { BotAccess } from './bot-access';
import type { BotsRepository } from './bots.repository';
import type { BotRunner } from './runner';

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * What the lists shared by every kind show: closed bots of a kind, a bot's event log, the current
 * prices of the active bots' pairs and their PnL (pnls_actuales, by each kind's figures).
 */
export class BotViews {
  private readonly repo: BotsRepository;

  constructor(
    private readonly access: BotAccess,
    private readonly runner: BotRunner,
  ) {
    this.repo = access.repo;
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

  async events(userId: string, botId: string, limit: number): Promise<BotEventView[]> {
    await this.access.ownBot(userId, botId);
    const rows = await this.repo.events(botId, limit);
    return rows.map((r) => ({
      id: r.id,
      ts: r.ts.toISOString(),
      level: r.level,
      code: r.code,
      params: (r.params ?? {}) as Record<string, unknown>,
    }));
  }

  async prices(userId: string) {
    const rows = await this.repo.listByUser(userId, 'active');
    const pairs = [...new Map(rows.map((r) => [`${r.exchange}|${r.symbol}`, r])).values()];
    const out: { exchange: string; symbol: string; price: number }[] = [];
    for (const r of pairs) {
      const t = await this.access.market.ticker(r.exchange, r.symbol).catch(() => null);
      if (t) out.push({ exchange: r.exchange, symbol: r.symbol, price: t.last });
    }
    return out;
  }

  async pnls(userId: string, bots?: { symbol: string; exchange: string }[]) {
    // Kept until the next write to the user's bots; the figures below follow prices and the clock.
    let rows = await this.access.reads.memo(userId, 'active rows', () =>
      this.repo.listByUser(userId, 'active'),
    );
    if (bots) {
      const wanted = new Set(bots.map((b) => `${b.exchange.toLowerCase()}|${asciiTrim(b.symbol)}`));
      rows = rows.filter((r) => wanted.has(`${r.exchange}|${r.symbol}`));
    }
    const now = Date.now();
    const pnls = await Promise.all(
      rows.map(async (r) => {
        const state: unknown = this.runner.handle(r.id)?.state ?? r.state;
        const kind = this.access.kinds.get(r.kind);
        const price = kind?.needsPrice
          ? ((await this.access.market.ticker(r.exchange, r.symbol).catch(() => null))?.last ?? null)
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
}
