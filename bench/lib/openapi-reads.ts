// The reads of the HTTP read bench, taken from the OpenAPI document the server serves (`/api/docs/json`),
// not from a list kept by hand: every GET, and every POST marked `x-read-only: true` (a poll sent as a
// POST because it has a body; apps/server/src/lib/read-only.ts). A route added to the server is measured
// by the next run; one whose required parameter has no value below fails the bench, naming it.
import type { Seeded } from './read-seed';

export interface ReadCall {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: {
    content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
  'x-read-only'?: boolean;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/** GETs that are not reads of the web app's screens: the baseline itself, readiness, the docs. */
const NOT_MEASURED = new Set(['/api/health', '/api/ready']);

/**
 * Values of the parameters and body fields, by name, as the web app sends them (apps/web/src/features/*
 * /api). Optional ones are sent when a value is known here, as the app does (its user_id, the exchange).
 */
function valuesByName(seed: Seeded, email: string): Record<string, unknown> {
  return {
    user_id: email,
    user: email,
    exchange: 'binance',
    symbol: 'BTC/USDT',
    pair: 'BTC/USDT',
    bot_id: seed.dcaBotId,
    page: 1,
    per_page: 20,
    limit: 100,
    kind: 'grid-dca',
    timeframe: '1h',
    days: 30,
    ids: seed.lotIds,
    marketType: 'spot',
    price: seed.price,
    lowPrice: seed.price * 0.965,
    highPrice: seed.price * 1.035,
    stepPercentage: 0.5,
  };
}

/** Per operation: path parameters and values that differ from the ones by name. */
function overrides(seed: Seeded): Record<string, Record<string, unknown>> {
  const pairs = (symbols: string[]) => symbols.map((symbol) => ({ symbol, exchange: 'binance' }));
  return {
    'GET /api/dca/history': { per_page: 25 },
    // The app's own limits (the order book's 10 levels; the backtest list's default, the ones kept).
    'GET /api/market/orderbook': { limit: 10 },
    'GET /api/backtest': { limit: undefined },
    'GET /api/dca/pending_orders': { symbol: undefined, per_page: 6 },
    'GET /api/futures/funding': { symbol: 'BTC/USDT:USDT' },
    'GET /api/gridbot/{id}': { id: seed.gridBotId },
    'GET /api/signalbot/bots/{id}/signals': { id: seed.signalBotId },
    'GET /api/backtest/{id}': { id: seed.backtestId },
    'GET /api/bots/{id}/events': { id: seed.dcaBotId },
    // The hash of no transaction: the call's own path (a lookup that finds nothing) is measured.
    'GET /api/chain/tx/{hash}': { hash: `0x${'ab'.repeat(32)}` },
    'POST /api/pnls_actuales': { bots: pairs(seed.dcaPairs) },
    'POST /api/vncs_actuales': { bots: pairs(seed.classicPairs) },
    'POST /api/dcas_actuales': { bots: pairs(seed.classicPairs) },
  };
}

/** A parameter's value as text (an array or object as JSON). */
const text = (v: unknown): string =>
  typeof v === 'object' ? JSON.stringify(v) : `${v as string | number | boolean}`;

/** The reads of the document, in its order, with the values to send. */
export function readCalls(doc: OpenApiDocument, seed: Seeded, email: string): ReadCall[] {
  const byName = valuesByName(seed, email);
  const over = overrides(seed);
  const calls: ReadCall[] = [];
  const missing: string[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const method = m.toUpperCase();
      const isRead = method === 'GET' || (method === 'POST' && op['x-read-only'] === true);
      if (!isRead || NOT_MEASURED.has(template) || template.startsWith('/api/docs')) continue;
      const name = `${method} ${template}`;
      const value = (key: string) => (key in (over[name] ?? {}) ? over[name]![key] : byName[key]);
      let path = template;
      const query: string[] = [];
      for (const p of op.parameters ?? []) {
        const v = value(p.name);
        if (v === undefined || v === null) {
          if (p.required) missing.push(`${name}: ${p.in} ${p.name}`);
          continue;
        }
        if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(text(v)));
        else if (p.in === 'query') query.push(`${p.name}=${encodeURIComponent(text(v))}`);
      }
      let body: Record<string, unknown> | undefined;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) {
        body = {};
        for (const key of Object.keys(schema.properties ?? {})) {
          const v = value(key);
          if (v !== undefined && v !== null) body[key] = v;
          else if (schema.required?.includes(key)) missing.push(`${name}: body ${key}`);
        }
      }
      calls.push({
        name,
        method: method,
        path: query.length > 0 ? `${path}?${query.join('&')}` : path,
        ...(body ? { body } : {}),
      });
    }
  }
  if (missing.length > 0) throw new Error(`no value for: ${missing.join('; ')} (bench/lib/openapi-reads.ts)`);
  return calls;
}

/**
 * Why a call misses the goal, when it does (shown in its row). Measured with a profile of the server
 * (`BENCH_SERVER_NODE_ARGS='--cpu-prof …'`); see docs/read-path.md, "Every read".
 */
export const WHY_NOT: Record<string, string> = {
  'GET /api/peliculas-series/access':
    'answers 403 to a user not on LOGO_ALLOWLIST_EMAILS (the bench user): the refusal itself is measured',
  'GET /api/chain/tx/{hash}':
    'answers 404: the hash of no transaction (the lookup that finds nothing is measured)',
  'GET /api/backtest/{id}':
    'a 135 KB answer (the seeded 7-day run: chart candles 87 KB, equity 45 KB, as the spec lists them), kept as bytes (no query, no JSON per request); what is left is the transfer: ~0.4 ms of server CPU a request (writev alone ~0.1), and at 2,000 req/s (270 MB/s) the server is idle a quarter of the time while the bench client on the same 2 cores parses it; 5,000 req/s would be 675 MB/s',
};
