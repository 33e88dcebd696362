import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { BotChart } from './BotChart';

const T0 = new Date(2025, 0, 1, 10, 0).getTime();
const candles = Array.from({ length: 61 }, (_, i) => {
  const c = 100 + Math.sin(i / 5) * 2;
  return [T0 + i * 60_000, c, c + 0.5, c - 0.5, c, 1];
});

describe('classic DCA mini-chart', () => {
  afterEach(() => i18n.changeLanguage('en'));

  it('draws a price axis and a time axis beside the price line and its levels', async () => {
    renderApp(
      <BotChart
        exchange="binance"
        symbol="ETH/USDT"
        dca={99}
        tpPrice={103}
        nextSafety={97}
        price={100}
        paused
      />,
      {
        responses: {
          '/api/market/candles': () =>
            json({ exchange: 'binance', symbol: 'ETH/USDT', timeframe: '1m', candles }),
        },
      },
    );
    await waitFor(() => expect(screen.getAllByTestId('dash-chart-time-tick')).toHaveLength(3));
    // Prices from the lowest shown (the next safety order, 97) to the highest (the take profit, 103).
    const prices = screen.getAllByTestId('dash-chart-price-tick').map((t) => t.textContent);
    expect(prices).toEqual(['97.00', '99.00', '101.00', '103.00']);
    // The first, middle and last closes' times, HH:MM.
    const times = screen.getAllByTestId('dash-chart-time-tick').map((t) => t.textContent);
    const hhmm = (ms: number) =>
      new Date(ms).toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit' });
    expect(times).toEqual([hhmm(T0), hhmm(T0 + 30 * 60_000), hhmm(T0 + 60 * 60_000)]);
    for (const level of ['dca', 'tp', 'next']) expect(screen.getByTestId(`dash-chart-${level}`)).toBeTruthy();
    expect(screen.getByTestId('dash-chart-tp').textContent).toBe('TP 103.00');
  });
});
