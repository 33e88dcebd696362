import { CcxtVenue } from '../../src/ccxt-venue';
import type { ExchangeFixture, Reply } from './fixtures/types';

/**
 * A CcxtVenue on recorded replies (the conformance tier's harness): ccxt runs as on a live account,
 * its HTTP layer (`fetchImplementation`) answers from `replies` (first match), and the markets are the
 * fixture's (ccxt's static markets entries, set on the spot and the swap instance: no market download).
 * A request no reply matches gets a 404 and is listed in `misses` (the tests print them).
 */
export interface Replay {
  venue: CcxtVenue;
  /** `METHOD pathname?query body` of every request ccxt sent. */
  calls: string[];
  misses: string[];
}

function paramsOf(url: URL, body: string): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(url.searchParams);
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      for (const [k, v] of Object.entries(JSON.parse(text) as Record<string, unknown>)) out[k] = String(v);
    } catch {
      /* not JSON: no body parameters */
    }
  } else if (text) Object.assign(out, Object.fromEntries(new URLSearchParams(text)));
  return out;
}

function matches(r: Reply, url: URL, method: string, params: Record<string, string>): boolean {
  if (r.method && r.method !== method) return false;
  const pathOk = typeof r.path === 'string' ? url.pathname.endsWith(r.path) : r.path.test(url.pathname);
  if (!pathOk) return false;
  return Object.entries(r.params ?? {}).every(([k, v]) => params[k] === v);
}

export function replay(exchange: string, fx: ExchangeFixture, replies: Reply[]): Replay {
  const calls: string[] = [];
  const misses: string[] = [];
  const all = [...replies, ...(fx.common ?? [])];
  const venue = new CcxtVenue({
    exchange,
    apiKey: 'a'.repeat(32),
    // Base64 (Kraken and Coinbase decode their secret) and long enough for every exchange's signer.
    secret: fx.secret ?? Buffer.from('a-conformance-test-secret-of-48-characters-long!!').toString('base64'),
    password: 'passphrase',
    orderPollMs: 3_600_000,
    ...(fx.options ? { ccxtOptions: { options: fx.options } } : {}),
    fetchImplementation: (u, init) => {
      const url = new URL(u);
      const method = typeof init.method === 'string' ? init.method.toUpperCase() : 'GET';
      const body = typeof init.body === 'string' ? init.body : '';
      calls.push(`${method} ${url.pathname}${url.search}${body ? ` ${body}` : ''}`);
      const hit = all.find((r) => matches(r, url, method, paramsOf(url, body)));
      if (!hit) misses.push(`${method} ${url.pathname}${url.search}`);
      const reply = hit ?? {
        status: 404,
        body: { error: `no recorded reply for ${method} ${url.pathname}` },
      };
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      return Promise.resolve(
        new Response(text, { status: reply.status ?? 200, headers: { 'content-type': 'application/json' } }),
      );
    },
  });
  const inner = venue as unknown as {
    ccxt: { setMarkets(m: unknown[]): void };
    swapExchange: { setMarkets(m: unknown[]): void };
  };
  inner.ccxt.setMarkets([fx.spot, ...(fx.more ?? [])]);
  if (fx.swap) inner.swapExchange.setMarkets([fx.swap, ...(fx.moreSwap ?? [])]);
  return { venue, calls, misses };
}

/** `what` failed: the requests ccxt sent and the ones no recorded reply answered. */
export function explain(r: Replay): string {
  return `requests: ${r.calls.join(', ') || 'none'}; unanswered: ${r.misses.join(', ') || 'none'}`;
}
