import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  BACKTEST_INTERVAL_MS,
  BACKTEST_LIMITS,
  BACKTEST_MESSAGES,
  backtestStartBody,
  CLASSIC_DCA_OPTIONS,
  fillMessage,
  gridStartBody,
  startBotBody,
  startBotDcaBody,
  VERBATIM_VALIDATION_MESSAGES,
  type BacktestDeleteResponse,
  type BacktestFill,
  type BacktestInterval,
  type BacktestKind,
  type BacktestListItem,
  type BacktestStatus,
  type BacktestSummary,
  type BacktestTrade,
  type BacktestView,
  type BacktestChartCandle,
  type BacktestEquityPoint,
} from '@bytx/contract';
import type { BacktestResult, Candle as EngineCandle, MarketRules } from '@bytx/engine';
import type { z } from 'zod';
import type { AppContext, MarketHub } from '../../context';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors';
import { parseLooseNumber } from '../bots/bot-input';
import type { BotsRepository } from '../bots/bots.repository';
import { classicConfigOf, createClassicState, parseClassicStart } from '../bots/classic-dca/params';
import { createGridDcaState, gridDcaConfigOf, parseGridDcaStart } from '../bots/grid-dca/params';
import { createGridState, parseGridStart } from '../bots/grid/params';
import type { StartParamDeps } from '../bots/start-params';
import { alignRange, CandleStore, csvCandles, inlineCandles, type CandleColumns } from './candles';
import type { BacktestRow, BacktestsRepository } from './repository';
import type { WorkerInput, WorkerMessage } from './worker';

/** The body of `POST /api/backtest` after its schema. */
export type BacktestStartInput = z.output<typeof backtestStartBody>;

/** A running backtest reports at least this often (progress and heartbeat). */
const HEARTBEAT_MS = 2_000;
/** A queued or running backtest without a report for this long is failed (its process is gone). */
const STALE_MS = 30_000;
/** Expired results are deleted and stale backtests failed this often. */
const SWEEP_MS = 30_000;
/** A cancelled worker still running after this long is terminated. */
const TERMINATE_AFTER_MS = 5_000;
const PERIOD_DAYS = { '7d': 7, '30d': 30, '90d': 90 } as const;
/** The bot id of a backtest's state (its client order ids are `bt-<seq>`). */
const BOT_ID = 'bt';

/** What a kind's form gave: where it trades, the engine config and state, the budget it can commit. */
interface Prepared {
  exchange: string;
  symbol: string;
  rules: MarketRules;
  config: unknown;
  initialState: unknown;
  defaultBudget: number;
  /** The classic DCA seeds its trend rule with the candles before the period (exchange candles). */
  classic: Parameters<typeof classicConfigOf>[0] | null;
  priceStep: number;
}

/** Where a backtest's candles come from. */
type Source =
  | { kind: 'inline' | 'csv'; candles: CandleColumns }
  | { kind: 'exchange'; from: number; end: number; count: number };

interface Job {
  id: string;
  userId: string;
  progress: number;
  cancel: Int32Array;
  abort: AbortController;
  worker: Worker | null;
  cancelled: boolean;
}

/** The Grid Bot DCA's default budget, in (N + 1) × amount (docs/backtest.md). */
export const GRID_DCA_BUDGET_FACTOR = 5;

const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;

/** The URL of tsx's ESM API (it registers the TypeScript loader in the worker thread). */
let tsxApiUrl: string | null = null;
function tsxApi(): string {
  if (tsxApiUrl) return tsxApiUrl;
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('tsx/package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as {
    exports: Record<string, { import?: { default?: string } } | string>;
  };
  const entry = pkg.exports['./esm/api'];
  const rel = typeof entry === 'object' ? entry.import?.default : undefined;
  if (!rel) throw new Error('tsx has no ./esm/api export');
  tsxApiUrl = pathToFileURL(path.join(path.dirname(pkgPath), rel)).href;
  return tsxApiUrl;
}

/**
 * The worker thread of one backtest. The server runs its TypeScript through tsx (`node --import tsx`,
 * and vitest in tests), but a worker does not inherit the loader: a small bootstrap registers tsx's
 * ESM loader in the worker (`tsx/esm/api`), then imports worker.ts.
 */
function spawnWorker(input: WorkerInput): Worker {
  const entry = new URL('./worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsxApi())}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  const c = input.candles;
  return new Worker(code, {
    eval: true,
    workerData: { backtest: input },
    transferList: [c.ts.buffer, c.open.buffer, c.high.buffer, c.low.buffer, c.close.buffer] as ArrayBuffer[],
  });
}

/** The first issue of a start form's schema as the start call would answer it. */
function formSchemaError(error: z.ZodError): HttpError {
  const issue = error.issues[0];
  const msg = issue?.message ?? 'invalid';
  if (VERBATIM_VALIDATION_MESSAGES.has(msg)) return badRequest(msg);
  const field = ['params', ...(issue?.path ?? []).map(String)].join('.');
  return badRequest(`Invalid request: ${field}: ${msg}`, { field });
}

/** A time sent as ms or an ISO date. */
function parseTime(v: number | string | undefined, field: 'from' | 'to'): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(n) || n < 0)
    throw badRequest(fillMessage(BACKTEST_MESSAGES.badTime, { field }), { field });
  return Math.floor(n);
}

/**
 * Backtests (issue 19, docs/backtest.md): a start form's params, checked by that form's own parser,
 * run over past candles by the engine's `runBacktest` in a worker thread; status, progress and the
 * result kept in `backtests` for 24 h. One queued or running backtest per user; at most `maxWorkers`
 * workers at once in this process (the others wait, queued).
 */
export class BacktestService {
  /** The clock (tests move it to see results expire). */
  now: () => number = () => Date.now();
  readonly candles: CandleStore;
  readonly runnerId = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  readonly maxWorkers = Math.max(1, Math.min(4, os.availableParallelism() - 1));
  private readonly jobs = new Map<string, Job>();
  private readonly waiting: (() => void)[] = [];
  private busy = 0;
  private sweepTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BacktestsRepository,
    private readonly bots: BotsRepository,
  ) {
    const simulated = ctx.config.MARKET_DATA === 'simulated';
    this.candles = new CandleStore({
      database: ctx.database,
      market: () => this.market,
      simulatedPrice: simulated
        ? (exchange, symbol) => {
            const sim = ctx.services.simulator;
            if (!sim) throw new HttpError(503, 'Market data is not available.');
            return sim.price(exchange, symbol);
          }
        : null,
      now: () => this.now(),
    });
  }

  private get market(): MarketHub {
    const m = this.ctx.services.market;
    if (!m) throw new HttpError(503, 'Market data is not available.');
    return m;
  }

  private cutoff(): Date {
    return new Date(this.now() - BACKTEST_LIMITS.ttlMs);
  }

  // ---------------------------------------------------------------- the form

  /** What the kind's start checks need, without an account: no connection, no derivatives. */
  private paramDeps(userId: string): StartParamDeps {
    return {
      market: this.market,
      connection: () => Promise.resolve('paper'),
      savedApartado: async () => (await this.bots.settings(userId)).apartado,
      derivativesMarket: () =>
        Promise.reject(badRequest(BACKTEST_MESSAGES.derivativesNotSupported, { field: 'apartado' })),
    };
  }

  /** The kind's start form checked by its own parser (its messages), and what the run needs from it. */
  async prepare(
    userId: string,
    kind: BacktestKind,
    params: Record<string, unknown>,
    exchange: string | undefined,
    symbol: string | undefined,
  ): Promise<Prepared> {
    const { user_id: _u, user: _v, ...form } = params;
    const deps = this.paramDeps(userId);
    if (kind === 'grid') {
      const parsed = gridStartBody.safeParse({
        ...form,
        ...(exchange !== undefined ? { exchange } : {}),
        ...(symbol !== undefined ? { pair: symbol } : {}),
      });
      if (!parsed.success) throw formSchemaError(parsed.error);
      const p = await parseGridStart(parsed.data, deps);
      const state = createGridState(BOT_ID, p.config);
      const slots = p.levels.length - 1;
      return {
        exchange: p.exchange,
        symbol: p.pair,
        rules: p.config.market,
        config: p.config,
        initialState: state,
        defaultBudget: ceil2(slots * p.amount * (1 + p.market.taker) * 1.01),
        classic: null,
        priceStep: p.market.priceStep,
      };
    }
    const merged = {
      ...form,
      ...(exchange !== undefined ? { exchange } : {}),
      ...(symbol !== undefined ? { symbol } : {}),
    };
    if (kind === 'classic_dca') {
      const parsed = startBotBody.safeParse(merged);
      if (!parsed.success) throw formSchemaError(parsed.error);
      const p = await parseClassicStart(parsed.data, deps);
      const config = classicConfigOf(p);
      const state = createClassicState(BOT_ID, config, []);
      const smart = p.smartAveraging ? CLASSIC_DCA_OPTIONS.smartAmount * 10 : 0;
      return {
        exchange: p.exchange,
        symbol: p.symbol,
        rules: config.market,
        config,
        initialState: state,
        defaultBudget: ceil2(p.amount * (p.os + 1) * 1.01 + smart),
        classic: p,
        priceStep: p.market.priceStep,
      };
    }
    const parsed = startBotDcaBody.safeParse(merged);
    if (!parsed.success) throw formSchemaError(parsed.error);
    const p = await parseGridDcaStart(parsed.data, deps);
    const config = gridDcaConfigOf(p);
    return {
      exchange: p.exchange,
      symbol: p.symbol,
      rules: config.market,
      config,
      initialState: createGridDcaState(BOT_ID, config),
      // The ladder keeps N waiting buys below the price however far it falls: room for lots over a
      // fall of about 4 × (N + 1) separations (rejections for funds are counted in the summary).
      defaultBudget: ceil2(p.amount * (p.os + 1) * GRID_DCA_BUDGET_FACTOR * 1.01),
      classic: null,
      priceStep: p.market.priceStep,
    };
  }

  /** The candles' source of a request: inline, CSV, or a range of the exchange's (default: 7 days). */
  private source(body: BacktestStartInput): Source {
    const range = body.from !== undefined || body.to !== undefined || body.period !== undefined;
    const given = [body.candles !== undefined, body.csv !== undefined, range].filter(Boolean).length;
    if (given > 1) throw badRequest(BACKTEST_MESSAGES.oneSource);
    if (body.candles !== undefined) return { kind: 'inline', candles: inlineCandles(body.candles) };
    if (body.csv !== undefined) return { kind: 'csv', candles: csvCandles(body.csv) };
    const now = this.now();
    const interval = body.interval;
    let from: number;
    let to: number;
    if (body.period !== undefined || (body.from === undefined && body.to === undefined)) {
      if (body.from !== undefined || body.to !== undefined) throw badRequest(BACKTEST_MESSAGES.oneSource);
      to = now;
      from = now - PERIOD_DAYS[body.period ?? '7d'] * 86_400_000;
    } else {
      to = parseTime(body.to, 'to') ?? now;
      from = parseTime(body.from, 'from') ?? to - PERIOD_DAYS['7d'] * 86_400_000;
    }
    if (!(from < to) || from >= now) throw badRequest(BACKTEST_MESSAGES.badRange, { field: 'from' });
    const r = alignRange(interval, from, to, now);
    if (r.count > BACKTEST_LIMITS.maxCandles) {
      throw badRequest(
        fillMessage(BACKTEST_MESSAGES.tooManyCandles, {
          count: r.count,
          interval,
          max: BACKTEST_LIMITS.maxCandles,
        }),
        { field: 'from' },
      );
    }
    if (r.count < 2) throw badRequest(BACKTEST_MESSAGES.tooFewCandles, { field: 'from' });
    return { kind: 'exchange', ...r };
  }

  // ---------------------------------------------------------------- the calls

  /** POST /api/backtest: checks everything it can now, then queues the run; 202 with its id. */
  async start(userId: string, body: BacktestStartInput): Promise<{ id: string }> {
    if (this.closed) throw new HttpError(503, 'The server is shutting down.');
    await this.repo.failStale(
      new Date(this.now() - STALE_MS),
      BACKTEST_MESSAGES.interrupted,
      new Date(this.now()),
      userId,
    );
    if (await this.repo.activeOf(userId)) throw conflict(BACKTEST_MESSAGES.alreadyRunning);
    const prepared = await this.prepare(userId, body.kind, body.params, body.exchange, body.symbol);
    let budget = prepared.defaultBudget;
    if (body.budget !== undefined) {
      const b = parseLooseNumber(body.budget);
      if (b === null || b <= 0 || b > 1e12)
        throw badRequest(BACKTEST_MESSAGES.badBudget, { field: 'budget' });
      budget = b;
    }
    const source = this.source(body);
    const slippagePct = body.slippage_pct ?? BACKTEST_LIMITS.defaultSlippagePct;
    const iv = BACKTEST_INTERVAL_MS[body.interval];
    const known =
      source.kind === 'exchange'
        ? { fromMs: source.from, toMs: source.end }
        : {
            fromMs: source.candles.ts[0]!,
            toMs: source.candles.ts[source.candles.length - 1]! + iv,
          };
    let row: BacktestRow;
    try {
      row = await this.repo.insert({
        userId,
        kind: body.kind,
        exchange: prepared.exchange,
        symbol: prepared.symbol,
        interval: body.interval,
        ...known,
        source: source.kind,
        params: { ...body.params },
        slippagePct,
        budget,
        status: 'queued',
        progress: 0,
        runnerId: this.runnerId,
        heartbeatAt: new Date(this.now()),
        createdAt: new Date(this.now()),
      });
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string } };
      if (String(e.cause?.code ?? e.code) === '23505') throw conflict(BACKTEST_MESSAGES.alreadyRunning);
      throw err;
    }
    // Each user keeps the newest backtests only (results are up to a few MB each).
    await this.repo.keepNewest(userId, BACKTEST_LIMITS.keptPerUser);
    const job: Job = {
      id: row.id,
      userId,
      progress: 0,
      cancel: new Int32Array(new SharedArrayBuffer(4)),
      abort: new AbortController(),
      worker: null,
      cancelled: false,
    };
    this.jobs.set(row.id, job);
    void this.run(job, body.kind, prepared, source, body.interval, budget, slippagePct);
    return { id: row.id };
  }

  /** GET /api/backtest/{id}: the user's own backtest (another's, or an expired one, is a 404). */
  async get(userId: string, id: string): Promise<BacktestView> {
    const row = await this.repo.own(userId, id, this.cutoff());
    if (!row) throw notFound(BACKTEST_MESSAGES.notFound);
    const result = (row.result ?? null) as StoredResult | null;
    return {
      success: true,
      ...this.itemOf(row),
      params: (row.params ?? {}) as Record<string, unknown>,
      slippage_pct: row.slippagePct,
      budget: row.budget,
      ...(row.summary ? { summary: row.summary as BacktestSummary } : {}),
      ...(result
        ? {
            trades: result.trades,
            fills: result.fills,
            equity: result.equity,
            candles: result.candles,
            assumptions: result.assumptions,
            truncated: result.truncated,
          }
        : {}),
    };
  }

  /** GET /api/backtest: the user's recent backtests, newest first. */
  async list(userId: string, limit: number): Promise<BacktestListItem[]> {
    const rows = await this.repo.list(userId, this.cutoff(), limit);
    return rows.map((r) => {
      const s = r.summary as BacktestSummary | null;
      return {
        ...this.itemOf(r),
        net_pnl: s ? s.netPnl : null,
        return_pct: s ? s.returnPct : null,
      };
    });
  }

  private itemOf(row: {
    id: string;
    status: string;
    progress: number;
    error: string | null;
    kind: string;
    exchange: string;
    symbol: string;
    interval: string;
    fromMs: number | null;
    toMs: number | null;
    source: string;
    createdAt: Date;
    finishedAt: Date | null;
  }): Omit<BacktestListItem, 'net_pnl' | 'return_pct'> {
    const job = this.jobs.get(row.id);
    const active = row.status === 'queued' || row.status === 'running';
    return {
      id: row.id,
      status: row.status as BacktestStatus,
      progress: active && job ? Math.max(row.progress, job.progress) : row.progress,
      ...(row.error ? { error: row.error } : {}),
      kind: row.kind as BacktestKind,
      exchange: row.exchange,
      symbol: row.symbol,
      interval: row.interval,
      from: row.fromMs,
      to: row.toMs,
      source: row.source as BacktestListItem['source'],
      created_at: row.createdAt.toISOString(),
      finished_at: row.finishedAt?.toISOString() ?? null,
    };
  }

  /** DELETE /api/backtest/{id}: a queued or running one is cancelled, a finished one deleted. */
  async remove(userId: string, id: string): Promise<BacktestDeleteResponse> {
    const row = await this.repo.own(userId, id, this.cutoff());
    if (!row) throw notFound(BACKTEST_MESSAGES.notFound);
    if (row.status === 'queued' || row.status === 'running') {
      const done = await this.repo.updateActive(id, {
        status: 'cancelled',
        finishedAt: new Date(this.now()),
      });
      if (done) {
        this.cancelJob(id);
        return { success: true, status: 'cancelled', message: BACKTEST_MESSAGES.cancelled };
      }
    }
    this.cancelJob(id);
    await this.repo.delete(id);
    return { success: true, status: 'deleted', message: BACKTEST_MESSAGES.deleted };
  }

  /** Stops a local run: the worker sees the flag at its next check (terminated if it does not end soon). */
  private cancelJob(id: string): void {
    const job = this.jobs.get(id);
    if (!job || job.cancelled) return;
    job.cancelled = true;
    Atomics.store(job.cancel, 0, 1);
    job.abort.abort();
    const w = job.worker;
    if (w) setTimeout(() => void w.terminate(), TERMINATE_AFTER_MS).unref();
    // A run still waiting for a worker slot leaves the queue.
    this.wake();
  }

  // ---------------------------------------------------------------- the run

  /** Waits for a worker slot; false when the run was cancelled meanwhile (no slot taken). */
  private async acquire(job: Job): Promise<boolean> {
    while (this.busy >= this.maxWorkers) {
      if (job.cancelled) return false;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (job.cancelled) return false;
    this.busy++;
    return true;
  }

  private release(): void {
    this.busy = Math.max(0, this.busy - 1);
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting.splice(0);
    for (const w of waiting) w();
  }

  private async run(
    job: Job,
    kind: BacktestKind,
    prepared: Prepared,
    source: Source,
    interval: BacktestInterval,
    budget: number,
    slippagePct: number,
  ): Promise<void> {
    const heartbeat = setInterval(() => {
      void this.repo.updateActive(job.id, { progress: job.progress, heartbeatAt: new Date(this.now()) }).then(
        (still) => {
          if (!still) this.cancelJob(job.id);
        },
        (err: unknown) => this.ctx.log.warn({ err, backtest: job.id }, 'backtest heartbeat failed'),
      );
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let acquired = false;
    try {
      acquired = await this.acquire(job);
      if (!acquired) return;
      let candles: CandleColumns;
      let initialState = prepared.initialState;
      if (source.kind === 'exchange') {
        candles = await this.candles.load(
          prepared.exchange,
          prepared.symbol,
          interval,
          source.from,
          source.end,
          {
            signal: job.abort.signal,
            priceStep: prepared.priceStep,
          },
        );
        if (candles.length < 2) {
          throw badRequest(
            fillMessage(BACKTEST_MESSAGES.noCandles, {
              exchange: prepared.exchange,
              symbol: prepared.symbol,
            }),
          );
        }
        if (prepared.classic) {
          // The trend rule starts with the candles before the period, as a started bot's does.
          const iv = BACKTEST_INTERVAL_MS[interval];
          const n = CLASSIC_DCA_OPTIONS.maPeriod + 2;
          const before = await this.candles.load(
            prepared.exchange,
            prepared.symbol,
            interval,
            source.from - n * iv,
            source.from,
            { signal: job.abort.signal, priceStep: prepared.priceStep },
          );
          const history: EngineCandle[] = [];
          for (let i = 0; i < before.length; i++) {
            history.push({
              t: before.ts[i]!,
              o: before.open[i]!,
              h: before.high[i]!,
              l: before.low[i]!,
              c: before.close[i]!,
            });
          }
          initialState = createClassicState(BOT_ID, classicConfigOf(prepared.classic), history);
        }
      } else {
        candles = source.candles;
      }
      if (job.cancelled) return;
      const iv = BACKTEST_INTERVAL_MS[interval];
      const started = await this.repo.updateActive(job.id, {
        status: 'running',
        fromMs: candles.ts[0]!,
        toMs: candles.ts[candles.length - 1]! + iv,
        heartbeatAt: new Date(this.now()),
      });
      if (!started) return;
      const result = await this.runWorker(job, {
        kind,
        config: prepared.config,
        initialState,
        market: prepared.rules,
        initialQuote: budget,
        slippagePct,
        candles: {
          length: candles.length,
          ts: candles.ts,
          open: candles.open,
          high: candles.high,
          low: candles.low,
          close: candles.close,
        },
        cancel: job.cancel,
      });
      if (!result || job.cancelled || result.result.cancelled) return;
      await this.repo.updateActive(job.id, {
        status: 'done',
        progress: 1,
        summary: result.result.summary,
        result: storedResult(result.result, result.chart),
        finishedAt: new Date(this.now()),
        heartbeatAt: new Date(this.now()),
      });
    } catch (err) {
      if (job.cancelled) return;
      const message =
        err instanceof HttpError
          ? err.message
          : `The backtest failed: ${err instanceof Error ? err.message : String(err)}`;
      if (!(err instanceof HttpError)) this.ctx.log.warn({ err, backtest: job.id }, 'backtest failed');
      await this.repo
        .updateActive(job.id, { status: 'failed', error: message, finishedAt: new Date(this.now()) })
        .catch((e: unknown) =>
          this.ctx.log.warn({ err: e, backtest: job.id }, 'could not record a failed backtest'),
        );
    } finally {
      clearInterval(heartbeat);
      if (acquired) this.release();
      this.jobs.delete(job.id);
    }
  }

  /** Runs the engine in a worker; null when the worker was stopped (cancel or shutdown). */
  private runWorker(
    job: Job,
    input: WorkerInput,
  ): Promise<{ result: BacktestResult; chart: BacktestChartCandle[] } | null> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const worker = spawnWorker(input);
      job.worker = worker;
      if (job.cancelled) setTimeout(() => void worker.terminate(), TERMINATE_AFTER_MS).unref();
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'progress') {
          job.progress = Math.min(1, Math.max(job.progress, m.fraction));
        } else if (m.type === 'result') {
          settled = true;
          resolve({ result: m.result, chart: m.chart });
          void worker.terminate();
        } else {
          settled = true;
          reject(new Error(m.message));
          void worker.terminate();
        }
      });
      worker.on('error', (err) => {
        if (settled) return;
        settled = true;
        reject(err);
      });
      worker.on('exit', () => {
        job.worker = null;
        if (settled) return;
        settled = true;
        if (job.cancelled || this.closed) resolve(null);
        else reject(new Error('the backtest worker stopped'));
      });
    });
  }

  // ---------------------------------------------------------------- upkeep

  /**
   * Deletes results older than 24 h and fails the queued or running backtests no process reports on
   * (their process stopped: "interrupted by a restart, run it again").
   */
  async sweep(): Promise<{ deleted: number; failed: number }> {
    const now = this.now();
    const deleted = await this.repo.purgeCreatedBefore(this.cutoff());
    const failed = await this.repo.failStale(
      new Date(now - STALE_MS),
      BACKTEST_MESSAGES.interrupted,
      new Date(now),
    );
    return { deleted, failed };
  }

  /**
   * At start-up: a backtest left queued or running by a previous run of the server is failed ("run it
   * again"): on the embedded database at once (one process), on PostgreSQL once no process reports on it.
   */
  async startup(): Promise<void> {
    const now = new Date(this.now());
    const single = this.ctx.database.driver === 'pglite';
    await this.repo.failStale(
      single ? null : new Date(now.getTime() - STALE_MS),
      BACKTEST_MESSAGES.interrupted,
      now,
    );
    await this.repo.purgeCreatedBefore(this.cutoff());
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.ctx.log.warn({ err }, 'backtest sweep failed'));
    }, SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Shutdown: running backtests stop and are marked failed (interrupted). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const ids = [...this.jobs.keys()];
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (!job) continue;
      job.cancelled = true;
      Atomics.store(job.cancel, 0, 1);
      job.abort.abort();
      if (job.worker) await job.worker.terminate();
    }
    this.wake();
    await this.repo
      .failIds(ids, BACKTEST_MESSAGES.interrupted, new Date(this.now()))
      .catch((err: unknown) => this.ctx.log.warn({ err }, 'could not mark backtests interrupted'));
  }

  /** Backtests running in this process (tests). */
  get runningCount(): number {
    return this.jobs.size;
  }
}

/** The result as stored (and answered), the summary apart. */
interface StoredResult {
  trades: BacktestTrade[];
  fills: BacktestFill[];
  equity: BacktestEquityPoint[];
  candles: BacktestChartCandle[];
  assumptions: string[];
  truncated: { trades: boolean; fills: boolean };
}

function storedResult(r: BacktestResult, chart: BacktestChartCandle[]): StoredResult {
  return {
    trades: r.trades.map((t) => ({
      buyTime: t.buyTime,
      sellTime: t.sellTime,
      qty: t.qty,
      buyPrice: t.buyPrice,
      sellPrice: t.sellPrice,
      fees: t.fees,
      pnlNet: t.pnlNet,
    })),
    fills: r.fills.map((f) => ({
      time: f.time,
      side: f.side,
      price: f.price,
      qty: f.qty,
      fee: f.fee,
      role: f.role,
      orderType: f.orderType,
    })),
    equity: r.equity,
    candles: chart,
    assumptions: r.assumptions,
    truncated: {
      trades: r.summary.closedTrades > r.trades.length,
      fills: r.summary.fills > r.fills.length,
    },
  };
}
