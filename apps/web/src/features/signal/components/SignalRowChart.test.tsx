import type { SignalBotView } from '@bytx/contract';
import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { SignalBotCard } from './SignalBotCard';

const ID = '11111111-1111-4111-8111-111111111111';
const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 0, 1, 0, 0);
const candles = Array.from({ length: 24 }, (_, i) => [T0 + i * HOUR, 3000, 3050, 2950, 2990 + i, 1]);
const bot = (over: Partial<SignalBotView> = {}): SignalBotView => ({
  id: ID,
  exchange: 'binance',
  symbol: 'ETH/USDT',
  quote: 'USDT',
  amount: 50,
  max_position: 200,
  status: 'active',
  problem: null,
  reason: null,
  webhook_url: `http://localhost/api/signalbot/webhook/${ID}`,
  position_qty: 0.0166,
  avg_entry: 3010,
  price: 3000,
  position_value: 49.8,
  pnl_realized: 0,
  pnl_unrealized: -0.166,
  signals_accepted: 1,
  signals_rejected: 2,
  created_at: '2025-01-01T00:00:00Z',
  stopped_at: null,
  secret_rotated_at: null,
  secret_rotated_reason: null,
  ...over,
});

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

const responses = {
  '/api/market/candles': () => json({ exchange: 'binance', symbol: 'ETH/USDT', timeframe: '1h', candles }),
};

describe('signal bot price chart', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    vi.stubGlobal('IntersectionObserver', OnScreen);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("draws the position's average entry on the pair's last day", async () => {
    renderApp(<SignalBotCard bot={bot()} onStop={() => {}} now={Date.now()} />, { responses });
    await screen.findByRole(
      'img',
      { name: "Price of ETH/USDT over the last 24 h with the bot's levels" },
      { timeout: 5_000 },
    );
    expect(screen.getByTestId('row-chart-level-entry').textContent).toBe('Avg. entry 3,010.00');
    expect(screen.getAllByTestId('row-chart-time-tick')).toHaveLength(3);
  });

  it('draws no level without a position, and no chart for a stopped bot', async () => {
    const { unmount } = renderApp(
      <SignalBotCard bot={bot({ position_qty: 0 })} onStop={() => {}} now={Date.now()} />,
      { responses },
    );
    await screen.findByTestId('row-chart', {}, { timeout: 5_000 });
    expect(screen.queryByTestId('row-chart-level-entry')).toBeNull();
    unmount();
    renderApp(
      <SignalBotCard
        bot={bot({ status: 'stopped', stopped_at: '2025-01-02T00:00:00Z' })}
        onStop={() => {}}
        now={Date.now()}
      />,
      { responses },
    );
    await screen.findByTestId('signal-bot');
    expect(screen.queryByTestId('row-chart-slot')).toBeNull();
  });
});
