import { describe, expect, it } from 'vitest';
import { marginModeOf } from '../../src/exchanges/positions';
import { BINANCE_ISOLATED, BYBIT_POSITION, binance, bybit, ok } from './swap-fakes';

/**
 * Positions as the exchange reports them, replayed at ccxt's fetch boundary: Binance USDⓈ-M
 * GET /fapi/v3/positionRisk (fields as in its documentation's example, https://developers.binance.com/
 * docs/derivatives/usds-margined-futures/trade/rest-api/Position-Information-V3) and Bybit v5
 * GET /v5/position/list with GET /v5/account/info (https://bybit-exchange.github.io/docs/v5/position,
 * /v5/account/account-info). Each case states what the figures mean.
 */

/**
 * A cross short: 0.02 BTC at 96,000; isolatedMargin and isolatedWallet "0" (cross), its initial margin
 * 190 USDT (1,900 of value at 10x); liquidationPrice "0": the cross wallet covers it (none).
 */
const BINANCE_CROSS = {
  symbol: 'BTCUSDT',
  positionSide: 'BOTH',
  positionAmt: '-0.020',
  entryPrice: '96000.0',
  breakEvenPrice: '95952.0',
  markPrice: '95000.00000000',
  unRealizedProfit: '20.00000000',
  liquidationPrice: '0',
  isolatedMargin: '0',
  notional: '-1900.00000000',
  marginAsset: 'USDT',
  isolatedWallet: '0',
  initialMargin: '190.00000000',
  maintMargin: '7.60000000',
  positionInitialMargin: '190.00000000',
  openOrderInitialMargin: '0',
  adl: 2,
  bidNotional: '0',
  askNotional: '0',
  updateTime: 1736942400000,
};

describe('positions as the exchange reports them', () => {
  it('Binance USDⓈ-M: an isolated position keeps the margin posted (isolatedWallet); a cross one its own initial margin, not the wallet', async () => {
    for (const [row, expected] of [
      [
        // Binance: isolatedMargin = isolatedWallet + unRealizedProfit; the row made consistent:
        // 94 + 0.01 × (95,000 − 94,000) = 94 + 10 = 104. The margin posted is isolatedWallet,
        // 0.01 × 94,000 ÷ 10 = 94 USDT, not the 104 that moves with the mark.
        { ...BINANCE_ISOLATED, isolatedMargin: '104.00000000' },
        {
          side: 'long',
          marginMode: 'isolated',
          collateral: 94,
          liquidationPrice: 85_100.12345678,
          contracts: 0.01,
          contractSize: 1,
          amount: 0.01,
        },
      ],
      [
        BINANCE_CROSS,
        {
          side: 'short',
          marginMode: 'cross',
          collateral: 190,
          liquidationPrice: null,
          contracts: 0.02,
          contractSize: 1,
          amount: 0.02,
        },
      ],
    ] as const) {
      const { v } = binance((url) =>
        url.pathname === '/fapi/v3/positionRisk' || url.pathname === '/fapi/v2/positionRisk'
          ? { body: [row] }
          : undefined,
      );
      const [pos] = await v.fetchPositions(['BTC/USDT:USDT']);
      expect(pos).toMatchObject({ symbol: 'BTC/USDT:USDT', settle: 'USDT', ...expected });
      await v.close();
    }
  });

  it("Bybit v5 unified: the margin mode is the account's (ISOLATED_MARGIN / REGULAR_MARGIN)", async () => {
    const cases = [
      // Isolated: positionBalance (96.5 USDT) is the margin posted to the position.
      { mode: 'ISOLATED_MARGIN', expected: { marginMode: 'isolated', collateral: 96.5 } },
      // Cross: the position's initial margin (positionIM 96 USDT), not the account's wallet.
      { mode: 'REGULAR_MARGIN', expected: { marginMode: 'cross', collateral: 96 } },
    ] as const;
    for (const c of cases) {
      const { v } = bybit((url) =>
        url.pathname === '/v5/account/info'
          ? ok({ marginMode: c.mode, updatedTime: '1697078946000', unifiedMarginStatus: 4, dcpStatus: 'OFF' })
          : url.pathname === '/v5/position/list'
            ? ok({ list: [{ ...BYBIT_POSITION, tradeMode: 0 }], nextPageCursor: '', category: 'linear' })
            : undefined,
      );
      const [pos] = await v.fetchPositions(['BTC/USDT:USDT']);
      // A short of 0.01 BTC at 96,000, 10x, liquidated at 105,000.
      expect(pos).toMatchObject({
        symbol: 'BTC/USDT:USDT',
        side: 'short',
        contracts: 0.01,
        amount: 0.01,
        leverage: 10,
        liquidationPrice: 105_000,
        ...c.expected,
      });
      await v.close();
    }
  });

  it('Bybit: an empty liqPrice is "no liquidation price"; classic accounts name the mode per position (tradeMode)', async () => {
    const { v } = bybit((url) =>
      url.pathname === '/v5/position/list'
        ? ok({ list: [{ ...BYBIT_POSITION, liqPrice: '' }], nextPageCursor: '', category: 'linear' })
        : undefined,
    );
    const [pos] = await v.fetchPositions(['BTC/USDT:USDT']);
    expect(pos!.liquidationPrice).toBeNull();
    expect(marginModeOf('bybit', { info: { tradeMode: 1 } })).toBe('isolated');
    expect(marginModeOf('bybit', { info: { tradeMode: 0 } })).toBe('cross');
    // OKX's mgnMode reaches us as ccxt's marginMode.
    expect(marginModeOf('okx', { marginMode: 'cross' })).toBe('cross');
    await v.close();
  });
});
