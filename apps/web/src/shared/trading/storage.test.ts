import { describe, expect, it } from 'vitest';
import {
  readLastPair,
  readOrderType,
  readTpSl,
  readTradeExchange,
  saveLastPair,
  saveOrderType,
  saveTpSl,
  saveTradeExchange,
  TRADE_STORAGE,
  venueSymbol,
} from './storage';

describe('local storage keys (spec part 1 §3, exactly as named)', () => {
  it('names the keys lastPair, orderType, tpSlValues and ours tradeExchange', () => {
    expect(TRADE_STORAGE).toEqual({
      lastPair: 'lastPair',
      orderType: 'orderType',
      tpSlValues: 'tpSlValues',
      tradeExchange: 'tradeExchange',
    });
  });

  it('lastPair: {base, quote}; BTC/USDT by default or when not one of ours', () => {
    expect(readLastPair()).toEqual({ base: 'BTC', quote: 'USDT' });
    saveLastPair({ base: 'ETH', quote: 'USDC' });
    expect(JSON.parse(localStorage.getItem('lastPair')!)).toEqual({ base: 'ETH', quote: 'USDC' });
    expect(readLastPair()).toEqual({ base: 'ETH', quote: 'USDC' });
    localStorage.setItem('lastPair', JSON.stringify({ base: 'USDT', quote: 'USDC' }));
    expect(readLastPair()).toEqual({ base: 'BTC', quote: 'USDT' });
    localStorage.setItem('lastPair', JSON.stringify({ base: 'SOL', quote: 'EUR' }));
    expect(readLastPair()).toEqual({ base: 'BTC', quote: 'USDT' });
    localStorage.setItem('lastPair', '{broken');
    expect(readLastPair()).toEqual({ base: 'BTC', quote: 'USDT' });
  });

  it('orderType: Limit or Market (Limit by default)', () => {
    expect(readOrderType()).toBe('Limit');
    saveOrderType('Market');
    expect(localStorage.getItem('orderType')).toBe('Market');
    expect(readOrderType()).toBe('Market');
    localStorage.setItem('orderType', '"Market"');
    expect(readOrderType()).toBe('Market');
    localStorage.setItem('orderType', 'stop');
    expect(readOrderType()).toBe('Limit');
  });

  it('tpSlValues: {tp, sl}', () => {
    expect(readTpSl()).toEqual({ tp: '', sl: '' });
    saveTpSl({ tp: '110', sl: '90' });
    expect(JSON.parse(localStorage.getItem('tpSlValues')!)).toEqual({ tp: '110', sl: '90' });
    expect(readTpSl()).toEqual({ tp: '110', sl: '90' });
    localStorage.setItem('tpSlValues', JSON.stringify({ tp: 120, sl: null }));
    expect(readTpSl()).toEqual({ tp: '120', sl: '' });
  });

  it('tradeExchange: the exchange key', () => {
    expect(readTradeExchange()).toBe('');
    saveTradeExchange('bybit');
    expect(localStorage.getItem('tradeExchange')).toBe('bybit');
    expect(readTradeExchange()).toBe('bybit');
  });

  it('the order symbol: spot pair or the linear perpetual', () => {
    expect(venueSymbol({ base: 'BTC', quote: 'USDT' }, 'spot')).toBe('BTC/USDT');
    expect(venueSymbol({ base: 'ETH', quote: 'USDC' }, 'swap')).toBe('ETH/USDC:USDC');
  });
});
