// The simulated market's fixed data: the pairs it lists, start prices and volatilities, each
// exchange's spot fees and minimum order value, price and amount steps, and the dislocations' sizes.
import { EXCHANGES, SPOT_BASES, SPOT_QUOTES, TICKER_ASSETS, type ExchangeKey } from '@bytx/contract';

/** Start prices in USD (early 2025 levels); BYTX is the platform token. */
export const SIM_START_PRICES: Readonly<Record<string, number>> = {
  BTC: 95_000,
  ETH: 3_400,
  BYTX: 0.002,
  LTC: 105,
  BNB: 690,
  XRP: 2.3,
  SOL: 190,
  DOT: 6.8,
  AVAX: 36,
  ADA: 0.95,
  TRX: 0.25,
  LINK: 22,
  BCH: 440,
  ARB: 0.75,
  ATOM: 6.5,
  UNI: 13,
  HBAR: 0.28,
  SUI: 4.2,
  ALGO: 0.38,
  FIL: 5.2,
  THETA: 2.1,
  OP: 1.9,
  SAND: 0.55,
  WLD: 2.3,
  DOGE: 0.36,
};

/** Daily volatility (fraction) per base; others use 0.045. */
export const DAILY_VOL: Readonly<Record<string, number>> = { BTC: 0.025, ETH: 0.032, BNB: 0.028, BYTX: 0.06 };

/** Price of the quote assets in USD. */
export const QUOTE_USD: Readonly<Record<string, number>> = { USDT: 1, USDC: 1.0001 };

/** Every spot pair of the spec: bases × USDT/USDC, plus the ticker pairs (DOGE/USDT). */
export function simulatedSymbols(): string[] {
  const out = new Set<string>();
  for (const b of SPOT_BASES) for (const q of SPOT_QUOTES) out.add(`${b}/${q}`);
  for (const a of TICKER_ASSETS) out.add(`${a.symbol.slice(0, -4)}/USDT`);
  return [...out];
}

export const SIM_EXCHANGES: readonly string[] = EXCHANGES.map((e) => e.key);

/** The highest price the simulator takes or produces (the platform's documented price limit). */
export const SIM_MAX_PRICE = 1e9;

/** Binance's spot fee (taker and maker), 0.1%: the fallback of `simSpotFees`. */
export const SIM_FEE = 0.001;
/** Minimum order value in quote units, like Binance's 5 USDT NOTIONAL filter: the fallback of `simSpotFees`. */
export const SIM_MIN_COST = 5;

/** Spot fees (fractions) and minimum order value (quote units) of one simulated exchange. */
export interface SimSpotFees {
  taker: number;
  maker: number;
  minCost: number;
}

/**
 * Each exchange's base-tier (no VIP, no token discount) spot fees and its usual minimum order value on
 * USDT pairs, as the exchanges publish them (fee pages and market-info APIs, checked 2025). The
 * simulated market charges these on spot pairs; swaps keep SWAP_TAKER_FEE / SWAP_MAKER_FEE.
 * Where an exchange sets a minimum in base units only, `minCost` is what that is worth on the major
 * pairs (the simulator's `minAmount`, one amount step worth ≤ 1 USD, applies as well).
 * - binance: binance.com/en/fee/schedule 0.1/0.1 %; exchangeInfo NOTIONAL minNotional 5 (kept exactly:
 *   tests and docs work with it).
 * - bybit (and its testnet): Bybit help "Spot trading fees" non-VIP 0.1/0.1 %; v5 instruments-info
 *   lotSizeFilter.minOrderAmt 5 on BTCUSDT/ETHUSDT.
 * - coinbaseexchange: Coinbase Exchange fee tier $0–10K taker 0.60 %, maker 0.40 %; products'
 *   min_market_funds 1.
 * - okx: okx.com/fees Regular Lv1 spot taker 0.10 %, maker 0.08 %; no notional filter, minSz ≈ 1 USD.
 * - bitget: bitget.com/fee spot 0.1/0.1 %; spot symbols minTradeUSDT 1.
 * - mexc: MEXC Learn "spot trading fees" (2025) maker 0 %, taker 0.05 %; minimum order 1 USDT.
 * - kucoin: KuCoin fee level LV0 spot 0.1/0.1 %; symbols minFunds 0.1.
 * - bingx: BingX spot 0.1/0.1 %; minimum order 2 USDT.
 * - kraken: Kraken Pro $0–10K tier taker 0.40 %, maker 0.25 %; AssetPairs costmin 0.5.
 * - bitfinex: bitfinex.com/fees taker 0.20 %, maker 0.10 %; minimum order size ≈ 5 USD in base.
 * - gateio: gate.com/fee VIP 0 spot 0.1/0.1 %; currency_pairs min_quote_amount 3.
 * - phemex: Phemex spot 0.1/0.1 %; minimum order value 1 USDT.
 * - bitstamp: bitstamp.net/fee-schedule $0–1K tier taker 0.40 %, maker 0.30 %; minimum order 10 USD.
 * - poloniex: Poloniex spot VIP0 taker 0.155 %, maker 0.145 %; minimum amount 1 USDT.
 * - lbank: LBank spot 0.1/0.1 %; minimum order ≈ 1 USDT.
 * - hitbtc: HitBTC starter tier 0.09/0.09 % (ccxt 4.5 `fees.trading`); minimum ≈ 1 USD.
 * - bittrex, zb, ascendex (closed; the last published schedules): Bittrex 0.35/0.35 % and 10 USD;
 *   ZB 0.2/0.2 % and 1 USD; AscendEX 0.1/0.1 % and 5 USDT.
 */
export const SIM_SPOT_FEES: Readonly<Record<ExchangeKey, SimSpotFees>> = {
  binance: { taker: SIM_FEE, maker: SIM_FEE, minCost: SIM_MIN_COST },
  bybit: { taker: 0.001, maker: 0.001, minCost: 5 },
  bybit_testnet: { taker: 0.001, maker: 0.001, minCost: 5 },
  coinbaseexchange: { taker: 0.006, maker: 0.004, minCost: 1 },
  okx: { taker: 0.001, maker: 0.0008, minCost: 1 },
  bitget: { taker: 0.001, maker: 0.001, minCost: 1 },
  mexc: { taker: 0.0005, maker: 0, minCost: 1 },
  kucoin: { taker: 0.001, maker: 0.001, minCost: 0.1 },
  bingx: { taker: 0.001, maker: 0.001, minCost: 2 },
  kraken: { taker: 0.004, maker: 0.0025, minCost: 0.5 },
  bitfinex: { taker: 0.002, maker: 0.001, minCost: 5 },
  gateio: { taker: 0.001, maker: 0.001, minCost: 3 },
  phemex: { taker: 0.001, maker: 0.001, minCost: 1 },
  bitstamp: { taker: 0.004, maker: 0.003, minCost: 10 },
  bittrex: { taker: 0.0035, maker: 0.0035, minCost: 10 },
  poloniex: { taker: 0.00155, maker: 0.00145, minCost: 1 },
  lbank: { taker: 0.001, maker: 0.001, minCost: 1 },
  zb: { taker: 0.002, maker: 0.002, minCost: 1 },
  hitbtc: { taker: 0.0009, maker: 0.0009, minCost: 1 },
  ascendex: { taker: 0.001, maker: 0.001, minCost: 5 },
};

/** The spot fees and minimum order value of an exchange key (unknown keys: Binance's). */
export function simSpotFees(exchange: string): SimSpotFees {
  return (
    (SIM_SPOT_FEES as Readonly<Record<string, SimSpotFees>>)[exchange] ?? {
      taker: SIM_FEE,
      maker: SIM_FEE,
      minCost: SIM_MIN_COST,
    }
  );
}

/**
 * Dislocations (moving offsets, so cross-exchange opportunities appear and vanish): on each pair of
 * each exchange, at Poisson times (`SIM_DISLOCATION_PER_HOUR` a pair), the price jumps away from the
 * others by 0.3–0.8 % (random sign) and the jump decays back with a half-life of
 * `SIM_DISLOCATION_HALF_LIFE_MS`. Jumps add up while they overlap (bounded to ±2 %).
 */
export const SIM_DISLOCATION_PER_HOUR = 3;
export const SIM_DISLOCATION_HALF_LIFE_MS = 30_000;
export const DISLOCATION_MIN = 0.003;
export const DISLOCATION_MAX = 0.008;
export const DISLOCATION_CAP = 0.02;
/** Below this a decayed dislocation is 0 (keeps the snapshot small). */
export const DISLOCATION_EPSILON = 1e-7;

/** Tick size for a price level: about 5-6 significant digits, between 1e-8 and 0.01. */
export function simPriceStep(price: number): number {
  const exp = Math.floor(Math.log10(price)) - 5;
  return Math.min(0.01, Math.max(1e-8, Number(`1e${exp}`)));
}

/** Amount step worth about 1 USD or less, at most 1 unit. */
export function simAmountStep(price: number): number {
  const exp = Math.floor(Math.log10(1 / price));
  return Math.min(1, Math.max(1e-8, Number(`1e${exp}`)));
}
