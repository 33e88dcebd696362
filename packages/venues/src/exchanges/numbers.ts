/**
 * Reading numbers from ccxt's unified structures.
 *
 * ccxt types its fields as numbers, but some parsers hand the exchange's own numeric string through:
 * Kraken's fetchOrder gives `fee.cost: "0.018475"` (ccxt's recorded response
 * ts/src/test/static/response/kraken.json, "closed market order"; Kraken's QueryOrders returns `fee` as a
 * string: https://docs.kraken.com/api/docs/rest-api/get-orders-info), and Bybit's trade parser gives
 * `fee.cost` as the `execFee` string (https://bybit-exchange.github.io/docs/v5/order/execution).
 * Reading only `typeof v === 'number'` dropped those fees, so net PnL was overstated. Every venue
 * mapper reads numbers through `toNumber`.
 */

/**
 * A plain decimal or exponent-notation numeric string, as exchanges write them ('0.018475', '-1.5',
 * '1e-8', '.5'). No hex, no 'Infinity', no blanks, no thousands separators: such a field is not a number
 * we can trust, and reads as absent.
 */
const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A finite number from a ccxt field: a finite number as is, a numeric string parsed (to the double
 * nearest its decimal value), anything else — null, undefined, '', NaN, ±Infinity, 'abc' — null.
 */
export function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') {
    const s = v.trim();
    if (!NUMERIC.test(s)) return null;
    const n = Number(s);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}
