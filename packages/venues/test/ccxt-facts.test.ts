import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { CCXT_FACTS, CCXT_FACTS_VERSION } from '../src/exchanges/ccxt-facts';
import { deriveCcxtFacts, exchangeCapabilities } from '../src/exchanges/capabilities';

/**
 * ccxt-facts.ts is what the installed ccxt says of each catalogue exchange, checked in so the server
 * serves the capability table without loading ccxt (docs/performance.md "ccxt loaded on demand"). It is
 * derived again here: after a ccxt upgrade or a catalogue change, run `npx tsx scripts/exchange-capabilities.ts`.
 */
describe('ccxt-facts.ts', () => {
  it('is what the installed ccxt says (same version, same facts)', () => {
    expect(CCXT_FACTS_VERSION, 'run npx tsx scripts/exchange-capabilities.ts').toBe(ccxt.version);
    expect(CCXT_FACTS, 'run npx tsx scripts/exchange-capabilities.ts').toEqual(deriveCcxtFacts(ccxt));
  });

  it('the table from the file is the one derived from ccxt itself', () => {
    expect(exchangeCapabilities()).toEqual(exchangeCapabilities(deriveCcxtFacts(ccxt)));
  });

  it('a changed fact changes the table (the comparison has teeth)', () => {
    const facts = {
      ...deriveCcxtFacts(ccxt),
      kraken: { ...CCXT_FACTS.kraken!, swap: true, setLeverage: true },
    };
    expect(exchangeCapabilities(facts).find((r) => r.exchange === 'kraken')?.perpetual).toBe(true);
    expect(facts).not.toEqual(CCXT_FACTS);
  });
});
