import { SPOT, SPOT_MESSAGES, type SpotMessageKey } from '@bytx/contract';
import type { TFunction } from 'i18next';
import { translateServerMessage } from '../serverMessages/translate';

/**
 * The order panel's rules (spec part 1 §5 "Order"), pure: the same checks, in the same order, as
 * `POST /api/spot/order` (docs/trading.md), so the panel names the first failing rule before calling
 * the server. Every failure is a SPOT_MESSAGES key with its placeholders; the page shows it through
 * `trading.messages.<key>` (English: the contract's text byte for byte).
 */

export type TradeMarket = 'spot' | 'swap';
export type OrderSide = 'buy' | 'sell';
/** As the spec's `orderType` local storage key keeps it. */
export type OrderTypeName = 'Limit' | 'Market';

/** What the panel holds; numbers stay strings as typed. */
export interface OrderDraft {
  side: OrderSide;
  type: OrderTypeName;
  price: string;
  quantity: string;
  value: string;
  tp: string;
  sl: string;
  reduceOnly: boolean;
}

export const emptyDraft = (type: OrderTypeName = 'Limit', tp = '', sl = ''): OrderDraft => ({
  side: 'buy',
  type,
  price: '',
  quantity: '',
  value: '',
  tp,
  sl,
  reduceOnly: false,
});

/** The market facts the rules need (GET /api/spot/market), plus the user's leverage on futures. */
export interface MarketFacts {
  exchange: string;
  /** The symbol as the order call takes it: 'BTC/USDT' or 'BTC/USDT:USDT'. */
  symbol: string;
  base: string;
  quote: string;
  listed: boolean;
  amountStep: number;
  priceStep: number;
  minAmount: number;
  minCost: number;
  /** The last price, null when unknown. */
  price: number | null;
  baseFree: number;
  quoteFree: number;
}

export interface RuleContext {
  market: TradeMarket;
  /** The exchange picked in the selector ('' when none). */
  exchange: string;
  /** Whether the picked exchange is one of the user's connections. */
  connected: boolean;
  /** Null while GET /api/spot/market has not answered. */
  facts: MarketFacts | null;
  /** Futures: the stored leverage (margin = value / leverage). */
  leverage: number;
}

export interface RuleFailure {
  key: SpotMessageKey;
  params?: Record<string, string | number>;
}

/** The order as it would be sent: rounded to the market's steps. */
export interface CheckedOrder {
  side: OrderSide;
  type: 'limit' | 'market';
  /** The limit price, or the market price for a market order. */
  price: number;
  quantity: number;
  value: number;
  tp: number | null;
  sl: number | null;
  reduceOnly: boolean;
}

export type CheckResult = { ok: true; order: CheckedOrder } | { ok: false; failure: RuleFailure };

// --- numbers -----------------------------------------------------------------------------------------

/** A typed decimal ("0,5" is 0.5); NaN when it is not a plain non-negative decimal. */
export function parseNum(v: string): number {
  const s = v.trim().replace(/,/g, '.');
  if (!/^(\d+\.?\d*|\.\d+)$/.test(s)) return NaN;
  return Number(s);
}

const positive = (n: number) => Number.isFinite(n) && n > 0;

/** Decimals of a step as written: 0.001 → 3, 1e-8 → 8, 0.5 → 1, 10 → 0. */
export function stepDecimals(step: number): number {
  if (!positive(step)) return 0;
  const s = step.toString();
  const exp = /e-(\d+)$/.exec(s);
  if (exp) {
    const mantissa = s.split('e')[0]!;
    const frac = mantissa.includes('.') ? mantissa.split('.')[1]!.length : 0;
    return Number(exp[1]) + frac;
  }
  return s.includes('.') ? s.split('.')[1]!.length : 0;
}

const EPS = 1e-9;
const snap = (n: number, step: number) => Number(n.toFixed(Math.min(stepDecimals(step), 20)));

/** Down to a multiple of `step` (no step: unchanged). */
export function floorToStep(v: number, step: number): number {
  if (!positive(step) || !Number.isFinite(v)) return v;
  return snap(Math.floor(v / step + EPS) * step, step);
}
/** Up to a multiple of `step`. */
export function ceilToStep(v: number, step: number): number {
  if (!positive(step) || !Number.isFinite(v)) return v;
  return snap(Math.ceil(v / step - EPS) * step, step);
}
/** To the nearest multiple of `step`. */
export function roundToStep(v: number, step: number): number {
  if (!positive(step) || !Number.isFinite(v)) return v;
  return snap(Math.round(v / step) * step, step);
}

/** Down to `d` decimals (a derived quantity never exceeds what the value or balance pays for). */
export function floorDecimals(v: number, d: number): number {
  const f = 10 ** d;
  return Math.floor(v * f + EPS) / f;
}

/** The spec's display decimals: quantity 6, value 2. */
export const fmtQty = (n: number | null | undefined) =>
  typeof n === 'number' && Number.isFinite(n) ? n.toFixed(SPOT.quantityDecimals) : '—';
export const fmtValue = (n: number | null | undefined) =>
  typeof n === 'number' && Number.isFinite(n) ? n.toFixed(SPOT.valueDecimals) : '—';

/** Prices with the market's step decimals, else 2 from 100, 4 from 1, 6 below. */
export function fmtPrice(n: number | null | undefined, step?: number): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  if (step !== undefined && positive(step)) return n.toFixed(Math.min(stepDecimals(step), 12));
  const a = Math.abs(n);
  return n.toFixed(a >= 100 ? 2 : a >= 1 ? 4 : 6);
}

/** A number for an input: no exponent, no trailing zeros. */
export function inputNum(n: number, d: number): string {
  if (!Number.isFinite(n)) return '';
  return Number(n.toFixed(d)).toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: d });
}

/** The value input accepts digits and one dot only (a comma is read as the dot). */
export function filterValueInput(v: string): string {
  const s = v.replace(/,/g, '.').replace(/[^0-9.]/g, '');
  const dot = s.indexOf('.');
  return dot < 0 ? s : s.slice(0, dot + 1) + s.slice(dot + 1).replace(/\./g, '');
}

// --- draft updates -----------------------------------------------------------------------------------

/** The price the value and the size buttons use: the limit price, or the market price. */
export function draftPrice(d: OrderDraft, marketPrice: number | null): number | null {
  if (d.type === 'Limit') {
    const p = parseNum(d.price);
    return positive(p) ? p : null;
  }
  return marketPrice !== null && positive(marketPrice) ? marketPrice : null;
}

const valueOf = (qty: string, price: number | null) => {
  const q = parseNum(qty);
  return price !== null && positive(q) ? inputNum(q * price, SPOT.valueDecimals) : '';
};

/** A new price (typed, or a book price): the value follows the quantity. */
export function withPrice(d: OrderDraft, price: string, marketPrice: number | null): OrderDraft {
  const next = { ...d, price };
  return { ...next, value: d.quantity ? valueOf(d.quantity, draftPrice(next, marketPrice)) : d.value };
}

/** A typed quantity: the value follows. */
export function withQuantity(d: OrderDraft, quantity: string, marketPrice: number | null): OrderDraft {
  return { ...d, quantity, value: valueOf(quantity, draftPrice(d, marketPrice)) };
}

/**
 * A typed value (digits and one dot): at the minimum (6) or above, the quantity is derived from it
 * (value / price, 6 decimals, rounded down); below it the quantity is left as it is.
 */
export function withValue(d: OrderDraft, typed: string, marketPrice: number | null): OrderDraft {
  const value = filterValueInput(typed);
  const v = parseNum(value);
  const price = draftPrice(d, marketPrice);
  if (price === null || !Number.isFinite(v) || v < SPOT.minValue) return { ...d, value };
  const q = floorDecimals(v / price, SPOT.quantityDecimals);
  return { ...d, value, quantity: inputNum(q, SPOT.quantityDecimals) };
}

/**
 * A size button: pct % of the balance. Spot buy: of the quote (quantity = quote × pct / price); spot
 * sell: of the base; futures: of the swap wallet's quote as margin (× leverage / price), either side.
 * Rounded down to the amount step and 6 decimals.
 */
export function withPercent(
  d: OrderDraft,
  pct: number,
  ctx: Pick<RuleContext, 'market' | 'facts' | 'leverage'>,
): OrderDraft {
  const f = ctx.facts;
  const price = draftPrice(d, f?.price ?? null);
  if (!f) return d;
  let q: number;
  if (ctx.market === 'spot' && d.side === 'sell') q = (f.baseFree * pct) / 100;
  else if (price === null) return d;
  else q = (f.quoteFree * pct * (ctx.market === 'swap' ? Math.max(1, ctx.leverage) : 1)) / 100 / price;
  q = floorDecimals(floorToStep(q, f.amountStep), SPOT.quantityDecimals);
  const quantity = q > 0 ? inputNum(q, SPOT.quantityDecimals) : '0';
  return { ...d, quantity, value: valueOf(quantity, price) };
}

// --- the checks --------------------------------------------------------------------------------------

const fail = (key: SpotMessageKey, params?: Record<string, string | number>): CheckResult => ({
  ok: false,
  failure: params ? { key, params } : { key },
});

/**
 * The panel's checks in the server's order; the first failing rule, or the rounded order. The balance
 * numbers of 'Insufficient balance': a buy in the quote with 2 decimals, a sell in the base with 6
 * (futures: the margin, value / leverage, in the quote).
 */
export function checkOrder(d: OrderDraft, ctx: RuleContext): CheckResult {
  if (!ctx.exchange) return fail('badExchange');
  if (!ctx.connected) return fail('notConnected');
  const f = ctx.facts;
  if (!f) return fail('noPrice');
  if (!f.listed) return fail('notListed', { symbol: f.symbol, exchange: ctx.exchange });
  if (f.price === null || !positive(f.price)) return fail('noPrice');
  const limit = d.type === 'Limit';
  const limitPrice = parseNum(d.price);
  if (limit && !positive(limitPrice)) return fail('badLimitPrice');
  const qty = parseNum(d.quantity);
  if (!positive(qty)) return fail('badQuantity');

  const tpGiven = d.tp.trim() !== '';
  const slGiven = d.sl.trim() !== '';
  const tp = tpGiven ? parseNum(d.tp) : null;
  const sl = slGiven ? parseNum(d.sl) : null;
  if ((tp !== null && !positive(tp)) || (sl !== null && !positive(sl))) return fail('badTpSl');
  const entry = limit ? limitPrice : f.price;
  if (d.side === 'buy') {
    if (tp !== null && !(tp > entry)) return fail('buyTpNotAbove');
    if (sl !== null && !(sl < entry)) return fail('buySlNotBelow');
  } else {
    if (tp !== null && !(tp < entry)) return fail('sellTpNotBelow');
    if (sl !== null && !(sl > entry)) return fail('sellSlNotAbove');
  }

  const quantity = floorToStep(qty, f.amountStep);
  const price = limit
    ? d.side === 'buy'
      ? floorToStep(limitPrice, f.priceStep)
      : ceilToStep(limitPrice, f.priceStep)
    : f.price;
  const tpR = tp === null ? null : roundToStep(tp, f.priceStep);
  const slR = sl === null ? null : roundToStep(sl, f.priceStep);
  if (!(quantity > 0)) return fail('badQuantity');
  const value = price * quantity;
  const names = { symbol: f.symbol, exchange: ctx.exchange, base: f.base, quote: f.quote };
  if (limit && ctx.market === 'spot' && value < SPOT.minValue - EPS) {
    return fail('minValue', { min: SPOT.minValue, quote: f.quote });
  }
  if (f.minAmount > 0 && quantity < f.minAmount - EPS) {
    return fail('belowMinAmount', { ...names, min: f.minAmount });
  }
  if (f.minCost > 0 && value < f.minCost - EPS) return fail('belowMinCost', { ...names, min: f.minCost });
  if (d.reduceOnly && ctx.market === 'spot') return fail('reduceOnlySpot');

  if (!d.reduceOnly) {
    if (ctx.market === 'swap') {
      const margin = value / Math.max(1, ctx.leverage);
      if (margin > f.quoteFree + EPS) {
        return fail('insufficient', { required: fmtValue(margin), available: fmtValue(f.quoteFree) });
      }
    } else if (d.side === 'buy') {
      if (value > f.quoteFree + EPS) {
        return fail('insufficient', { required: fmtValue(value), available: fmtValue(f.quoteFree) });
      }
    } else if (quantity > f.baseFree + EPS) {
      return fail('insufficient', { required: fmtQty(quantity), available: fmtQty(f.baseFree) });
    }
  }

  return {
    ok: true,
    order: {
      side: d.side,
      type: limit ? 'limit' : 'market',
      price,
      quantity,
      value,
      tp: tpR,
      sl: slR,
      reduceOnly: ctx.market === 'swap' && d.reduceOnly,
    },
  };
}

// --- messages ----------------------------------------------------------------------------------------

/** A rule failure in the page's language (`trading.messages.<key>`). */
export const ruleText = (t: TFunction, f: RuleFailure) => t(`trading.messages.${f.key}`, f.params ?? {});

/** The contract's text with its placeholders filled: what the server would answer. */
export const englishText = (f: RuleFailure) =>
  SPOT_MESSAGES[f.key].replace(/\{(\w+)\}/g, (m, k: string) =>
    f.params && k in f.params ? String(f.params[k]) : m,
  );

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A message of the server in the page's language: a contract text (exact, or with its placeholders
 * filled in) is read from `trading.messages.<key>` with the same values; anything else is shown as the
 * server wrote it. The server names the side of a placed or filled order as the call does ('buy',
 * 'sell'); `sideLabel` gives the screen's word for it (Buy / Sell, Long / Short, in the page language).
 */
export function serverText(t: TFunction, message: string, sideLabel?: (side: OrderSide) => string): string {
  for (const key of Object.keys(SPOT_MESSAGES) as SpotMessageKey[]) {
    const template: string = SPOT_MESSAGES[key];
    const names: string[] = [];
    const pattern = template
      .split(/(\{\w+\})/)
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m) return escapeRe(part);
        names.push(m[1]!);
        return '(.+?)';
      })
      .join('');
    const hit = new RegExp(`^${pattern}$`, 's').exec(message);
    if (!hit) continue;
    const params: Record<string, string> = Object.fromEntries(names.map((n, i) => [n, hit[i + 1]!]));
    const side = params.side;
    if (sideLabel && (key === 'placed' || key === 'filled') && (side === 'buy' || side === 'sell')) {
      params.side = sideLabel(side);
    }
    const path = `trading.messages.${key}`;
    const text = t(path, params);
    return text === path ? message : text;
  }
  // Any other server refusal (market data, the exchange's answers) through the shared server texts.
  return translateServerMessage(message);
}
