import { MAINTENANCE_MARGIN_RATE } from '../derivatives';
import type { Market, Position } from '../types';
import { idOf, px, qty, sum, type UsdmContext } from './binance-usdm-market';
import { BinanceError, dec } from './http';

/**
 * The USDⓈ-M account side of the emulator: leverage and margin type per symbol, the futures wallet
 * (GET /fapi/v2|v3/balance, /fapi/v2|v3/account) and positions (GET /fapi/v2|v3/positionRisk), from
 * the PaperVenue's derivatives wallet and positions.
 * https://developers.binance.com/docs/derivatives/usds-margined-futures/account/rest-api
 * https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Position-Information-V3
 */

export type MarginType = 'ISOLATED' | 'CROSSED';

export class UsdmAccount {
  /** Margin type per unified symbol; Binance's default is CROSSED. */
  private readonly marginTypes = new Map<string, MarginType>();

  constructor(
    private readonly ctx: UsdmContext,
    private readonly markets: () => Market[],
    private readonly marketOf: (p: URLSearchParams) => Market,
  ) {}

  marginType(symbol: string): MarginType {
    return this.marginTypes.get(symbol) ?? 'CROSSED';
  }

  async symbolConfig(p: URLSearchParams): Promise<unknown[]> {
    const list = p.get('symbol') ? [this.marketOf(p)] : this.markets();
    const out: unknown[] = [];
    for (const m of list) {
      out.push({
        symbol: idOf(m.symbol),
        marginType: this.marginType(m.symbol),
        isAutoAddMargin: false,
        leverage: await this.ctx.venue.fetchLeverage(m.symbol),
        maxNotionalValue: '100000000',
      });
    }
    return out;
  }

  async setLeverage(p: URLSearchParams): Promise<unknown> {
    const m = this.marketOf(p);
    const raw = p.get('leverage') ?? '';
    const leverage = Number(raw);
    if (!/^\d+$/.test(raw) || !(leverage >= 1) || leverage > (m.maxLeverage ?? 1)) {
      throw new BinanceError(400, -4028, `Leverage ${raw} is not valid`);
    }
    await this.ctx.venue.setLeverage(leverage, m.symbol);
    return { leverage, maxNotionalValue: '100000000', symbol: idOf(m.symbol) };
  }

  async setMarginType(p: URLSearchParams): Promise<unknown> {
    const m = this.marketOf(p);
    const want = p.get('marginType');
    if (want !== 'ISOLATED' && want !== 'CROSSED')
      throw new BinanceError(400, -4044, 'The margin type is invalid.');
    if (this.marginType(m.symbol) === want)
      throw new BinanceError(400, -4046, 'No need to change margin type.');
    if ((await this.ctx.venue.fetchPositions([m.symbol])).length > 0) {
      throw new BinanceError(400, -4048, 'Margin type cannot be changed if there exists position.');
    }
    if ((await this.ctx.venue.fetchOpenOrders(m.symbol)).length > 0) {
      throw new BinanceError(400, -4047, 'Margin type cannot be changed if there exists open orders.');
    }
    this.marginTypes.set(m.symbol, want);
    return { code: 200, msg: 'success' };
  }

  /** Open positions on the served markets (the engine's, with the mark now). */
  async positions(symbol?: string): Promise<Position[]> {
    const ids = new Set(this.markets().map((m) => m.symbol));
    const list = await this.ctx.venue.fetchPositions(symbol ? [symbol] : undefined);
    return list.filter((x) => ids.has(x.symbol) && x.contracts > 0);
  }

  /** The futures wallet per asset in Binance's words (paper free/used; unrealized PnL beside them). */
  async wallet() {
    const bal = await this.ctx.venue.fetchBalance({ type: 'swap' });
    const positions = await this.positions();
    const now = this.ctx.now();
    return Object.entries(bal).map(([asset, b]) => {
      const mine = positions.filter((x) => x.settle === asset);
      const upnl = sum(mine.map((x) => x.unrealizedPnl));
      const crossUpnl = sum(
        mine.filter((x) => this.marginType(x.symbol) === 'CROSSED').map((x) => x.unrealizedPnl),
      );
      const isolatedWallets = sum(
        mine.filter((x) => this.marginType(x.symbol) === 'ISOLATED').map((x) => x.collateral),
      );
      const positionIm = sum(mine.map((x) => x.collateral));
      const maint = sum(mine.map((x) => Math.abs(x.notional) * MAINTENANCE_MARGIN_RATE));
      const wallet = b.free + b.used;
      return {
        asset,
        walletBalance: dec(wallet),
        unrealizedProfit: dec(upnl),
        marginBalance: dec(wallet + upnl),
        maintMargin: dec(maint),
        initialMargin: dec(b.used),
        positionInitialMargin: dec(positionIm),
        openOrderInitialMargin: dec(Math.max(0, b.used - positionIm)),
        crossWalletBalance: dec(wallet - isolatedWallets),
        crossUnPnl: dec(crossUpnl),
        availableBalance: dec(b.free),
        maxWithdrawAmount: dec(b.free),
        marginAvailable: true,
        updateTime: now,
        upnl,
        maint,
      };
    });
  }

  async account(version: 2 | 3): Promise<unknown> {
    const assets = await this.wallet();
    const usdt = assets.find((a) => a.asset === 'USDT');
    const rows = await this.positionRows(await this.positions(), version);
    const f = (k: keyof NonNullable<typeof usdt>) => (usdt ? String(usdt[k]) : '0.00000000');
    return {
      // Single-asset mode: the totals are the USDT wallet's.
      totalInitialMargin: f('initialMargin'),
      totalMaintMargin: f('maintMargin'),
      totalWalletBalance: f('walletBalance'),
      totalUnrealizedProfit: f('unrealizedProfit'),
      totalMarginBalance: f('marginBalance'),
      totalPositionInitialMargin: f('positionInitialMargin'),
      totalOpenOrderInitialMargin: f('openOrderInitialMargin'),
      totalCrossWalletBalance: f('crossWalletBalance'),
      totalCrossUnPnl: f('crossUnPnl'),
      availableBalance: f('availableBalance'),
      maxWithdrawAmount: f('maxWithdrawAmount'),
      ...(version === 2
        ? {
            feeTier: 0,
            canTrade: true,
            canDeposit: true,
            canWithdraw: false,
            feeBurn: false,
            tradeGroupId: -1,
            updateTime: 0,
            multiAssetsMargin: false,
          }
        : {}),
      assets: assets.map(({ upnl: _u, maint: _m, marginAvailable, ...a }) =>
        version === 2 ? { ...a, marginAvailable } : a,
      ),
      positions: rows.map((r) =>
        version === 3
          ? {
              symbol: r.symbol,
              positionSide: r.positionSide,
              positionAmt: r.positionAmt,
              unrealizedProfit: r.unRealizedProfit,
              isolatedMargin: r.isolatedMargin,
              notional: r.notional,
              isolatedWallet: r.isolatedWallet,
              initialMargin: r.initialMargin,
              maintMargin: r.maintMargin,
              updateTime: r.updateTime,
            }
          : {
              symbol: r.symbol,
              initialMargin: r.initialMargin,
              maintMargin: r.maintMargin,
              unrealizedProfit: r.unRealizedProfit,
              positionInitialMargin: r.positionInitialMargin,
              openOrderInitialMargin: '0',
              leverage: r.leverage,
              isolated: r.isolated,
              entryPrice: r.entryPrice,
              breakEvenPrice: r.breakEvenPrice,
              maxNotional: r.maxNotionalValue,
              bidNotional: '0',
              askNotional: '0',
              positionSide: r.positionSide,
              positionAmt: r.positionAmt,
              updateTime: r.updateTime,
            },
      ),
    };
  }

  /**
   * Position rows. The engine margins every position isolated; a symbol set to CROSSED is reported
   * as Binance reports a cross position (isolatedMargin and isolatedWallet "0"), its liquidation price
   * still the engine's isolated one. isolatedMargin = isolatedWallet (margin posted) + unrealized PnL.
   */
  private async positionRows(list: Position[], version: 2 | 3) {
    const rows = [];
    for (const x of list) {
      const m = this.ctx.simulator.market('binance', x.symbol);
      const signedQty = x.side === 'long' ? x.contracts : -x.contracts;
      const cross = this.marginType(x.symbol) === 'CROSSED';
      const notional = x.side === 'long' ? x.notional : -x.notional;
      const initial = x.notional / x.leverage;
      rows.push({
        symbol: idOf(x.symbol),
        positionSide: 'BOTH',
        positionAmt: qty(signedQty, m),
        entryPrice: px(x.entryPrice, m),
        breakEvenPrice: px(x.entryPrice, m),
        markPrice: dec(x.markPrice),
        unRealizedProfit: dec(x.unrealizedPnl),
        liquidationPrice: dec(x.liquidationPrice ?? 0),
        isolatedMargin: cross ? '0' : dec(x.collateral + x.unrealizedPnl),
        notional: dec(notional),
        marginAsset: x.settle,
        isolatedWallet: cross ? '0' : dec(x.collateral),
        initialMargin: dec(initial),
        maintMargin: dec(x.notional * MAINTENANCE_MARGIN_RATE),
        positionInitialMargin: dec(initial),
        openOrderInitialMargin: '0',
        adl: 0,
        bidNotional: '0',
        askNotional: '0',
        updateTime: x.timestamp,
        // v2 only
        leverage: String(x.leverage),
        maxNotionalValue: '100000000',
        marginType: cross ? 'cross' : 'isolated',
        isAutoAddMargin: 'false',
        isolated: !cross,
        adlQuantile: 0,
      });
    }
    if (version === 2) return rows;
    return rows.map(
      ({
        leverage: _l,
        maxNotionalValue: _n,
        marginType: _t,
        isAutoAddMargin: _a,
        isolated: _i,
        adlQuantile: _q,
        ...r
      }) =>
        r as typeof r &
          Partial<Record<'leverage' | 'maxNotionalValue' | 'marginType' | 'isolated', string | boolean>>,
    );
  }

  /**
   * v3: only symbols with a position. v2: every symbol asked (all when none), zero rows included,
   * with leverage and margin type.
   */
  async positionRisk(p: URLSearchParams, version: 2 | 3): Promise<unknown[]> {
    const symbol = p.get('symbol') ? this.marketOf(p).symbol : undefined;
    const open = await this.positions(symbol);
    const rows: unknown[] = await this.positionRows(open, version);
    if (version === 3) return rows;
    const have = new Set(open.map((x) => x.symbol));
    for (const m of symbol ? [this.ctx.simulator.market('binance', symbol)] : this.markets()) {
      if (have.has(m.symbol)) continue;
      rows.push({
        symbol: idOf(m.symbol),
        positionAmt: qty(0, m),
        entryPrice: '0.0',
        breakEvenPrice: '0.0',
        markPrice: dec(this.ctx.simulator.price('binance', m.symbol)),
        unRealizedProfit: '0.00000000',
        liquidationPrice: '0',
        leverage: String(await this.ctx.venue.fetchLeverage(m.symbol)),
        maxNotionalValue: '100000000',
        marginType: this.marginType(m.symbol) === 'CROSSED' ? 'cross' : 'isolated',
        isolatedMargin: '0.00000000',
        isAutoAddMargin: 'false',
        positionSide: 'BOTH',
        notional: '0',
        isolatedWallet: '0',
        updateTime: 0,
        isolated: this.marginType(m.symbol) === 'ISOLATED',
        adlQuantile: 0,
      });
    }
    return rows;
  }
}
