import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * HTTP plumbing shared by the Binance emulators (spot and USDⓈ-M): body reading, JSON replies, the
 * ledger entry the crash tests compare, Binance's request security.
 */

/** What the exchange holds of an order, for the crash test's ledger comparison. */
export interface LedgerEntry {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  /** Spot, or a (linear) perpetual swap. */
  market: 'spot' | 'swap';
  side: 'buy' | 'sell';
  amount: number;
  filled: number;
  status: 'open' | 'closed' | 'canceled';
}

/** A Binance error: HTTP status and Binance's {code, msg}. */
export class BinanceError extends Error {
  constructor(
    readonly http: number,
    readonly code: number,
    msg: string,
  ) {
    super(msg);
  }
}

/**
 * Binance's endpoint security types: NONE (public), USER_STREAM (API key only), SIGNED (key,
 * HMAC signature and timestamp). https://developers.binance.com/docs/binance-spot-api-docs/rest-api/endpoint-security-type
 */
export type Security = 'NONE' | 'USER_STREAM' | 'SIGNED';

/** Up to 8 decimals (Binance's precision), trailing zeros kept as Binance sends them. */
export const dec = (v: number): string => {
  if (!Number.isFinite(v)) return '0';
  return v.toFixed(8);
};

/** The number of decimals of a step (0.01 → 2, 1 → 0). */
export function stepDecimals(step: number): number {
  if (!(step > 0) || step >= 1) return 0;
  return Math.max(0, Math.min(12, Math.round(-Math.log10(step))));
}

export function skewError(): BinanceError {
  return new BinanceError(400, -1021, 'Timestamp for this request is outside of the recvWindow.');
}

/** API key, signature (HMAC-SHA256 of query + body) and recvWindow, as Binance checks them. */
export function authenticate(
  req: IncomingMessage,
  security: Security,
  request: { query: string; body: string; params: URLSearchParams },
  keys: { apiKey: string; secret: string },
  now: number,
): void {
  if (security === 'NONE') return;
  if (req.headers['x-mbx-apikey'] !== keys.apiKey) {
    throw new BinanceError(401, -2015, 'Invalid API-key, IP, or permissions for action.');
  }
  if (security !== 'SIGNED') return;
  const { query, body, params } = request;
  const total = query + body;
  const at = total.lastIndexOf('signature=');
  const signature = params.get('signature') ?? '';
  const payload = total.slice(0, Math.max(0, at - 1));
  const want = createHmac('sha256', keys.secret).update(payload).digest('hex');
  if (
    at < 0 ||
    signature.length !== want.length ||
    !timingSafeEqual(Buffer.from(signature), Buffer.from(want))
  ) {
    throw new BinanceError(400, -1022, 'Signature for this request is not valid.');
  }
  const ts = Number(params.get('timestamp'));
  const recvWindow = Number(params.get('recvWindow') ?? 5_000);
  if (!Number.isFinite(ts) || ts >= now + 1_000 || now - ts > recvWindow) throw skewError();
}

/** Floors `v` to a multiple of `step` (a tolerance of 1e-9 step for float error). */
export function floorTo(v: number, step: number): number {
  if (!(step > 0)) return v;
  const n = Math.floor(v / step + 1e-9);
  return Number((n * step).toFixed(12));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // A REST order is well under 4 KB; a larger body is not Binance traffic.
      if (size > 65_536) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
