import { DUST } from '@bytx/contract';
import { LOT_ACTIONS } from '@bytx/engine';
import type { MarketHub } from '../../../context';
import type { BotRow, BotsRepository } from '../bots.repository';
import type { BotRunner } from '../runner';
import type { PendingRepository } from './repository';
import type { PendingService } from './service';
import { ScheduledJob } from '../../../db/scheduled-job';

export const DUST_JOB = 'dust_auto_close';
/** How often a process looks whether the dust run is due (ms); the run itself is every DUST.everyMs. */
const CHECK_EVERY_MS = 60_000;
/** From start to the first check (ms). */
const FIRST_CHECK_MS = 5_000;
/** A claimed run that has not finished by then (its process died) may be claimed again (ms). */
const CLAIM_MS = 5 * 60_000;

export interface DustClosed {
  bot_id: string;
  lot_id: string;
  qty: number;
  usd: number;
}

export interface DustDeps {
  repo: BotsRepository;
  pending: PendingRepository;
  service: PendingService;
  runner: BotRunner;
  market: () => MarketHub;
  holder: string;
  log: { error(obj: unknown, msg: string): void };
  now?: () => number;
}

/**
 * Dust auto-close (spec part 2 §9): every 20 minutes, open lots older than 1 minute worth less than
 * 7 USD are deleted from their bots (as the user's delete does: TP cancelled, assets stay), at most 10
 * per run, oldest first, each in the bot's event log. The next run's time is in `scheduled_jobs`, so a
 * restart neither skips nor repeats a run; one process claims each run.
 */
export class DustJob extends ScheduledJob<DustClosed[]> {
  constructor(private readonly deps: DustDeps) {
    super({
      everyMs: CHECK_EVERY_MS,
      firstMs: FIRST_CHECK_MS,
      failure: 'dust auto-close failed',
      log: deps.log,
      now: () => deps.now?.() ?? Date.now(),
    });
  }

  protected async claimAndRun(): Promise<DustClosed[] | null> {
    const now = new Date(this.now());
    const due = await this.deps.pending.claimJob(DUST_JOB, this.deps.holder, now, DUST.everyMs, CLAIM_MS);
    if (!due) return null;
    let closed: DustClosed[] = [];
    try {
      closed = await this.run(now.getTime());
    } finally {
      // The schedule keeps its rhythm; after a long downtime the next run is a full period away.
      let next = due.getTime() + DUST.everyMs;
      if (next <= now.getTime()) next = now.getTime() + DUST.everyMs;
      await this.deps.pending.finishJob(DUST_JOB, this.deps.holder, now, new Date(next), {
        closed: closed.length,
      });
    }
    return closed;
  }

  /** One run at `now` (ms), whatever the schedule says. */
  async run(now: number): Promise<DustClosed[]> {
    const rows = (await this.deps.repo.allActive()).filter((r) => !r.problem);
    const candidates: { row: BotRow; lotId: string; openedAt: number; qty: number; usd: number }[] = [];
    const usdCache = new Map<string, number | null>();
    const usdOf = async (exchange: string, asset: string): Promise<number | null> => {
      if ((DUST.stablecoins as readonly string[]).includes(asset)) return 1;
      const key = `${exchange}|${asset}`;
      if (!usdCache.has(key)) {
        const last = await this.deps
          .market()
          .ticker(exchange, `${asset}/USDT`)
          .then((t) => t.last)
          .catch(() => null);
        usdCache.set(key, typeof last === 'number' && last > 0 ? last : null);
      }
      return usdCache.get(key) ?? null;
    };
    const withLots = rows
      .map((row) => ({ row, lots: this.deps.service.lotsOf(row) }))
      .filter((b) => b.lots.some((l) => l.busy === null && l.openedAt <= now - DUST.minAgeMs));
    const prices = await this.deps.service.prices(withLots.map((b) => b.row));
    for (const { row, lots } of withLots) {
      const price = prices.get(`${row.exchange}|${row.symbol}`) ?? null;
      if (price === null) continue;
      const quoteUsd = await usdOf(row.exchange, row.symbol.split('/')[1]?.split(':')[0] ?? 'USDT');
      if (quoteUsd === null) continue; // Cannot value it: never deleted on a guess.
      for (const lot of lots) {
        if (lot.busy !== null || lot.openedAt > now - DUST.minAgeMs) continue;
        const usd = lot.qty * price * quoteUsd;
        if (usd < DUST.maxUsd)
          candidates.push({ row, lotId: lot.id, openedAt: lot.openedAt, qty: lot.qty, usd });
      }
    }
    candidates.sort((a, b) => a.openedAt - b.openedAt || a.lotId.localeCompare(b.lotId));
    const closed: DustClosed[] = [];
    for (const c of candidates.slice(0, DUST.maxPerRun)) {
      const usd = Math.round(c.usd * 100) / 100;
      try {
        await this.deps.runner.act(c.row.id, {
          type: 'action',
          name: LOT_ACTIONS.forget,
          params: { lotId: c.lotId },
          ts: now,
        });
      } catch (err) {
        this.deps.log.error({ err, botId: c.row.id }, 'dust auto-close of a lot failed');
        continue;
      }
      await this.deps.repo.event({
        botId: c.row.id,
        level: 'info',
        code: 'dust_closed',
        params: { lot_id: c.lotId, qty: c.qty, usd, max_usd: DUST.maxUsd },
      });
      closed.push({ bot_id: c.row.id, lot_id: c.lotId, qty: c.qty, usd });
    }
    return closed;
  }
}
