import {
  fillMessage,
  markPaperAddress,
  PAPER_SEED_USDT,
  WALLET_COINS,
  WALLET_RESET_MESSAGES,
  type ConnectionMode,
  type DerivativesWalletResponse,
  type ExchangeKey,
} from '@bytx/contract';
import type { DepositAddress, Venue } from '@bytx/venues';
import { VenueError } from '@bytx/venues';
import type { FastifyBaseLogger } from 'fastify';
import type { VenueRegistry } from '../../context';
import { badRequest, HttpError } from '../../lib/errors';
import type { ConnectionRow, ConnectionsRepository } from '../exchanges/connections.repository';
import type { AddressesRepository } from './addresses.repository';
import type { resetPaperAccount } from './paper-reset';

export const NO_CONNECTION_MESSAGE =
  'Connect an exchange (or a paper account) in Settings to use the wallet.';

/** How long a live exchange that had no address for a coin is not asked again. */
const MISS_TTL_MS = 10 * 60 * 1000;
/** A live address lookup that takes longer is left for the next page load. */
const LOOKUP_TIMEOUT_MS = 8000;

/**
 * The wallet screen's data: balances and deposit addresses of the user's chosen connection.
 * Chosen: the `exchange` asked for, else the first live connection, else the first paper one
 * (oldest first): real funds are what a wallet shows when the user has them.
 */
export class WalletService {
  private readonly misses = new Map<string, number>();

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly addresses: AddressesRepository,
    private readonly venues: () => VenueRegistry,
    private readonly log: FastifyBaseLogger,
    private readonly paperReset?: (
      userId: string,
      exchange: ExchangeKey,
    ) => ReturnType<typeof resetPaperAccount>,
  ) {}

  async choose(userId: string, exchange?: ExchangeKey): Promise<ConnectionRow | null> {
    if (exchange) {
      const row = await this.connections.get(userId, exchange);
      if (!row) throw badRequest('Este exchange no está conectado. Conéctalo en Settings.');
      return row;
    }
    const rows = await this.connections.list(userId);
    return rows.find((r) => r.mode === 'live') ?? rows[0] ?? null;
  }

  async balances(
    userId: string,
    exchange?: ExchangeKey,
  ): Promise<{ balances: Record<string, number>; exchange: string | null; mode: ConnectionMode | null }> {
    const balances: Record<string, number> = Object.fromEntries(WALLET_COINS.map((c) => [c, 0]));
    const row = await this.choose(userId, exchange);
    if (!row) return { balances, exchange: null, mode: null };
    const venue = await this.venue(userId, row);
    const fetched = await this.call(row, () => venue.fetchBalance());
    for (const [coin, entry] of Object.entries(fetched)) {
      const total = Number(entry?.total ?? 0);
      if (!Number.isFinite(total)) continue;
      if (total !== 0 || coin in balances) balances[coin] = total;
    }
    return { balances, exchange: row.exchange, mode: row.mode };
  }

  /**
   * The derivatives (swap) wallet and the open positions of the chosen connection, with each swap's
   * funding rate; a venue without derivatives answers `supported: false` and nothing else.
   */
  async derivatives(userId: string, exchange?: ExchangeKey): Promise<DerivativesWalletResponse> {
    const row = await this.choose(userId, exchange);
    const none = { success: true as const, wallet: {}, positions: [] };
    if (!row) return { ...none, exchange: null, mode: null, supported: false };
    const venue = await this.venue(userId, row);
    const head = { exchange: row.exchange, mode: row.mode };
    if (!venue.fetchPositions) return { ...none, ...head, supported: false };
    const [balances, positions] = await Promise.all([
      this.call(row, () => venue.fetchBalance({ type: 'swap' })),
      this.call(row, () => venue.fetchPositions!()),
    ]);
    const wallet: Record<string, number> = {};
    for (const [coin, entry] of Object.entries(balances)) {
      const total = Number(entry?.total ?? 0);
      if (Number.isFinite(total) && total !== 0) wallet[coin] = total;
    }
    const views = await Promise.all(
      positions.map(async (p) => {
        const funding =
          p.marketType !== 'Margin' && venue.fetchFundingRate
            ? await venue.fetchFundingRate(p.symbol).catch(() => null)
            : null;
        return {
          symbol: p.symbol,
          market_type: p.marketType,
          side: p.side,
          contracts: p.contracts,
          entry_price: p.entryPrice,
          mark_price: p.markPrice,
          leverage: p.leverage,
          margin: p.collateral,
          settle: p.settle,
          liquidation_price: p.liquidationPrice,
          unrealized_pnl: p.unrealizedPnl,
          funding_paid: p.fundingPaid,
          funding_rate: funding?.rate ?? null,
          next_funding_time: funding?.nextFundingTime ?? null,
        };
      }),
    );
    return { ...none, ...head, supported: true, wallet, positions: views };
  }

  /** Symbol -> address for the coins whose address is known (paper: every wallet coin). */
  async knownAddresses(userId: string, exchange?: ExchangeKey): Promise<Record<string, string>> {
    return (await this.knownAddressesOf(userId, exchange)).addresses;
  }

  /**
   * The same, and whether the answer follows from the database's rows alone (`fromRows`): no
   * connection, a paper one (its addresses are derived from the user), or a live one whose every
   * coin's address is stored. Such an answer may be kept until the next write to those rows; a live
   * lookup's is not (the exchange may answer otherwise next time).
   */
  async knownAddressesOf(
    userId: string,
    exchange?: ExchangeKey,
  ): Promise<{ addresses: Record<string, string>; fromRows: boolean }> {
    const row = await this.choose(userId, exchange);
    if (!row) return { addresses: {}, fromRows: true };
    const out: Record<string, string> = {};
    // A paper address is always shown marked (PAPER_ADDRESS_PREFIX): nobody holds its keys.
    const shown = (a: string) => (row.mode === 'paper' ? markPaperAddress(a) : a);
    for (const a of await this.addresses.list(userId, row.exchange)) out[a.coin] = shown(a.address);
    const missing = WALLET_COINS.filter((c) => !out[c]);
    if (missing.length === 0) return { addresses: out, fromRows: true };
    const venue = await this.venue(userId, row);
    const now = Date.now();
    const toAsk =
      row.mode === 'paper'
        ? missing
        : missing.filter((c) => (this.misses.get(this.missKey(userId, row.exchange, c)) ?? 0) <= now);
    const results = await Promise.allSettled(
      toAsk.map((coin) => withTimeout(venue.fetchDepositAddress(coin), LOOKUP_TIMEOUT_MS)),
    );
    let complete = true;
    for (const [i, r] of results.entries()) {
      const coin = toAsk[i]!;
      if (r.status === 'fulfilled' && r.value.address) {
        out[coin] = shown(r.value.address);
        if (row.mode === 'live') await this.store(userId, row.exchange, coin, r.value);
      } else {
        complete = false;
        if (row.mode === 'live') this.misses.set(this.missKey(userId, row.exchange, coin), now + MISS_TTL_MS);
      }
    }
    return { addresses: out, fromRows: row.mode === 'paper' && complete };
  }

  /** Generate New Address: paper from PaperVenue, live through ccxt create (else fetch). */
  async generateAddress(
    userId: string,
    coin: string,
    exchange?: ExchangeKey,
    network?: string,
  ): Promise<{ address: string; tag: string | null; network: string | null; simulated: boolean }> {
    const row = await this.choose(userId, exchange);
    if (!row) throw badRequest(NO_CONNECTION_MESSAGE);
    const venue = await this.venue(userId, row);
    const got = await this.call(row, async () => {
      try {
        return await venue.createDepositAddress(coin, network);
      } catch (err) {
        if (row.mode === 'live' && err instanceof VenueError && err.action === 'stop') {
          return venue.fetchDepositAddress(coin, network);
        }
        throw err;
      }
    });
    if (!got.address) throw new HttpError(502, `The exchange gave no ${coin} deposit address.`);
    await this.store(userId, row.exchange, coin, got);
    this.misses.delete(this.missKey(userId, row.exchange, coin));
    const simulated = row.mode === 'paper';
    return {
      address: simulated ? markPaperAddress(got.address) : got.address,
      tag: got.tag ?? null,
      network: got.network ?? null,
      simulated,
    };
  }

  /**
   * Reset balances of a paper account (issue 37 point 17): 400 for a live connection (its balances are
   * real funds on the exchange), 409 while bots or open orders run on it (paper-reset.ts), else the
   * account back to the seed — answered with the fresh balances.
   */
  async resetPaper(userId: string, exchange: ExchangeKey) {
    const row = await this.choose(userId, exchange);
    if (!row) throw badRequest(NO_CONNECTION_MESSAGE);
    if (row.mode !== 'paper') throw badRequest(WALLET_RESET_MESSAGES.live, { code: 'live' });
    if (!this.paperReset) throw new Error('WalletService was built without the paper reset');
    await this.paperReset(userId, row.exchange as ExchangeKey);
    this.log.info({ userId, exchange: row.exchange }, 'paper account reset');
    // Reading the balances opens the venue again, which seeds and stores the new account.
    const { balances } = await this.balances(userId, row.exchange as ExchangeKey);
    return {
      success: true as const,
      exchange: row.exchange,
      message: fillMessage(WALLET_RESET_MESSAGES.done, { usdt: PAPER_SEED_USDT.toLocaleString('en-US') }),
      balances,
    };
  }

  private venue(userId: string, row: ConnectionRow): Promise<Venue> {
    return this.venues().forUser(userId, row.exchange);
  }

  private async store(userId: string, exchange: string, coin: string, a: DepositAddress) {
    await this.addresses.put(userId, exchange, {
      coin,
      address: a.address,
      tag: a.tag ?? null,
      network: a.network ?? null,
    });
  }

  /** Venue failures become answers the screen can show; the raw text is not passed on. */
  private async call<T>(row: ConnectionRow, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      this.log.warn(
        { exchange: row.exchange, error: err instanceof Error ? err.name : typeof err },
        'wallet venue call failed',
      );
      if (err instanceof VenueError) {
        if (err.action === 'reconnect')
          throw badRequest('The exchange refused the API keys. Reconnect the exchange in Settings.');
        if (err.action === 'stop') throw badRequest('The exchange does not support this.');
        if (err.action === 'refuse') throw badRequest(err.message);
        throw new HttpError(502, 'The exchange did not answer; please try again.');
      }
      throw err;
    }
  }

  private missKey(userId: string, exchange: string, coin: string) {
    return `${userId}|${exchange}|${coin}`;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
