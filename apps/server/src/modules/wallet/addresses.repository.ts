import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { TableCache } from '../../db/table-cache';
import { walletAddresses } from '../../db/schema/index';

export interface KnownAddress {
  coin: string;
  address: string;
  tag: string | null;
  network: string | null;
}

/** Deposit addresses already learned or generated for one (user, exchange) connection. */
export class AddressesRepository {
  /**
   * `kept`: the lists by (user, exchange), kept until the next write to wallet_addresses by anyone
   * (db/table-cache.ts); GET /api/address read them on every call. Shared by every caller: read them,
   * never change them.
   */
  constructor(
    private readonly db: Db,
    private readonly kept?: TableCache<readonly KnownAddress[]>,
  ) {}

  async list(userId: string, exchange: string): Promise<readonly KnownAddress[]> {
    const load = () => this.read(userId, exchange);
    return this.kept ? this.kept.get(JSON.stringify([userId, exchange]), load) : load();
  }

  private async read(userId: string, exchange: string): Promise<KnownAddress[]> {
    return this.db
      .select({
        coin: walletAddresses.coin,
        address: walletAddresses.address,
        tag: walletAddresses.tag,
        network: walletAddresses.network,
      })
      .from(walletAddresses)
      .where(and(eq(walletAddresses.userId, userId), eq(walletAddresses.exchange, exchange)));
  }

  async put(userId: string, exchange: string, a: KnownAddress): Promise<void> {
    const set = { address: a.address, tag: a.tag, network: a.network, updatedAt: new Date() };
    await this.db
      .insert(walletAddresses)
      .values({ userId, exchange, coin: a.coin, ...set })
      .onConflictDoUpdate({
        target: [walletAddresses.userId, walletAddresses.exchange, walletAddresses.coin],
        set,
      });
  }

  async deleteConnection(userId: string, exchange: string): Promise<void> {
    await this.db
      .delete(walletAddresses)
      .where(and(eq(walletAddresses.userId, userId), eq(walletAddresses.exchange, exchange)));
  }
}
