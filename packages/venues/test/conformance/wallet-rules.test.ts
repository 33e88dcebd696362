import { describe, expect, it } from 'vitest';
import { applyWalletRule, WALLET_RULES } from '../../src/exchanges/balances';

/**
 * Wallet figures as the exchange states them (exchanges/balances.ts). The replayed BingX perpetual
 * wallet is in orders.test.ts (fixtures/bingx.ts swapBalance); these are the parts its documented
 * example does not exercise: margin frozen by open orders, and ccxt's total from maxWithdrawAmount.
 */
const row = {
  asset: 'USDT',
  balance: '1000',
  equity: '1012.5',
  availableMargin: '700',
  usedMargin: '250',
  freezedMargin: '50',
  maxWithdrawAmount: '700',
};

describe('wallet rules', () => {
  it('BingX perpetual wallet: total is balance, used is usedMargin + freezedMargin', () => {
    // What ccxt 4.5.84 makes of such a row: free availableMargin, used usedMargin, total maxWithdrawAmount.
    const ccxtView = { USDT: { free: 700, used: 250, total: 700 } };
    const b = applyWalletRule('bingx', 'swap', { code: 0, data: [row] }, ccxtView);
    expect(b.USDT).toEqual({ free: 700, used: 300, total: 1000 });
  });

  it('leaves other wallets, other exchanges and unstated coins as ccxt read them', () => {
    const ccxtView = { USDT: { free: 700, used: 250, total: 700 }, BTC: { free: 1, used: 0, total: 1 } };
    const info = { data: [row] };
    expect(applyWalletRule('bingx', 'spot', info, ccxtView)).toEqual(ccxtView);
    expect(applyWalletRule('binance', 'swap', info, ccxtView)).toEqual(ccxtView);
    expect(applyWalletRule('bingx', 'swap', info, ccxtView).BTC).toEqual(ccxtView.BTC);
    expect(applyWalletRule('bingx', 'swap', { data: 'not rows' }, ccxtView)).toEqual(ccxtView);
    for (const rule of Object.values(WALLET_RULES)) expect(rule.source).toMatch(/^https:\/\//);
  });
});
