/**
 * What each catalogue exchange supports on a LIVE account (issue 38 point 8), derived from the code that
 * trades on it — never written by hand:
 *
 * - ccxt 4.5's `has` map and `options` of the exchange (node_modules/ccxt/js/src/<id>.js `describe()`):
 *   spot = `has.spot`; perpetual = `has.swap` and `has.setLeverage` (CcxtVenue.setLeverage refuses a swap
 *   without it, and every derivatives bot sets its leverage first); inverse = perpetual and ccxt loads the
 *   exchange's inverse swaps (`options.fetchMarkets.types` names `inverse`); margin = `has.margin`;
 *   leverage = `has.setLeverage`; an exchange whose leverage the venue refuses (calls.ts LEVERAGE_REFUSED:
 *   HitBTC) has neither leverage nor perpetual;
 * - our own per-exchange rules kept with the exchange in this folder: the client order id form
 *   (client-ids.ts) and how an order's state is looked up (lookups.ts).
 *
 * Paper accounts are our own venue and support every market type everywhere; this table is about live keys.
 * docs/exchanges.md holds the same table, written by `scripts/exchange-capabilities.ts` (a test fails when
 * the doc is stale); the web reads it from `GET /api/exchanges/capabilities`.
 */
import { EXCHANGES, supportsMarket, type MarketType } from '@bytx/contract';
import ccxt from 'ccxt';
import { LEVERAGE_REFUSED } from './calls';
import { clientIdRule } from './client-ids';
import { lookupRule } from './lookups';

export interface ExchangeCapabilities {
  /** Catalogue key (packages/contract EXCHANGES). */
  exchange: string;
  name: string;
  /** False where ccxt no longer has the exchange (closed): nothing can run live on it. */
  available: boolean;
  spot: boolean;
  perpetual: boolean;
  inverse: boolean;
  margin: boolean;
  leverage: boolean;
  /** The form of the client order ids we send (client-ids.ts), e.g. `text ≤36`; null when unavailable. */
  clientIds: string | null;
  /** How an order is looked up by id / by client id (lookups.ts); null when unavailable. */
  lookups: string | null;
}

type CcxtCtor = new (config?: Record<string, unknown>) => {
  has: Record<string, boolean | string | undefined>;
  options: Record<string, unknown>;
};

/** Whether ccxt's market loader fetches the exchange's inverse swaps (`options.fetchMarkets.types`). */
function loadsInverse(options: Record<string, unknown>): boolean {
  const fm = options.fetchMarkets;
  const types = fm && typeof fm === 'object' ? (fm as Record<string, unknown>).types : undefined;
  if (Array.isArray(types)) return types.includes('inverse');
  if (types && typeof types === 'object') {
    const swap = (types as Record<string, unknown>).swap;
    return !!swap && typeof swap === 'object' && (swap as Record<string, unknown>).inverse === true;
  }
  return false;
}

function derive(e: (typeof EXCHANGES)[number]): ExchangeCapabilities {
  const none = {
    exchange: e.key,
    name: e.name,
    available: false,
    spot: false,
    perpetual: false,
    inverse: false,
    margin: false,
    leverage: false,
    clientIds: null,
    lookups: null,
  };
  const Ctor = e.ccxtId
    ? ((ccxt as unknown as Record<string, unknown>)[e.ccxtId] as CcxtCtor | undefined)
    : null;
  if (!e.ccxtId || typeof Ctor !== 'function') return none;
  const ex = new Ctor();
  const has = (k: string) => ex.has[k] === true || ex.has[k] === 'emulated';
  const leverage = has('setLeverage') && !LEVERAGE_REFUSED[e.ccxtId];
  const perpetual = has('swap') && leverage;
  const cid = clientIdRule(e.key);
  const look = lookupRule(e.ccxtId);
  return {
    exchange: e.key,
    name: e.name,
    available: true,
    spot: has('spot'),
    perpetual,
    inverse: perpetual && loadsInverse(ex.options),
    margin: has('margin'),
    leverage,
    clientIds: `${cid.form}${cid.prefix ? ` ${cid.prefix}` : ''} ≤${cid.maxLength}`,
    lookups: `${look.byId.kind} / ${look.byClientId.kind}`,
  };
}

let cached: ExchangeCapabilities[] | null = null;

/** Every catalogue exchange's capabilities, in catalogue order (built once: ccxt's constructors are pure). */
export function exchangeCapabilities(): ExchangeCapabilities[] {
  cached ??= EXCHANGES.map(derive);
  return cached;
}

/** The column of a market type (Spot, Perpetual, Inverse, Margin): the contract's one switch. */
export function supportsMarketType(c: ExchangeCapabilities, type: MarketType): boolean {
  return supportsMarket(c, type);
}

const mark = (v: boolean) => (v ? 'yes' : '—');

/** The markdown table docs/exchanges.md holds between its capability markers (aligned as prettier does). */
export function capabilitiesMarkdown(rows = exchangeCapabilities()): string {
  const head = [
    'exchange',
    'spot',
    'perpetual',
    'inverse',
    'margin',
    'leverage',
    'client ids',
    'lookups (by id / by client id)',
  ];
  const body = rows.map((r) =>
    r.available
      ? [
          r.name,
          mark(r.spot),
          mark(r.perpetual),
          mark(r.inverse),
          mark(r.margin),
          mark(r.leverage),
          `\`${r.clientIds}\``,
          `\`${r.lookups}\``,
        ]
      : [r.name, 'closed', '—', '—', '—', '—', '—', '—'],
  );
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((x, c) => x.padEnd(widths[c]!)).join(' | ')} |`;
  return [line(head), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...body.map(line)].join('\n');
}
