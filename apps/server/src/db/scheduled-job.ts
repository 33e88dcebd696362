/**
 * The loop shared by the jobs claimed in `scheduled_jobs` (database maintenance, dust auto-close): a
 * check every `everyMs` (and a first one `firstMs` after start), never two runs of one job at once in a
 * process, a failed run logged and tried again at the next check. The subclass claims its run and runs
 * it (`claimAndRun`, null when not due or claimed elsewhere).
 */
export abstract class ScheduledJob<R> {
  private timer: NodeJS.Timeout | null = null;
  private first: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  protected constructor(
    private readonly loop: {
      /** Between checks (ms). */
      everyMs: number;
      /** From start to the first check (ms). */
      firstMs: number;
      /** The log line of a failed run. */
      failure: string;
      log: { error(obj: unknown, msg: string): void };
      now?: () => number;
    },
  ) {}

  protected now(): number {
    return this.loop.now?.() ?? Date.now();
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.loop.everyMs);
    this.timer.unref();
    this.first = setTimeout(() => void this.tick(), this.loop.firstMs);
    this.first.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.first) clearTimeout(this.first);
    this.timer = null;
    this.first = null;
    await this.running?.catch(() => undefined);
  }

  /** Runs the job if its run is due and this process gets the claim; null when not run. */
  async tick(): Promise<R | null> {
    if (this.running) return null;
    const p = this.claimAndRun();
    this.running = p;
    try {
      return await p;
    } catch (err) {
      this.loop.log.error({ err }, this.loop.failure);
      return null;
    } finally {
      this.running = null;
    }
  }

  protected abstract claimAndRun(): Promise<R | null>;
}
