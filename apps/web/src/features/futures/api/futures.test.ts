import { SPOT_MESSAGES, type DerivativesPositionView } from '@bytx/contract';
import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../../../shared/i18n/index';
import { serverText } from '../components/serverText';
import {
  countdown,
  fmtPrice,
  fmtQty,
  fmtSigned,
  fmtValue,
  fundingPercent,
  pairOf,
  positionFigures,
  positionsOf,
  roePercent,
  signColor,
} from './futures';

// The figures follow i18next's language; test files share modules (isolate: false): English here.
beforeEach(async () => {
  await i18n.changeLanguage('en');
});

const position = (over: Partial<DerivativesPositionView> = {}): DerivativesPositionView => ({
  symbol: 'BTC/USDT:USDT',
  market_type: 'Perpetual',
  side: 'long',
  contracts: 0.0125,
  entry_price: 60000,
  mark_price: 61234.5678,
  leverage: 10,
  margin: 75,
  settle: 'USDT',
  liquidation_price: 54321.123,
  unrealized_pnl: 15.432,
  funding_paid: -0.0149,
  funding_rate: 0.0001,
  next_funding_time: 0,
  ...over,
});

describe('countdown', () => {
  const now = Date.UTC(2025, 0, 1, 5, 0, 0);
  it('is hh:mm:ss to the next funding', () => {
    expect(countdown(now + (3 * 3600 + 12 * 60 + 45) * 1000, now)).toBe('03:12:45');
    expect(countdown(now + 8 * 3600 * 1000, now)).toBe('08:00:00');
    expect(countdown(now + 59_000, now)).toBe('00:00:59');
  });
  it('drops the part of a second still running', () => {
    // 1 999 ms left: one whole second is shown until the next tick.
    expect(countdown(now + 1_999, now)).toBe('00:00:01');
    expect(countdown(now + 999, now)).toBe('00:00:00');
  });
  it('stops at zero once the time has passed, and without a time', () => {
    expect(countdown(now - 5_000, now)).toBe('00:00:00');
    expect(countdown(null, now)).toBe('00:00:00');
    expect(countdown(Number.NaN, now)).toBe('00:00:00');
  });
  it('keeps counting hours past a day', () => {
    expect(countdown(now + (25 * 3600 + 1) * 1000, now)).toBe('25:00:01');
  });
});

describe('funding rate', () => {
  it('is shown in percent with its sign and colour', () => {
    expect(fundingPercent(0.0001)).toBe('+0.0100%');
    expect(fundingPercent(-0.000375)).toBe('-0.0375%');
    expect(fundingPercent(0)).toBe('0.0000%');
    expect(fundingPercent(-0.000000001)).toBe('0.0000%');
    expect(fundingPercent(null)).toBe('—');
    expect(signColor(0.0001)).toBe('teal');
    expect(signColor(-0.0001)).toBe('red');
    expect(signColor(0)).toBe('dimmed');
    expect(signColor(null)).toBe('dimmed');
  });
});

describe('position figures', () => {
  it('formats quantities with 6 decimals, values with 2, prices by size', () => {
    expect(fmtQty(0.0125)).toBe('0.012500');
    expect(fmtValue(75)).toBe('75.00');
    expect(fmtSigned(15.432)).toBe('+15.43');
    expect(fmtSigned(-3.1)).toBe('-3.10');
    expect(fmtSigned(-0.001)).toBe('0.00');
    expect(fmtPrice(61234.5678)).toBe('61,234.57');
    expect(fmtPrice(61234.5678, 'es')).toBe('61.234,57');
    expect(fmtValue(1234.5, 'es')).toBe('1.234,50');
    expect(fmtPrice(2.345678)).toBe('2.3457');
    expect(fmtPrice(0.0000123)).toBe('0.00001230');
    expect(fmtPrice(null)).toBe('—');
  });
  it('are the panel texts of a position', () => {
    // ROE = 15.432 / 75 = 20.576 %; value = 0.0125 × 61234.5678 = 765.43.
    expect(positionFigures(position())).toEqual({
      size: '0.012500',
      value: '765.43',
      entry: '60,000.00',
      mark: '61,234.57',
      liquidation: '54,321.12',
      margin: '75.00',
      leverage: '10x',
      pnl: '+15.43',
      roe: '+20.58%',
      funding: '-0.01',
    });
    const short = positionFigures(position({ side: 'short', unrealized_pnl: -7.5, liquidation_price: null }));
    expect(short.pnl).toBe('-7.50');
    expect(short.roe).toBe('-10.00%');
    expect(short.liquidation).toBe('—');
    expect(roePercent({ unrealized_pnl: 1, margin: 0 })).toBeNull();
  });
  it('picks the swap positions of the symbol', () => {
    const list = [
      position(),
      position({ symbol: 'ETH/USDT:USDT' }),
      position({ symbol: 'BTC/USDT:USDT', market_type: 'Margin' }),
    ];
    expect(positionsOf(list, 'BTC/USDT:USDT')).toEqual([list[0]]);
    expect(pairOf('BTC/USDT:USDT')).toBe('BTC/USDT');
    expect(pairOf('BTC/USDT')).toBe('BTC/USDT');
  });
});

describe('futures texts', () => {
  it('are the contract texts in English, with the same keys in Spanish', () => {
    const en = i18n.getResourceBundle('en', 'translation') as {
      futures: { messages: Record<string, string> };
    };
    const es = i18n.getResourceBundle('es', 'translation') as typeof en;
    expect(en.futures.messages.noPosition?.replace(/\{\{(\w+)\}\}/g, '{$1}')).toBe(SPOT_MESSAGES.noPosition);
    expect(en.futures.messages.closing).toBe(SPOT_MESSAGES.closing);
    expect(Object.keys(es.futures.messages).sort()).toEqual(Object.keys(en.futures.messages).sort());
  });
  it('translates a server text with its filled values, and leaves others as written', async () => {
    const t = i18n.getFixedT('es');
    expect(serverText(t, '❌ There is no open position on BTC/USDT:USDT.')).toBe(
      '❌ No hay ninguna posición abierta en BTC/USDT:USDT.',
    );
    expect(serverText(t, SPOT_MESSAGES.closing)).toBe('✅ Cerrando la posición a mercado.');
    expect(serverText(t, 'Something else.')).toBe('Something else.');
    await i18n.changeLanguage('en');
    expect(serverText(i18n.t, SPOT_MESSAGES.closing)).toBe(SPOT_MESSAGES.closing);
  });
});
