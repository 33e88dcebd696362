import { describe, expect, it } from 'vitest';
import {
  FUNDING_INTERVAL_MS,
  INVERSE_SPEC,
  LINEAR_SPEC,
  MAINTENANCE_MARGIN_RATE,
  averageEntry,
  fundingPayment,
  fundingTimeFloor,
  fundingTimesBetween,
  hoursBetween,
  initialMargin,
  isSwapSymbol,
  liquidationPrice,
  marginBorrowed,
  marginInterest,
  marginPnl,
  marketSymbol,
  marketTypeOf,
  nextFundingTime,
  notionalValue,
  positionPnl,
  roundToStep,
  simulatedFundingRate,
  spotPairOf,
  swapMaxLeverage,
} from '../src/index';

/** The worked examples of docs/venues.md ("Derivatives"), with the same numbers. MMR = 0.5 %. */

describe('symbols of the market types', () => {
  it('maps the user pair to the venue symbol and back', () => {
    expect(marketSymbol('BTC/USDT', 'Spot')).toBe('BTC/USDT');
    expect(marketSymbol('BTC/USDT', 'Margin')).toBe('BTC/USDT');
    expect(marketSymbol('BTC/USDT', 'Perpetual')).toBe('BTC/USDT:USDT');
    expect(marketSymbol('ETH/USDC', 'Perpetual')).toBe('ETH/USDC:USDC');
    expect(marketSymbol('BTC/USDT', 'Inverse')).toBe('BTC/USD:BTC');
    expect(marketSymbol('BTC/USDT', 'perpetual')).toBe('BTC/USDT:USDT');
    expect(marketSymbol('BTC/USDT', 'margin')).toBe('BTC/USDT');
    // Idempotent on a venue symbol.
    expect(marketSymbol('BTC/USDT:USDT', 'Perpetual')).toBe('BTC/USDT:USDT');
    expect(spotPairOf('BTC/USDT:USDT')).toBe('BTC/USDT');
    expect(spotPairOf('BTC/USD:BTC')).toBe('BTC/USDT');
    expect(spotPairOf('ETH/USDC')).toBe('ETH/USDC');
    expect(isSwapSymbol('BTC/USD:BTC')).toBe(true);
    expect(marketTypeOf('BTC/USD:BTC')).toBe('Inverse');
    expect(marketTypeOf('BTC/USDT:USDT')).toBe('Perpetual');
    expect(marketTypeOf('BTC/USDT', 'isolated')).toBe('Margin');
    expect(marketTypeOf('BTC/USDT')).toBe('Spot');
    expect(swapMaxLeverage('BTC')).toBe(125);
    expect(swapMaxLeverage('ETH')).toBe(125);
    expect(swapMaxLeverage('SOL')).toBe(75);
  });
});

describe('Perpetual (linear, BTC/USDT:USDT): long 0.1 BTC at 60,000 with 10x', () => {
  it('value, initial margin, liquidation price and PnL', () => {
    // value = 0.1 × 60,000 = 6,000 USDT
    expect(notionalValue(LINEAR_SPEC, 0.1, 60_000)).toBe(6_000);
    // initial margin = 6,000 ÷ 10 = 600 USDT
    expect(initialMargin(LINEAR_SPEC, 0.1, 60_000, 10)).toBe(600);
    // long liq = (e − C/Q) ÷ (1 − MMR) = (60,000 − 600/0.1) ÷ 0.995 = 54,000 ÷ 0.995 = 54,271.35678…
    const longLiq = liquidationPrice(LINEAR_SPEC, 'long', 0.1, 60_000, 600);
    expect(longLiq).toBeCloseTo(54_271.356784, 5);
    expect(roundToStep(longLiq!, 0.01)).toBe(54_271.36); // on the 0.01 tick
    // short liq = (e + C/Q) ÷ (1 + MMR) = (60,000 + 6,000) ÷ 1.005 = 65,671.64179…
    expect(roundToStep(liquidationPrice(LINEAR_SPEC, 'short', 0.1, 60_000, 600)!, 0.01)).toBe(65_671.64);
    // PnL at 63,000: long +0.1 × 3,000 = +300 USDT (50 % on the 600 margin); short −300
    expect(positionPnl(LINEAR_SPEC, 'long', 0.1, 60_000, 63_000)).toBe(300);
    expect(positionPnl(LINEAR_SPEC, 'short', 0.1, 60_000, 63_000)).toBe(-300);
    // Adding 0.1 at 62,000: entry (0.1×60,000 + 0.1×62,000) ÷ 0.2 = 61,000
    expect(averageEntry(LINEAR_SPEC, 0.1, 60_000, 0.1, 62_000)).toBe(61_000);
    // 1x long: no debt, never liquidated (0).
    expect(liquidationPrice(LINEAR_SPEC, 'long', 0.1, 60_000, 6_000)).toBe(0);
  });

  it('the equity at the liquidation price is the maintenance margin', () => {
    const p = liquidationPrice(LINEAR_SPEC, 'long', 0.1, 60_000, 600)!;
    const equity = 600 + 0.1 * (p - 60_000);
    expect(equity).toBeCloseTo(MAINTENANCE_MARGIN_RATE * 0.1 * p, 6);
  });
});

describe('Inverse (BTC/USD:BTC, 1 USD contracts): long 6,000 contracts at 60,000 with 5x', () => {
  it('value and margin in BTC, liquidation price, PnL in BTC', () => {
    // value = 6,000 × 1 USD ÷ 60,000 = 0.1 BTC
    expect(notionalValue(INVERSE_SPEC, 6_000, 60_000)).toBe(0.1);
    // initial margin = 0.1 ÷ 5 = 0.02 BTC
    expect(initialMargin(INVERSE_SPEC, 6_000, 60_000, 5)).toBe(0.02);
    // long liq = Q(1 + MMR) ÷ (C + Q/e) = 6,000 × 1.005 ÷ (0.02 + 0.1) = 6,030 ÷ 0.12 = 50,250
    expect(liquidationPrice(INVERSE_SPEC, 'long', 6_000, 60_000, 0.02)).toBe(50_250);
    // short liq = Q(1 − MMR) ÷ (Q/e − C) = 6,000 × 0.995 ÷ (0.1 − 0.02) = 5,970 ÷ 0.08 = 74,625
    expect(liquidationPrice(INVERSE_SPEC, 'short', 6_000, 60_000, 0.02)).toBe(74_625);
    // PnL at 66,000 = 6,000 × (1/60,000 − 1/66,000) = 0.1 − 0.09090909 = 0.00909091 BTC (≈ 600 USD)
    expect(positionPnl(INVERSE_SPEC, 'long', 6_000, 60_000, 66_000)).toBe(0.00909091);
    expect(positionPnl(INVERSE_SPEC, 'short', 6_000, 60_000, 66_000)).toBe(-0.00909091);
    // Adding 6,000 at 40,000: harmonic entry 12,000 ÷ (6,000/60,000 + 6,000/40,000) = 12,000 ÷ 0.25 = 48,000
    expect(averageEntry(INVERSE_SPEC, 6_000, 60_000, 6_000, 40_000)).toBe(48_000);
    // A 1x short (C = the whole value) cannot be liquidated: null.
    expect(liquidationPrice(INVERSE_SPEC, 'short', 6_000, 60_000, 0.1)).toBeNull();
  });
});

describe('Margin (isolated, BTC/USDT): long 0.1 BTC at 60,000 with 3x, held 24 h', () => {
  it('collateral, borrowing, interest, liquidation price, PnL', () => {
    // collateral = 6,000 ÷ 3 = 2,000 USDT; borrowed = 6,000 − 2,000 = 4,000 USDT
    expect(initialMargin(LINEAR_SPEC, 0.1, 60_000, 3)).toBe(2_000);
    expect(marginBorrowed('long', 0.1, 60_000, 2_000)).toEqual({ in: 'quote', amount: 4_000 });
    // a short borrows the 0.1 BTC it sells
    expect(marginBorrowed('short', 0.1, 60_000, 2_000)).toEqual({ in: 'base', amount: 0.1 });
    // interest = 4,000 × 0.001 % = 0.04 USDT an hour; 24 h = 0.96 USDT
    expect(marginInterest(4_000)).toBe(0.04);
    expect(marginInterest(4_000, 24)).toBe(0.96);
    // liq = (60,000 − 2,000/0.1) ÷ 0.995 = 40,000 ÷ 0.995 = 40,201.005… → 40,201.01 on the tick
    expect(roundToStep(liquidationPrice(LINEAR_SPEC, 'long', 0.1, 60_000, 2_000)!, 0.01)).toBe(40_201.01);
    // PnL at 63,000 after 24 h: 0.1 × 3,000 − 0.96 = 299.04 USDT (fees apart)
    expect(marginPnl('long', 0.1, 60_000, 63_000, 0.96)).toBe(299.04);
    // whole hours passed: 10:59 → 13:00 is 3 interest times (11:00, 12:00, 13:00)
    expect(hoursBetween(Date.UTC(2025, 0, 1, 10, 59), Date.UTC(2025, 0, 1, 13, 0))).toBe(3);
  });
});

describe('Funding: long 0.1 BTC perpetual, mark 62,000 at 08:00 UTC, rate +0.01 %', () => {
  it('longs pay shorts value × rate', () => {
    // value at the mark = 0.1 × 62,000 = 6,200 USDT; × 0.0001 = 0.62 USDT paid by the long
    expect(fundingPayment(LINEAR_SPEC, 'long', 0.1, 62_000, 0.0001)).toBe(0.62);
    expect(fundingPayment(LINEAR_SPEC, 'short', 0.1, 62_000, 0.0001)).toBe(-0.62);
    // a negative rate: shorts pay
    expect(fundingPayment(LINEAR_SPEC, 'short', 0.1, 62_000, -0.0001)).toBe(0.62);
    // inverse: 6,000 contracts at 60,000 = 0.1 BTC × 0.0001 = 0.00001 BTC
    expect(fundingPayment(INVERSE_SPEC, 'long', 6_000, 60_000, 0.0001)).toBe(0.00001);
  });

  it('funding times are 00:00, 08:00 and 16:00 UTC', () => {
    const t = Date.UTC(2025, 0, 15, 12, 0, 0);
    expect(fundingTimeFloor(t)).toBe(Date.UTC(2025, 0, 15, 8));
    expect(nextFundingTime(t)).toBe(Date.UTC(2025, 0, 15, 16));
    expect(nextFundingTime(Date.UTC(2025, 0, 15, 16))).toBe(Date.UTC(2025, 0, 16, 0));
    expect(FUNDING_INTERVAL_MS).toBe(8 * 3_600_000);
    // (after, upTo]: the 16:00 and 00:00 times between 12:00 and 00:00 the next day
    expect(fundingTimesBetween(t, Date.UTC(2025, 0, 16, 0))).toEqual([
      Date.UTC(2025, 0, 15, 16),
      Date.UTC(2025, 0, 16, 0),
    ]);
    expect(fundingTimesBetween(Date.UTC(2025, 0, 15, 16), Date.UTC(2025, 0, 15, 16))).toEqual([]);
  });

  it('the simulated rate is deterministic, around +0.01 % and within ±0.05 %', () => {
    const t0 = Date.UTC(2025, 0, 15, 16);
    expect(simulatedFundingRate('BTC/USDT:USDT', t0)).toBe(simulatedFundingRate('BTC/USDT:USDT', t0));
    // The same rate for the funding time whatever instant inside the interval asks.
    expect(simulatedFundingRate('BTC/USDT:USDT', t0 + 3_600_000)).toBe(
      simulatedFundingRate('BTC/USDT:USDT', t0),
    );
    let sum = 0;
    const n = 3_000;
    for (let i = 0; i < n; i++) {
      const r = simulatedFundingRate('ETH/USDT:USDT', t0 + i * FUNDING_INTERVAL_MS);
      expect(Math.abs(r)).toBeLessThanOrEqual(0.0005);
      expect(Number(r.toFixed(6))).toBe(r); // steps of 0.0001 %
      sum += r;
    }
    expect(sum / n).toBeGreaterThan(0.00008);
    expect(sum / n).toBeLessThan(0.00012);
  });
});

describe('Liquidation: the Perpetual example (long 0.1 BTC at 60,000, 10x) when the mark falls to 54,000', () => {
  it('closes at 54,271.36 and loses the 600 USDT margin', () => {
    const liq = roundToStep(liquidationPrice(LINEAR_SPEC, 'long', 0.1, 60_000, 600)!, 0.01);
    expect(liq).toBe(54_271.36);
    expect(54_000 <= liq).toBe(true); // crossed
    // closing at the liquidation price realizes 0.1 × (54,271.36 − 60,000) = −572.864 USDT …
    expect(positionPnl(LINEAR_SPEC, 'long', 0.1, 60_000, liq)).toBe(-572.864);
    // … and the 27.136 USDT left (≈ MMR × 0.1 × 54,271.36 = 27.14) is the liquidation fee:
    // the account loses the whole 600 USDT collateral.
    expect(600 - 572.864).toBeCloseTo(27.136, 9);
    expect(MAINTENANCE_MARGIN_RATE * 0.1 * liq).toBeCloseTo(27.14, 2);
  });
});
