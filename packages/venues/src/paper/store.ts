// The store part of a paper account: what is saved (JSON), the PaperStore interface, the in-memory
// store, and the saver (one save per change, saves of an account serialized and coalesced).
import { VenueNetworkError } from '../errors';
import type { Liquidation, Order, PositionSide, TransferWallet } from '../types';

export interface PaperBalance {
  free: number;
  used: number;
}

/** An open derivatives or margin position as the account keeps it (JSON). */
export interface PaperPosition {
  symbol: string;
  marketType: 'Perpetual' | 'Inverse' | 'Margin';
  side: PositionSide;
  /** Contracts (base units for Perpetual and Margin, contracts of `contractSize` USD for Inverse). */
  contracts: number;
  contractSize: number;
  inverse: boolean;
  entryPrice: number;
  /** Isolated margin posted, in `settle` (counted in the wallet's `used`). */
  collateral: number;
  leverage: number;
  /** Quote (Perpetual, Margin) or base coin (Inverse). */
  settle: string;
  /** Which wallet holds the collateral: the derivatives one (swaps) or the spot one (Margin). */
  wallet: TransferWallet;
  /** Funding paid so far (negative: received), `settle`. */
  fundingPaid: number;
  /** Margin only (0 for swaps): borrowed now, quote for a long, base for a short. */
  borrowed: number;
  /** Margin interest paid so far (quote). */
  interestPaid: number;
  /** The last funding time charged, or the last one before the position opened (ms). */
  lastFundingAt: number;
  /** Margin: the last whole hour whose interest was charged (ms). */
  lastInterestAt: number;
  /** Market time of the first fill (ms). */
  openedAt: number;
  timestamp: number;
}

/** The derivatives part of a paper account (JSON, saved whole: it is small). */
export interface PaperDerivativesState {
  /** The derivatives (swap) wallet. */
  balances: Record<string, PaperBalance>;
  positions: PaperPosition[];
  /** Leverage per symbol (swaps, and spot symbols for Margin); absent: 1. */
  leverage: Record<string, number>;
  /** Margin reserved by resting orders, by order id: amount in the order's settle coin and leverage. */
  orderMargin: Record<string, { amount: number; leverage: number }>;
  /** The newest liquidations (at most 1,000), oldest first. */
  liquidations: Liquidation[];
}

/** Everything a paper account is; JSON-serializable. */
export interface PaperAccountState {
  balances: Record<string, PaperBalance>;
  /** Every open order, and as many recent closed or cancelled ones as the store keeps. */
  orders: Order[];
  /** Last order number used (order ids are this sequence as strings). */
  seq: number;
  /** Derivatives wallet and positions; absent in accounts saved before them (they get the seed). */
  derivatives?: PaperDerivativesState | null;
}

/** One save: the whole (small) balance map, the counter, and only the orders that changed. */
export interface PaperStateChange {
  balances: Record<string, PaperBalance>;
  seq: number;
  /** Orders created or changed since the previous save: upsert by id. */
  orders: Order[];
  /** The whole derivatives state (store it as is; `load` returns it). */
  derivatives?: PaperDerivativesState;
}

/**
 * Where paper accounts live. The server keeps them in its database; `MemoryPaperStore` is for
 * tests and benchmarks. `load` returns null for an account never seen (the venue then seeds it and
 * saves at once). Saves of one account never overlap.
 */
export interface PaperStore {
  load(accountId: string): Promise<PaperAccountState | null>;
  save(accountId: string, change: PaperStateChange): Promise<void>;
}

export class MemoryPaperStore implements PaperStore {
  private readonly accounts = new Map<
    string,
    {
      balances: Record<string, PaperBalance>;
      seq: number;
      orders: Map<string, Order>;
      derivatives: PaperDerivativesState | null;
    }
  >();
  saves = 0;

  load(accountId: string): Promise<PaperAccountState | null> {
    const a = this.accounts.get(accountId);
    if (!a) return Promise.resolve(null);
    return Promise.resolve(
      structuredClone({
        balances: a.balances,
        seq: a.seq,
        orders: [...a.orders.values()],
        ...(a.derivatives ? { derivatives: a.derivatives } : {}),
      }),
    );
  }

  save(accountId: string, change: PaperStateChange): Promise<void> {
    this.saves++;
    let a = this.accounts.get(accountId);
    if (!a) {
      a = { balances: {}, seq: 0, orders: new Map(), derivatives: null };
      this.accounts.set(accountId, a);
    }
    a.balances = structuredClone(change.balances);
    a.seq = change.seq;
    for (const o of change.orders) a.orders.set(o.id, structuredClone(o));
    if (change.derivatives) a.derivatives = structuredClone(change.derivatives);
    return Promise.resolve();
  }
}

/** An order's copy for a caller or a save (its fee object copied too). */
export const copyOrder = (o: Order): Order => ({ ...o, fee: o.fee ? { ...o.fee } : null });

/** What a save reads of the account, at the time it runs. */
export interface SavedAccount {
  readonly balances: Record<string, PaperBalance>;
  readonly seq: number;
  readonly deriv: PaperDerivativesState;
  /** Orders created or changed since the last save, by id (the saver empties it). */
  readonly dirty: Map<string, Order>;
}

/**
 * Saves one account: every change is saved before the call that made it resolves; saves never
 * overlap and changes queued while one runs are merged into the next.
 */
export class PaperSaver {
  private pendingFlush: Promise<void> | null = null;
  /** The last save started, its failure handed to `onError` (never rejects). */
  inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: PaperStore,
    private readonly accountId: string,
    private readonly exchange: string,
    private readonly account: SavedAccount,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Saves everything changed so far; saves never overlap and queued changes are merged. */
  persist(): Promise<void> {
    if (this.pendingFlush) return this.pendingFlush;
    const flush = this.inFlight.then(async () => {
      this.pendingFlush = null;
      const account = this.account;
      const dirty = account.dirty;
      const changed = [...dirty.values()];
      dirty.clear();
      const change: PaperStateChange = {
        balances: structuredClone(account.balances),
        seq: account.seq,
        orders: changed.map(copyOrder),
        derivatives: structuredClone(account.deriv),
      };
      try {
        await this.store.save(this.accountId, change);
      } catch (err) {
        // Keep the changes for the next save.
        for (const o of changed) if (!dirty.has(o.id)) dirty.set(o.id, o);
        throw err;
      }
    });
    this.pendingFlush = flush;
    this.inFlight = flush.catch((err: unknown) => this.onError(err));
    return flush;
  }

  /**
   * Resolves when every save started or queued before (or while) waiting has completed, failed ones
   * included (a failed save keeps its changes for the next one).
   */
  async flush(): Promise<void> {
    for (;;) {
      const tail = this.inFlight;
      await tail;
      if (tail === this.inFlight && this.pendingFlush === null) return;
    }
  }

  /** persist(), a failure thrown as a VenueNetworkError (the caller's order may or may not be saved). */
  async persistOrThrow(): Promise<void> {
    try {
      await this.persist();
    } catch (err) {
      throw new VenueNetworkError(
        'The paper account could not be saved; look the order up by its client order id',
        this.exchange,
        err,
      );
    }
  }
}
