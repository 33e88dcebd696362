import { SPOT_MESSAGES } from '@bytx/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { FuturesPage } from './FuturesPage';

const SYMBOL = 'BTC/USDT:USDT';
type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

function responses(closes: Record<string, unknown>[]): Record<string, Handler> {
  let open = true;
  return {
    '/api/exchanges/connections': () =>
      json({
        success: true,
        connections: [
          { exchange: 'binance', name: 'Binance', mode: 'paper', createdAt: '2025-01-01T00:00:00Z' },
        ],
      }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT', SYMBOL] }),
    '/api/spot/favorites': () => json({ success: true, favorites: [] }),
    '/api/spot/market': (url) =>
      json({
        success: true,
        exchange: 'binance',
        symbol: url.searchParams.get('symbol'),
        listed: true,
        base: 'BTC',
        quote: 'USDT',
        market: 'swap',
        amount_step: 0.001,
        price_step: 0.1,
        min_amount: 0.001,
        min_cost: 5,
        taker: 0.0005,
        maker: 0.0002,
        max_leverage: 125,
        price: 61000,
        base_free: 0,
        quote_free: 10_000,
      }),
    '/api/spot/orders': () => json({ success: true, open: [], recent: [], fills: [] }),
    '/api/set_leverage': () =>
      json({ success: true, exchange: 'binance', symbol: 'BTC/USDT', leverage: 20, max_leverage: 125 }),
    '/api/futures/funding': () =>
      json({
        success: true,
        exchange: 'binance',
        symbol: SYMBOL,
        rate: -0.0002,
        next_funding_time: Date.now() + 3600_000,
        mark_price: 61000,
      }),
    '/api/wallet/derivatives': () =>
      json({
        success: true,
        exchange: 'binance',
        mode: 'paper',
        supported: true,
        wallet: { USDT: 10_000 },
        positions: open
          ? [
              {
                symbol: SYMBOL,
                market_type: 'Perpetual',
                side: 'short',
                contracts: 0.01,
                entry_price: 62000,
                mark_price: 61000,
                leverage: 20,
                margin: 31,
                settle: 'USDT',
                liquidation_price: 64800,
                unrealized_pnl: 10,
                funding_paid: 0,
                funding_rate: -0.0002,
                next_funding_time: Date.now() + 3600_000,
              },
            ]
          : [],
      }),
    '/api/futures/close': (_u, init) => {
      closes.push(bodyOf(init));
      open = false;
      return json({ success: true, message: SPOT_MESSAGES.closing });
    },
  };
}

describe('FuturesPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('is in development for an account that cannot trade', async () => {
    renderApp(<FuturesPage />, { user: { id: 'u1', email: 'me@example.com' }, responses: responses([]) });
    const dev = await screen.findByTestId('futures-in-development');
    expect(within(dev).getByRole('link', { name: 'Go to Pools' }).getAttribute('href')).toBe(
      '/earnings-pools',
    );
    expect(screen.queryByTestId('trade-screen')).toBeNull();
  });

  it('is in development when logged out', async () => {
    renderApp(<FuturesPage />, { responses: responses([]) });
    expect(await screen.findByTestId('futures-in-development')).toBeTruthy();
  });

  it('opens the swap trading screen with leverage, funding and the position for a trader', async () => {
    const closes: Record<string, unknown>[] = [];
    renderApp(<FuturesPage />, {
      user: { id: 'u1', email: 'support@example.com', canTrade: true },
      responses: responses(closes),
    });
    const trade = await screen.findByTestId('trade-screen');
    expect(trade.dataset.market).toBe('swap');
    expect(screen.queryByTestId('futures-in-development')).toBeNull();
    const extras = await screen.findByTestId('futures-extras');
    expect(within(extras).getByTestId('futures-leverage')).toBeTruthy();
    await waitFor(() => expect(within(extras).getByTestId('futures-leverage-value').textContent).toBe('20x'));
    expect((await within(extras).findByTestId('futures-funding-rate')).textContent).toBe('-0.0200%');
    const position = await within(extras).findByTestId('futures-position');
    expect(position.dataset.side).toBe('short');
    expect(within(position).getByTestId('futures-position-liquidation').textContent).toBe('64,800.00');

    await userEvent.click(within(position).getByTestId('futures-position-close'));
    await act(async () => {
      await userEvent.click(await screen.findByTestId('futures-close-confirm'));
    });
    await waitFor(() => expect(closes).toEqual([{ exchange: 'binance', symbol: SYMBOL }]));
    expect(await within(extras).findByTestId('futures-position-none')).toBeTruthy();
  });
});
