import type { StopMode, StrategyEvent } from '@bytx/engine';
import { BotHandle, type HandleHost } from './bot-handle';
import { ActionForwarder } from './forwarding';
import { ProblemWatch, type PausingProblem } from './problems';
import type { AnyState, AnyStrategy, KindRegistry, MarketKey, RunnerDeps } from './types';

/** Bots attached at once when the runner starts or finds new leases (see scan). */
const ATTACH_CONCURRENCY = 32;

/**
 * Runs bots of every kind: leases active bots, feeds them ticks from the market hub and order updates
 * from their venues, carries out their strategies' commands and persists every change (DESIGN.md
 * principles 4, 5, 10). A bot's strategy is looked up by its kind; nothing here knows a kind.
 */
export class BotRunner implements HandleHost {
  private readonly bots = new Map<string, BotHandle>();
  /** One market subscription per (exchange, symbol), fanned out to the bots following it. */
  private readonly markets = new Map<
    string,
    { own: Set<BotHandle>; others: Set<BotHandle>; unsubscribe: () => void }
  >();
  private readonly attaching = new Map<string, Promise<BotHandle>>();
  private readonly kinds: KindRegistry;
  private readonly forwarder: ActionForwarder;
  private readonly problems: ProblemWatch;
  private heartbeat: NodeJS.Timeout | null = null;
  private started = false;
  closed = false;

  constructor(readonly deps: RunnerDeps) {
    this.kinds = deps.kinds;
    this.forwarder = new ActionForwarder({
      deps,
      runsHere: (id, orAttaching) => this.bots.has(id) || (orAttaching === true && this.attaching.has(id)),
      act: (id, e) => this.act(id, e),
      stopBot: (id, mode, t) => this.stopBot(id, mode, t),
    });
    this.problems = new ProblemWatch({
      deps,
      isClosed: () => this.closed,
      handle: (id) => this.bots.get(id),
      handles: () => this.bots.values(),
      attached: async () => {
        const settled = await Promise.allSettled([...this.attaching.values()]);
        return settled.flatMap((r) =>
          r.status === 'fulfilled' && this.bots.get(r.value.id) === r.value ? [r.value] : [],
        );
      },
      whenAttached: async (id) => {
        await this.attaching.get(id)?.catch(() => undefined);
        return this.bots.get(id);
      },
      drop: (id) => this.drop(id),
      get: (id) => this.get(id),
    });
  }

  get size() {
    return this.bots.size;
  }

  /** Whether the first scan is done (every bot leased then is reconciled), and the bots held now. */
  get status(): { started: boolean; running: number; attaching: number } {
    return { started: this.started, running: this.bots.size, attaching: this.attaching.size };
  }

  /** The strategy that runs bots of `kind` (the services read kind-neutral views through it). */
  strategyOf(kind: string): AnyStrategy | undefined {
    return this.kinds.get(kind);
  }

  /** Leases and resumes every active bot (reconciling each before it trades), then keeps the lease alive. */
  async start(): Promise<void> {
    await this.scan(true);
    this.started = true;
    this.heartbeat = setInterval(
      () => void this.scan(false).catch((err: unknown) => this.deps.log.error({ err }, 'lease scan failed')),
      this.deps.heartbeatMs ?? 10_000,
    );
    this.heartbeat.unref();
    if (this.deps.autoRun) {
      this.forwarder.start();
      this.problems.start();
    }
  }

  private async scan(first: boolean): Promise<void> {
    if (this.closed) return;
    const ttl = this.deps.leaseTtlMs ?? (this.deps.heartbeatMs ?? 10_000) * 3;
    const ids = await this.deps.store.lease(this.deps.runnerId, ttl, first && this.deps.takeAllLeases);
    // Bots are attached (loaded, reconciled, started) ATTACH_CONCURRENCY at a time rather than one by
    // one: on a database store each attach is several round trips, and the writes of the bots attaching
    // together share a transaction (GroupCommitStore). 10,000 bots one by one took minutes.
    let next = 0;
    const worker = async () => {
      while (next < ids.length && !this.closed) {
        const id = ids[next++]!;
        if (this.bots.has(id) || this.attaching.has(id)) continue;
        await this.get(id).catch((err: unknown) =>
          this.deps.log.error({ err, botId: id }, 'could not resume bot'),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(ATTACH_CONCURRENCY, ids.length) }, worker));
  }

  async close(): Promise<void> {
    this.stopTimers();
    // Bots still being attached finish their reconcile first: the database closes right after, and a
    // reconcile cut in the middle (journal rows still pending_submit, a fill on the venue not yet in
    // the journal) would be left for the next start to redo. (They are detached as they finish: see get.)
    const attaching = await Promise.allSettled([...this.attaching.values()]);
    const hs = [...this.bots.values()];
    for (const r of attaching) if (r.status === 'fulfilled' && !hs.includes(r.value)) hs.push(r.value);
    for (const h of hs) h.detach();
    await Promise.all(hs.map((h) => h.idle()));
    this.bots.clear();
    await this.deps.store.releaseLeases(this.deps.runnerId).catch(() => undefined);
  }

  /** Drops every bot at once without waiting for anything (tests: a process that died). */
  abandon(): void {
    this.stopTimers();
    for (const h of this.bots.values()) h.detach();
    this.bots.clear();
  }

  private stopTimers(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.forwarder.stop();
    this.problems.stop();
  }

  forget(h: BotHandle) {
    h.detach();
    if (this.bots.get(h.id) === h) this.bots.delete(h.id);
  }

  /** Stops running a bot in this process without the strategy (its connection is going away). */
  drop(botId: string): void {
    const h = this.bots.get(botId);
    if (!h) return;
    h.stopped = true;
    this.forget(h);
  }

  has(botId: string) {
    return this.bots.has(botId);
  }

  handle(botId: string): BotHandle | undefined {
    return this.bots.get(botId);
  }

  /**
   * Adds a bot to a market's tick fan-out (subscribing upstream for the first bot of the market); the
   * tick's arrival time is taken once per tick, so a bot's latency includes the bots before it.
   */
  joinMarket(h: BotHandle, m: MarketKey): () => void {
    const key = `${m.exchange}|${m.symbol}`;
    let market = this.markets.get(key);
    if (!market) {
      // Bots whose own market this is, and bots that follow it besides their own (arbitrage): two
      // sets, so the tick loop compares nothing per bot.
      const own = new Set<BotHandle>();
      const others = new Set<BotHandle>();
      const unsubscribe = this.deps.market().subscribe(m.exchange, m.symbol, (t) => {
        const at = performance.now();
        for (const b of own) {
          // One bot's failure (a strategy bug) must not keep the tick from the bots after it.
          try {
            b.onPairTick(t.last, at);
          } catch (err) {
            this.tickFailed(b, err);
          }
        }
        for (const b of others) {
          try {
            b.onOtherTick(t.last, m, at);
          } catch (err) {
            this.tickFailed(b, err);
          }
        }
      });
      market = { own, others, unsubscribe };
      this.markets.set(key, market);
    }
    const entry = market;
    const set = h.row.exchange === m.exchange && h.marketSymbol === m.symbol ? entry.own : entry.others;
    set.add(h);
    return () => {
      set.delete(h);
      if (entry.own.size + entry.others.size === 0 && this.markets.get(key) === entry) {
        this.markets.delete(key);
        entry.unsubscribe();
      }
    };
  }

  private tickFailed(b: BotHandle, err: unknown): void {
    this.deps.log.error({ err, botId: b.id }, 'tick failed');
    b.failTick(err);
  }

  /** Kept for callers that join a bot's own pair. */
  joinPair(h: BotHandle): () => void {
    return this.joinMarket(h, { exchange: h.row.exchange, symbol: h.marketSymbol });
  }

  /** The running handle of a bot, attaching (and reconciling) it when this process does not run it yet. */
  async get(botId: string, trade = this.deps.autoRun): Promise<BotHandle> {
    const existing = this.bots.get(botId);
    if (existing) return existing;
    const pending = this.attaching.get(botId);
    if (pending) return pending;
    const p = (async () => {
      const row = await this.deps.store.byId(botId);
      if (!row) throw new Error(`bot ${botId} not found`);
      const strategy = this.kinds.get(row.kind);
      if (!strategy) throw new Error(`bot ${botId} is of an unknown kind: ${row.kind}`);
      const h = new BotHandle(row, this, strategy);
      if (row.status !== 'active') h.stopped = true;
      // A bot with a problem is attached for a user action only (a stop), never to trade.
      const tradeNow = trade && row.status === 'active' && row.problem === null;
      await h.attach(tradeNow);
      if (tradeNow && !h.stopped && !this.closed) this.bots.set(botId, h);
      // Closed while it attached: it trades no more (close waits for what it has queued).
      else if (this.closed) h.detach();
      return h;
    })();
    this.attaching.set(botId, p);
    try {
      return await p;
    } finally {
      this.attaching.delete(botId);
    }
  }

  /**
   * Runs one user action on a bot: here when this process runs it or can take its lease (an API-only
   * process takes it for the action and gives it back), else on the process holding the lease.
   * Answers the bot's state after the action (the caller knows its kind).
   */
  async act<S = AnyState>(botId: string, event: StrategyEvent): Promise<S> {
    const holder = await this.forwarder.holderElsewhere(botId);
    if (holder) {
      await this.forwarder.forward(botId, holder, event, null);
      return (await this.deps.store.byId(botId))!.state as S;
    }
    const h = await this.get(botId);
    try {
      await h.action(event);
    } finally {
      await this.letGo(h);
    }
    return h.state as S;
  }

  /** Starts running a bot here unless this process already does or another live runner holds it. */
  async adopt(botId: string): Promise<boolean> {
    if (this.bots.has(botId) || (await this.forwarder.holderElsewhere(botId))) return false;
    await this.get(botId);
    return this.bots.has(botId);
  }

  /** Stops a bot with the given mode and waits until the strategy reports it stopped. */
  async stopBot(botId: string, mode: StopMode, timeoutMs = 20_000): Promise<boolean> {
    const holder = await this.forwarder.holderElsewhere(botId);
    if (holder)
      return this.forwarder.forward(botId, holder, { type: 'stop', mode, ts: this.now() }, timeoutMs);
    const h = await this.get(botId);
    try {
      if (h.stopped) return true;
      await h.action({ type: 'stop', mode, ts: this.now() });
      return await h.waitStopped(timeoutMs);
    } finally {
      await this.letGo(h);
    }
  }

  /** After an action on a bot this process does not trade: detach it and give its lease back. */
  private async letGo(h: BotHandle): Promise<void> {
    if (this.bots.get(h.id) === h) return;
    h.detach();
    await this.forwarder.release(h.id);
  }

  private now() {
    return this.deps.now?.() ?? Date.now();
  }

  /** Pauses a bot that cannot trade now (ProblemWatch.pause). */
  pause(botId: string, problem: PausingProblem, detail: string): Promise<void> {
    return this.problems.pause(botId, problem, detail);
  }

  /** The problem is gone: the bot is reconciled with its venue and trades again. */
  unpause(botId: string, was: string): Promise<void> {
    return this.problems.unpause(botId, was);
  }

  /** Tries the paused bots again (every `problemCheckMs`, and when the user resumes). */
  recheckProblems(userId?: string): Promise<void> {
    return this.problems.recheck(userId);
  }

  /** Waits until every bot's queue is empty (tests, bench). Only busy bots are awaited (10,000 promises a call otherwise). */
  async idle(): Promise<void> {
    const busy: BotHandle[] = [];
    for (const h of this.bots.values()) if (h.isBusy) busy.push(h);
    await Promise.all(busy.map((h) => h.idle()));
    await this.deps.store.flushed?.();
  }
}
