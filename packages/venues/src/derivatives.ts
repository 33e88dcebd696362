/**
 * Derivatives arithmetic (pure): symbols of the market types, initial margin, isolated liquidation
 * price, PnL (linear, inverse, margin), funding and margin interest. Worked examples with these exact
 * numbers are in docs/venues.md and test/derivatives.test.ts.
 *
 * Units: prices in quote per base (USD ≈ USDT for inverse contracts); `contracts` are base units for
 * linear swaps and margin (contract size 1), contracts of `contractSize` USD for inverse swaps. Money
 * results are in the settle currency (quote for linear and margin, the base coin for inverse) and
 * rounded to 1e-8 with `money`, so float drift never reaches a balance.
 */
import { money, roundDecimals } from './precision';
import type { MarketType, PositionSide } from './types';

/** Maintenance margin rate of every paper position (0.5 % of the position value). */
export const MAINTENANCE_MARGIN_RATE = 0.005;
/** Funding every 8 h, at 00:00, 08:00 and 16:00 UTC. */
export const FUNDING_INTERVAL_MS = 8 * 3_600_000;
/** The simulated funding rate's centre (+0.01 % per 8 h) and bound (±0.05 %). */
export const FUNDING_BASE_RATE = 0.0001;
export const FUNDING_MAX_RATE = 0.0005;
/** Margin interest on what is borrowed: 0.001 % per hour (0.024 % a day), charged hourly. */
export const MARGIN_HOURLY_RATE = 0.00001;
export const HOUR_MS = 3_600_000;
/** Paper maximum leverage of swaps: 125x for BTC and ETH, 75x for the rest. */
export const SWAP_MAX_LEVERAGE_MAJOR = 125;
export const SWAP_MAX_LEVERAGE_OTHER = 75;
/** Paper maximum leverage of isolated spot margin (like Binance's isolated margin, 10x). */
export const MARGIN_MAX_LEVERAGE = 10;
/** Paper swap fees (Binance USDⓈ-M's regular tier): taker 0.05 %, maker 0.02 %. */
export const SWAP_TAKER_FEE = 0.0005;
export const SWAP_MAKER_FEE = 0.0002;

export function swapMaxLeverage(base: string): number {
  return base === 'BTC' || base === 'ETH' ? SWAP_MAX_LEVERAGE_MAJOR : SWAP_MAX_LEVERAGE_OTHER;
}

// --- symbols ------------------------------------------------------------------------------------

/** The `BASE/QUOTE` part of a unified symbol ('BTC/USDT:USDT' → 'BTC/USDT'). */
function splitPair(symbol: string): { base: string; quote: string; settle: string | null } {
  const [pair = '', settle] = symbol.split(':');
  const [base = '', quote = ''] = pair.split('/');
  return { base, quote, settle: settle ?? null };
}

/**
 * The venue (ccxt unified) symbol of the user's pair in a market type: Spot and Margin `BTC/USDT`,
 * Perpetual `BTC/USDT:USDT` (linear, settled in the quote), Inverse `BTC/USD:BTC` (settled in the base).
 */
export function marketSymbol(pair: string, type: MarketType | Lowercase<MarketType>): string {
  const { base, quote } = splitPair(pair);
  // The spec's grid uses the lowercase names ('perpetual'); both spellings are accepted.
  const t = type.toLowerCase();
  if (t === 'perpetual') return `${base}/${quote}:${quote}`;
  if (t === 'inverse') return `${base}/USD:${base}`;
  return `${base}/${quote}`;
}

/** True for a swap symbol (one with a settle currency, `BTC/USDT:USDT`). */
export function isSwapSymbol(symbol: string): boolean {
  return symbol.includes(':');
}

/** True for an inverse swap symbol (settled in the base coin, `BTC/USD:BTC`). */
export function isInverseSymbol(symbol: string): boolean {
  const { base, settle } = splitPair(symbol);
  return settle !== null && settle === base;
}

/**
 * The spot pair whose price a swap follows on paper: linear `BTC/USDT:USDT` → `BTC/USDT`, inverse
 * `BTC/USD:BTC` → `BTC/USDT` (1 USD is taken as 1 USDT). A spot symbol is returned as is.
 */
export function spotPairOf(symbol: string): string {
  const { base, quote, settle } = splitPair(symbol);
  if (settle === null) return symbol;
  return settle === base ? `${base}/USDT` : `${base}/${quote}`;
}

/** The market type of a venue symbol (with the order's margin mode for spot symbols). */
export function marketTypeOf(symbol: string, marginMode?: 'isolated'): MarketType {
  if (!isSwapSymbol(symbol)) return marginMode === 'isolated' ? 'Margin' : 'Spot';
  return isInverseSymbol(symbol) ? 'Inverse' : 'Perpetual';
}

// --- positions ----------------------------------------------------------------------------------

/** What a contract is: linear (contract size in base units) or inverse (contract size in USD). */
export interface ContractSpec {
  inverse: boolean;
  contractSize: number;
}
/** Linear swaps and spot margin: one contract is one base unit. */
export const LINEAR_SPEC: ContractSpec = { inverse: false, contractSize: 1 };
/** Inverse swaps on paper: one contract is 1 USD. */
export const INVERSE_SPEC: ContractSpec = { inverse: true, contractSize: 1 };

const sign = (side: PositionSide): 1 | -1 => (side === 'long' ? 1 : -1);

/**
 * Position value in the settle currency: linear contracts × size × price (quote); inverse
 * contracts × size (USD) ÷ price (base coin).
 */
export function notionalValue(spec: ContractSpec, contracts: number, price: number): number {
  const units = contracts * spec.contractSize;
  return money(spec.inverse ? units / price : units * price);
}

/** Initial margin = value ÷ leverage (settle currency). */
export function initialMargin(
  spec: ContractSpec,
  contracts: number,
  price: number,
  leverage: number,
): number {
  return money(notionalValue(spec, contracts, price) / leverage);
}

/**
 * PnL of closing `contracts` bought (long) or sold (short) at `entry` at `exit`, in the settle currency:
 * linear ± contracts × size × (exit − entry); inverse ± contracts × size × (1/entry − 1/exit).
 */
export function positionPnl(
  spec: ContractSpec,
  side: PositionSide,
  contracts: number,
  entry: number,
  exit: number,
): number {
  const units = contracts * spec.contractSize;
  const raw = spec.inverse ? units * (1 / entry - 1 / exit) : units * (exit - entry);
  return money(sign(side) * raw);
}

/**
 * Margin (spot margin) PnL in quote: the linear PnL less the interest paid on what was borrowed.
 */
export function marginPnl(
  side: PositionSide,
  amount: number,
  entry: number,
  exit: number,
  interest: number,
): number {
  return money(positionPnl(LINEAR_SPEC, side, amount, entry, exit) - interest);
}

/**
 * Isolated liquidation price: the mark at which the position's equity (collateral + unrealized PnL)
 * falls to the maintenance margin (MMR × value at the mark). With C the collateral, Q the contracts
 * × size and e the entry:
 * - linear long  p = (e − C/Q) ÷ (1 − MMR);   linear short p = (e + C/Q) ÷ (1 + MMR)
 * - inverse long p = Q(1 + MMR) ÷ (C + Q/e);  inverse short p = Q(1 − MMR) ÷ (Q/e − C)
 * With C = initial margin these are e(1 − 1/L)/(1 − MMR), e(1 + 1/L)/(1 + MMR), e(1 + MMR)/(1 + 1/L)
 * and e(1 − MMR)/(1 − 1/L). Returns 0 when the price cannot fall far enough (a long with no debt)
 * and null when it cannot rise far enough (an inverse short at 1x or less).
 */
export function liquidationPrice(
  spec: ContractSpec,
  side: PositionSide,
  contracts: number,
  entry: number,
  collateral: number,
  mmr: number = MAINTENANCE_MARGIN_RATE,
): number | null {
  const q = contracts * spec.contractSize;
  if (!(q > 0)) return null;
  let p: number;
  if (!spec.inverse) {
    p = side === 'long' ? (entry - collateral / q) / (1 - mmr) : (entry + collateral / q) / (1 + mmr);
  } else if (side === 'long') {
    p = (q * (1 + mmr)) / (collateral + q / entry);
  } else {
    const denominator = q / entry - collateral;
    if (!(denominator > 0)) return null;
    p = (q * (1 - mmr)) / denominator;
  }
  return Math.max(0, roundDecimals(p, 8));
}

/**
 * Entry price after adding `addContracts` at `addPrice` to `contracts` at `entry`: the contract-
 * weighted mean (linear) or the harmonic mean (inverse: the value in coin adds up).
 */
export function averageEntry(
  spec: ContractSpec,
  contracts: number,
  entry: number,
  addContracts: number,
  addPrice: number,
): number {
  const total = contracts + addContracts;
  if (!(total > 0)) return addPrice;
  const raw = spec.inverse
    ? total / (contracts / entry + addContracts / addPrice)
    : (contracts * entry + addContracts * addPrice) / total;
  return roundDecimals(raw, 8);
}

// --- funding ------------------------------------------------------------------------------------

/**
 * What the position pays at a funding time (positive: paid; negative: received), in the settle
 * currency: value at the mark × rate, paid by longs and received by shorts when the rate is positive.
 */
export function fundingPayment(
  spec: ContractSpec,
  side: PositionSide,
  contracts: number,
  markPrice: number,
  rate: number,
): number {
  return money(sign(side) * notionalValue(spec, contracts, markPrice) * rate);
}

/** The funding time at or before `ts` (00:00, 08:00 or 16:00 UTC). */
export function fundingTimeFloor(ts: number): number {
  return Math.floor(ts / FUNDING_INTERVAL_MS) * FUNDING_INTERVAL_MS;
}

/** The first funding time after `ts`. */
export function nextFundingTime(ts: number): number {
  return fundingTimeFloor(ts) + FUNDING_INTERVAL_MS;
}

/** Funding times t with `after` < t ≤ `upTo`, oldest first. */
export function fundingTimesBetween(after: number, upTo: number): number[] {
  const out: number[] = [];
  for (let t = fundingTimeFloor(after) + FUNDING_INTERVAL_MS; t <= upTo; t += FUNDING_INTERVAL_MS)
    out.push(t);
  return out;
}

/** FNV-1a 32-bit (the same as the simulator's `hash32`; copied to keep this module dependency-free). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The simulated funding rate of `symbol` at `fundingTime` (deterministic: the same everywhere and
 * after a restart): +0.01 % ± 0.02 %, in steps of 0.0001 %, always within ±0.05 %.
 */
export function simulatedFundingRate(symbol: string, fundingTime: number): number {
  const u = fnv1a(`${spotPairOf(symbol)}|${fundingTimeFloor(fundingTime)}`) / 4294967296;
  const rate = FUNDING_BASE_RATE + (u - 0.5) * 0.0004;
  // `+ 0` turns a rounded −0 into 0.
  return roundDecimals(Math.max(-FUNDING_MAX_RATE, Math.min(FUNDING_MAX_RATE, rate)), 6) + 0;
}

// --- margin -------------------------------------------------------------------------------------

/**
 * What an isolated margin position has borrowed: a long borrows quote (value − collateral), a short
 * borrows the base it sold (its contracts).
 */
export function marginBorrowed(
  side: PositionSide,
  amount: number,
  entry: number,
  collateral: number,
): { in: 'quote' | 'base'; amount: number } {
  if (side === 'short') return { in: 'base', amount };
  return { in: 'quote', amount: money(Math.max(0, amount * entry - collateral)) };
}

/** Interest on a borrowed value (quote) over whole hours: value × hourly rate × hours. */
export function marginInterest(borrowedValue: number, hours = 1, hourlyRate = MARGIN_HOURLY_RATE): number {
  return money(borrowedValue * hourlyRate * hours);
}

/** Whole-hour times t with `after` < t ≤ `upTo` (margin interest is charged at each). */
export function hoursBetween(after: number, upTo: number): number {
  return Math.max(0, Math.floor(upTo / HOUR_MS) - Math.floor(after / HOUR_MS));
}
