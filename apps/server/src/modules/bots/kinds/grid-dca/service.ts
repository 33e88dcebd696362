import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  DCA_MESSAGES,
  fillMessage,
  type DcaBotView,
  type DcaTradeView,
  type StartBotDcaBody,
} from '@bytx/contract';
import { gridBotDca, type DcaState, type StopMode } from '@bytx/engine';
import type { AppContext, MarketHub, VenueRegistry } from '../../../../context';
import { badRequest, HttpError, notFound } from '../../../../lib/errors';
import type { BotRow, BotsRepository } from '../../bots.repository';
import type { BotsService } from '../../bots.service';
import { parseOptionalPrice, problemText, slTpSideProblem } from '../../bot-input';
import { strategyIdOf, type BotRunner } from '../../runner';
import { createAndLaunch } from '../create';
import { createGridDcaState, gridDcaConfigOf } from './params';

export interface DcaBotConfigJson {
  amount: number;
  tp: number;
  sep: number;
  os: number;
  apartado: string;
  leverage: number;
  direction: 'LONG' | 'SHORT';
}

/** `bots.kind` of the Grid Bot DCA (the engine's gridBotDca.kind). */
export const GRID_DCA = gridBotDca.kind;

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;

/** A stand-in state for listing a bot whose stored state cannot be read. */
function brokenState(): DcaState {
  return {
    anchor: null,
    lots: [],
    waitingBuys: [],
    config: { sepPct: 0, tpPct: 0, os: 0 },
  } as unknown as DcaState;
}

export function rangeOf(state: DcaState): { low: number; high: number } {
  const a = state.anchor ?? 0;
  const c = state.config;
  return { low: a * (1 - c.sepPct / 100) ** c.os, high: a * (1 + c.tpPct / 100) };
}

export class DcaService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
  ) {}
  private get market(): MarketHub {
    const m = this.ctx.services.market;
    if (!m) throw new HttpError(503, 'Market data is not available.');
    return m;
  }
  private get venues(): VenueRegistry {
    const v = this.ctx.services.venues;
    if (!v) throw new HttpError(503, 'Exchange connections are not available.');
    return v;
  }
  view(row: BotRow): DcaBotView {
    const state = row.state as DcaState;
    const cfg = row.config as DcaBotConfigJson;
    const r = rangeOf(state);
    return {
      id: row.id,
      exchange: row.exchange,
      symbol: row.symbol,
      monto: cfg.amount,
      tp_pct: cfg.tp,
      os: cfg.os,
      sep_pct: cfg.sep,
      precio: state.anchor ?? 0,
      sl: row.sl === null ? null : Number(row.sl),
      tp_plus: row.tpPlus === null ? null : Number(row.tpPlus),
      ra_enabled: row.raEnabled,
      apartado: cfg.apartado,
      leverage: cfg.leverage,
      direction: cfg.direction,
      status: row.problem ? 'error' : row.status,
      problem: row.problem,
      reason: row.problem ? problemText(row.problem, row.problemDetail) : null,
      pnl: Number(row.pnl),
      open_lots: state.lots.length,
      // A delisted pair's buys were cancelled on the venue when the bot paused (re-placed on relisting).
      waiting_buys: row.problem === 'pair_delisted' ? 0 : state.waitingBuys.length,
      range_low: round(r.low),
      range_high: round(r.high),
      started_at: row.startedAt.toISOString(),
      stop_reason: row.stopReason,
    };
  }
  async active(userId: string): Promise<DcaBotView[]> {
    const rows = await this.repo.listByUser(userId, 'active', GRID_DCA);
    return rows.map((r) => {
      try {
        return this.view({ ...r, state: this.runner.handle(r.id)?.state ?? r.state });
      } catch (err) {
        // A row that cannot be read (a damaged state) is listed as such; the others answer normally.
        const detail = err instanceof Error ? err.message : String(err);
        return this.view({ ...r, state: brokenState(), problem: 'cannot_run', problemDetail: detail });
      }
    });
  }

  /** The user's active bot on (exchange, symbol), else 404. */
  async activeBot(userId: string, exchange: string, symbol: string): Promise<BotRow> {
    const sym = asciiTrim(symbol);
    const row = await this.repo.activeFor(userId, exchange.toLowerCase(), sym, GRID_DCA);
    if (!row) throw notFound(fillMessage(DCA_MESSAGES.noActiveBot, { exchange, symbol: sym }));
    return row;
  }
  /** Validates a start request in the spec's order with its messages, then creates and starts the bot. */
  async start(userId: string, body: StartBotDcaBody): Promise<{ bot: DcaBotView; message: string }> {
    const checked = await this.bots.checkStart(userId, body, GRID_DCA, DCA_MESSAGES.alreadyActive);
    const { tp, sep, exchange, symbol, amount, os: osRaw, apartado, direction, leverage } = checked;
    const id = randomUUID();
    const state = createGridDcaState(strategyIdOf(id), gridDcaConfigOf(checked));
    const cfgJson: DcaBotConfigJson = { amount, tp, sep, os: osRaw, apartado, leverage, direction };
    const row = await createAndLaunch(
      { ctx: this.ctx, repo: this.repo, runner: this.runner, bots: this.bots },
      {
        id,
        userId,
        kind: GRID_DCA,
        exchange,
        symbol,
        marketType: apartado,
        leverage,
        config: cfgJson,
        state,
      },
      { alreadyActive: DCA_MESSAGES.alreadyActive, startFailed: DCA_MESSAGES.startFailed },
    );
    return { bot: this.view(row), message: DCA_MESSAGES.botStarted };
  }
  async stop(userId: string, exchange: string, symbol: string, mode: StopMode) {
    const row = await this.activeBot(userId, exchange, symbol);
    await this.bots.stop(row, mode);
    return { success: true, message: DCA_MESSAGES.botStopped };
  }

  async updateSlTp(
    userId: string,
    exchange: string,
    symbol: string,
    patch: { sl?: unknown; tp_plus?: unknown },
  ) {
    const hasSl = patch.sl !== undefined;
    const hasTp = patch.tp_plus !== undefined;
    if (!hasSl && !hasTp) throw badRequest('Send one of sl or tp_plus.');
    const sl = hasSl ? parseOptionalPrice(patch.sl, 'sl') : undefined;
    const tpPlus = hasTp ? parseOptionalPrice(patch.tp_plus, 'tp_plus') : undefined;
    const row = await this.activeBot(userId, exchange, symbol);
    if ((sl ?? null) !== null || (tpPlus ?? null) !== null) {
      const price = (await this.market.ticker(row.exchange, row.symbol)).last;
      const problem = slTpSideProblem((row.config as DcaBotConfigJson).direction, price, sl, tpPlus);
      if (problem) throw badRequest(problem);
    }
    if (sl !== undefined) {
      await this.runner.act(row.id, { type: 'set_sl', sl, ts: Date.now() });
      await this.repo.updateBot(row.id, { sl: sl === null ? null : String(sl) });
    }
    if (tpPlus !== undefined) {
      await this.runner.act(row.id, { type: 'set_tp_plus', tpPlus, ts: Date.now() });
      await this.repo.updateBot(row.id, { tpPlus: tpPlus === null ? null : String(tpPlus) });
    }
    return { success: true, sl: sl ?? null, tp_plus: tpPlus ?? null };
  }
  async toggleRa(userId: string, exchange: string, symbol: string, enabled: boolean) {
    const row = await this.activeBot(userId, exchange, symbol);
    await this.runner.act(row.id, { type: 'set_ra', enabled, ts: Date.now() });
    await this.repo.updateBot(row.id, { raEnabled: enabled });
    return { success: true, enabled };
  }
  async relocate(userId: string, exchange: string, symbol: string) {
    const row = await this.activeBot(userId, exchange, symbol);
    const before = (row.state as DcaState).anchor;
    const state = await this.runner.act<DcaState>(row.id, { type: 'relocate', ts: Date.now() });
    if (state.status === 'stopped' || state.status === 'stopping') {
      return { success: false, error: 'The bot is stopping.' };
    }
    return { success: true, message: DCA_MESSAGES.relocated, precio: state.anchor ?? before };
  }

  async history(userId: string, botId: string, page: number, perPage: number) {
    await this.bots.ownBot(userId, botId);
    const { rows, total, totalPnl } = await this.repo.tradesPage(botId, page, perPage);
    const historial: DcaTradeView[] = rows.map((r) => ({
      id: r.id,
      buy_time: r.buyTime.toISOString(),
      sell_time: r.sellTime.toISOString(),
      qty: Number(r.qty),
      buy_price: Number(r.buyPrice),
      sell_price: Number(r.sellPrice),
      pnl_net: Number(r.pnlNet),
    }));
    return {
      success: true,
      historial,
      total_pnl: Number(totalPnl),
      page,
      pages: Math.max(1, Math.ceil(total / perPage)),
      total,
    };
  }
}
