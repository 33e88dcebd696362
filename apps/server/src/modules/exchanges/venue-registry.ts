import { EXCHANGES, exchangeKeyOf, NOT_CONNECTED_MESSAGE, type ExchangeKey } from '@bytx/contract';
import type { Venue } from '@bytx/venues';
import type { VenueRegistry } from '../../context';
import { sealContext, type SecretBox } from '../../lib/crypto';
import { badRequest, conflict } from '../../lib/errors';
import type { ConnectionRow, ConnectionsRepository } from './connections.repository';
import { paperAccountId, type DbPaperStore } from './paper-store';

export interface LiveKeys {
  exchange: ExchangeKey;
  apiKey: string;
  apiSecret: string;
  password?: string;
}

/** Whether a connect could see that the key cannot withdraw (docs/exchanges.md "Withdrawal check"). */
export type WithdrawCheck = 'checked' | 'unchecked';

/** How venues are made; the default builds PaperVenue and CcxtVenue, tests replace `live`. */
export interface VenueFactory {
  paper(input: { exchange: ExchangeKey; accountId: string; store: DbPaperStore }): Venue | Promise<Venue>;
  live(input: LiveKeys): Venue | Promise<Venue>;
  /**
   * Checks new live keys before they are stored: a balance call (bad keys fail) and, where the
   * exchange shows it, that the key cannot withdraw. Throws a VenueError or an HttpError; answers
   * whether the withdrawal right could be checked (`unchecked`: the exchange does not show it).
   */
  verifyLive(venue: Venue): Promise<WithdrawCheck>;
}

interface Entry {
  /** Mode and sealed key of the connection the venue was built from; a change rebuilds it. */
  fingerprint: string;
  venue: Promise<Venue>;
}

const fingerprintOf = (c: ConnectionRow) =>
  `${c.id}|${c.mode}|${c.apiKeyEnc ?? ''}|${c.apiSecretEnc ?? ''}|${c.apiPasswordEnc ?? ''}`;

/**
 * ctx.services.venues: one Venue per (user, exchange), built on first use from the user's connection
 * (paper: PaperVenue on the DB PaperStore; live: CcxtVenue with the decrypted keys), closed when the
 * connection goes, when the user is deleted and when the app closes.
 */
export class DbVenueRegistry implements VenueRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly store: DbPaperStore,
    private readonly secretBox: SecretBox,
    public factory: VenueFactory,
  ) {}

  async connectionKind(userId: string, exchange: string): Promise<'paper' | 'live' | null> {
    const key = exchangeKeyOf(exchange);
    if (!key) return null;
    const row = await this.connections.get(userId, key);
    return row ? row.mode : null;
  }

  async forUser(userId: string, exchange: string): Promise<Venue> {
    const key = exchangeKeyOf(exchange);
    if (!key) throw badRequest(`Unknown exchange: ${exchange}`);
    const row = await this.connections.get(userId, key);
    const cacheKey = paperAccountId(userId, key);
    const existing = this.entries.get(cacheKey);
    if (!row) {
      if (existing) await this.evict(userId, key);
      throw badRequest(NOT_CONNECTED_MESSAGE);
    }
    const fingerprint = fingerprintOf(row);
    if (existing && existing.fingerprint === fingerprint) return existing.venue;
    if (existing) await this.evict(userId, key);
    const venue = Promise.resolve().then(() => this.build(userId, key, row));
    const entry: Entry = { fingerprint, venue };
    this.entries.set(cacheKey, entry);
    // A venue that fails to build is not cached: the next call tries again.
    venue.catch(() => {
      if (this.entries.get(cacheKey) === entry) this.entries.delete(cacheKey);
    });
    return venue;
  }

  /** Closes and forgets the venue of one connection (after a reconnect or a removal). */
  async evict(userId: string, exchange: ExchangeKey): Promise<void> {
    const cacheKey = paperAccountId(userId, exchange);
    const entry = this.entries.get(cacheKey);
    if (!entry) return;
    this.entries.delete(cacheKey);
    await closeQuietly(entry.venue);
  }

  /** Closes every venue of a user (account deletion). */
  async closeUser(userId: string): Promise<void> {
    await Promise.all(EXCHANGES.map((e) => this.evict(userId, e.key)));
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => closeQuietly(e.venue)));
  }

  /** How many venues are open (tests). */
  get size(): number {
    return this.entries.size;
  }

  private async build(userId: string, exchange: ExchangeKey, row: ConnectionRow): Promise<Venue> {
    if (row.mode === 'paper') {
      return this.factory.paper({ exchange, accountId: paperAccountId(userId, exchange), store: this.store });
    }
    if (!row.apiKeyEnc || !row.apiSecretEnc) throw badRequest(NOT_CONNECTED_MESSAGE);
    const { apiKeyEnc, apiSecretEnc, apiPasswordEnc } = row;
    let keys: { apiKey: string; apiSecret: string; password?: string };
    try {
      keys = {
        apiKey: this.secretBox.open(apiKeyEnc, sealContext.exchangeApiKey(userId, exchange)),
        apiSecret: this.secretBox.open(apiSecretEnc, sealContext.exchangeSecret(userId, exchange)),
        ...(apiPasswordEnc
          ? { password: this.secretBox.open(apiPasswordEnc, sealContext.exchangePassword(userId, exchange)) }
          : {}),
      };
    } catch {
      // Sealed for another owner or purpose (copied in), or under a master key that is not loaded: the
      // keys are never used; the user connects again.
      throw conflict(unreadableKeysMessage(exchange));
    }
    return this.factory.live({ exchange, ...keys });
  }
}

async function closeQuietly(venue: Promise<Venue>): Promise<void> {
  try {
    await (await venue).close();
  } catch {
    // A venue that failed to build or to close has nothing left to release.
  }
}

/** Stored keys no loaded master key opens for this owner (docs/exchanges.md "Secrets"). */
export const unreadableKeysMessage = (exchange: ExchangeKey) =>
  `The stored API keys of ${EXCHANGES.find((e) => e.key === exchange)?.name ?? exchange} cannot be read. Connect the exchange again.`;
