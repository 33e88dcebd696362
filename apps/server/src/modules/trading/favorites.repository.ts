import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { spotFavorites } from '../../db/schema/index';

/** The user's favourite pairs of the spot and futures screens (spot_favorites, migration 0600). */
export class FavoritesRepository {
  constructor(private readonly db: Db) {}

  async favorites(userId: string): Promise<string[]> {
    const rows = await this.db
      .select({ symbol: spotFavorites.symbol })
      .from(spotFavorites)
      .where(eq(spotFavorites.userId, userId))
      .orderBy(asc(spotFavorites.createdAt), asc(spotFavorites.symbol));
    return rows.map((r) => r.symbol);
  }

  /**
   * Stars a pair while the user keeps fewer than `max` (under a per-user lock, so two tabs cannot pass
   * the limit together); starring one already starred changes nothing. False when the list is full.
   */
  async addFavorite(userId: string, symbol: string, max: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`favorites:${userId}`}))`);
      const [has] = await tx
        .select({ symbol: spotFavorites.symbol })
        .from(spotFavorites)
        .where(and(eq(spotFavorites.userId, userId), eq(spotFavorites.symbol, symbol)));
      if (has) return true;
      const [n] = await tx.select({ n: count() }).from(spotFavorites).where(eq(spotFavorites.userId, userId));
      if ((n?.n ?? 0) >= max) return false;
      await tx.insert(spotFavorites).values({ userId, symbol }).onConflictDoNothing();
      return true;
    });
  }

  async removeFavorite(userId: string, symbol: string): Promise<void> {
    await this.db
      .delete(spotFavorites)
      .where(and(eq(spotFavorites.userId, userId), eq(spotFavorites.symbol, symbol)));
  }
}
