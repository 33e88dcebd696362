import { describe, expect, it } from 'vitest';
import {
  dcaCapital,
  fmtMoney,
  fmtPct,
  profitPct,
  realisedSummary,
  runtimeKey,
  runtimeParts,
} from './figures';

describe('bot row figures', () => {
  it('measures profit against what the bot commits', () => {
    expect(dcaCapital(20, 3)).toBe(80);
    expect(profitPct(2, dcaCapital(20, 3))).toBeCloseTo(2.5);
    expect(profitPct(-1, 50)).toBeCloseTo(-2);
    expect(profitPct(1, 0)).toBeNull();
    expect(profitPct(Number.NaN, 10)).toBeNull();
    expect(fmtPct(2.5, 'en')).toBe('+2.50%');
    // Spanish puts a (non-breaking) space before the sign.
    expect(fmtPct(-2, 'es').replace(/\s/g, ' ')).toBe('-2,00 %');
    expect(fmtMoney(1234.5, 'en')).toBe('1,234.50');
  });

  it('says how long a bot has run: days and hours, hours and minutes, or minutes', () => {
    const now = Date.parse('2025-01-04T04:30:00Z');
    const p = runtimeParts('2025-01-01T00:00:00Z', now)!;
    expect(p).toEqual({ d: 3, h: 4, m: 30 });
    expect(runtimeKey(p).key).toBe('bots.row.runtimeDays');
    expect(runtimeKey(runtimeParts('2025-01-04T02:25:00Z', now)!)).toEqual({
      key: 'bots.row.runtimeHours',
      values: { d: 0, h: 2, m: 5 },
    });
    expect(runtimeKey(runtimeParts('2025-01-04T04:29:00Z', now)!).key).toBe('bots.row.runtimeMinutes');
    expect(runtimeParts(null, now)).toBeNull();
    expect(runtimeParts('not a date', now)).toBeNull();
  });

  it('keeps the realised profit of stopped bots by the day they stopped: today, 7 days, all', () => {
    const now = new Date(2025, 5, 10, 15, 0).getTime();
    const at = (d: number, h = 12) => new Date(2025, 5, d, h).toISOString();
    const s = realisedSummary(
      [
        { at: at(10, 9), pnl: 1.5 }, // today
        { at: at(10, 1), pnl: -0.5 }, // today, a loss
        { at: at(5), pnl: 2 }, // 5 days ago: in the week
        { at: at(4, 0), pnl: 10 }, // 6 days ago at midnight: still the week
        { at: at(3, 23), pnl: 100 }, // 7 days ago: all only
        { at: null, pnl: 1000 }, // no time: all only
        { at: at(10), pnl: Number.NaN }, // not a number: nowhere
      ],
      now,
    );
    expect(s.today).toBeCloseTo(1);
    expect(s.week).toBeCloseTo(13);
    expect(s.all).toBeCloseTo(1113);
  });
});
