import { SIGNAL_LIMITS } from '@bytx/contract';

/**
 * The webhook's guards (issue 37 point 4; docs/bots/signal.md): sliding-window rate limits in
 * memory, the address a limit counts (IPv6 per /64) and the time a signal carries.
 */

/** Keys kept at most per limiter: past this, the keys idle longest are dropped first. */
const MAX_KEYS = 50_000;

/**
 * Requests per key per window (default one minute), in memory: a sliding window of request times.
 * `peek` tells whether the key is at its limit without counting; `hit` counts one request unless it is.
 * The first refused request of each window is flagged `log` (the rest of a flood gets no row each).
 */
export class SignalRateLimiter {
  private readonly hits = new Map<string, number[]>();
  private readonly loggedUntil = new Map<string, number>();

  constructor(
    readonly max: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Null while the key is under its limit; else when it frees (s) and whether to log this refusal. */
  peek(key: string, now: number): { retryAfterS: number; log: boolean } | null {
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length < this.max) return null;
    this.hits.set(key, list);
    const freeAt = list[0]! + this.windowMs;
    const log = now >= (this.loggedUntil.get(key) ?? 0);
    if (log) this.loggedUntil.set(key, freeAt);
    return { retryAfterS: Math.max(1, Math.ceil((freeAt - now) / 1000)), log };
  }

  hit(key: string, now: number): { ok: true } | { ok: false; retryAfterS: number; log: boolean } {
    const over = this.peek(key, now);
    if (over) return { ok: false, ...over };
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    list.push(now);
    // Re-inserted last: the Map's order is then the order of last use (the prune drops the oldest).
    this.hits.delete(key);
    this.hits.set(key, list);
    if (this.hits.size > 10_000) this.prune(now);
    return { ok: true };
  }

  private prune(now: number): void {
    for (const [k, list] of this.hits) {
      if (!list.some((t) => t > now - this.windowMs)) {
        this.hits.delete(k);
        this.loggedUntil.delete(k);
      }
    }
    // A flood from more addresses than MAX_KEYS: forget the keys idle longest (bounded memory).
    for (const k of this.hits.keys()) {
      if (this.hits.size <= MAX_KEYS) break;
      this.hits.delete(k);
      this.loggedUntil.delete(k);
    }
  }
}

/**
 * The address a limit counts: IPv4 as is (also when IPv4-mapped), IPv6 by its /64 (one subscriber's
 * network: a host has 2^64 addresses to rotate through). Anything unparsable is counted as given.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const bare = ip.split('%')[0]!.toLowerCase();
  const halves = bare.split('::');
  if (halves.length > 2) return ip;
  const left = halves[0] ? halves[0].split(':') : [];
  const right = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - left.length - right.length : 0;
  if (fill < 0) return ip;
  const groups = [...left, ...Array<string>(fill).fill('0'), ...right];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return ip;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** ISO 8601 date-time with a zone (Z or ±hh:mm): TradingView's `{{timenow}}` is `2026-01-31T12:00:00Z`. */
const ISO_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const NUM_RE = /^\d{1,16}(?:\.\d+)?$/;
/** Below this an epoch number is seconds (1e11 s is the year 5138), from it milliseconds. */
const SECONDS_BELOW = 1e11;

/**
 * A signal's `time` as ms since the epoch: an ISO 8601 date-time with its zone, or epoch seconds or
 * milliseconds (a number or its digits). Null when absent; 'bad' when it is none of these.
 */
export function parseSignalTime(v: unknown): number | null | 'bad' {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
  let ms: number;
  if (typeof v === 'number' || (typeof v === 'string' && NUM_RE.test(v.trim()))) {
    const n = typeof v === 'number' ? v : Number(v.trim());
    if (!Number.isFinite(n) || n <= 0) return 'bad';
    ms = n < SECONDS_BELOW ? n * 1000 : n;
  } else if (typeof v === 'string' && ISO_RE.test(v.trim())) {
    ms = Date.parse(v.trim().replace(' ', 'T'));
  } else {
    return 'bad';
  }
  // Beyond ±8.64e15 ms a Date cannot be made (the log shows the time as ISO text).
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : 'bad';
}

/** Whether a signal's time is within the window around now (both in ms). */
export const withinWindow = (at: number, now: number) =>
  Math.abs(now - at) <= SIGNAL_LIMITS.timeWindowS * 1000;
