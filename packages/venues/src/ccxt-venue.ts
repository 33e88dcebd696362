// CcxtVenue, the live Venue over ccxt 4.5, built in layers by concern under ccxt/: core.ts (the ccxt
// instances, keys, markets, market data, balances), orders.ts (placement, lookups, the order poll),
// derivatives.ts (leverage, positions, funding, liquidations, transfers); this file adds deposit
// addresses, the withdrawal-permission check and close. ccxt/mapping.ts reads ccxt's structures,
// ccxt/errors.ts translates its errors. What differs per exchange is data in exchanges/.
import {
  depositParams,
  ensureCurrencies,
  toDepositAddress,
  type DepositExchange,
} from './exchanges/deposits';
import type { DepositAddress, Venue } from './types';
import { withdrawPermissionRule } from './withdraw-permission';
import type { CcxtVenueOptions } from './ccxt/core';
import { CcxtDerivativesVenue } from './ccxt/derivatives';
import { registerCcxtVenue } from './live-registry';

export { ccxtIdOf, type CcxtVenueOptions } from './ccxt/core';
export { translateCcxtError } from './ccxt/errors';
export { precisionStep, toMarket, toOrder, toPosition } from './ccxt/mapping';
export { LIVE_ORDER_POLL_MS, LOOKUP_MISSES_MAX } from './ccxt/orders';

/**
 * A live exchange account (or public market data without keys) over ccxt 4.5. Every ccxt error is
 * translated into our classes, which say what the caller does next (ccxt/errors.ts).
 */
export class CcxtVenue extends CcxtDerivativesVenue implements Venue {
  readonly kind = 'live' as const;
  /** The exchange's currencies (with their networks), loaded once for deposit addresses. */
  private currenciesLoaded: Promise<void> | null = null;

  /** Public market data only (no keys): the hub's source with MARKET_DATA=live. */
  static publicData(
    exchange: string,
    opts: Omit<CcxtVenueOptions, 'exchange' | 'apiKey' | 'secret'> = {},
  ): CcxtVenue {
    return new CcxtVenue({ ...opts, exchange });
  }

  /**
   * The deposit address of `currency` on `network` (ccxt's unified code) or the exchange's default;
   * the network is returned with it. Currencies are loaded once (exchanges/deposits.ts); MEXC needs a
   * network, the first one taking deposits is asked for when none is given.
   */
  async fetchDepositAddress(currency: string, network?: string): Promise<DepositAddress> {
    this.requireKeys();
    const ex = this.ccxt as unknown as DepositExchange;
    await this.call(() => (this.currenciesLoaded ??= ensureCurrencies(ex, () => this.loadSpotMarkets())));
    const params = depositParams(ex, currency, network);
    const a: unknown = await this.call(() => this.ccxt.fetchDepositAddress(currency, params));
    return toDepositAddress(currency, a, params.network);
  }

  async createDepositAddress(currency: string, network?: string): Promise<DepositAddress> {
    this.requireKeys();
    if (!this.ccxt.has.createDepositAddress) return this.fetchDepositAddress(currency, network);
    const ex = this.ccxt as unknown as DepositExchange;
    await this.call(() => (this.currenciesLoaded ??= ensureCurrencies(ex, () => this.loadSpotMarkets())));
    const params = depositParams(ex, currency, network);
    const a: unknown = await this.call(() => this.ccxt.createDepositAddress(currency, params));
    return toDepositAddress(currency, a, params.network);
  }

  /**
   * Whether the key can withdraw: true / false where the exchange shows it (the rules and their sources
   * are in withdraw-permission.ts), null where it does not or its answer does not say. The platform
   * refuses keys that can withdraw.
   */
  async checkWithdrawPermission(): Promise<boolean | null> {
    this.requireKeys();
    const rule = withdrawPermissionRule(this.ccxt.id, this.ccxt.isSandboxModeEnabled);
    if (!rule) return null;
    const method = (this.ccxt as unknown as Record<string, unknown>)[rule.method];
    if (typeof method !== 'function') return null;
    const r: unknown = await this.call(() => (method as () => Promise<unknown>).call(this.ccxt));
    return rule.canWithdraw(r);
  }

  /** Nothing is saved locally: every change is the exchange's. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopPoll();
    this.listeners.clear();
    await (this.ccxt as unknown as { close?: () => Promise<void> }).close?.();
    if (this.derivatives) await (this.derivatives as unknown as { close?: () => Promise<void> }).close?.();
  }
}

registerCcxtVenue(CcxtVenue);
