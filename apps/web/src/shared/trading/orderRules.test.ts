import { SPOT_MESSAGES, type SpotMessageKey } from '@bytx/contract';
import { describe, expect, it } from 'vitest';
import i18n from '../i18n/index';
import {
  ceilToStep,
  checkOrder,
  emptyDraft,
  englishText,
  filterValueInput,
  floorToStep,
  fmtPrice,
  fmtQty,
  fmtValue,
  parseNum,
  roundToStep,
  serverText,
  stepDecimals,
  withPercent,
  withPrice,
  withQuantity,
  withValue,
  type MarketFacts,
  type OrderDraft,
  type RuleContext,
} from './orderRules';

const facts: MarketFacts = {
  exchange: 'binance',
  symbol: 'BTC/USDT',
  base: 'BTC',
  quote: 'USDT',
  listed: true,
  amountStep: 0.00001,
  priceStep: 0.01,
  minAmount: 0.00001,
  minCost: 5,
  price: 100,
  baseFree: 1,
  quoteFree: 1000,
};
const ctx: RuleContext = { market: 'spot', exchange: 'binance', connected: true, facts, leverage: 1 };
const draft: OrderDraft = { ...emptyDraft('Limit'), price: '100', quantity: '0.5' };

/** The English text of the first failing rule (what the panel shows and the server answers). */
const message = (d: Partial<OrderDraft>, c: Partial<RuleContext> = {}) => {
  const r = checkOrder({ ...draft, ...d }, { ...ctx, ...c });
  return r.ok ? null : englishText(r.failure);
};
const order = (d: Partial<OrderDraft>, c: Partial<RuleContext> = {}) => {
  const r = checkOrder({ ...draft, ...d }, { ...ctx, ...c });
  if (!r.ok) throw new Error(englishText(r.failure));
  return r.order;
};

describe('checkOrder: every rule with its exact message, in the server order', () => {
  it('passes a valid order', () => {
    expect(message({})).toBeNull();
  });

  it('exchange, connection, listing, price', () => {
    expect(message({ price: '' }, { exchange: '' })).toBe('❌ You must select an exchange.');
    expect(message({ price: '' }, { connected: false })).toBe(
      '❌ This exchange is not connected. Please connect it in Settings.',
    );
    expect(message({}, { facts: null })).toBe('❌ Failed to fetch market price.');
    expect(message({ price: '' }, { facts: { ...facts, listed: false } })).toBe(
      '❌ BTC/USDT is not available on binance.',
    );
    expect(message({ price: '' }, { facts: { ...facts, price: null } })).toBe(
      '❌ Failed to fetch market price.',
    );
    expect(message({ type: 'Market' }, { facts: { ...facts, price: null } })).toBe(SPOT_MESSAGES.noPrice);
  });

  it('limit price must be a valid positive number (market orders ignore it)', () => {
    for (const price of ['', '0', '-1', 'abc', '1e', 'NaN', '1.2.3']) {
      expect(message({ price, quantity: '' })).toBe(
        '❌ Price must be a valid positive number for limit orders.',
      );
    }
    expect(message({ type: 'Market', price: 'abc' })).toBeNull();
  });

  it('quantity must be a positive number, also after rounding down to the amount step', () => {
    for (const quantity of ['', '0', '-2', 'x', '0.0']) {
      expect(message({ quantity, tp: '0' })).toBe('❌ Quantity must be a positive number.');
    }
    // 0.000009 rounds down to 0 with a 0.00001 step.
    expect(message({ quantity: '0.000009', price: '1000000' })).toBe(SPOT_MESSAGES.badQuantity);
  });

  it('TP/SL must be positive numbers when given', () => {
    for (const v of [{ tp: '0' }, { sl: 'abc' }, { tp: '-110' }, { sl: '0', tp: '110' }]) {
      expect(message(v)).toBe('❌ TP/SL must be valid positive numbers.');
    }
    expect(message({ tp: ' ', sl: '' })).toBeNull();
  });

  it('one message per TP/SL side violation, against the limit price or the market price', () => {
    expect(message({ tp: '100' })).toBe('❌ For a buy, Take Profit must be above the entry price.');
    expect(message({ sl: '100' })).toBe('❌ For a buy, Stop Loss must be below the entry price.');
    expect(message({ side: 'sell', tp: '100' })).toBe(
      '❌ For a sell, Take Profit must be below the entry price.',
    );
    expect(message({ side: 'sell', sl: '100' })).toBe(
      '❌ For a sell, Stop Loss must be above the entry price.',
    );
    expect(message({ tp: '110', sl: '90' })).toBeNull();
    expect(message({ side: 'sell', tp: '90', sl: '110' })).toBeNull();
    // Market: the entry is the market price (100), not the typed limit price.
    expect(message({ type: 'Market', price: '50', tp: '80' })).toBe(SPOT_MESSAGES.buyTpNotAbove);
    expect(message({ type: 'Market', price: '200', tp: '150', sl: '99' })).toBeNull();
  });

  it('limit value at least 6 (spot only), then the exchange minimums', () => {
    // 0.05 × 100 = 5 < 6.
    expect(message({ quantity: '0.05' })).toBe('❌ The order value must be at least 6 USDT.');
    expect(message({ quantity: '0.06' })).toBeNull();
    expect(message({ quantity: '0.05', type: 'Market' }, { facts: { ...facts, minCost: 0 } })).toBeNull();
    expect(message({ quantity: '0.05' }, { market: 'swap', facts: { ...facts, minCost: 0 } })).toBeNull();
    expect(message({ quantity: '0.09' }, { facts: { ...facts, minAmount: 0.1 } })).toBe(
      '❌ The smallest quantity BTC/USDT accepts on binance is 0.1 BTC.',
    );
    expect(message({ quantity: '0.08' }, { facts: { ...facts, minCost: 10 } })).toBe(
      '❌ The smallest order BTC/USDT accepts on binance is 10 USDT.',
    );
  });

  it('reduce-only is refused on spot', () => {
    expect(message({ reduceOnly: true })).toBe('❌ Reduce-only is for futures orders.');
    expect(message({ reduceOnly: true }, { market: 'swap' })).toBeNull();
  });

  it('insufficient balance: buy in the quote with 2 decimals, sell in the base with 6', () => {
    // 11 × 100 = 1100 USDT needed, 1000 free.
    expect(message({ quantity: '11' })).toBe(
      '❌ Insufficient balance. Required: 1100.00, Available: 1000.00',
    );
    expect(message({ quantity: '10' })).toBeNull();
    // A sell needs the base: 2 BTC, 1 free.
    expect(message({ side: 'sell', quantity: '2' })).toBe(
      '❌ Insufficient balance. Required: 2.000000, Available: 1.000000',
    );
    // Market buy at the market price 100: 10.5 × 100 = 1050.
    expect(message({ type: 'Market', quantity: '10.5' })).toBe(
      '❌ Insufficient balance. Required: 1050.00, Available: 1000.00',
    );
  });

  it('futures: the margin (value / leverage) of the swap wallet, on both sides; reduce-only needs none', () => {
    const swap = { market: 'swap' as const, leverage: 5 };
    // 60 × 100 = 6000 / 5 = 1200 margin > 1000.
    expect(message({ quantity: '60' }, swap)).toBe(
      '❌ Insufficient balance. Required: 1200.00, Available: 1000.00',
    );
    expect(message({ side: 'sell', quantity: '60' }, swap)).toBe(
      '❌ Insufficient balance. Required: 1200.00, Available: 1000.00',
    );
    expect(message({ quantity: '50' }, swap)).toBeNull();
    expect(message({ quantity: '60', reduceOnly: true }, swap)).toBeNull();
  });

  it('rounds as the server does: quantity down, buy price down, sell price up, TP/SL to the step', () => {
    expect(order({ quantity: '0.123456789', price: '100.019' })).toMatchObject({
      type: 'limit',
      quantity: 0.12345,
      price: 100.01,
    });
    expect(order({ side: 'sell', quantity: '0.3', price: '100.011' })).toMatchObject({ price: 100.02 });
    expect(order({ tp: '110.006', sl: '90.004' })).toMatchObject({ tp: 110.01, sl: 90 });
    expect(order({ type: 'Market', quantity: '0.5' })).toMatchObject({
      type: 'market',
      price: 100,
      value: 50,
      tp: null,
      sl: null,
      reduceOnly: false,
    });
    expect(order({ reduceOnly: true }, { market: 'swap' }).reduceOnly).toBe(true);
  });
});

describe('numbers', () => {
  it('parses decimals with a dot or a comma only', () => {
    expect(parseNum('0,5')).toBe(0.5);
    expect(parseNum(' 12.5 ')).toBe(12.5);
    expect(parseNum('.5')).toBe(0.5);
    expect(parseNum('5.')).toBe(5);
    for (const bad of ['', '-1', '1e5', '0x10', 'Infinity', '1,2,3', 'abc']) expect(parseNum(bad)).toBeNaN();
  });
  it('rounds to steps without float noise', () => {
    expect(stepDecimals(0.001)).toBe(3);
    expect(stepDecimals(1e-8)).toBe(8);
    expect(stepDecimals(0.5)).toBe(1);
    expect(stepDecimals(10)).toBe(0);
    expect(floorToStep(0.3, 0.1)).toBe(0.3);
    expect(floorToStep(0.29999, 0.1)).toBe(0.2);
    expect(ceilToStep(100.011, 0.01)).toBe(100.02);
    expect(ceilToStep(100.01, 0.01)).toBe(100.01);
    expect(roundToStep(7.4, 2.5)).toBe(7.5);
    expect(floorToStep(1.23, 0)).toBe(1.23);
  });
  it('formats quantity with 6 decimals, value with 2, prices by step', () => {
    expect(fmtQty(0.5)).toBe('0.500000');
    expect(fmtValue(1234.5)).toBe('1234.50');
    expect(fmtQty(null)).toBe('—');
    expect(fmtPrice(65000.1, 0.01)).toBe('65000.10');
    expect(fmtPrice(0.5234)).toBe('0.523400');
    expect(fmtPrice(5.5)).toBe('5.5000');
  });
});

describe('draft updates', () => {
  const d = emptyDraft('Limit');
  it('the value input keeps digits and one dot', () => {
    expect(filterValueInput('a1,2.3.4')).toBe('1.234');
    expect(filterValueInput('12 USDT')).toBe('12');
    expect(withValue(d, '1x0', 100).value).toBe('10');
  });
  it('from 6 up the value sets the quantity (value / price, 6 decimals, down); below it does not', () => {
    const limit = { ...d, price: '30000' };
    expect(withValue(limit, '50', null)).toMatchObject({ value: '50', quantity: '0.001666' });
    expect(withValue({ ...limit, quantity: '0.1' }, '5', null)).toMatchObject({
      value: '5',
      quantity: '0.1',
    });
    // Market: the market price.
    expect(withValue({ ...d, type: 'Market' }, '6', 3)).toMatchObject({ quantity: '2' });
  });
  it('quantity and price set the value (2 decimals)', () => {
    const q = withQuantity({ ...d, price: '100' }, '0.123', null);
    expect(q.value).toBe('12.3');
    expect(withPrice(q, '200', null).value).toBe('24.6');
  });
  it('25/50/75/100 % of the balance', () => {
    const c = { market: 'spot' as const, facts, leverage: 1 };
    // Buy: 50 % of 1000 USDT at 100 → 5 BTC.
    expect(withPercent({ ...d, price: '100' }, 50, c)).toMatchObject({ quantity: '5', value: '500' });
    // Sell: 25 % of 1 BTC.
    expect(withPercent({ ...d, side: 'sell', price: '100' }, 25, c).quantity).toBe('0.25');
    // Futures: 100 % of 1000 USDT at 5x, 100 → 50.
    expect(withPercent({ ...d, type: 'Market' }, 100, { market: 'swap', facts, leverage: 5 }).quantity).toBe(
      '50',
    );
    // Rounded down to the amount step: 1000 / 3 = 333.333… at 25 % of 1000 USDT over 0.75.
    expect(withPercent({ ...d, price: '0.75' }, 25, c).quantity).toBe('333.33333');
  });
});

describe('texts', () => {
  type Tree = { trading: { messages: Record<string, string> } & Record<string, unknown> };
  const en = i18n.getResourceBundle('en', 'translation') as Tree;
  const es = i18n.getResourceBundle('es', 'translation') as Tree;

  it('the English messages are the contract texts byte for byte; Spanish has every one', () => {
    expect(Object.keys(en.trading.messages).sort()).toEqual(Object.keys(SPOT_MESSAGES).sort());
    for (const [k, v] of Object.entries(en.trading.messages)) {
      expect(v.replace(/\{\{(\w+)\}\}/g, '{$1}')).toBe(SPOT_MESSAGES[k as SpotMessageKey]);
    }
    expect(Object.keys(es.trading.messages).sort()).toEqual(Object.keys(SPOT_MESSAGES).sort());
  });

  it('Spanish has every key English has', () => {
    const keys = (o: unknown, p = ''): string[] =>
      typeof o === 'object' && o !== null
        ? Object.entries(o).flatMap(([k, v]) => keys(v, p ? `${p}.${k}` : k))
        : [p];
    expect(keys(es.trading).sort()).toEqual(keys(en.trading).sort());
  });

  it('a server text is shown in the page language, with its numbers', async () => {
    const es = i18n.getFixedT('es');
    expect(serverText(es, '❌ Insufficient balance. Required: 1100.00, Available: 1000.00')).toBe(
      '❌ Saldo insuficiente. Requerido: 1100.00, Disponible: 1000.00',
    );
    expect(serverText(es, SPOT_MESSAGES.executeFailed)).toBe('❌ No se pudo ejecutar la orden.');
    expect(serverText(es, 'Something else')).toBe('Something else');
    const en = i18n.getFixedT('en');
    const filled = '✅ Order filled: buy 0.001000 BTC at 100.00 USDT.';
    expect(serverText(en, filled)).toBe(filled);
    // The side as the screen names it (futures: Long / Short), in the page language.
    const long = (side: 'buy' | 'sell') => (side === 'buy' ? 'Long' : 'Short');
    expect(serverText(en, filled, long)).toBe('✅ Order filled: Long 0.001000 BTC at 100.00 USDT.');
    expect(
      serverText(es, '✅ Order placed: sell 0.5 ETH at 3000 USDT.', (s) =>
        s === 'buy' ? 'Comprar' : 'Vender',
      ),
    ).toBe('✅ Orden colocada: Vender 0.5 ETH a 3000 USDT.');
    // Only the placed and filled texts carry an order side.
    expect(serverText(en, SPOT_MESSAGES.cancelled, long)).toBe(SPOT_MESSAGES.cancelled);
    await Promise.resolve();
  });
});
