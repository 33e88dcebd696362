/**
 * The pause on buys after a refusal for funds or an exchange error, shared by the strategies that buy
 * on their own (Grid Bot DCA, classic DCA): the first wait, doubled at each refusal up to a cap.
 */
export interface BackoffState {
  /** No new buys before this ts. */
  buyRetryAt: number | null;
  /** Current backoff in ms (0: none). */
  buyBackoffMs: number;
}

export interface BackoffLimits {
  firstMs: number;
  maxMs: number;
}

/** Whether a wait until `retryAt` (null: none) is over at `ts`. */
export function due(retryAt: number | null, ts: number): boolean {
  return retryAt === null || ts >= retryAt;
}

export function backoffOver(s: BackoffState, ts: number): boolean {
  return due(s.buyRetryAt, ts);
}

export function bumpBackoff(s: BackoffState, ts: number, limits: BackoffLimits): void {
  // Rejections of orders sent before the pause started do not lengthen it again.
  if (s.buyRetryAt !== null && ts < s.buyRetryAt) return;
  s.buyBackoffMs = s.buyBackoffMs > 0 ? Math.min(limits.maxMs, s.buyBackoffMs * 2) : limits.firstMs;
  s.buyRetryAt = ts + s.buyBackoffMs;
}

/** Funds were freed (a sell filled): buys may be tried again at once. */
export function resetBackoff(s: BackoffState): void {
  s.buyBackoffMs = 0;
  s.buyRetryAt = null;
}

/** A buy was refused for a reason that may pass: pause buys, and say in `params` when they resume. */
export function pauseBuys(
  s: BackoffState,
  ts: number,
  limits: BackoffLimits,
  params: Record<string, string | number>,
): void {
  bumpBackoff(s, ts, limits);
  params.retry_in_s = Math.round((s.buyRetryAt! - ts) / 1000);
}
