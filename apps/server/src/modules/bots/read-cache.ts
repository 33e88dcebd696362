import type { FastifyReply } from 'fastify';
import type { MarketHub } from '../../context';
import type { Db } from '../../db/client';

/**
 * The read cache of the bot lists the dashboards poll (docs/read-path.md): per user and per call (with
 * its parameters), the serialized answer, kept until anything it was computed from changes:
 *
 * - a write to the bot tables: the repository's own writes (BotsRepository) drop the cache of the bot's
 *   user; any other write that names a bot table (raw SQL, another module, a test) is seen on the
 *   database client itself and drops every user's cache;
 * - a price tick of a pair the answer read a price of (market hub subscription), and at most 1 s for
 *   answers that read a price or the clock (time in trade, "last 30 days").
 *
 * An answer computed while a write landed is handed to its own request but never kept, and requests
 * arriving after the write never join it: nothing older than the last committed write is served.
 * Enabled on the embedded database only, where this process is the only writer; on PostgreSQL other
 * processes write too, so every call reads through (a LISTEN/NOTIFY invalidation would lift that).
 */

interface Entry {
  /** The user's and the global generation the answer was computed at. */
  userGen: number;
  globalGen: number;
  /** Second (Date.now() / 1000, floored) the answer is good for; null: not time-dependent. */
  second: number | null;
  /** For an answer that reads prices: the tick sequence (every followed pair) when it was computed. */
  priceSeq: number | null;
  body: string | null;
  pending: Promise<string> | null;
}

/** Options of one cached call. */
export interface CachedCall {
  /** The answer depends on the clock (seconds): recomputed at least once a second. */
  timed?: boolean;
  /** The answer reads current prices: recomputed after a tick of any pair read through `market`. */
  prices?: boolean;
}

/** Statements that change rows (a FOR UPDATE lease is a write too): checked on every query's text. */
const WRITE_SQL = /\b(insert\s+into|update|delete\s+from|truncate)\b/i;
/**
 * The tables the cached answers read (bot_trade_* rollups are kept by triggers on bot_trades; the
 * Signal bot's webhook rows and signal log are read by its list and log calls).
 */
const BOT_TABLE_SQL = /\bbots\b|\bbot_[a-z_]+\b|\bsignal_(?:bots|events)\b/i;
/** At most this many cached answers per user (different pages and filters), and users kept. */
const MAX_KEYS_PER_USER = 64;
const MAX_USERS = 20_000;
const MAX_OWNERS = 1_000_000;
/** A pair whose price no answer read for this long (ms) is no longer followed (a polled live market). */
const UNFOLLOW_AFTER_MS = 5 * 60_000;

const caches = new WeakMap<Db, ReadCache>();

/**
 * The read cache of a database: every BotsRepository on it reports its writes to the same one.
 * `strategyIdOf` is the bot's short strategy id (the prefix of its client order ids), handed in by the
 * repository so this file imports nothing of the runner's.
 */
export function readCacheFor(db: Db, strategyIdOf: (botId: string) => string): ReadCache {
  let c = caches.get(db);
  if (!c) {
    c = new ReadCache(strategyIdOf);
    caches.set(db, c);
  }
  return c;
}

/*
 * No AsyncLocalStorage here: on Node 20 one active store installs promise hooks for the whole process
 * (measured: promise-heavy code 2.5-3x slower), which every database call and the runner would pay.
 */

interface SqlTarget {
  query: (...args: unknown[]) => Promise<unknown>;
  exec: (...args: unknown[]) => Promise<unknown>;
}

export class ReadCache {
  enabled = false;
  private globalGen = 0;
  private readonly userGens = new Map<string, number>();
  private readonly entries = new Map<string, Map<string, Entry>>();
  /** `memo` values by `${userId}|${key}`. */
  private readonly values = new Map<
    string,
    { userGen: number; globalGen: number; value: Promise<unknown> }
  >();
  /** bot id → user id, and strategy id (client order id prefix) → user id, learnt from rows read. */
  private readonly owners = new Map<string, string>();
  private readonly subscriptions = new Map<string, () => void>();
  /** When each followed pair's price was last read (ms): pairs no answer reads any more are let go. */
  private readonly lastRead = new Map<string, number>();
  private lastSweep = 0;
  /** Moves on every tick of every followed pair (and when one is followed or let go). */
  private tickSeq = 0;
  private hub: (() => MarketHub | undefined) | null = null;
  private trackedHub: MarketHub | null = null;
  private trackedOf: MarketHub | null = null;
  private hooked = false;
  /**
   * Set while the repository starts a write (synchronously): the client hook takes the statement (or
   * the transaction) it is called with at that moment as the repository's. Cleared before any other
   * code runs, so a write started otherwise is never taken for the repository's (at worst a
   * repository write is counted as an outside one, and every user's answers are dropped).
   */
  private starting = false;

  /** `strategyIdOf`: a bot's strategy id (client order id prefix), whose owner is noted with the bot's. */
  constructor(private readonly strategyIdOf: (botId: string) => string) {}

  /**
   * Turns the cache on for this app: `client` is the embedded database's client, whose writes outside
   * the repository are watched; `market` gives the hub whose ticks expire price-dependent answers.
   */
  enable(client: unknown, market: () => MarketHub | undefined): void {
    this.hub = market;
    if (!this.hooked && client && typeof client === 'object') {
      this.hookClient(client as SqlTarget & { transaction?: unknown });
      this.hooked = true;
    }
    this.enabled = this.hooked;
  }

  close(): void {
    this.enabled = false;
    for (const off of this.subscriptions.values()) off();
    this.subscriptions.clear();
    this.entries.clear();
    this.values.clear();
  }

  // ---------------------------------------------------------------------------------------------
  // Invalidation

  /** Starts a repository write: the client hook does not count it (the repository names the user). */
  attributed<T>(fn: () => PromiseLike<T>): Promise<T> {
    this.starting = true;
    try {
      const q = fn() as PromiseLike<T> & { execute?: () => Promise<T> };
      // A drizzle query runs when executed: started here, synchronously, while the flag is set.
      return typeof q.execute === 'function' ? q.execute() : Promise.resolve(q);
    } finally {
      this.starting = false;
    }
  }

  noteOwner(botId: string, userId: string): void {
    if (this.owners.get(botId) === userId) return;
    // Bounded: a bot forgotten here only makes its next write drop every user's answers.
    if (this.owners.size >= MAX_OWNERS) this.owners.clear();
    this.owners.set(botId, userId);
    this.owners.set(this.strategyIdOf(botId), userId);
  }

  touchUser(userId: string): void {
    this.userGens.set(userId, (this.userGens.get(userId) ?? 0) + 1);
    this.entries.delete(userId);
  }

  touchAll(): void {
    this.globalGen++;
    this.entries.clear();
  }

  /** A write to a bot: its user's answers go (every user's when the bot's owner is not known here). */
  touchBot(botId: string): void {
    const user = this.owners.get(botId);
    if (user) this.touchUser(user);
    else this.touchAll();
  }

  /**
   * For a writer that commits several bots' writes itself (a group-commit store): after the commit, the
   * answers of those bots' users go, now and once more on the next turn (after the runner has taken
   * its new states in memory). Its statements should run inside `attributed` so the client hook does
   * not drop every user's answers for them.
   */
  touchBots(botIds: Iterable<string>): void {
    const ids = [...botIds];
    for (const id of ids) this.touchBot(id);
    setImmediate(() => {
      for (const id of ids) this.touchBot(id);
    });
  }

  /** A write to an order, known by its client order id (`${strategyId}-${seq}`). */
  touchOrder(clientOrderId: string): void {
    const dash = clientOrderId.lastIndexOf('-');
    const user = dash > 0 ? this.owners.get(clientOrderId.slice(0, dash)) : undefined;
    if (user) this.touchUser(user);
    else this.touchAll();
  }

  /**
   * Watches every statement of the embedded database's client: one that writes a bot table and was not
   * issued by the repository (raw SQL, another module) drops every cached answer, after it completes
   * and again after its transaction commits.
   */
  private hookClient(client: SqlTarget & { transaction?: unknown }): void {
    const check = (text: unknown): boolean =>
      typeof text === 'string' && WRITE_SQL.test(text) && BOT_TABLE_SQL.test(text);
    const wrap = (target: SqlTarget, onWrite: () => void, repoTx = false) => {
      for (const name of ['query', 'exec'] as const) {
        const orig = target[name].bind(target);
        target[name] = async (...args: unknown[]) => {
          const writes = !this.starting && !repoTx && check(args[0]);
          try {
            return await orig(...args);
          } finally {
            if (writes) onWrite();
          }
        };
      }
    };
    wrap(client, () => this.touchAll());
    if (typeof client.transaction === 'function') {
      const origTx = (
        client.transaction as (fn: (tx: SqlTarget) => Promise<unknown>) => Promise<unknown>
      ).bind(client);
      client.transaction = async (fn: (tx: SqlTarget) => Promise<unknown>) => {
        // Called synchronously from the repository's db.transaction(): its statements are the repository's.
        const repoTx = this.starting;
        let wrote = false;
        try {
          return await origTx((tx) => {
            wrap(
              tx,
              () => {
                wrote = true;
                this.touchAll();
              },
              repoTx,
            );
            return fn(tx);
          });
        } finally {
          // Committed (or rolled back): answers computed meanwhile saw the rows before the commit; and
          // once more on the next turn, after the writer (the runner) has taken its new state in memory.
          if (wrote) {
            this.touchAll();
            setImmediate(() => this.touchAll());
          }
        }
      };
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Prices

  /** The market hub as the cached calls must use it: the prices they read are noted. */
  get market(): MarketHub | undefined {
    const hub = this.hub?.();
    if (!hub) return undefined;
    if (this.trackedOf !== hub) {
      this.trackedOf = hub;
      this.trackedHub = this.track(hub);
    }
    return this.trackedHub!;
  }

  private track(hub: MarketHub): MarketHub {
    const t: MarketHub = {
      markets: (e) => hub.markets(e),
      market: (e, s) => hub.market(e, s),
      listedSymbol: (e, s) => hub.listedSymbol(e, s),
      ticker: (e, s) => {
        this.follow(hub, e, s);
        return hub.ticker(e, s);
      },
      orderBook: (e, s, l) => hub.orderBook(e, s, l),
      candles: (e, s, tf, l) => hub.candles(e, s, tf, l),
      subscribe: (e, s, l) => hub.subscribe(e, s, l),
    };
    if (hub.invalidateMarkets) t.invalidateMarkets = (e) => hub.invalidateMarkets!(e);
    if (hub.onListing) t.onListing = (l) => hub.onListing!(l);
    return t;
  }

  /** Follows the pair's ticks (once): each tick moves the sequence price-dependent answers compare. */
  private follow(hub: MarketHub, exchange: string, symbol: string): void {
    const key = `${exchange}|${symbol}`;
    const now = Date.now();
    this.lastRead.set(key, now);
    if (now - this.lastSweep > 60_000) this.sweep(now);
    if (this.subscriptions.has(key)) return;
    this.tickSeq++;
    try {
      this.subscriptions.set(
        key,
        hub.subscribe(exchange, symbol, () => this.tickSeq++),
      );
    } catch {
      // A pair the hub cannot follow: price-dependent answers are good for this second only.
      this.subscriptions.set(key, () => undefined);
    }
  }

  /** Stops following pairs not read lately; an answer that read one is stale from then on. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, at] of this.lastRead) {
      if (now - at < UNFOLLOW_AFTER_MS) continue;
      this.subscriptions.get(key)?.();
      this.subscriptions.delete(key);
      this.lastRead.delete(key);
      this.tickSeq++;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Answers

  private fresh(e: Entry, userGen: number): boolean {
    if (e.userGen !== userGen || e.globalGen !== this.globalGen) return false;
    if (e.second !== null && e.second !== Math.floor(Date.now() / 1000)) return false;
    return e.priceSeq === null || e.priceSeq === this.tickSeq;
  }

  /**
   * The serialized answer of `key` for `userId`: the cached one while fresh, else computed (once for
   * every request waiting on the same generation) and kept when nothing changed meanwhile.
   */
  async get(userId: string, key: string, call: CachedCall, compute: () => Promise<unknown>): Promise<string> {
    if (!this.enabled) return JSON.stringify(await compute());
    const userGen = this.userGens.get(userId) ?? 0;
    const mine = this.entries.get(userId);
    const hit = mine?.get(key);
    if (hit && this.fresh(hit, userGen)) {
      if (hit.body !== null) return hit.body;
      if (hit.pending) return hit.pending;
    }
    const globalGen = this.globalGen;
    const timed = call.timed === true || call.prices === true;
    const entry: Entry = {
      userGen,
      globalGen,
      second: timed ? Math.floor(Date.now() / 1000) : null,
      priceSeq: call.prices === true ? this.tickSeq : null,
      body: null,
      pending: null,
    };
    const pending = (async () => JSON.stringify(await compute()))();
    entry.pending = pending;
    let map = mine;
    if (!map) {
      if (this.entries.size >= MAX_USERS) this.entries.clear();
      map = new Map();
      this.entries.set(userId, map);
    }
    if (map.size >= MAX_KEYS_PER_USER) map.clear();
    map.set(key, entry);
    try {
      const body = await pending;
      entry.pending = null;
      // Kept only if no write landed while it was computed (a touch removed it or moved a generation).
      if (
        this.entries.get(userId)?.get(key) === entry &&
        (this.userGens.get(userId) ?? 0) === userGen &&
        this.globalGen === globalGen
      ) {
        entry.body = body;
      } else if (this.entries.get(userId)?.get(key) === entry) {
        this.entries.get(userId)!.delete(key);
      }
      return body;
    } catch (err) {
      if (this.entries.get(userId)?.get(key) === entry) this.entries.get(userId)!.delete(key);
      throw err;
    }
  }

  /**
   * Rows an answer is computed from, kept until the next write to the user's bots (no clock, no
   * price), under the same rules as the answers: a value loaded while a write landed is not kept.
   * `pnls_actuales` is recomputed every second and after every tick of its pairs, and re-reading the
   * user's active bots (whole rows, with their state) each time was most of its cost. The value is
   * shared by every caller: read it, never change it.
   */
  memo<T>(userId: string, key: string, load: () => Promise<T>): Promise<T> {
    if (!this.enabled) return load();
    const k = `${userId}|${key}`;
    const userGen = this.userGens.get(userId) ?? 0;
    const globalGen = this.globalGen;
    const hit = this.values.get(k);
    if (hit && hit.userGen === userGen && hit.globalGen === globalGen) return hit.value as Promise<T>;
    const value = load();
    const entry = { userGen, globalGen, value };
    if (this.values.size >= MAX_USERS) this.values.clear();
    this.values.set(k, entry);
    const settle = () => {
      const changed = (this.userGens.get(userId) ?? 0) !== userGen || this.globalGen !== globalGen;
      if (this.values.get(k) === entry && changed) this.values.delete(k);
    };
    value.then(settle, () => {
      if (this.values.get(k) === entry) this.values.delete(k);
    });
    return value;
  }

  /** Sends the (cached) answer as JSON, exactly as fastify would have serialized the object. */
  async send(
    reply: FastifyReply,
    userId: string,
    key: string,
    call: CachedCall,
    compute: () => Promise<unknown>,
  ): Promise<FastifyReply> {
    const body = await this.get(userId, key, call, compute);
    return reply.type('application/json; charset=utf-8').send(body);
  }
}
