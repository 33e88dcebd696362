import { describe, expect, it } from 'vitest';
import { METHODS } from './fixtures/types';
import { CATALOGUE, coverageOf, TIER } from './tier';

/**
 * The conformance tier covers every catalogue exchange ccxt supports (17 keys) and, for each, every
 * method of the tier: replayed (covered), refused by the platform as unsupported (asserted), or not
 * covered with the reason written in the fixture. `CONFORMANCE_TABLE=1` prints the table.
 */
describe('conformance tier coverage', () => {
  it('has all 17 exchanges, and every method of each is covered, refused or explained', () => {
    expect(CATALOGUE.length).toBe(17);
    expect(TIER.map(([k]) => k)).toEqual(CATALOGUE.map(([k]) => k));
    const rows = TIER.map(([exchange, fx]) => [exchange, ...METHODS.map((m) => coverageOf(fx, m))]);
    if (process.env.CONFORMANCE_TABLE) {
      console.log(['exchange', ...METHODS].join(' | '));
      for (const r of rows) console.log(r.join(' | '));
    }
    const missing = rows.flatMap(([ex, ...cells]) =>
      cells.flatMap((c, i) => (c === 'missing' ? [`${ex}.${METHODS[i]}`] : [])),
    );
    expect(missing).toEqual([]);
  });
});
