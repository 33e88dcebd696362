import type { Order, Venue } from '@bytx/venues';
import type { BotRow } from '../bots.rows';
import { derivativesOf, type LiquidationInfo } from '../derivatives';
import type { BotClientIds } from './client-ids';
import type { RunnerDeps } from './types';

/** The bot's exchange connection is gone (the registry has no venue for it): the bot was halted. */
export class ConnectionGoneError extends Error {}

/** What the venues of one bot report back to it. */
export interface VenueOwner {
  readonly row: BotRow;
  readonly prefix: string;
  /** Recognises the bot's client ids in each exchange's form (and renames them to the strategy's). */
  readonly ids: BotClientIds;
  readonly deps: RunnerDeps;
  readonly stopped: boolean;
  /** An update of one of the bot's orders pushed by `venue` (on `exchange`). */
  onOrderUpdate(order: Order, exchange: string, venue: Venue): void;
  /** A derivatives bot: it listens to the liquidations of its own venue. */
  readonly derivatives: boolean;
  /** A liquidation pushed by the bot's own venue (any market of the account; the bot filters its own). */
  onLiquidation(l: LiquidationInfo, venue: Venue): void;
  /** The connection of `exchange` is gone: the bot stops without the strategy. */
  halt(status: 'error' | 'stopped', code: string, message: string): Promise<void>;
}

/**
 * The venues one bot trades on: its own exchange's, and any other its strategy sends orders to. The
 * registry closes a venue when the connection is replaced or removed (after the beforeConnectionChange
 * hook stopped the bots on it) or when its keys changed elsewhere: a closed instance is never used
 * again, the registry's current one is taken instead, and its order updates are listened to.
 */
export class BotVenues {
  private readonly open = new Map<string, { venue: Venue; unsub: () => void }>();
  /** No longer listening (the bot left this process); a venue still serves a task under way. */
  private detached = false;

  constructor(private readonly bot: VenueOwner) {}

  /** The bot's own venue as last used (null before attach). A field: it is read on every tick. */
  primary: Venue | null = null;

  /** Whether a venue the bot uses was closed under it (it must reconcile with the new one). */
  get anyClosed(): boolean {
    for (const e of this.open.values()) if (e.venue.closed) return true;
    return false;
  }

  /** Takes `venue` as the bot's venue on `exchange` and listens to its order updates (no longer the old one's). */
  use(exchange: string, venue: Venue): void {
    this.open.get(exchange)?.unsub();
    let unsub = this.detached
      ? () => undefined
      : venue.onOrderUpdate((order) => {
          const own = this.bot.ids.own(exchange, order);
          if (own) this.bot.onOrderUpdate(own, exchange, venue);
        });
    const d = derivativesOf(venue);
    if (!this.detached && this.bot.derivatives && exchange === this.bot.row.exchange && d.onLiquidation) {
      const offOrders = unsub;
      const offLiq = d.onLiquidation((l) => this.bot.onLiquidation(l, venue));
      unsub = () => {
        offOrders();
        offLiq();
      };
    }
    this.open.set(exchange, { venue, unsub });
    if (exchange === this.bot.row.exchange) this.primary = venue;
  }

  /** Loads the venue of `exchange` from the registry (attach). */
  async load(exchange = this.bot.row.exchange): Promise<Venue> {
    const venue = await this.bot.deps.venues().forUser(this.bot.row.userId, exchange);
    this.use(exchange, venue);
    return venue;
  }

  /**
   * The venue to call now on `exchange`. When the connection is gone the bot is halted
   * (`exchange_disconnected`) and ConnectionGoneError thrown.
   */
  async current(exchange = this.bot.row.exchange): Promise<Venue> {
    const held = this.open.get(exchange);
    if (held && !held.venue.closed) return held.venue;
    let fresh: Venue;
    try {
      fresh = await this.bot.deps.venues().forUser(this.bot.row.userId, exchange);
    } catch (err) {
      held?.unsub();
      this.open.delete(exchange);
      if (exchange === this.bot.row.exchange) this.primary = null;
      if (!this.bot.stopped) {
        await this.bot.halt(
          'stopped',
          'exchange_disconnected',
          err instanceof Error ? err.message : String(err),
        );
      }
      throw new ConnectionGoneError('the exchange connection of this bot is gone');
    }
    if (fresh !== held?.venue) this.use(exchange, fresh);
    return fresh;
  }

  /** Replaces every closed venue by the registry's current one; false when a connection is gone. */
  async renewClosed(): Promise<boolean> {
    for (const [exchange, e] of [...this.open]) {
      if (!e.venue.closed) continue;
      try {
        await this.current(exchange);
      } catch (err) {
        if (err instanceof ConnectionGoneError) return false;
        throw err;
      }
    }
    return true;
  }

  /** Waits until the venue has saved everything it did so far (PaperVenue.flush; live venues have none). */
  async settled(venue: Venue | null = this.primary): Promise<void> {
    if (venue?.flush) await venue.flush();
  }

  detach(): void {
    this.detached = true;
    for (const e of this.open.values()) {
      e.unsub();
      e.unsub = () => undefined;
    }
  }
}
