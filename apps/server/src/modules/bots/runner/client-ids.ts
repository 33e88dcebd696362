import type { Order } from '@bytx/venues';
import { legacyClientIds, recognise, strategyClientIdOf, venueClientIdOf } from '@bytx/venues';

/**
 * Ids kept for the way back when their shape does not name the bot (Bitfinex's integers): the newest
 * this many per bot. Every order the bot still follows was sent or looked up far more recently (a bot
 * has at most a few hundred live orders), and a lookup puts its id back.
 */
const SENT_KEPT = 20_000;

/**
 * One bot's client order ids across its exchanges (issue 38 point 1). The journal and the strategy know
 * an order by the strategy's id `${botKey}-${seq}`; each exchange gets it in its own documented form
 * (packages/venues/src/exchanges/client-ids.ts), a pure function of that id — so the journal's id alone
 * finds the order again after a crash, and journals written before the table still work (where the
 * strategy's form was valid, the exchange's form is that same string).
 *
 * Orders coming back (createOrder's answer, lookups, pushed updates, open-order lists) are renamed to
 * the strategy's id here, before anything else sees them. A form that encodes the bot (every one but
 * Bitfinex's hashed integer) is recognised by its shape; an id sent by this process is also recognised
 * by the table of ids it sent, which is how the integer form is known again.
 */
export class BotClientIds {
  /**
   * `${exchange}\n${venue id}` -> strategy id, for the ids whose shape does not name the bot. Made on
   * the first such id (Bitfinex's): most bots never need one, and an empty Map is ~200 bytes a bot.
   */
  private sent: Map<string, string> | null = null;

  constructor(private readonly botKey: string) {}

  /** The id to send to `exchange` for the strategy's order `strategyId` (remembered for the way back). */
  toVenue(exchange: string, strategyId: string): string {
    const id = venueClientIdOf(exchange, strategyId);
    // The same text (most exchanges take the strategy's id as it is): the strategy's own string, so the
    // venue and the journal hold one string, not a second copy of it built by the table (issue 38's
    // paper-path check: ~5 retained copies a bot, and more garbage to collect).
    if (id === strategyId) return strategyId;
    if (recognise(exchange, id) === null) {
      const k = `${exchange}\n${id}`;
      this.sent ??= new Map();
      this.sent.delete(k); // re-inserted as the newest
      this.sent.set(k, strategyId);
      if (this.sent.size > SENT_KEPT) this.sent.delete(this.sent.keys().next().value!);
    }
    return id;
  }

  /** Every id the order may carry on `exchange`: today's first, then any form used before the table. */
  candidates(exchange: string, strategyId: string): string[] {
    return [this.toVenue(exchange, strategyId), ...legacyClientIds(exchange, strategyId)];
  }

  /** The strategy's id of an exchange's client id, or null when it is not this bot's order. */
  fromVenue(exchange: string, venueId: string | null | undefined): string | null {
    if (!venueId) return null;
    const known = this.sent?.get(`${exchange}\n${venueId}`);
    if (known !== undefined) return known;
    // A strategy id of another shape (sent unchanged by venueClientIdOf) is the bot's by its prefix.
    if (venueId.startsWith(`${this.botKey}-`)) return venueId;
    return strategyClientIdOf(exchange, venueId, this.botKey);
  }

  /** `order` known by the strategy's id (null when it is not this bot's). */
  own(exchange: string, order: Order): Order | null {
    const id = this.fromVenue(exchange, order.clientOrderId);
    if (id === null) return null;
    return id === order.clientOrderId ? order : { ...order, clientOrderId: id };
  }
}
