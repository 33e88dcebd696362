// Perpetual swaps and margin on a live exchange: leverage (and isolated margin mode), positions as the
// exchange reports them (exchanges/positions.ts), liquidations, funding, and spot <-> swap transfers.
import { isSwapSymbol } from '../derivatives';
import { InvalidOrderError, UnsupportedFeatureError } from '../errors';
import {
  FETCH_LEVERAGE_PARAMS,
  LEVERAGE_INFO_FIELD,
  LEVERAGE_REFUSED,
  leverageCalls,
  leverageSetsMarginMode,
  ORDER_LEVERAGE,
} from '../exchanges/calls';
import { scheduledNextFunding } from '../exchanges/funding';
import { bybitAccountMarginMode } from '../exchanges/positions';
import type { FundingRate, Liquidation, LiquidationListener, Position, TransferWallet } from '../types';
import { isNoChange } from './errors';
import { num, str, toPosition } from './mapping';
import { CcxtOrderVenue } from './orders';

export abstract class CcxtDerivativesVenue extends CcxtOrderVenue {
  /** Live isolated margin has no leverage setting: what the bot asked for, kept here. */
  private readonly marginLeverage = new Map<string, number>();

  /**
   * Swaps: isolated margin mode (`setMarginMode`, where the exchange has it; "already isolated" is
   * fine), then `setLeverage`. Spot symbols (Margin): live isolated margin has no leverage setting,
   * the value is only kept for `fetchLeverage`.
   */
  async setLeverage(leverage: number, symbol: string): Promise<number> {
    this.requireKeys();
    // What the exchange lacks is named before anything is asked of it.
    if (isSwapSymbol(symbol)) {
      this.requireHas(this.swapExchange, 'setLeverage');
      this.requireHas(this.ccxt, 'swap', 'perpetual swaps');
      // HitBTC: leverage only with a margin amount to reserve, which the platform does not pick (calls.ts).
      const refused = LEVERAGE_REFUSED[this.swapExchange.id];
      if (refused) throw new UnsupportedFeatureError(this.exchange, refused.why);
    } else this.requireHas(this.ccxt, 'margin', 'margin trading');
    const m = await this.market(symbol);
    const max = m.maxLeverage;
    if (!Number.isInteger(leverage) || leverage < 1 || (max !== undefined && leverage > max)) {
      throw new InvalidOrderError(
        `Leverage must be a whole number from 1 to ${max ?? 'the market maximum'} on ${symbol} (got ${String(leverage)})`,
        this.exchange,
        'other',
      );
    }
    if (m.type !== 'swap') {
      this.marginLeverage.set(symbol, leverage);
      return leverage;
    }
    const ex = this.swapExchange;
    this.requireHas(ex, 'setLeverage');
    // Both calls go through the venue's call wrapper (a clock skew resyncs and retries once; a 429
    // carries its Retry-After); "nothing to change" is success, inside it, so it is never retried.
    const unlessNoChange = async (fn: () => Promise<unknown>): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        if (!isNoChange(err)) throw err;
      }
    };
    if (ex.has.setMarginMode && !leverageSetsMarginMode(ex.id)) {
      await this.call(() => unlessNoChange(() => ex.setMarginMode('isolated', symbol, { leverage })));
    }
    // KuCoin: an isolated position's leverage is sent with each order, not set (exchanges/calls.ts).
    if (ORDER_LEVERAGE[ex.id]) {
      this.orderLeverage.set(symbol, leverage);
      return leverage;
    }
    // The exchange's own parameters for one-way, isolated positions (exchanges/calls.ts: OKX, BingX,
    // Poloniex; MEXC: one call per side).
    for (const params of leverageCalls(ex.id)) {
      await this.call(() => unlessNoChange(() => ex.setLeverage(leverage, symbol, params)));
    }
    return leverage;
  }

  async fetchLeverage(symbol: string): Promise<number> {
    this.requireKeys();
    if (!isSwapSymbol(symbol)) return this.marginLeverage.get(symbol) ?? 1;
    const ex = this.swapExchange;
    // KuCoin: no isolated leverage to read; it is the one sent with the orders (exchanges/calls.ts).
    if (ORDER_LEVERAGE[ex.id]) return this.orderLeverage.get(symbol) ?? 1;
    this.requireHas(ex, 'fetchLeverage');
    await this.market(symbol);
    const params = { ...FETCH_LEVERAGE_PARAMS[ex.id]?.params };
    const l = (await this.call(() => ex.fetchLeverage(symbol, params))) as {
      longLeverage?: unknown;
      shortLeverage?: unknown;
      info?: Record<string, unknown>;
    };
    const exact = LEVERAGE_INFO_FIELD[ex.id];
    return (exact ? num(l.info?.[exact.field]) : null) ?? num(l.longLeverage) ?? num(l.shortLeverage) ?? 1;
  }

  /** Open swap positions (ccxt `fetchPositions`); positions of size 0 are left out. */
  async fetchPositions(symbols?: string[]): Promise<Position[]> {
    this.requireKeys();
    const ex = this.swapExchange;
    this.requireHas(ex, 'fetchPositions');
    this.requireHas(this.ccxt, 'swap', 'perpetual swaps');
    const markets = await this.loadSwapMarkets();
    const swapSymbols = symbols?.filter((s) => isSwapSymbol(s));
    if (swapSymbols && swapSymbols.length === 0) return [];
    const list = await this.call(() => ex.fetchPositions(swapSymbols));
    // Bybit's unified accounts report the margin mode per account, not per position (positions.ts).
    const raw = ex as unknown as { privateGetV5AccountInfo?: () => Promise<unknown> };
    const accountMode =
      ex.id === 'bybit' && raw.privateGetV5AccountInfo
        ? bybitAccountMarginMode(await raw.privateGetV5AccountInfo().catch(() => null))
        : null;
    return (list as unknown[])
      .map((p) => {
        const symbol = str((p as { symbol?: unknown }).symbol);
        const m = markets[symbol];
        return toPosition(p, m?.settle ?? m?.quote ?? '', ex.id, m, accountMode);
      })
      .filter((p) => p.contracts > 0);
  }

  /** ccxt `fetchMyLiquidations`; the loss is not reported by the exchanges (0). */
  async fetchMyLiquidations(symbol: string, since?: number): Promise<Liquidation[]> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol);
    this.requireHas(ex, 'fetchMyLiquidations');
    const m = await this.market(symbol);
    const list = await this.call(() => ex.fetchMyLiquidations(symbol, since));
    return (list as unknown[]).map((raw) => {
      const l = raw as {
        price?: unknown;
        contracts?: unknown;
        timestamp?: unknown;
        side?: unknown;
        info?: Record<string, unknown>;
      };
      // The exchange's side is the forced order's: a sell closes a long.
      const orderSide = str(l.side ?? l.info?.side).toLowerCase();
      return {
        symbol,
        side: orderSide === 'buy' ? 'short' : 'long',
        contracts: num(l.contracts) ?? 0,
        price: num(l.price) ?? 0,
        ts: num(l.timestamp) ?? 0,
        loss: 0,
        settle: m.settle ?? m.quote,
      } satisfies Liquidation;
    });
  }

  async fetchFundingRate(symbol: string): Promise<FundingRate> {
    this.requireHas(this.swapExchange, 'fetchFundingRate');
    // No swaps, no funding (LBank: ccxt names a funding call, but the exchange has no swaps to load).
    this.requireHas(this.ccxt, 'swap', 'perpetual swaps');
    const m = await this.market(symbol);
    if (m.type !== 'swap') {
      throw new InvalidOrderError(
        `${symbol} is not a perpetual swap: it has no funding`,
        this.exchange,
        'bad_symbol',
      );
    }
    const ex = this.swapExchange;
    const f = (await this.call(() => ex.fetchFundingRate(symbol))) as {
      fundingRate?: unknown;
      fundingTimestamp?: unknown;
      nextFundingTimestamp?: unknown;
      timestamp?: unknown;
    };
    const timestamp = num(f.timestamp) ?? Date.now();
    // Phemex states no funding time: the next point of its funding grid after the reply (funding.ts).
    const info = (ex.markets as Record<string, { info?: Record<string, unknown> }> | undefined)?.[symbol]
      ?.info;
    return {
      symbol,
      rate: num(f.fundingRate) ?? 0,
      nextFundingTime:
        num(f.fundingTimestamp) ??
        num(f.nextFundingTimestamp) ??
        scheduledNextFunding(ex.id, info, timestamp) ??
        0,
      timestamp,
    };
  }

  /** ccxt REST cannot push liquidations: poll `fetchPositions` / `fetchMyLiquidations`. */
  onLiquidation(_listener: LiquidationListener): () => void {
    return () => undefined;
  }

  /** ccxt `transfer` between the spot and the swap (Binance: USDⓈ-M) account. */
  async transfer(code: string, amount: number, from: TransferWallet, to: TransferWallet): Promise<void> {
    this.requireKeys();
    const wallets: readonly string[] = ['spot', 'swap'];
    if (!wallets.includes(from) || !wallets.includes(to) || from === to) {
      throw new InvalidOrderError(
        `A transfer goes between 'spot' and 'swap' (got '${String(from)}' to '${String(to)}')`,
        this.exchange,
        'other',
      );
    }
    if (!(Number.isFinite(amount) && amount > 0)) {
      throw new InvalidOrderError('Transfer amount must be a positive number', this.exchange, 'min_amount');
    }
    this.requireHas(this.ccxt, 'transfer');
    await this.call(() => this.ccxt.transfer(code, amount, from, to));
  }
}
