import fs from 'node:fs';
import { EXCHANGES } from '@bytx/contract';
import { describe, expect, it } from 'vitest';
import { DOC, withTable } from '../../../scripts/exchange-capabilities';
import {
  capabilitiesMarkdown,
  exchangeCapabilities,
  supportsMarketType,
} from '../src/exchanges/capabilities';

/**
 * Issue 38 point 8: docs/exchanges.md's capability table is the one the code derives (ccxt's `has`/`options`
 * and our per-exchange rules). Fails when a rule or ccxt changed and `npx tsx scripts/exchange-capabilities.ts`
 * was not run.
 */
describe('exchange capabilities', () => {
  it('docs/exchanges.md holds the current table', () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    expect(withTable(doc)).toBe(doc);
  });

  it('a changed rule makes the doc stale (the check has teeth)', () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    const rows = exchangeCapabilities().map((r) => (r.exchange === 'kraken' ? { ...r, perpetual: true } : r));
    expect(withTable(doc, capabilitiesMarkdown(rows))).not.toBe(doc);
  });

  it('covers every catalogue exchange with what ccxt and our rules say', () => {
    const rows = exchangeCapabilities();
    expect(rows.map((r) => r.exchange)).toEqual(EXCHANGES.map((e) => e.key));
    const by = Object.fromEntries(rows.map((r) => [r.exchange, r]));
    // Coinbase Exchange is spot only (ccxt: has.swap false, has.margin false).
    expect(by.coinbaseexchange).toMatchObject({
      spot: true,
      perpetual: false,
      margin: false,
      clientIds: 'uuid ≤36',
    });
    expect(supportsMarketType(by.coinbaseexchange!, 'Perpetual')).toBe(false);
    // Binance: every market type; Bybit's lookups are its unified-account calls (lookups.ts).
    expect(by.binance).toMatchObject({
      spot: true,
      perpetual: true,
      inverse: true,
      margin: true,
      leverage: true,
    });
    expect(by.bybit?.lookups).toBe('openThenHistory / bybitLink');
    // OKX ids are alphanumeric (client-ids.ts); closed exchanges support nothing.
    expect(by.okx?.clientIds).toBe('alnum ≤32');
    expect(by.zb).toMatchObject({ available: false, spot: false, perpetual: false });
  });
});
