import {
  EXCHANGE_KEYS,
  exchangeDisplayName,
  isExchangeAvailable,
  MISSING_KEYS_MESSAGE,
  PASSPHRASE_EXCHANGES,
  type ConnectionMode,
  type ExchangeConnection,
  type ExchangeKey,
} from '@bytx/contract';
import {
  AuthenticationError,
  NotSupportedError,
  VenueError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
  type Venue,
} from '@bytx/venues';
import type { FastifyBaseLogger } from 'fastify';
import { sealContext, type SecretBox } from '../../lib/crypto';
import { badRequest, HttpError } from '../../lib/errors';
import type { AddressesRepository } from '../wallet/addresses.repository';
import type { ConnectionsRepository } from './connections.repository';
import type { DbPaperStore } from './paper-store';
import { withdrawUncheckedNotice } from './venue-factory';
import type { DbVenueRegistry, WithdrawCheck } from './venue-registry';

export const COULD_NOT_CONNECT = 'Could not connect to exchange.';

const nameOf = (key: ExchangeKey) => exchangeDisplayName(key);

/**
 * Connecting, listing and removing exchange connections. Live keys are checked against the exchange
 * before they are stored, sealed with the SecretBox; neither the key nor the secret is ever returned
 * or logged (errors are logged by class name only: a ccxt message may carry a signed URL).
 */
export class ConnectionsService {
  constructor(
    private readonly repo: ConnectionsRepository,
    private readonly registry: DbVenueRegistry,
    private readonly store: DbPaperStore,
    private readonly addresses: AddressesRepository,
    private readonly secretBox: SecretBox,
    private readonly log: FastifyBaseLogger,
    /** A paper account needs market data: closed exchanges have it only in the simulated market. */
    private readonly simulatedMarket: boolean,
    /** Hooks run before a connection's venue goes away (bots on it stop first). */
    private readonly beforeChange: ((userId: string, exchange: string) => Promise<void>)[] = [],
  ) {}

  private async runBeforeChange(userId: string, exchange: ExchangeKey): Promise<void> {
    for (const hook of this.beforeChange) await hook(userId, exchange);
  }

  /** Every one of the 20 keys, true when connected (paper or live). */
  async status(userId: string): Promise<Record<ExchangeKey, boolean>> {
    const connected = new Set((await this.repo.list(userId)).map((r) => r.exchange));
    return Object.fromEntries(EXCHANGE_KEYS.map((k) => [k, connected.has(k)])) as Record<
      ExchangeKey,
      boolean
    >;
  }

  async list(userId: string): Promise<ExchangeConnection[]> {
    const rows = await this.repo.list(userId);
    return rows.map((r) => ({
      exchange: r.exchange,
      name: nameOf(r.exchange as ExchangeKey),
      mode: r.mode,
      createdAt: r.createdAt.toISOString(),
      ...(r.mode === 'live'
        ? { key_problem: r.keyProblem ?? null, key_checked_at: r.keyCheckedAt?.toISOString() ?? null }
        : {}),
    }));
  }

  async connect(
    userId: string,
    input: {
      exchange: ExchangeKey;
      mode?: ConnectionMode;
      apiKey?: string;
      apiSecret?: string;
      password?: string;
    },
  ): Promise<{ mode: ConnectionMode; message: string; withdraw_check?: WithdrawCheck; notice?: string }> {
    const { exchange } = input;
    if (input.mode === 'paper') {
      if (!isExchangeAvailable(exchange) && !this.simulatedMarket) throw unavailable(exchange);
      return this.connectPaper(userId, exchange);
    }
    const apiKey = input.apiKey?.trim() ?? '';
    const apiSecret = input.apiSecret?.trim() ?? '';
    if (!apiKey || !apiSecret) throw badRequest(MISSING_KEYS_MESSAGE);
    if (!isExchangeAvailable(exchange)) throw unavailable(exchange);
    const password = input.password?.trim() || undefined;
    if (PASSPHRASE_EXCHANGES.includes(exchange) && !password) {
      throw badRequest(`${nameOf(exchange)} API keys need their passphrase: fill in API Passphrase.`);
    }
    return this.connectLive(userId, exchange, apiKey, apiSecret, password);
  }

  private async connectPaper(userId: string, exchange: ExchangeKey) {
    const existing = await this.repo.get(userId, exchange);
    // Connecting paper again keeps the running venue (and the bots on it); replacing live keys
    // with a paper account stops the bots on the live venue first.
    if (existing && existing.mode !== 'paper') await this.runBeforeChange(userId, exchange);
    await this.repo.upsert(userId, exchange, { mode: 'paper' });
    if (existing?.mode !== 'paper') await this.registry.evict(userId, exchange);
    // Opening the venue seeds a new account (10,000 USDT) and stores it at once.
    const venue = await this.registry.forUser(userId, exchange);
    await venue.fetchBalance();
    this.log.info({ userId, exchange, mode: 'paper' }, 'exchange connected');
    return { mode: 'paper' as const, message: `✅ ${nameOf(exchange)} paper account connected.` };
  }

  private async connectLive(
    userId: string,
    exchange: ExchangeKey,
    apiKey: string,
    apiSecret: string,
    password: string | undefined,
  ) {
    let venue: Venue | null = null;
    let withdrawCheck: WithdrawCheck;
    try {
      venue = await this.registry.factory.live({
        exchange,
        apiKey,
        apiSecret,
        ...(password ? { password } : {}),
      });
      withdrawCheck = await this.registry.factory.verifyLive(venue);
    } catch (err) {
      throw this.refusal(exchange, err, [apiKey, apiSecret, password ?? '']);
    } finally {
      if (venue) await venue.close().catch(() => undefined);
    }
    // New keys replace the venue: bots running on the old one stop first.
    if (await this.repo.get(userId, exchange)) await this.runBeforeChange(userId, exchange);
    await this.repo.upsert(userId, exchange, {
      mode: 'live',
      // Each value is bound to its owner and purpose (AES-GCM associated data): copied into another
      // user's row, or into the secret's column, it no longer opens.
      apiKeyEnc: this.secretBox.seal(apiKey, sealContext.exchangeApiKey(userId, exchange)),
      apiSecretEnc: this.secretBox.seal(apiSecret, sealContext.exchangeSecret(userId, exchange)),
      apiPasswordEnc: password
        ? this.secretBox.seal(password, sealContext.exchangePassword(userId, exchange))
        : null,
    });
    await this.registry.evict(userId, exchange);
    this.log.info({ userId, exchange, mode: 'live' }, 'exchange connected');
    return {
      mode: 'live' as const,
      message: `✅ ${nameOf(exchange)} connected.`,
      withdraw_check: withdrawCheck,
      ...(withdrawCheck === 'unchecked' ? { notice: withdrawUncheckedNotice(nameOf(exchange)) } : {}),
    };
  }

  /** Removes the connection; a paper account's balances and orders and the known addresses go with it. */
  async remove(userId: string, exchange: ExchangeKey): Promise<boolean> {
    const row = await this.repo.get(userId, exchange);
    if (row) await this.runBeforeChange(userId, exchange);
    await this.registry.evict(userId, exchange);
    const removed = await this.repo.delete(userId, exchange);
    if (row?.mode === 'paper' || removed) await this.store.delete(userId, exchange);
    await this.addresses.deleteConnection(userId, exchange);
    if (removed) this.log.info({ userId, exchange }, 'exchange removed');
    return removed;
  }

  /** A user-facing answer for a failed key check; never echoes the exchange's raw text. */
  private refusal(exchange: ExchangeKey, err: unknown, secrets: string[]): HttpError {
    if (err instanceof HttpError) return err;
    this.log.warn(
      { exchange, error: err instanceof Error ? err.name : typeof err },
      'exchange key check failed',
    );
    const scrub = (text: string) => secrets.reduce((t, s) => (s ? t.split(s).join('[redacted]') : t), text);
    const name = nameOf(exchange);
    if (err instanceof AuthenticationError) {
      return badRequest(
        `${name} refused these API keys. Check the API Key, the API Secret and the key's IP and trade permissions.`,
      );
    }
    if (err instanceof NotSupportedError) return badRequest(`${name} is not available.`);
    if (
      err instanceof VenueNetworkError ||
      err instanceof VenueRateLimitError ||
      err instanceof VenueUnavailableError
    ) {
      return new HttpError(502, `${COULD_NOT_CONNECT} ${name} did not answer; please try again.`);
    }
    if (err instanceof VenueError) return badRequest(`${COULD_NOT_CONNECT} ${name}: ${scrub(err.message)}`);
    return new HttpError(502, COULD_NOT_CONNECT);
  }
}

function unavailable(exchange: ExchangeKey): HttpError {
  return badRequest(
    `${nameOf(exchange)} is not available: the exchange is closed or no longer supported. Choose another exchange.`,
  );
}
