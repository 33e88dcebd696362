import os from 'node:os';
import {
  BACKTEST_INTERVAL_MS,
  BACKTEST_LIMITS,
  BACKTEST_MESSAGES,
  fillMessage,
  VERBATIM_VALIDATION_MESSAGES,
  type BacktestDeleteResponse,
  type BacktestInterval,
  type BacktestKind,
  type BacktestListItem,
  type BacktestStatus,
  type BacktestSummary,
  type BacktestView,
  type BacktestChartCandle,
} from '@bytx/contract';
import type { BacktestResult, Candle as EngineCandle } from '@bytx/engine';
import type { z } from 'zod';
import type { AppContext, MarketHub } from '../../context';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors';
import { parseLooseNumber } from '../bots/bot-input';
import type { BotsRepository } from '../bots/bots.repository';
import { backtestKinds, type BacktestPlan } from '../bots/kinds';
import type { StartParamDeps } from '../bots/start-params';
import { UploadAdmission, type StartLimit } from './admission';
import { alignRange, CandleStore, type CandleColumns } from './candles';
import { WorkerPool, type PoolHandle } from './pool';
import { backtestReadsFor, type BacktestReadCache } from './read-cache';
import type { BacktestRow, BacktestsRepository } from './repository';
import { storedResult, type StoredResult } from './stored-result';
import type { UploadBody, UploadError, UploadResult } from './upload';
import { columnBuffers, type WorkerInput } from './worker';

/** The body of `POST /api/backtest` after its schema, read in a worker (upload.ts). */
export type BacktestStartInput = UploadBody;

/** The candles an upload carried, read in the worker: their columns or their 400. */
export interface UploadCandles {
  candles: CandleColumns | null;
  candleError: UploadError | null;
}

/** A running backtest reports at least this often (progress and heartbeat). */
const HEARTBEAT_MS = 2_000;
/** A queued or running backtest without a report for this long is failed (its process is gone). */
const STALE_MS = 30_000;
/** Expired results are deleted and stale backtests failed this often. */
const SWEEP_MS = 30_000;
/** A cancelled worker still running after this long is terminated. */
const TERMINATE_AFTER_MS = 5_000;
/** An idle worker of the pool ends after this long (ms); a worker costs ~30 MB and ~0.4 s to start. */
const WORKER_IDLE_MS = 60_000;
/** Start calls per user and minute (docs/backtest.md "Uploads"): a person clicks Backtest a few times. */
const START_LIMIT: StartLimit = { max: 30, windowMs: 60_000 };
const PERIOD_DAYS = { '7d': 7, '30d': 30, '90d': 90 } as const;
/** The bot id of a backtest's state (its client order ids are `bt-<seq>`). */
const BOT_ID = 'bt';

/** What a kind's form gave (its backtest adapter's plan) and the strategy the worker runs. */
type Prepared = BacktestPlan & { strategy: string };

/** Each backtest kind's adapter, from the list of bot kinds (modules/bots/kinds/index.ts). */
const BACKTESTS = backtestKinds();

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
  /** Its task in the worker pool, once submitted. */
  handle: PoolHandle | null;
  /** The write of its `running` status, once a worker took it. */
  started: Promise<void>;
  cancelled: boolean;
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
 * result kept in `backtests` for 24 h. One queued or running backtest per user, checked before the
 * body is read (with a per-user rate limit); the body is read in a worker (upload.ts); the runs share a
 * pool of workers (pool.ts) where one user holds at most half of them (the others wait, queued).
 */
export class BacktestService {
  /** The clock (tests move it to see results expire). */
  now: () => number = () => Date.now();
  readonly candles: CandleStore;
  readonly runnerId = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  /**
   * Backtests running at once in this process: min(4, cores − 1), but at least 2 so that another
   * user's backtest starts while a long one runs (the OS shares the cores; the event loop stays free).
   */
  readonly maxWorkers = Math.max(2, Math.min(4, os.availableParallelism() - 1));
  /** One user's share of the running backtests (a cancelled run still ending counts). */
  readonly perUserWorkers = Math.max(1, Math.floor(this.maxWorkers / 2));
  readonly pool = new WorkerPool({
    lanes: {
      run: { size: this.maxWorkers, perUser: this.perUserWorkers },
      // Body reads are short (under a second for 600,000 candles) and have their own lane, so a
      // request never waits for a backtest to end; one per user (admission.ts holds one upload each).
      parse: { size: 2, perUser: 1 },
    },
    idleMs: WORKER_IDLE_MS,
  });
  readonly admission = new UploadAdmission({ ...START_LIMIT }, () => this.now());
  private readonly jobs = new Map<string, Job>();
  /** The reads kept in memory (enabled by the routes on the embedded database). */
  readonly reads: BacktestReadCache;
  private sweepTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly repo: BacktestsRepository,
    private readonly bots: BotsRepository,
  ) {
    this.reads = backtestReadsFor(ctx.db);
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
    const adapter = BACKTESTS.get(kind);
    if (!adapter) throw badRequest(`kind must be ${[...BACKTESTS.keys()].join(', ')}`);
    const merged = {
      ...form,
      ...(exchange !== undefined ? { exchange } : {}),
      ...(symbol !== undefined ? { [adapter.symbolField]: symbol } : {}),
    };
    const plan = await adapter.prepare(merged, this.paramDeps(userId), BOT_ID, formSchemaError);
    return { ...plan, strategy: adapter.strategy.kind };
  }

  /** The candles' source of a request: inline, CSV, or a range of the exchange's (default: 7 days). */
  private source(body: BacktestStartInput, upload: UploadCandles): Source {
    const range = body.from !== undefined || body.to !== undefined || body.period !== undefined;
    const given = [body.hasCandles, body.hasCsv, range].filter(Boolean).length;
    if (given > 1) throw badRequest(BACKTEST_MESSAGES.oneSource);
    if (body.hasCandles || body.hasCsv) {
      // Read and checked in the worker (upload.ts); its 400 is answered here, after the form's checks.
      const e = upload.candleError;
      if (e) throw new HttpError(e.status, e.message, e.extra);
      if (!upload.candles) throw new Error('the upload has no candles');
      return { kind: body.hasCandles ? 'inline' : 'csv', candles: upload.candles };
    }
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

  /**
   * POST /api/backtest, before its body is read (the route's onRequest hook): the user's rate limit
   * (429), an upload of theirs still being read (409) and their queued or running backtest (409, after
   * failing one whose process stopped reporting). Answers the release of the user's upload slot, to be
   * called when the request has been answered.
   */
  async admit(userId: string): Promise<() => void> {
    if (this.closed) throw new HttpError(503, 'The server is shutting down.');
    const limited = this.admission.count(userId);
    if (limited) throw limited;
    const release = this.admission.reserve(userId);
    if (!release) throw conflict(BACKTEST_MESSAGES.alreadyRunning);
    try {
      await this.repo.failStale(
        new Date(this.now() - STALE_MS),
        BACKTEST_MESSAGES.interrupted,
        new Date(this.now()),
        userId,
      );
      if (await this.repo.activeOf(userId)) throw conflict(BACKTEST_MESSAGES.alreadyRunning);
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /**
   * The body of POST /api/backtest read in a worker of the pool's parse lane (upload.ts): the server's
   * event loop never parses or walks the candles. `bytes` is moved to the worker (not copied).
   */
  async readUpload(userId: string, bytes: Uint8Array): Promise<UploadResult> {
    let own = bytes;
    if (
      bytes.byteOffset !== 0 ||
      bytes.byteLength !== bytes.buffer.byteLength ||
      !(bytes.buffer instanceof ArrayBuffer)
    )
      own = bytes.slice();
    let upload: UploadResult | null = null;
    let failure: string | null = null;
    const handle = this.pool.submit(
      'parse',
      userId,
      { type: 'parse', bytes: own },
      [own.buffer as ArrayBuffer],
      (m) => {
        if (m.type === 'parsed') upload = m.upload;
        else if (m.type === 'error') failure = m.message;
        else return false;
        return true;
      },
    );
    await handle.finished;
    if (this.closed) throw new HttpError(503, 'The server is shutting down.');
    if (!upload) throw new Error(`the backtest worker could not read the body: ${failure ?? 'it stopped'}`);
    return upload;
  }

  /** POST /api/backtest: checks everything it can now, then queues the run; 202 with its id. */
  async start(userId: string, body: BacktestStartInput, upload: UploadCandles): Promise<{ id: string }> {
    if (this.closed) throw new HttpError(503, 'The server is shutting down.');
    const prepared = await this.prepare(userId, body.kind, body.params, body.exchange, body.symbol);
    let budget = prepared.defaultBudget;
    if (body.budget !== undefined) {
      const b = parseLooseNumber(body.budget);
      if (b === null || b <= 0 || b > 1e12)
        throw badRequest(BACKTEST_MESSAGES.badBudget, { field: 'budget' });
      budget = b;
    }
    const source = this.source(body, upload);
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
      handle: null,
      started: Promise.resolve(),
      cancelled: false,
    };
    this.jobs.set(row.id, job);
    void this.run(job, prepared, source, body.interval, budget, slippagePct);
    return { id: row.id };
  }

  /**
   * GET /api/backtest/{id} as sent (JSON): the user's own backtest (another's, or an expired one, is a
   * 404). A finished backtest's answer changes only by a write to its row (deleted, purged) or by
   * expiring: it is kept (read-cache.ts), so its stored result is neither parsed from the database nor
   * serialized again per request; expiry is checked here on every request. A queued or running one's
   * answer (its progress is the worker's) is not kept. Kept as UTF-8 bytes: a 7-day answer is ~135 KB
   * (chart candles and equity), encoded once, not per send.
   */
  async getBody(userId: string, id: string): Promise<Buffer> {
    const cutoff = this.cutoff().getTime();
    const key = `one|${userId}|${id}`;
    const got = await this.reads.get(
      key,
      cutoff,
      async () => {
        const row = await this.repo.own(userId, id, new Date(cutoff));
        if (!row) return null;
        const active = row.status === 'queued' || row.status === 'running';
        const body = Buffer.from(JSON.stringify(this.viewOf(row)));
        return { createdAt: row.createdAt.getTime(), active, body };
      },
      (v) => (v && !v.active ? v.body.length : null),
    );
    if (!got || got.createdAt < cutoff) {
      if (got) this.reads.forget(key);
      throw notFound(BACKTEST_MESSAGES.notFound);
    }
    return got.body;
  }

  private viewOf(row: BacktestRow): BacktestView {
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

  /**
   * GET /api/backtest as sent (JSON): the user's recent backtests, newest first. The rows are kept until
   * the next write to `backtests` (read-cache.ts) and cut at the current cutoff here: the newest `limit`
   * rows created since an earlier cutoff, cut at a later one, are exactly the newest `limit` since the
   * later one (every row created after it is newer than every row before it). The answer itself is kept
   * with them while none of them is queued or running (a running one's progress is the worker's, read
   * per request) and none has expired since (else it is made again from the kept rows).
   */
  async listBody(userId: string, limit: number): Promise<string> {
    const cutoff = this.cutoff().getTime();
    const got = await this.reads.get(
      `list|${userId}|${limit}`,
      cutoff,
      async () => {
        const rows = await this.repo.list(userId, new Date(cutoff), limit);
        const active = rows.some((r) => r.status === 'queued' || r.status === 'running');
        return {
          rows,
          oldest: Math.min(...rows.map((r) => r.createdAt.getTime())),
          body: active ? null : JSON.stringify({ success: true, backtests: this.listItems(rows, cutoff) }),
        };
      },
      (v) => 512 * (v.rows.length + 1) + (v.body?.length ?? 0),
    );
    if (got.body !== null && got.oldest >= cutoff) return got.body;
    return JSON.stringify({ success: true, backtests: this.listItems(got.rows, cutoff) });
  }

  private listItems(
    rows: Awaited<ReturnType<BacktestsRepository['list']>>,
    cutoff: number,
  ): BacktestListItem[] {
    return rows
      .filter((r) => r.createdAt.getTime() >= cutoff)
      .map((r) => {
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
    // A run still waiting for a worker leaves the pool's queue; a running one sees the flag at its
    // next check, and its worker is ended if it has not stopped by then.
    const h = job.handle;
    if (h && !h.dequeue()) setTimeout(() => h.terminate(), TERMINATE_AFTER_MS).unref();
  }

  // ---------------------------------------------------------------- the run

  private async run(
    job: Job,
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
    try {
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
        if (prepared.warmup) {
          // A strategy that starts from the candles before the period (the classic DCA's trend rule).
          const iv = BACKTEST_INTERVAL_MS[interval];
          const n = prepared.warmup.candles;
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
          initialState = prepared.warmup.initialState(history);
        }
      } else {
        candles = source.candles;
      }
      if (job.cancelled) return;
      const iv = BACKTEST_INTERVAL_MS[interval];
      const range = { fromMs: candles.ts[0]!, toMs: candles.ts[candles.length - 1]! + iv };
      const result = await this.runWorker(job, range, {
        strategy: prepared.strategy,
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
      // After the 'running' row (its write may still be on its way on another connection).
      await job.started;
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
      this.jobs.delete(job.id);
    }
  }

  /**
   * Runs the engine in a worker of the pool's run lane (queued while the lane or the user's share is
   * full; `running` once a worker takes it); null when it was stopped (cancel or shutdown).
   */
  private async runWorker(
    job: Job,
    range: { fromMs: number; toMs: number },
    input: WorkerInput,
  ): Promise<{ result: BacktestResult; chart: BacktestChartCandle[] } | null> {
    let out: { result: BacktestResult; chart: BacktestChartCandle[] } | null = null;
    let failure: string | null = null;
    const handle = this.pool.submit(
      'run',
      job.userId,
      { type: 'run', input },
      columnBuffers(input.candles),
      (m) => {
        if (m.type === 'progress') {
          job.progress = Math.min(1, Math.max(job.progress, m.fraction));
          return false;
        }
        if (m.type === 'result') out = { result: m.result, chart: m.chart };
        else if (m.type === 'error') failure = m.message;
        else return false;
        return true;
      },
      () => {
        job.started = this.repo
          .updateActive(job.id, { status: 'running', ...range, heartbeatAt: new Date(this.now()) })
          .then(
            (still) => {
              if (!still) this.cancelJob(job.id);
            },
            (err: unknown) => this.ctx.log.warn({ err, backtest: job.id }, 'backtest start not recorded'),
          );
      },
    );
    job.handle = handle;
    try {
      await handle.finished;
    } finally {
      job.handle = null;
    }
    if (failure !== null) throw new Error(failure);
    if (out) return out;
    if (job.cancelled || this.closed) return null;
    throw new Error('the backtest worker stopped');
  }

  // ---------------------------------------------------------------- upkeep

  /**
   * Deletes results older than 24 h and fails the queued or running backtests no process reports on
   * (their process stopped: "interrupted by a restart, run it again").
   */
  async sweep(): Promise<{ deleted: number; failed: number }> {
    const now = this.now();
    this.admission.prune();
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
    }
    await this.pool.close();
    await this.repo
      .failIds(ids, BACKTEST_MESSAGES.interrupted, new Date(this.now()))
      .catch((err: unknown) => this.ctx.log.warn({ err }, 'could not mark backtests interrupted'));
  }

  /** Backtests running in this process (tests). */
  get runningCount(): number {
    return this.jobs.size;
  }
}
