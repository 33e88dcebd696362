import type { Strategy } from '@bytx/engine';
import type { FastifyBaseLogger } from 'fastify';
import type { MarketHub, VenueRegistry } from '../../../context';
import type { BotOrderRow, BotRow, BotWrite, NewBotEventRow, NewBotOrderRow } from '../bots.rows';

/** What the runner needs from the database (BotsRepository; the benchmark passes an in-memory one). */
export interface RunnerStore {
  byId(id: string): Promise<BotRow | null>;
  /**
   * `send`: an order is sent as soon as this write commits (its journal row, journal before send); a
   * store may commit it ahead of writes nobody waits for (GroupCommitStore's send lane), never ahead of
   * an earlier write of the same bot.
   */
  write(w: BotWrite, opts?: { send?: boolean }): Promise<void>;
  /** `botId`: the order's bot, so a store that reorders writes of different bots keeps this one's place. */
  updateOrder(clientOrderId: string, patch: Partial<NewBotOrderRow>, botId?: string): Promise<void>;
  liveOrders(botId: string): Promise<BotOrderRow[]>;
  knownClientIds(botId: string): Promise<Set<string>>;
  event(e: NewBotEventRow): Promise<void>;
  /**
   * Resolves once every write made before the call has committed (or failed). A store that has it
   * commits writes in the order they were made; the runner then awaits only the writes an order's
   * sending depends on (journal before send) and flushes before it reports a bot idle. A store without
   * it has every write awaited.
   */
  flushed?(): Promise<void>;
  lease(runnerId: string, ttlMs: number, takeAll: boolean): Promise<string[]>;
  releaseLeases(runnerId: string): Promise<void>;
  /** Active bots with a problem, to try again (BotsRepository; a store without it never retries). */
  withProblem?(
    problem: NonNullable<BotRow['problem']>,
    pair?: { exchange: string; symbol: string },
  ): Promise<BotRow[]>;
}

/** A user action forwarded to the lease holder (BotsRepository; table bot_actions). */
export interface BotActionRow {
  id: string;
  botId: string;
  event: unknown;
  stopTimeoutMs: number | null;
  status: 'pending' | 'running' | 'done' | 'failed';
  ok: boolean | null;
  error: string | null;
}

/**
 * What several runner processes on one database need (BotsRepository has it): one bot's lease, and
 * user actions forwarded to the process holding it. A store without it is a single process.
 */
export interface ActionStore {
  claim(
    botId: string,
    runnerId: string,
    ttlMs: number,
    takeAll: boolean,
  ): Promise<{ ok: true } | { ok: false; holder: string }>;
  releaseLease(botId: string, runnerId: string): Promise<void>;
  addAction(a: {
    botId: string;
    runnerId: string;
    event: unknown;
    stopTimeoutMs: number | null;
  }): Promise<string>;
  pendingActions(runnerId: string): Promise<BotActionRow[]>;
  moveAction(
    id: string,
    from: 'pending' | 'running',
    to: 'running' | 'done' | 'failed',
    outcome?: { ok?: boolean; error?: string },
  ): Promise<boolean>;
  actionById(id: string): Promise<BotActionRow | null>;
}

export function hasActions(store: RunnerStore): store is RunnerStore & ActionStore {
  return 'claim' in store && 'addAction' in store;
}

/** Strategies by bot kind (`bots.kind`). The runner looks a bot's strategy up here and knows no kind. */
/** A strategy state of any kind: the runner only passes it back to its strategy; callers that know the
 *  kind read it typed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind has its own state
export type AnyState = any;
/** Inside the runner a state is opaque: it goes back to the strategy that made it. */
export type OpaqueState = object;
export type AnyStrategy = Strategy<OpaqueState, unknown>;
export type KindRegistry = ReadonlyMap<string, AnyStrategy>;

export interface RunnerDeps {
  store: RunnerStore;
  market: () => MarketHub;
  venues: () => VenueRegistry;
  log: FastifyBaseLogger;
  runnerId: string;
  /**
   * The strategies it runs, by kind: the app's are derived from the list of kinds
   * (modules/bots/kinds/index.ts `botKinds`), handed in so that the runner imports no kind.
   */
  kinds: KindRegistry;
  /** Embedded database: one process only, so leases left by a killed process are taken at once. */
  takeAllLeases: boolean;
  /** Trade the leased bots continuously (BOT_RUNNER=1); otherwise bots are attached only for a user action. */
  autoRun: boolean;
  now?: () => number;
  /** Backoff base for venue retries (ms); tests shorten it. */
  retryBaseMs?: number;
  /** Lease heartbeat (ms). */
  heartbeatMs?: number;
  /** How long a lease lasts (ms); default three heartbeats. The embedded database uses a long one. */
  leaseTtlMs?: number;
  /** How often a runner looks for actions forwarded to it, and a sender for their outcome (ms). */
  actionPollMs?: number;
  /** How long a sender waits for the holder to start a forwarded action before acting itself (ms). */
  forwardTimeoutMs?: number;
  /** How often bots paused by a refused API key try the key again (ms, default 30,000). */
  problemCheckMs?: number;
  /**
   * Called after every strategy decision (bench): `ms` from the event's arrival at the runner (a pair's
   * tick, or an order update pushed by the venue) to the decision; 'other' events are timed from the
   * step's start.
   */
  onStep?: (botId: string, ms: number, commands: number, source: StepSource) => void;
}

export type StepSource = 'tick' | 'order' | 'other';

/** When and how an event reached the runner (for the latency the bench reports). */
export interface Arrival {
  at: number;
  source: StepSource;
}

/** A market a bot follows: its own, or another one its strategy names (arbitrage). */
export interface MarketKey {
  exchange: string;
  symbol: string;
}

// The strategy id lives beside the row types (the read cache and the kinds use it too).
export { strategyIdOf } from '../strategy-id';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
