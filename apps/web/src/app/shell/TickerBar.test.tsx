import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import { TICKER_REFRESH_MS } from './tickerFormat';
import { TickerBar } from './TickerBar';

describe('TickerBar', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows the 16 assets, our server prices, and a dash where data is missing', async () => {
    renderApp(<TickerBar />, {
      responses: {
        '/api/ticker': () => json({ bitcoin: { usd: 65000.123456, usd_24h_change: -2.345 } }),
      },
    });
    expect(screen.getAllByTestId(/^ticker-item-/)).toHaveLength(16);
    await waitFor(() => expect(screen.getByTestId('ticker-price-bitcoin').textContent).toBe('$65,000.1235'));
    const change = screen.getByTestId('ticker-change-bitcoin');
    expect(change.textContent).toBe('▼ -2.35%');
    expect(change.dataset.direction).toBe('down');
    expect(screen.getByTestId('ticker-price-ethereum').textContent).toBe('-');
  });

  it('refreshes every 10 s and keeps the previous prices when a refresh fails', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let calls = 0;
    const { requestedPaths } = renderApp(<TickerBar />, {
      responses: {
        '/api/ticker': () => {
          calls += 1;
          return calls === 1
            ? json({ ethereum: { usd: 3000.5, usd_24h_change: 1 } })
            : json({ success: false, error: 'down' }, 503);
        },
      },
    });
    await waitFor(() => expect(screen.getByTestId('ticker-price-ethereum').textContent).toBe('$3,000.5'));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(TICKER_REFRESH_MS + 50);
    });
    await waitFor(() => expect(calls).toBe(2));
    await waitFor(() => expect(errors).toHaveBeenCalledWith('Error fetching prices', expect.anything()));
    expect(screen.getByTestId('ticker-price-ethereum').textContent).toBe('$3,000.5');
    expect(screen.getByTestId('ticker-change-ethereum').textContent).toBe('▲ 1.00%');
    expect(requestedPaths().filter((p) => p === '/api/ticker')).toHaveLength(2);
  });

  it('scrolls the list 200 px smoothly with the left and right buttons', () => {
    renderApp(<TickerBar />, { responses: { '/api/ticker': () => json({}) } });
    const scroller = screen.getByTestId('ticker-scroll');
    const scrollBy = vi.fn();
    scroller.scrollBy = scrollBy;
    fireEvent.click(screen.getByTestId('ticker-right'));
    fireEvent.click(screen.getByTestId('ticker-left'));
    expect(scrollBy).toHaveBeenNthCalledWith(1, { left: 200, behavior: 'smooth' });
    expect(scrollBy).toHaveBeenNthCalledWith(2, { left: -200, behavior: 'smooth' });
  });
});
