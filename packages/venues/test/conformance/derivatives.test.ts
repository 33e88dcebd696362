import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { exchangeCapabilities } from '../../src/exchanges/capabilities';
import { FIXTURES } from './fixtures/index';
import { replay } from './replay';
import { expectRefused, near, onReplay, TIER } from './tier';

/**
 * Conformance tier (issue 38 point 6), perpetual swaps: the funding rate (a fraction, and when it is
 * charged next) and the leverage (set, then read back) from recorded replies (fixtures/<exchange>.ts)
 * through the real CcxtVenue + ccxt. Where the exchange does not offer a call the platform refuses it
 * before asking (UnsupportedFeatureError), as the capability table (docs/exchanges.md) says.
 * Positions have their own files (positions.test.ts, positions-okx.test.ts).
 */

const swapSymbol = (s: Record<string, unknown> | undefined): string =>
  typeof s?.symbol === 'string' ? s.symbol : 'BTC/USDT:USDT';

/** ccxt's own `has` of the exchange's swap API (what capabilities.ts derives the table from). */
function has(ccxtId: string, what: string): boolean {
  const Ctor = (ccxt as unknown as Record<string, new () => { has: Record<string, unknown> }>)[ccxtId]!;
  return Boolean(new Ctor().has[what]);
}

describe('conformance: funding rate (fraction; next funding time)', () => {
  for (const [exchange, fx] of TIER) {
    if (fx.funding) {
      const c = fx.funding;
      it(`${exchange}: ${c.source}`, async () => {
        const r = replay(exchange, fx, c.replies);
        const symbol = c.symbol ?? swapSymbol(fx.swap);
        const f = await onReplay(r, () => r.venue.fetchFundingRate(symbol));
        expect(f.symbol).toBe(symbol);
        near(f.rate, c.expect.rate, 'rate (fraction)');
        expect(Math.abs(f.rate), 'a fraction, not percent').toBeLessThan(0.05);
        expect(f.nextFundingTime, 'next funding time (ms)').toBe(c.expect.nextFundingTime);
      });
    } else if (fx.refused?.funding) {
      it(`${exchange}: refused (${fx.refused.funding})`, async () => {
        const none = !has(fx.ccxtId, 'fetchFundingRate') || !has(fx.ccxtId, 'swap');
        expect(none, 'ccxt has no funding-rate call, or the exchange no swaps').toBe(true);
        const r = replay(exchange, fx, []);
        await expectRefused(r, () => r.venue.fetchFundingRate(swapSymbol(fx.swap)));
      });
    }
  }
});

describe('conformance: leverage (set, read back)', () => {
  for (const [exchange, fx] of TIER) {
    const cap = exchangeCapabilities().find((x) => x.exchange === exchange)!;
    if (fx.setLeverage) {
      const c = fx.setLeverage;
      it(`${exchange} set ${c.leverage}x: ${c.source}`, async () => {
        expect(cap.leverage, 'the capability table says: leverage').toBe(true);
        const r = replay(exchange, fx, c.replies);
        const symbol = c.symbol ?? swapSymbol(fx.swap);
        const got = await onReplay(r, () => r.venue.setLeverage(c.leverage, symbol));
        expect(got).toBe(c.expect);
        expect(
          r.calls.some((k) => !k.startsWith('GET')),
          'the leverage was sent',
        ).toBe(true);
      });
    } else if (fx.refused?.setLeverage) {
      it(`${exchange} set: refused (${fx.refused.setLeverage})`, async () => {
        expect(cap.leverage, 'the capability table says: no leverage').toBe(false);
        const r = replay(exchange, fx, []);
        await expectRefused(r, () => r.venue.setLeverage(2, swapSymbol(fx.swap)));
      });
    }
    if (fx.fetchLeverage) {
      const c = fx.fetchLeverage;
      it(`${exchange} read: ${c.source}`, async () => {
        const r = replay(exchange, fx, c.replies);
        const got = await onReplay(r, () => r.venue.fetchLeverage(c.symbol ?? swapSymbol(fx.swap)));
        expect(got).toBe(c.expect);
      });
    } else if (fx.refused?.fetchLeverage) {
      it(`${exchange} read: refused (${fx.refused.fetchLeverage})`, async () => {
        expect(has(fx.ccxtId, 'fetchLeverage'), 'ccxt has no leverage read').toBe(false);
        const r = replay(exchange, fx, []);
        await expectRefused(r, () => r.venue.fetchLeverage(swapSymbol(fx.swap)));
      });
    }
  }
});

describe('conformance: leverage sent with each order where it is not a setting', () => {
  it('KuCoin: the leverage the bot set goes with its perpetual orders (ccxt would send 1x)', async () => {
    const fx = FIXTURES.kucoin!;
    const r = replay('kucoin', fx, [
      ...fx.setLeverage!.replies,
      {
        // ccxt 4.5.84 js/src/kucoin.js createContractOrder (recorded POST /api/v1/orders reply).
        path: '/api/v1/orders',
        method: 'POST',
        params: { leverage: '5', symbol: 'XBTUSDTM' },
        body: { code: '200000', data: { orderId: '619717484f1d010001510cde' } },
      },
    ]);
    const o = await onReplay(r, async () => {
      await r.venue.setLeverage(5, 'BTC/USDT:USDT');
      return r.venue.createOrder({
        symbol: 'BTC/USDT:USDT',
        side: 'buy',
        type: 'limit',
        amount: 2,
        price: 60_000,
        clientOrderId: 'b3f2a8c1-17',
      });
    });
    expect(o.id).toBe('619717484f1d010001510cde');
    expect(await r.venue.fetchLeverage('BTC/USDT:USDT')).toBe(5);
    expect(
      r.calls.some((k) => k.includes('changeCrossUserLeverage')),
      'the cross leverage is left alone',
    ).toBe(false);
  });

  it('KuCoin after a restart: a new venue instance has no leverage until it is set again, as the runner does on attach', async () => {
    // The leverage lives only in the venue instance (KuCoin has no isolated leverage setting to read
    // back). The runner's attach (bot start, resume and every server boot) calls setLeverage with the
    // bot's stored leverage before the bot's first order (apps/server/src/modules/bots/runner/
    // bot-handle.ts applyLeverage); this is that path on a fresh instance: the order must carry 5, a
    // request with ccxt's default 1 would find no reply and fail.
    const fx = FIXTURES.kucoin!;
    const order = (clientOrderId: string) => ({
      symbol: 'BTC/USDT:USDT',
      side: 'buy' as const,
      type: 'limit' as const,
      amount: 2,
      price: 60_000,
      clientOrderId,
    });
    const placed = {
      path: '/api/v1/orders',
      method: 'POST' as const,
      params: { leverage: '5', symbol: 'XBTUSDTM' },
      body: { code: '200000', data: { orderId: '619717484f1d010001510cde' } },
    };
    const before = replay('kucoin', fx, [...fx.setLeverage!.replies, placed]);
    await onReplay(before, async () => {
      await before.venue.setLeverage(5, 'BTC/USDT:USDT');
      return before.venue.createOrder(order('b3f2a8c1-17'));
    });
    const after = replay('kucoin', fx, [...fx.setLeverage!.replies, placed]);
    expect(await after.venue.fetchLeverage('BTC/USDT:USDT'), 'nothing survives the instance').toBe(1);
    const o = await onReplay(after, async () => {
      await after.venue.setLeverage(5, 'BTC/USDT:USDT');
      return after.venue.createOrder(order('b3f2a8c1-18'));
    });
    expect(o.id).toBe('619717484f1d010001510cde');
    expect(after.calls.filter((k) => k.includes('/api/v1/orders')).length).toBe(1);
  });
});
