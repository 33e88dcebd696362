import { HttpError } from '../../lib/errors';

/** Start calls a user may make in a window (docs/backtest.md "Uploads"). */
export interface StartLimit {
  max: number;
  /** ms */
  windowMs: number;
}

/**
 * What `POST /api/backtest` checks before it reads a byte of the body (issue 37 point 3): a per-user
 * rate limit of start calls (a fixed window per user, in this process), and one upload of a user at a
 * time in this process (held from the request's start to its answer: a second upload sent while the
 * first is being read or checked is a 409 at once, not after its own 26 MB were parsed). The
 * one-backtest-per-user rule across processes is the database's (a partial unique index).
 */
export class UploadAdmission {
  private readonly uploading = new Set<string>();
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    public limit: StartLimit,
    private readonly now: () => number,
  ) {}

  /** Counts one start call of the user; the 429 to answer when it is over the limit. */
  count(userId: string): HttpError | null {
    const now = this.now();
    let w = this.windows.get(userId);
    if (!w || now - w.start >= this.limit.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(userId, w);
    }
    w.count++;
    if (w.count <= this.limit.max) return null;
    const retryAfter = Math.max(1, Math.ceil((w.start + this.limit.windowMs - now) / 1000));
    // The app's wording of a 429 (app.ts), with Retry-After (plugins/errors.ts sends the header).
    return new HttpError(429, `Too many requests. Please try again in ${retryAfter} seconds.`, {
      retryAfter,
    });
  }

  /** Holds the user's upload slot; null when an upload of theirs is already in progress. */
  reserve(userId: string): (() => void) | null {
    if (this.uploading.has(userId)) return null;
    this.uploading.add(userId);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.uploading.delete(userId);
    };
  }

  /** Uploads in progress (tests). */
  get inProgress(): number {
    return this.uploading.size;
  }

  /** Forgets the windows that have ended (called by the service's sweep). */
  prune(): void {
    const now = this.now();
    for (const [k, w] of this.windows) if (now - w.start >= this.limit.windowMs) this.windows.delete(k);
  }
}
