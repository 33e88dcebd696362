import type { DcaBotView } from '@bytx/contract';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { BotDcaPage } from './BotDcaPage';

const user = { id: 'u1', email: 'me@example.com' };
const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 0, 1, 0, 0);
const candles = Array.from({ length: 24 }, (_, i) => [T0 + i * HOUR, 2950, 3060, 2900, 2950 + i * 3, 1]);

const bot: DcaBotView = {
  id: '11111111-1111-4111-8111-111111111111',
  exchange: 'binance',
  symbol: 'ETH/USDT',
  monto: 20,
  tp_pct: 1,
  os: 3,
  sep_pct: 1,
  precio: 3000,
  sl: null,
  tp_plus: null,
  ra_enabled: false,
  apartado: 'Spot',
  leverage: 1,
  direction: 'LONG',
  status: 'active',
  pnl: 0.5,
  open_lots: 1,
  waiting_buys: 3,
  range_low: 2910,
  range_high: 3030,
  started_at: '2025-01-01T00:00:00Z',
  stop_reason: null,
  problem: null,
  reason: null,
};

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

describe('Grid Bot DCA row chart', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    vi.stubGlobal('IntersectionObserver', OnScreen);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("shows the pair's last day with the bot's entry, take profit and lowest buy after the first paint", async () => {
    const { requestedPaths } = renderApp(<BotDcaPage />, {
      user,
      responses: {
        '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
        '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['ETH/USDT'] }),
        '/api/bots_activos_dca': () => json({ success: true, bots: [bot] }),
        '/api/precios_actuales': () => json([{ exchange: 'binance', symbol: 'ETH/USDT', price: 3001 }]),
        '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
        '/api/market/candles': (url) =>
          json({
            exchange: url.searchParams.get('exchange'),
            symbol: url.searchParams.get('symbol'),
            timeframe: '1h',
            candles,
          }),
      },
    });
    // The first render is the title only: no chart and no candles request yet.
    expect(screen.queryByTestId('row-chart-slot')).toBeNull();
    expect(requestedPaths()).not.toContain('/api/market/candles');
    const chart = await screen.findByRole(
      'img',
      { name: "Price of ETH/USDT over the last 24 h with the bot's levels" },
      { timeout: 5_000 },
    );
    // In the bot's own row, beside its figures.
    const row = screen.getByTestId('dca-bot-lots').closest('[data-bot-id], [data-testid$="bot-row"]');
    expect(row).not.toBeNull();
    expect(row!.contains(chart)).toBe(true);
    expect(screen.getByTestId('row-chart-level-entry').textContent).toBe('Entry 3,000.00');
    expect(screen.getByTestId('row-chart-level-high').textContent).toBe('TP 3,030.00');
    expect(screen.getByTestId('row-chart-level-low').textContent).toBe('Lowest buy 2,910.00');
    expect(screen.getAllByTestId('row-chart-price-tick').length).toBeGreaterThanOrEqual(3);
    expect(screen.getAllByTestId('row-chart-time-tick')).toHaveLength(3);
    await waitFor(() => expect(requestedPaths().filter((p) => p === '/api/market/candles')).toHaveLength(1));
  });
});
