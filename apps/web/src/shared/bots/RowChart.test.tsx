import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import RowChart from './RowChart';
import { RowChartSlot } from './RowChartSlot';

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 0, 1, 0, 0);
/** 24 hourly candles [time, open, high, low, close, volume] from 100 to 123. */
const candles = Array.from({ length: 24 }, (_, i) => [T0 + i * HOUR, 100 + i, 101 + i, 99 + i, 100 + i, 1]);
const answer = () => json({ exchange: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles });
const levels = [{ key: 'entry', label: 'Entry', value: 110.5, color: '#1c7ed6' }];

/** A browser's observer: reports every observed element as on screen (happy-dom's never reports). */
class OnScreen {
  constructor(private readonly cb: IntersectionObserverCallback) {}
  observe(el: Element) {
    queueMicrotask(() =>
      this.cb([{ isIntersecting: true, target: el } as IntersectionObserverEntry], this as never),
    );
  }
  disconnect() {}
  unobserve() {}
}

describe('RowChart', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('draws nothing before its candles, then the price line with axis ticks, the level and a name', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    renderApp(<RowChart exchange="binance" symbol="BTC/USDT" levels={levels} />, {
      responses: {
        '/api/market/candles': async (url) => {
          expect(url.searchParams.get('timeframe')).toBe('1h');
          expect(url.searchParams.get('limit')).toBe('24');
          await held;
          return answer();
        },
      },
    });
    await screen.findByTestId('location');
    expect(screen.queryByTestId('row-chart')).toBeNull();
    await act(async () => release());
    const chart = await screen.findByRole('img', {
      name: "Price of BTC/USDT over the last 24 h with the bot's levels",
    });
    expect(chart.getAttribute('data-testid')).toBe('row-chart');
    const prices = screen.getAllByTestId('row-chart-price-tick').map((e) => e.textContent);
    // From the lowest close (100) to the highest (123), in the house style (2 decimals from 100).
    expect(prices).toEqual(['100.00', '111.50', '123.00']);
    expect(screen.getAllByTestId('row-chart-time-tick')).toHaveLength(3);
    expect(screen.getAllByTestId('row-chart-time-tick')[0]!.textContent).toMatch(/\d{2}:\d{2}/);
    const level = screen.getByTestId('row-chart-level-entry');
    expect(level.getAttribute('data-value')).toBe('110.5');
    expect(level.textContent).toBe('Entry 110.50');
    expect(chart.querySelector('path')?.getAttribute('d')?.split('L')).toHaveLength(24);
  });

  it('reads in Spanish with Spanish separators', async () => {
    await i18n.changeLanguage('es');
    renderApp(
      <RowChart
        exchange="binance"
        symbol="BTC/USDT"
        levels={[{ key: 'entry', label: 'Entrada', value: 110.5, color: '#000' }]}
      />,
      { responses: { '/api/market/candles': answer } },
    );
    await screen.findByRole('img', {
      name: 'Precio de BTC/USDT en las últimas 24 h con los niveles del bot',
    });
    expect(screen.getByTestId('row-chart-level-entry').textContent).toBe('Entrada 110,50');
  });
});

describe('RowChartSlot', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('fetches nothing for a row that is not on screen', async () => {
    const { requestedPaths } = renderApp(
      <RowChartSlot exchange="binance" symbol="BTC/USDT" levels={levels} />,
      { responses: { '/api/market/candles': answer } },
    );
    expect(await screen.findByTestId('row-chart-slot')).toBeTruthy();
    // Past the first paint: still no chart and no candles request (the observer never said "on screen").
    await new Promise((r) => setTimeout(r, 100));
    expect(requestedPaths()).not.toContain('/api/market/candles');
    expect(screen.queryByTestId('row-chart')).toBeNull();
  });

  it('loads the chart once on screen, with one request for two rows of the same pair', async () => {
    vi.stubGlobal('IntersectionObserver', OnScreen);
    const { requestedPaths } = renderApp(
      <>
        <RowChartSlot exchange="binance" symbol="BTC/USDT" levels={levels} />
        <RowChartSlot exchange="binance" symbol="BTC/USDT" levels={[]} />
      </>,
      { responses: { '/api/market/candles': answer } },
    );
    await waitFor(() => expect(screen.getAllByTestId('row-chart')).toHaveLength(2), { timeout: 5_000 });
    expect(requestedPaths().filter((p) => p === '/api/market/candles')).toHaveLength(1);
  });
});
