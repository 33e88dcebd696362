import { EXCHANGES } from '@bytx/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ID_RULES,
  botKeyOf,
  ccxtClientIdParams,
  clientIdRule,
  clientOrderIdFor,
  legacyClientIds,
  recognise,
  strategyClientIdOf,
  venueClientIdOf,
} from '../src/index';

/** Every catalogue exchange ccxt still has (17 keys, 16 ccxt ids). */
const CATALOGUE = EXCHANGES.filter((e) => e.ccxtId !== null).map((e) => e.key);

describe('client order ids per exchange (issue 38 point 1)', () => {
  it('has one rule, with its documentation source, for every catalogue exchange ccxt supports', () => {
    expect(CATALOGUE).toHaveLength(17);
    for (const key of CATALOGUE) {
      const rule = CLIENT_ID_RULES.find((r) => r.key === key);
      expect(rule, key).toBeDefined();
      expect(rule!.source).toMatch(/^https:\/\//);
      expect(rule!.ccxtId).toBe(EXCHANGES.find((e) => e.key === key)!.ccxtId);
    }
  });

  it('every exchange: the id matches its documented pattern, is deterministic, unique across seqs, and read back', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CATALOGUE),
        fc.uuid(),
        fc.uniqueArray(fc.oneof(fc.nat(1000), fc.nat(), fc.integer({ min: 0, max: 10 ** 11 })), {
          minLength: 2,
          maxLength: 30,
        }),
        (exchange, botId, seqs) => {
          const rule = clientIdRule(exchange);
          const key = botKeyOf(botId);
          const ids = seqs.map((seq) => clientOrderIdFor(exchange, botId, seq));
          for (const [i, id] of ids.entries()) {
            expect(id).toMatch(rule.pattern);
            expect(id.length).toBeLessThanOrEqual(rule.maxLength);
            expect(clientOrderIdFor(exchange, key, seqs[i]!)).toBe(id);
            if (rule.form === 'int') {
              expect(Number(id)).toBeLessThan(2 ** 45);
              expect(recognise(exchange, id)).toBeNull();
            } else {
              expect(recognise(exchange, id)).toEqual({ key, seq: seqs[i] });
              expect(strategyClientIdOf(exchange, id, botId)).toBe(`${key}-${seqs[i]}`);
            }
          }
          expect(new Set(ids).size).toBe(ids.length);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("another bot's id is not recognised as this bot's", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CATALOGUE), fc.uuid(), fc.uuid(), fc.nat(), (exchange, a, b, seq) => {
        fc.pre(botKeyOf(a) !== botKeyOf(b));
        expect(strategyClientIdOf(exchange, clientOrderIdFor(exchange, a, seq), b)).toBeNull();
      }),
    );
  });

  it("keeps the strategy's own id where the exchange accepts it, so journals from before are found", () => {
    const key = 'b3f2a8c1e7b4d4e2a9c1f';
    for (const ex of [
      'binance',
      'bybit',
      'kucoin',
      'bitget',
      'mexc',
      'bingx',
      'phemex',
      'bitstamp',
      'poloniex',
      'lbank',
      'hitbtc',
    ]) {
      expect(venueClientIdOf(ex, `${key}-17`)).toBe(`${key}-17`);
      expect(legacyClientIds(ex, `${key}-17`)).toEqual([]);
    }
    // Gate: ccxt used to put `t-` in front; below 10^4 that is today's id, above it the old one is tried too.
    expect(venueClientIdOf('gateio', `${key}-17`)).toBe(`t-${key}-17`);
    expect(legacyClientIds('gateio', `${key}-17`)).toEqual([]);
    const late = venueClientIdOf('gateio', `${key}-123456`);
    expect(late).toMatch(/^t-k[0-9a-z]{16}[0-9a-z]+$/);
    expect(late.length).toBeLessThanOrEqual(28);
    expect(legacyClientIds('gateio', `${key}-123456`)).toEqual([`t-${key}-123456`]);
    expect(recognise('gateio', `t-${key}-123456`)).toEqual({ key, seq: 123456 });
  });

  it('the forms the issue names: OKX alphanumeric, Kraken and Coinbase UUIDs, Bitfinex an int45', () => {
    const key = 'b3f2a8c1e7b4d4e2a9c1f';
    expect(clientOrderIdFor('okx', key, 17)).toBe(`${key}h`);
    expect(clientOrderIdFor('kraken', key, 17)).toBe('3f2a8c1e-7b4d-44e2-8a9c-1f0000000011');
    expect(clientOrderIdFor('coinbaseexchange', key, 17)).toBe('3f2a8c1e-7b4d-44e2-8a9c-1f0000000011');
    expect(clientOrderIdFor('bitfinex', key, 17)).toMatch(/^[1-9]\d*$/);
    expect(ccxtClientIdParams('bitfinex', '123')).toEqual({ cid: 123 });
    expect(ccxtClientIdParams('hitbtc', 'x')).toEqual({ client_order_id: 'x' });
    expect(ccxtClientIdParams('okx', 'x')).toEqual({ clientOrderId: 'x' });
  });
});
