import { EXCHANGES } from '@bytx/contract';
import { expect } from 'vitest';
import { UnsupportedFeatureError } from '../../src/errors';
import type { Order } from '../../src/types';
import { FIXTURES } from './fixtures/index';
import type { ExchangeFixture, Method, OrderMeaning } from './fixtures/types';
import { explain, type Replay } from './replay';

/** The catalogue exchanges ccxt supports (17 keys; Bybit_Testnet replays Bybit's payloads). */
export const CATALOGUE: [string, string][] = EXCHANGES.filter((e) => e.ccxtId !== null).map((e) => [
  e.key,
  e.ccxtId as string,
]);

/** Those with a fixture module (coverage.test.ts fails for any without). */
export const TIER: [string, ExchangeFixture][] = CATALOGUE.flatMap(([key, id]) =>
  FIXTURES[id] ? [[key, FIXTURES[id]] as [string, ExchangeFixture]] : [],
);

/** Equal to 1e-9 relative (ccxt computes some figures, e.g. cost = filled × average). */
export function near(actual: number | null | undefined, expected: number | null, what: string): void {
  if (expected === null) {
    expect(actual ?? null, what).toBeNull();
    return;
  }
  expect(actual, what).not.toBeNull();
  expect(
    Math.abs((actual as number) - expected),
    `${what}: ${String(actual)} ≠ ${expected}`,
  ).toBeLessThanOrEqual(Math.abs(expected) * 1e-9 + 1e-12);
}

/** The order as the exchange meant it: status, filled, average, fee and its currency... */
export function expectOrder(o: Order, m: OrderMeaning, where: string): void {
  expect(o.id, `${where} id`).toBe(m.id);
  if (m.clientOrderId !== undefined) expect(o.clientOrderId, `${where} clientOrderId`).toBe(m.clientOrderId);
  expect(o.symbol, `${where} symbol`).toBe(m.symbol);
  expect(o.side, `${where} side`).toBe(m.side);
  expect(o.type, `${where} type`).toBe(m.type);
  expect(o.status, `${where} status`).toBe(m.status);
  near(o.price, m.price, `${where} price`);
  near(o.amount, m.amount, `${where} amount`);
  near(o.filled, m.filled, `${where} filled`);
  near(o.remaining, m.remaining ?? m.amount - m.filled, `${where} remaining`);
  near(o.average, m.average, `${where} average`);
  if (m.cost !== undefined) near(o.cost, m.cost, `${where} cost`);
  if (m.fee !== undefined) {
    if (m.fee === null) expect(o.fee, `${where} fee`).toBeNull();
    else {
      expect(o.fee, `${where} fee`).not.toBeNull();
      near(o.fee!.cost, m.fee.cost, `${where} fee cost`);
      expect(o.fee!.currency, `${where} fee currency`).toBe(m.fee.currency);
    }
  }
  if (m.timestamp !== undefined) expect(o.timestamp, `${where} timestamp`).toBe(m.timestamp);
}

/** Runs `fn` on the replay; on failure the requests sent and unanswered are added to the message. */
export async function onReplay<T>(r: Replay, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new Error(`${msg}\n${explain(r)}`, { cause: err });
  } finally {
    await r.venue.close();
  }
}

/** The platform refuses the call before asking the exchange: UnsupportedFeatureError, no request sent. */
export async function expectRefused(r: Replay, call: () => Promise<unknown>): Promise<void> {
  try {
    await expect(call()).rejects.toBeInstanceOf(UnsupportedFeatureError);
    expect(r.calls, 'nothing is asked of the exchange').toEqual([]);
  } finally {
    await r.venue.close();
  }
}

/** How a method of an exchange is checked, for the coverage table. */
export function coverageOf(fx: ExchangeFixture, m: Method): 'covered' | 'refused' | 'none' | 'missing' {
  if (fx[m]) return 'covered';
  if (fx.refused?.[m]) return 'refused';
  if (fx.none?.[m]) return 'none';
  return 'missing';
}
