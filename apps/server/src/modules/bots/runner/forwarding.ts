import type { StopMode, StrategyEvent } from '@bytx/engine';
import { HttpError } from '../../../lib/errors';
import {
  hasActions,
  sleep,
  type ActionStore,
  type BotActionRow,
  type RunnerDeps,
  type RunnerStore,
} from './types';

/** The holder no longer runs the bot (lease lost, bot stopped): the sender routes the action again. */
const NOT_HERE = 'not_here';

/** What forwarding needs from the runner of this process. */
export interface ForwardingHost {
  readonly deps: RunnerDeps;
  /** Whether this process runs the bot now (with `orAttaching`: or is attaching it). */
  runsHere(botId: string, orAttaching?: boolean): boolean;
  act(botId: string, event: StrategyEvent): Promise<unknown>;
  stopBot(botId: string, mode: StopMode, timeoutMs?: number): Promise<boolean>;
}

/**
 * User actions across runner processes on one database (DESIGN.md principle 10): an action on a bot
 * another live process holds is written to bot_actions for the holder, which carries it out and writes
 * the outcome; a holder that does not start it in time has it withdrawn (so it never runs twice) and
 * it runs here once the lease can be taken.
 */
export class ActionForwarder {
  /** A poll for forwarded actions is under way. */
  private polling = false;
  /** Bots whose forwarded actions are being carried out (one worker a bot). */
  private readonly acting = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly host: ForwardingHost) {}

  private get deps() {
    return this.host.deps;
  }

  private get store(): (RunnerStore & ActionStore) | null {
    const s = this.deps.store;
    return hasActions(s) ? s : null;
  }

  /** Starts looking for actions forwarded to this process. */
  start(): void {
    const store = this.store;
    if (!store) return;
    this.timer = setInterval(() => void this.runForwarded(store), this.deps.actionPollMs ?? 200);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Carries out the actions other processes forwarded to this one (it holds those bots' leases): one
   * bot's actions one after another, in the order they were sent; different bots' side by side, so a
   * stop that waits for its exchange does not hold up other users' actions.
   */
  private async runForwarded(store: RunnerStore & ActionStore): Promise<void> {
    if (this.polling || this.timer === null) return;
    this.polling = true;
    try {
      const byBot = new Map<string, BotActionRow[]>();
      const pending = await store.pendingActions(this.deps.runnerId);
      // Stopped while reading (the process is closing): leave them to their senders, who withdraw them.
      if (this.timer === null) return;
      for (const a of pending) {
        if (this.acting.has(a.botId)) continue; // picked up once its earlier actions are done
        const list = byBot.get(a.botId) ?? [];
        list.push(a);
        byBot.set(a.botId, list);
      }
      for (const [botId, list] of byBot) {
        this.acting.add(botId);
        void (async () => {
          try {
            for (const a of list) await this.runOne(store, a);
          } catch (err) {
            this.deps.log.error({ err, botId }, 'forwarded bot actions failed');
          } finally {
            this.acting.delete(botId);
          }
        })();
      }
    } catch (err) {
      this.deps.log.error({ err }, 'forwarded bot actions could not be read');
    } finally {
      this.polling = false;
    }
  }

  private async runOne(store: RunnerStore & ActionStore, a: BotActionRow): Promise<void> {
    if (!(await store.moveAction(a.id, 'pending', 'running'))) return; // the sender gave up on it
    if (!this.host.runsHere(a.botId)) {
      await store.moveAction(a.id, 'running', 'failed', { error: NOT_HERE });
      return;
    }
    try {
      const event = a.event as StrategyEvent;
      const ok =
        event.type === 'stop'
          ? await this.host.stopBot(a.botId, event.mode, a.stopTimeoutMs ?? 20_000)
          : (await this.host.act(a.botId, event), true);
      await store.moveAction(a.id, 'running', 'done', { ok });
    } catch (err) {
      await store.moveAction(a.id, 'running', 'failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * The runner that holds the bot's lease when it is another live one; null when the action runs here
   * (this process runs the bot, or took its lease now). Single-process stores always answer null.
   */
  async holderElsewhere(botId: string): Promise<string | null> {
    const store = this.store;
    if (this.host.runsHere(botId, true) || !store) return null;
    const ttl = this.deps.leaseTtlMs ?? (this.deps.heartbeatMs ?? 10_000) * 3;
    const claim = await store.claim(botId, this.deps.runnerId, ttl, this.deps.takeAllLeases);
    return claim.ok ? null : claim.holder;
  }

  /** Gives a bot's lease back (after an action on a bot this process does not trade). */
  async release(botId: string): Promise<void> {
    await this.store?.releaseLease(botId, this.deps.runnerId);
  }

  /**
   * Hands an action to the process holding the bot's lease and waits for its outcome. If the holder
   * has not started it in time (dead or stuck), the action is withdrawn (so it can never run twice)
   * and carried out here once the lease can be taken; otherwise the user is asked to try again.
   */
  async forward(
    botId: string,
    holder: string,
    event: StrategyEvent,
    stopTimeoutMs: number | null,
    rerouted = false,
  ): Promise<boolean> {
    const store = this.store;
    if (!store) throw new Error('forwarding needs a store with bot actions');
    const id = await store.addAction({ botId, runnerId: holder, event, stopTimeoutMs });
    const poll = this.deps.actionPollMs ?? 200;
    const startBy = Date.now() + (this.deps.forwardTimeoutMs ?? 25_000);
    let finishBy = Number.POSITIVE_INFINITY;
    for (;;) {
      await sleep(poll);
      const a = await store.actionById(id);
      if (!a) throw new Error('forwarded action vanished');
      if (a.status === 'done') return a.ok ?? true;
      if (a.status === 'failed') {
        if (a.error === NOT_HERE && !rerouted) return this.again(botId, event, stopTimeoutMs);
        throw new HttpError(503, `The bot could not carry out the action: ${a.error ?? 'unknown error'}`);
      }
      if (a.status === 'running' && finishBy === Number.POSITIVE_INFINITY) {
        finishBy = Date.now() + (stopTimeoutMs ?? 0) + (this.deps.forwardTimeoutMs ?? 25_000);
      }
      if (a.status === 'pending' && Date.now() > startBy) {
        if (await store.moveAction(id, 'pending', 'failed', { error: 'not started in time' })) {
          if (rerouted) break;
          return this.again(botId, event, stopTimeoutMs);
        }
      }
      if (Date.now() > finishBy) break;
    }
    throw new HttpError(503, 'The bot is busy in another process. Please try again in a moment.');
  }

  /** Routes an action once more (the lease may have moved or lapsed meanwhile). */
  private async again(botId: string, event: StrategyEvent, stopTimeoutMs: number | null): Promise<boolean> {
    const holder = await this.holderElsewhere(botId);
    if (holder) return this.forward(botId, holder, event, stopTimeoutMs, true);
    if (event.type === 'stop') return this.host.stopBot(botId, event.mode, stopTimeoutMs ?? 20_000);
    await this.host.act(botId, event);
    return true;
  }
}
