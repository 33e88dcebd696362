import {
  asciiTrim,
  DERIVATIVES_MESSAGES,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
} from '@bytx/contract';
import { tableCache, type TableCache } from '../../db/table-cache';
import { badRequest } from '../../lib/errors';
import type { BotAccess } from './bot-access';
import type { BotsRepository } from './bots.repository';
import { venueSymbol, type DerivativesMarket } from './derivatives';

/**
 * The user's bot settings (table bot_user_settings): the leverage of a pair or an exchange (spec part 2
 * §7 set_leverage / get_leverage) and the saved market type (apartado).
 */
export class BotSettings {
  private readonly repo: BotsRepository;
  /**
   * The rows GET /api/set_leverage and GET /api/apartado_usuario read, by (user, exchange, symbol),
   * kept until the next write to bot_user_settings by anyone (db/table-cache.ts): their reads were
   * nearly all of those calls' cost. Not the bots read cache: the runner's writes to the user's bots
   * would drop these every few seconds while they never change them.
   */
  private readonly kept: TableCache<{ apartado: string | null; leverage: number | null }>;

  constructor(private readonly access: BotAccess) {
    this.repo = access.repo;
    this.kept = tableCache(access.ctx, /\bbot_user_settings\b|\bdelete\s+from\s+"?users\b/i);
  }

  /** The stored setting of the user's (exchange, symbol) ('' for none), through the cache. */
  private setting(userId: string, exchange = '', symbol = '') {
    return this.kept.get(JSON.stringify([userId, exchange, symbol]), () =>
      this.repo.settings(userId, exchange, symbol),
    );
  }

  /**
   * Stores the leverage of the user's pair on an exchange (spec part 2 §7 set_leverage): an integer from
   * 1 to 200, at most the maximum of the pair's derivatives market where the exchange has one. A bot
   * started later uses it (sent to the exchange before its first order); running bots keep theirs.
   */
  async setLeverage(
    userId: string,
    exchange: string | undefined,
    symbol: string | undefined,
    leverage: number,
  ) {
    if (!exchange || !exchange.trim()) throw badRequest(DERIVATIVES_MESSAGES.leverageNoExchange);
    const ex = exchange.trim().toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = symbol && asciiTrim(symbol) ? await this.access.listed(ex, symbol) : '';
    const max = sym ? await this.maxLeverage(ex, sym) : null;
    if (max !== null && leverage > max) {
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.leverageAboveMarket, {
          leverage,
          symbol: sym,
          exchange: exchangeDisplayName(ex),
          max,
        }),
        { field: 'leverage' },
      );
    }
    await this.repo.saveSetting(userId, { exchange: ex, symbol: sym }, { leverage });
    return {
      success: true as const,
      leverage,
      max_leverage: max,
      message: fillMessage(DERIVATIVES_MESSAGES.leverageConfigured, { leverage }),
    };
  }

  /** The stored leverage of a pair (else of the exchange, else 1) and the market's maximum. */
  async leverage(userId: string, exchange: string, symbol: string | undefined) {
    const ex = exchange.trim().toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = symbol && asciiTrim(symbol) ? await this.access.listed(ex, symbol) : '';
    const own = sym ? (await this.setting(userId, ex, sym)).leverage : null;
    const leverage = own ?? (await this.setting(userId, ex, '')).leverage ?? 1;
    return {
      success: true as const,
      exchange: ex,
      symbol: sym,
      leverage,
      max_leverage: sym ? await this.maxLeverage(ex, sym) : null,
    };
  }

  /** The highest leverage the pair's swap markets allow on the exchange (≤ 200), null without one. */
  private async maxLeverage(exchange: string, pair: string): Promise<number | null> {
    let best: number | null = null;
    for (const type of ['Perpetual', 'Inverse'] as const) {
      const m: DerivativesMarket | null = await this.access.market
        .market(exchange, venueSymbol(pair, type))
        .catch(() => null);
      if (m?.active && m.maxLeverage) best = Math.max(best ?? 0, m.maxLeverage);
    }
    return best === null ? null : Math.min(best, LIMITS.maxLeverage);
  }

  async setApartado(userId: string, apartado: string) {
    await this.repo.saveSetting(userId, {}, { apartado });
    return { success: true, apartado };
  }

  async apartado(userId: string) {
    return (await this.setting(userId)).apartado ?? 'Spot';
  }
}
