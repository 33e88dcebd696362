import { asciiTrim, fillMessage, SPOT, SPOT_MESSAGES, type SpotFavoritesResponse } from '@bytx/contract';
import type { TableCache } from '../../db/table-cache';
import { badRequest } from '../../lib/errors';
import type { FavoritesRepository } from './favorites.repository';
import { PAIR } from './inputs';

/** The user's favourite pairs (the stars of the screens' pair list), at most SPOT.maxFavorites. */
export class FavoritesService {
  /**
   * `kept`: the lists GET /api/spot/favorites answers, kept until the next write to spot_favorites by
   * anyone (db/table-cache.ts); the read was the whole cost of the call, which every screen polls.
   */
  constructor(
    private readonly repo: FavoritesRepository,
    private readonly kept?: TableCache<readonly string[]>,
  ) {}

  /** GET /api/spot/favorites. */
  async favorites(userId: string): Promise<SpotFavoritesResponse> {
    const load = () => this.repo.favorites(userId);
    const list = this.kept ? await this.kept.get(userId, load) : await load();
    // A copy: the kept list is shared by every caller.
    return { success: true, favorites: [...list] };
  }

  /** POST /api/spot/favorites: stars (or unstars) a pair such as BTC/USDT. */
  async setFavorite(
    userId: string,
    symbolRaw: string | undefined,
    favorite: boolean,
  ): Promise<SpotFavoritesResponse & { message: string }> {
    const symbol = asciiTrim(symbolRaw ?? '').toUpperCase();
    if (!PAIR.test(symbol)) throw badRequest(SPOT_MESSAGES.badFavorite, { field: 'symbol' });
    if (favorite) {
      if (!(await this.repo.addFavorite(userId, symbol, SPOT.maxFavorites))) {
        throw badRequest(fillMessage(SPOT_MESSAGES.tooManyFavorites, { max: SPOT.maxFavorites }));
      }
    } else {
      await this.repo.removeFavorite(userId, symbol);
    }
    return {
      success: true,
      favorites: await this.repo.favorites(userId),
      message: fillMessage(favorite ? SPOT_MESSAGES.favoriteAdded : SPOT_MESSAGES.favoriteRemoved, {
        symbol,
      }),
    };
  }
}
