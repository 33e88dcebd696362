/**
 * The faults the exchange emulator injects, on demand (`inject`) or at random per request
 * (`setFaultRate`). Each one is a way a real exchange answers that the live path must survive.
 */

export type FaultKind =
  /** The order is accepted and kept, then the connection is dropped: no answer (the create "timed out"). */
  | 'drop-after-accept'
  /** The request is never answered (held open until the client gives up or the emulator stops). */
  | 'timeout'
  /** HTTP 503 before anything is done (Binance: "Service Unavailable"). */
  | 'server-error'
  /** HTTP 429 with `Retry-After` (seconds) and Binance's -1003 body; nothing is done. */
  | 'rate-limit'
  /** The next created order fills only part of its amount; the rest stays open (market: expires). */
  | 'partial-fill'
  /** The next created order's fill is hidden for `lateMs`: reads say NEW, unfilled, meanwhile. */
  | 'late-fill'
  /** The next created order is unknown (-2013) to its first `unknownLookups` lookups. */
  | 'unknown-order'
  /** -1021 "Timestamp for this request is outside of the recvWindow"; nothing is done. */
  | 'clock-skew';

export const FAULT_KINDS: readonly FaultKind[] = [
  'drop-after-accept',
  'timeout',
  'server-error',
  'rate-limit',
  'partial-fill',
  'late-fill',
  'unknown-order',
  'clock-skew',
];

/** Faults that concern an order being created (applied only to order creations). */
export const ORDER_FAULTS: ReadonlySet<FaultKind> = new Set([
  'drop-after-accept',
  'partial-fill',
  'late-fill',
  'unknown-order',
]);

export interface FaultSettings {
  /** Seconds sent in Retry-After with a 429 (default 1). */
  retryAfterS: number;
  /** Share of an order filled under 'partial-fill' (0..1, default 0.4). */
  partialShare: number;
  /** How long a fill stays hidden under 'late-fill' (ms, default 1,500). */
  lateMs: number;
  /** Lookups answered -2013 under 'unknown-order' (default 2). */
  unknownLookups: number;
}

export const DEFAULT_FAULT_SETTINGS: FaultSettings = {
  retryAfterS: 1,
  partialShare: 0.4,
  lateMs: 1_500,
  unknownLookups: 2,
};

/** Picks the fault of each request: queued one-shot faults first, then the random rate. */
export class FaultPlan {
  private readonly queue: FaultKind[] = [];
  private rate = 0;
  private kinds: readonly FaultKind[] = FAULT_KINDS;
  private rng: number;
  /** How many of each fault were applied (tests and the crash campaign's report). */
  readonly applied: Record<FaultKind, number> = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<
    FaultKind,
    number
  >;

  constructor(seed = 1) {
    this.rng = seed >>> 0;
  }

  /** mulberry32: a seeded draw so a faulted run can be replayed. */
  private rand(): number {
    this.rng = (this.rng + 0x6d2b79f5) >>> 0;
    let t = this.rng;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  inject(kind: FaultKind, times = 1): void {
    for (let i = 0; i < times; i++) this.queue.push(kind);
  }

  setRate(probability: number, kinds: readonly FaultKind[] = FAULT_KINDS): void {
    if (!(probability >= 0 && probability <= 1)) throw new RangeError('fault probability must be in [0, 1]');
    this.rate = probability;
    this.kinds = kinds.length > 0 ? kinds : FAULT_KINDS;
  }

  clear(): void {
    this.queue.length = 0;
    this.rate = 0;
  }

  /**
   * The fault for one request, or null. `isCreate`: the request creates an order (order faults apply
   * only there; a queued order fault waits for the next creation).
   */
  next(isCreate: boolean): FaultKind | null {
    const i = this.queue.findIndex((k) => isCreate || !ORDER_FAULTS.has(k));
    if (i >= 0) return this.count(this.queue.splice(i, 1)[0] as FaultKind);
    if (this.rate > 0 && this.rand() < this.rate) {
      const allowed = this.kinds.filter((k) => isCreate || !ORDER_FAULTS.has(k));
      if (allowed.length === 0) return null;
      return this.count(allowed[Math.floor(this.rand() * allowed.length)] as FaultKind);
    }
    return null;
  }

  private count(kind: FaultKind): FaultKind {
    this.applied[kind] += 1;
    return kind;
  }
}
