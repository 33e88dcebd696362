import { randomUUID } from 'node:crypto';
import {
  asciiTrim,
  CLASSIC_DCA_MESSAGES,
  CLASSIC_DCA_OPTIONS,
  DCA_MESSAGES,
  fillMessage,
  LIMITS,
  TP_VNC_OPTIONS,
  type ClassicBotView,
  type StartBotBody,
  type VncView,
} from '@bytx/contract';
import {
  classicDca,
  classicVnc,
  createVnc,
  summarizeClassicDca,
  summarizeVnc,
  type Candle,
  type ClassicDcaState,
  type StopMode,
  type VncState,
} from '@bytx/engine';
import type { AppContext } from '../../../../context';
import { badRequest, HttpError, notFound } from '../../../../lib/errors';
import { parseLooseNumber, parseOptionalPrice, problemText, slTpSideProblem } from '../../bot-input';
import type { BotRow, BotsRepository } from '../../bots.repository';
import type { BotsService } from '../../bots.service';
import { venueSymbol } from '../../derivatives';
import { dcaMarketRules } from '../../market-rules';
import { strategyIdOf, type BotRunner } from '../../runner';
import { createAndLaunch, insertLeased } from '../create';
import { classicConfigOf, createClassicState, parseClassicStart } from './params';

/** `bots.kind` of the classic DCA bot and of the VNC a stopped one leaves (the engine's kinds). */
export const CLASSIC_DCA = classicDca.kind;
export const CLASSIC_VNC = classicVnc.kind;

/** What the bot row's `config` keeps (the form as the user sent it, and the VNC handover mark). */
export interface ClassicConfigJson {
  amount: number;
  tp: number;
  sep: number;
  os: number;
  r: boolean;
  r_os: boolean;
  tp_vnc: number;
  trend_filter: boolean;
  smart_averaging: boolean;
  apartado: string;
  /** The residual of a stop was handed to the pair's VNC (set once, so it is never handed twice). */
  vnc_handed?: boolean;
}

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;
const pairKey = (exchange: string, symbol: string) => `${exchange}|${symbol}`;

/** The classic DCA bot (`/dashboard`, the spot-bot screen): docs/bots/classic-dca.md. */
export class ClassicDcaService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BotsRepository,
    private readonly runner: BotRunner,
    private readonly bots: BotsService,
  ) {}

  private stateOf(row: BotRow): ClassicDcaState {
    return (
      (this.runner.handle(row.id)?.state as ClassicDcaState | undefined) ?? (row.state as ClassicDcaState)
    );
  }

  /** The user's active classic bot on (exchange, symbol), else 404. */
  async activeBot(userId: string, exchange: string, symbol: string): Promise<BotRow> {
    const sym = asciiTrim(symbol);
    const row = await this.repo.activeFor(userId, exchange.toLowerCase(), sym, CLASSIC_DCA);
    if (!row) throw notFound(fillMessage(CLASSIC_DCA_MESSAGES.noActiveBot, { exchange, symbol: sym }));
    return row;
  }

  view(row: BotRow, price: number | null, vncQty: number): ClassicBotView {
    const state = this.stateOf(row);
    const cfg = row.config as ClassicConfigJson;
    const p = price ?? state.lastPrice ?? 0;
    const sum = summarizeClassicDca(state, p);
    const nextSafety = state.orders
      .filter((o) => o.role === 'safety' && !o.cancelling)
      .reduce<number | null>((best, o) => (best === null || o.price > best ? o.price : best), null);
    return {
      id: row.id,
      exchange: row.exchange,
      symbol: row.symbol,
      monto: cfg.amount,
      tp_pct: cfg.tp,
      sep_pct: cfg.sep,
      os: cfg.os,
      dca: sum.dca === null ? null : round(sum.dca, 10),
      pnl: round(sum.pnl, 8),
      precio: price ?? state.lastPrice,
      ttr: sum.cycleStart === null ? 0 : Math.max(0, Math.round((Date.now() - sum.cycleStart) / 1000)),
      r: state.config.r,
      r_os: state.config.rOs,
      sl: state.config.sl,
      tp_plus: state.config.tpPlus,
      tp_vnc: state.config.tpVncPct,
      qty: vncQty,
      position_qty: sum.qty,
      tp_price: sum.tpPrice,
      next_safety: nextSafety,
      safety_filled: sum.safetyFilled,
      cycles: sum.cycles,
      realized_pnl: sum.realizedPnl,
      phase: sum.phase,
      waiting_for: sum.waitingFor,
      trend_filter: state.config.trendFilter,
      smart_averaging: state.config.smartAveraging,
      status: row.problem ? 'error' : row.status,
      problem: row.problem,
      reason: row.problem ? problemText(row.problem, row.problemDetail) : null,
      started_at: row.startedAt.toISOString(),
    };
  }

  private async price(exchange: string, symbol: string): Promise<number | null> {
    return (await this.bots.market.ticker(exchange, symbol).catch(() => null))?.last ?? null;
  }

  /** VNC quantities of the user's pairs (active VNC bots). */
  private async vncByPair(userId: string): Promise<Map<string, BotRow>> {
    const rows = await this.repo.listByUser(userId, 'active', CLASSIC_VNC);
    return new Map(rows.map((r) => [pairKey(r.exchange, r.symbol), r]));
  }

  private vncState(row: BotRow): VncState {
    return (this.runner.handle(row.id)?.state as VncState | undefined) ?? (row.state as VncState);
  }

  async active(userId: string): Promise<ClassicBotView[]> {
    await this.handOverResiduals(userId);
    const rows = await this.repo.listByUser(userId, 'active', CLASSIC_DCA);
    const vncs = await this.vncByPair(userId);
    const prices = new Map<string, number | null>();
    const out: ClassicBotView[] = [];
    for (const r of rows) {
      const key = pairKey(r.exchange, r.symbol);
      if (!prices.has(key)) prices.set(key, await this.price(r.exchange, r.symbol));
      const vnc = vncs.get(key);
      const vncQty = vnc ? summarizeVnc(this.vncState(vnc)).qty : 0;
      try {
        out.push(this.view(r, prices.get(key) ?? null, vncQty));
      } catch (err) {
        // A row that cannot be read is listed with its problem; the others answer normally.
        this.ctx.log.warn({ err, botId: r.id }, 'classic bot state cannot be read');
      }
    }
    return out;
  }

  /** Recent closed 1-minute candles of the pair, so the trend rule's moving average is ready at once. */
  private async history(exchange: string, symbol: string): Promise<Candle[]> {
    const limit = CLASSIC_DCA_OPTIONS.maPeriod + 2;
    const raw = await this.bots.market.candles(exchange, symbol, '1m', limit + 1).catch(() => []);
    const minute = 60_000;
    const formingFrom = Math.floor(Date.now() / minute) * minute;
    return raw
      .filter((c) => c.every((x) => Number.isFinite(x)) && c[0] < formingFrom)
      .map(([t, o, h, l, c]) => ({ t, o, h, l, c }))
      .slice(-limit);
  }

  async start(userId: string, body: StartBotBody): Promise<{ bot: ClassicBotView; message: string }> {
    const checked = await parseClassicStart(body, this.bots.paramDeps(userId), (p) =>
      this.bots.checkAccount(userId, p, CLASSIC_DCA, CLASSIC_DCA_MESSAGES.alreadyActive),
    );
    const { tp, sep, exchange, symbol, amount, os, apartado, price, leverage } = checked;
    const cfgJson: ClassicConfigJson = {
      amount,
      tp,
      sep,
      os,
      r: checked.r,
      r_os: checked.rOs,
      tp_vnc: checked.tpVnc,
      trend_filter: checked.trendFilter,
      smart_averaging: checked.smartAveraging,
      apartado,
    };
    const id = randomUUID();
    const state = createClassicState(
      strategyIdOf(id),
      classicConfigOf(checked),
      await this.history(exchange, symbol),
    );
    const row = await createAndLaunch(
      { ctx: this.ctx, repo: this.repo, runner: this.runner, bots: this.bots },
      {
        id,
        userId,
        kind: CLASSIC_DCA,
        exchange,
        symbol,
        marketType: apartado,
        leverage,
        config: cfgJson,
        state,
      },
      { alreadyActive: CLASSIC_DCA_MESSAGES.alreadyActive, startFailed: DCA_MESSAGES.startFailed },
    );
    const vnc = (await this.vncByPair(userId)).get(pairKey(exchange, symbol));
    return {
      bot: this.view(row, price, vnc ? summarizeVnc(this.vncState(vnc)).qty : 0),
      message: CLASSIC_DCA_MESSAGES.botStarted,
    };
  }

  /**
   * Stops the bot: 'close_market' sells the position, 'cancel_only' (the default: keep assets) leaves
   * it as the pair's VNC, resting at its own take profit (`tp_vnc`).
   */
  async stop(userId: string, exchange: string, symbol: string, mode: StopMode) {
    const row = await this.activeBot(userId, exchange, symbol);
    await this.bots.stop(row, mode);
    await this.handOverResiduals(userId);
    return { success: true, message: CLASSIC_DCA_MESSAGES.botStopped };
  }

  /**
   * Every stopped classic bot of the user that kept a position hands it to the pair's VNC once:
   * merged into the active VNC bot of the pair (idempotent by source bot), else a new VNC bot. Runs
   * after a stop and whenever the list is read, so a crash between the stop and the handover loses
   * nothing.
   */
  async handOverResiduals(userId: string): Promise<void> {
    const stopped = await this.repo.closedWithResidual(userId, CLASSIC_DCA);
    for (const r of stopped) {
      const cfg = r.config as ClassicConfigJson;
      const residual = (r.state as ClassicDcaState).residual;
      if (cfg.vnc_handed || !residual || !(residual.qty > 0)) continue;
      await this.addToVnc(r, residual, cfg.tp_vnc);
      await this.repo.updateBot(r.id, { config: { ...cfg, vnc_handed: true } });
    }
  }

  private async addToVnc(
    source: BotRow,
    residual: { qty: number; cost: string; buyTime: number },
    tpVnc: number,
  ): Promise<void> {
    const params = { source: source.id, qty: residual.qty, cost: residual.cost, buyTime: residual.buyTime };
    const existing = (await this.vncByPair(source.userId)).get(pairKey(source.exchange, source.symbol));
    if (existing) {
      await this.runner.act(existing.id, { type: 'action', name: 'add_vnc', params, ts: Date.now() });
      return;
    }
    const market = await this.bots.market.market(
      source.exchange,
      venueSymbol(source.symbol, source.marketType),
    );
    if (!market) throw new HttpError(503, `${source.symbol} is not listed on ${source.exchange} now.`);
    const id = randomUUID();
    const state = createVnc(
      strategyIdOf(id),
      { symbol: source.symbol, market: dcaMarketRules(market), tpVncPct: tpVnc },
      params,
    );
    try {
      // A VNC the server creates is not counted by MAX_BOTS_PER_USER: no cap.
      await insertLeased(
        { ctx: this.ctx, repo: this.repo, runner: this.runner },
        {
          id,
          userId: source.userId,
          kind: CLASSIC_VNC,
          exchange: source.exchange,
          symbol: source.symbol,
          marketType: source.marketType,
          leverage: source.leverage,
          config: { tp_vnc: tpVnc, from: source.id },
          state,
        },
      );
    } catch (err) {
      // Another handover created the pair's VNC meanwhile: merge into it instead.
      if (!isUniqueViolation(err)) throw err;
      return this.addToVnc(source, residual, tpVnc);
    }
    if (this.ctx.config.BOT_RUNNER) {
      const h = await this.runner.get(id);
      await h.idle();
    }
  }

  /** One of sl, tp_plus, r, r_os (spec: actualizar_bot). */
  async update(
    userId: string,
    exchange: string,
    symbol: string,
    patch: { sl?: unknown; tp_plus?: unknown; r?: boolean | undefined; r_os?: boolean | undefined },
  ) {
    const given = (['sl', 'tp_plus', 'r', 'r_os'] as const).filter((k) => patch[k] !== undefined);
    if (given.length !== 1) throw badRequest(CLASSIC_DCA_MESSAGES.oneField);
    const row = await this.activeBot(userId, exchange, symbol);
    const cfg = row.config as ClassicConfigJson;
    const now = Date.now();
    if (patch.sl !== undefined || patch.tp_plus !== undefined) {
      const sl = patch.sl !== undefined ? parseOptionalPrice(patch.sl, 'sl') : undefined;
      const tpPlus = patch.tp_plus !== undefined ? parseOptionalPrice(patch.tp_plus, 'tp_plus') : undefined;
      if ((sl ?? null) !== null || (tpPlus ?? null) !== null) {
        const price = (await this.bots.market.ticker(row.exchange, row.symbol)).last;
        const problem = slTpSideProblem('LONG', price, sl, tpPlus);
        if (problem) throw badRequest(problem);
      }
      if (sl !== undefined) {
        await this.runner.act(row.id, { type: 'set_sl', sl, ts: now });
        await this.repo.updateBot(row.id, { sl: sl === null ? null : String(sl) });
        return { success: true, sl };
      }
      await this.runner.act(row.id, { type: 'set_tp_plus', tpPlus: tpPlus ?? null, ts: now });
      await this.repo.updateBot(row.id, {
        tpPlus: tpPlus === null || tpPlus === undefined ? null : String(tpPlus),
      });
      return { success: true, tp_plus: tpPlus ?? null };
    }
    const field = patch.r !== undefined ? 'r' : 'r_os';
    const enabled = Boolean(patch[field]);
    await this.runner.act(row.id, {
      type: 'action',
      name: field === 'r' ? 'set_r' : 'set_r_os',
      params: { enabled },
      ts: now,
    });
    await this.repo.updateBot(row.id, { config: { ...cfg, [field]: enabled } });
    return { success: true, [field]: enabled };
  }

  /** The TP of the pair's VNC (and of the VNC the bot leaves when stopped keeping its assets). */
  async updateTpVnc(userId: string, exchange: string, symbol: string, raw: unknown) {
    const pct = parseLooseNumber(raw);
    if (pct === null || !(TP_VNC_OPTIONS as readonly number[]).includes(pct)) {
      throw badRequest(CLASSIC_DCA_MESSAGES.badTpVnc, { field: 'tp_vnc' });
    }
    const ex = exchange.toLowerCase();
    const sym = asciiTrim(symbol);
    const bot = await this.repo.activeFor(userId, ex, sym, CLASSIC_DCA);
    const vnc = await this.repo.activeFor(userId, ex, sym, CLASSIC_VNC);
    if (!bot && !vnc)
      throw notFound(fillMessage(CLASSIC_DCA_MESSAGES.noActiveBot, { exchange, symbol: sym }));
    const action = { type: 'action' as const, name: 'set_tp_vnc', params: { pct }, ts: Date.now() };
    if (bot) {
      await this.runner.act(bot.id, action);
      await this.repo.updateBot(bot.id, { config: { ...(bot.config as ClassicConfigJson), tp_vnc: pct } });
    }
    if (vnc) {
      await this.runner.act(vnc.id, action);
      await this.repo.updateBot(vnc.id, { config: { ...(vnc.config as object), tp_vnc: pct } });
    }
    return { success: true, tp_vnc: pct };
  }

  /** A market buy of `amount` quote added to the open position (spec: anadir_fondos). */
  async addFunds(userId: string, exchange: string, symbol: string, raw: unknown) {
    const amount = parseLooseNumber(raw ?? '');
    if (amount === null || amount <= 0 || amount > LIMITS.maxAmount) {
      throw badRequest(CLASSIC_DCA_MESSAGES.badFunds, { field: 'amount' });
    }
    const row = await this.activeBot(userId, exchange, symbol);
    const before = this.stateOf(row);
    if (summarizeClassicDca(before, before.lastPrice ?? 0).phase !== 'in_position') {
      throw badRequest(CLASSIC_DCA_MESSAGES.notInPosition);
    }
    const market = await this.bots.market.market(row.exchange, row.symbol);
    const price = (await this.bots.market.ticker(row.exchange, row.symbol)).last;
    const minCost = market ? Math.max(market.minCost, market.minAmount * price) : 0;
    if (amount < minCost) {
      throw badRequest(
        fillMessage(DCA_MESSAGES.belowMinCost, {
          pair: row.symbol,
          x: round(minCost, 2),
          n: round(minCost / price, 8),
          p: round(price, 8),
        }),
        { field: 'amount' },
      );
    }
    const since = new Date();
    const after = await this.runner.act<ClassicDcaState>(row.id, {
      type: 'action',
      name: 'add_funds',
      params: { amount },
      ts: Date.now(),
    });
    if (Number(after.position.qty) <= Number(before.position.qty)) {
      // Not bought (or not yet): say why from the bot's log when it refused.
      const why = (await this.repo.events(row.id, 10)).find((e) => e.ts >= since && e.level !== 'info');
      if (why) {
        const p = (why.params ?? {}) as Record<string, unknown>;
        const detail = typeof p.message === 'string' ? p.message : why.code;
        throw badRequest(`No se pudo agregar fondos: ${detail}`);
      }
    }
    return { success: true, message: CLASSIC_DCA_MESSAGES.fundsSent };
  }

  /** VNCs of the user (optionally only these pairs): exchange, symbol, qty (spec: vncs_actuales). */
  async vncs(userId: string, bots?: { exchange: string; symbol: string }[]): Promise<VncView[]> {
    await this.handOverResiduals(userId);
    const wanted = bots
      ? new Set(bots.map((b) => pairKey(b.exchange.toLowerCase(), asciiTrim(b.symbol))))
      : null;
    const out: VncView[] = [];
    for (const r of (await this.vncByPair(userId)).values()) {
      if (wanted && !wanted.has(pairKey(r.exchange, r.symbol))) continue;
      const s = summarizeVnc(this.vncState(r));
      out.push({
        exchange: r.exchange,
        symbol: r.symbol,
        qty: s.qty,
        cost_price: s.qty > 0 ? round(s.cost / s.qty, 10) : null,
        sell_price: s.sellPrice,
        tp_vnc: s.tpVncPct,
      });
    }
    return out;
  }

  /** Average entry of each active classic bot (optionally only these pairs) (spec: dcas_actuales). */
  async dcas(userId: string, bots?: { exchange: string; symbol: string }[]) {
    const wanted = bots
      ? new Set(bots.map((b) => pairKey(b.exchange.toLowerCase(), asciiTrim(b.symbol))))
      : null;
    const rows = await this.repo.listByUser(userId, 'active', CLASSIC_DCA);
    return rows
      .filter((r) => !wanted || wanted.has(pairKey(r.exchange, r.symbol)))
      .map((r) => {
        const s = this.stateOf(r);
        const dca = summarizeClassicDca(s, s.lastPrice ?? 0).dca;
        return { symbol: r.symbol, exchange: r.exchange, dca: dca === null ? null : round(dca, 10) };
      });
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return String(e.cause?.code ?? e.code) === '23505';
}
