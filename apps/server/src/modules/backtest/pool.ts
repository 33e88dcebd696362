import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type TransferListItem } from 'node:worker_threads';
import type { WorkerMessage, WorkerTask } from './worker';

/**
 * The backtest workers (issue 37 point 3, docs/backtest.md "The run"): a pool of `worker_threads`
 * that stay up between tasks, shared by two lanes with their own limits:
 * - `parse`: reading an upload's body (short: under a second for 600,000 candles), so that a request
 *   waits for a parse, never for another user's backtest to end;
 * - `run`: the backtests themselves (seconds to minutes).
 * Each lane runs at most `size` tasks at once and at most `perUser` of one user: one user cannot hold
 * every worker, another user's task starts while theirs run. Waiting tasks start in the order they
 * came, skipping a user at their share. A worker idle for `idleMs` ends (it holds ~30 MB).
 */
export type Lane = 'parse' | 'run';

export interface LaneLimits {
  size: number;
  perUser: number;
}

export interface PoolOptions {
  lanes: Record<Lane, LaneLimits>;
  /** An idle worker ends after this long, in ms. */
  idleMs: number;
  /** Starts a worker (tests may pass their own); default: worker.ts through tsx's loader. */
  spawn?: () => Worker;
}

/** A task as the pool keeps it. */
interface Task {
  lane: Lane;
  userId: string;
  message: WorkerTask;
  transfer: TransferListItem[];
  /** A message of the worker; true when it ends the task. */
  onMessage: (m: WorkerMessage) => boolean;
  onStart?: (() => void) | undefined;
  /** Settles the task's promise: false when the worker stopped before the task ended. */
  settle: (finished: boolean, error?: Error) => void;
  worker: PoolWorker | null;
  done: boolean;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  task: Task | null;
  idleTimer: NodeJS.Timeout | null;
}

/** A task submitted: its end, and how to stop it. */
export interface PoolHandle {
  /** true: the task's last message came; false: it was cancelled or its worker stopped. */
  finished: Promise<boolean>;
  /** A waiting task leaves the queue (its promise answers false); a started one keeps running. */
  dequeue: () => boolean;
  /** Ends the task's worker now (a run that does not see its cancel flag). */
  terminate: () => void;
}

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
 * A worker thread of the pool. The server runs its TypeScript through tsx (`node --import tsx`, and
 * vitest in tests), but a worker does not inherit the loader: a small bootstrap registers tsx's ESM
 * loader in the worker (`tsx/esm/api`), then imports worker.ts.
 */
export function spawnBacktestWorker(): Worker {
  const entry = new URL('./worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsxApi())}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, workerData: { backtestPool: true } });
}

export class WorkerPool {
  private readonly queue: Task[] = [];
  private readonly workers = new Set<PoolWorker>();
  private readonly busy: Record<Lane, number> = { parse: 0, run: 0 };
  private readonly perUser = new Map<string, number>();
  private closed = false;
  /** Tasks submitted per lane since the start (tests: a refused upload was never read). */
  readonly submitted: Record<Lane, number> = { parse: 0, run: 0 };

  constructor(private readonly opts: PoolOptions) {}

  /** Workers alive (tests). */
  get size(): number {
    return this.workers.size;
  }

  /** Tasks running in a lane (tests, metrics). */
  running(lane: Lane): number {
    return this.busy[lane];
  }

  submit(
    lane: Lane,
    userId: string,
    message: WorkerTask,
    transfer: TransferListItem[],
    onMessage: (m: WorkerMessage) => boolean,
    onStart?: () => void,
  ): PoolHandle {
    this.submitted[lane]++;
    let settle!: Task['settle'];
    const finished = new Promise<boolean>((resolve, reject) => {
      settle = (ok, error) => (error ? reject(error) : resolve(ok));
    });
    const task: Task = {
      lane,
      userId,
      message,
      transfer,
      onMessage,
      onStart,
      settle,
      worker: null,
      done: false,
    };
    if (this.closed) {
      task.done = true;
      settle(false);
    } else {
      this.queue.push(task);
      this.dispatch();
    }
    return {
      finished,
      dequeue: () => {
        const i = this.queue.indexOf(task);
        if (i < 0) return false;
        this.queue.splice(i, 1);
        this.end(task, false);
        return true;
      },
      terminate: () => {
        const w = task.worker;
        if (w && w.task === task) void w.worker.terminate();
      },
    };
  }

  private userKey(t: Task): string {
    return `${t.lane}\u0000${t.userId}`;
  }

  /** Starts the waiting tasks that their lane's limits allow, oldest first. */
  private dispatch(): void {
    for (let i = 0; i < this.queue.length;) {
      const t = this.queue[i]!;
      const limits = this.opts.lanes[t.lane];
      if (this.busy[t.lane] >= limits.size || (this.perUser.get(this.userKey(t)) ?? 0) >= limits.perUser) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      this.start(t);
    }
  }

  private start(t: Task): void {
    this.busy[t.lane]++;
    this.perUser.set(this.userKey(t), (this.perUser.get(this.userKey(t)) ?? 0) + 1);
    let w: PoolWorker | undefined;
    for (const c of this.workers) {
      if (c.task === null) {
        w = c;
        break;
      }
    }
    w ??= this.spawn();
    if (w.idleTimer) clearTimeout(w.idleTimer);
    w.idleTimer = null;
    w.task = t;
    t.worker = w;
    t.onStart?.();
    if (w.ready) this.post(w, t);
    this.keepSpare();
  }

  /**
   * While workers are busy, one more waits started (up to the lanes' total): the next request does
   * not pay a worker's start (~0.4 s idle, over a second on a loaded machine). It ends when idle.
   */
  private keepSpare(): void {
    if (this.closed) return;
    // Not while one is starting: two starts at once would slow the one a request waits for.
    for (const c of this.workers) if (c.task === null || !c.ready) return;
    if (this.workers.size >= this.opts.lanes.parse.size + this.opts.lanes.run.size) return;
    this.idle(this.spawn());
  }

  private idle(w: PoolWorker): void {
    if (w.idleTimer) clearTimeout(w.idleTimer);
    w.idleTimer = setTimeout(() => this.retire(w), this.opts.idleMs);
    w.idleTimer.unref();
  }

  private post(w: PoolWorker, t: Task): void {
    try {
      w.worker.postMessage(t.message, t.transfer);
    } catch (err) {
      this.end(t, false, err instanceof Error ? err : new Error(String(err)));
      this.free(w);
    }
  }

  private spawn(): PoolWorker {
    const w: PoolWorker = {
      worker: (this.opts.spawn ?? spawnBacktestWorker)(),
      ready: false,
      task: null,
      idleTimer: null,
    };
    this.workers.add(w);
    w.worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'ready') {
        w.ready = true;
        if (w.task) this.post(w, w.task);
        this.keepSpare();
        return;
      }
      const t = w.task;
      if (!t || t.done) return;
      if (t.onMessage(m)) {
        this.end(t, true);
        this.free(w);
      }
    });
    w.worker.on('error', (err) => {
      const t = w.task;
      if (t) this.end(t, false, err);
    });
    w.worker.on('exit', () => {
      this.workers.delete(w);
      if (w.idleTimer) clearTimeout(w.idleTimer);
      const t = w.task;
      w.task = null;
      if (t) this.end(t, false);
      this.dispatch();
    });
    return w;
  }

  /** A task has ended (its lane slot and its user's share are free again). */
  private end(t: Task, finished: boolean, error?: Error): void {
    if (t.done) return;
    t.done = true;
    if (t.worker) {
      this.busy[t.lane] = Math.max(0, this.busy[t.lane] - 1);
      const k = this.userKey(t);
      const n = (this.perUser.get(k) ?? 1) - 1;
      if (n > 0) this.perUser.set(k, n);
      else this.perUser.delete(k);
    }
    t.settle(finished, error);
    if (t.worker) queueMicrotask(() => this.dispatch());
  }

  /** The worker's task ended: it takes the next one, or ends after `idleMs` without one. */
  private free(w: PoolWorker): void {
    w.task = null;
    if (this.closed) {
      this.retire(w);
      return;
    }
    this.dispatch();
    if (w.task === null && this.workers.has(w)) this.idle(w);
  }

  /** Ends an idle worker: out of the set first, so no task is given to it while it stops. */
  private retire(w: PoolWorker): void {
    this.workers.delete(w);
    void w.worker.terminate();
  }

  /** Ends every worker; waiting tasks answer false. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) this.end(t, false);
    await Promise.all([...this.workers].map((w) => w.worker.terminate()));
  }
}
