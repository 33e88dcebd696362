import { SPOT_MESSAGES, type DerivativesPositionView } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { tradingKeys } from '../../../shared/trading/api';
import { FUNDING_RELOAD_MS, POSITIONS_POLL_MS } from '../api/futures';
import { FuturesExtras } from './FuturesExtras';

const user = { id: 'u1', email: 'support@example.com', canTrade: true };
type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

const SYMBOL = 'BTC/USDT:USDT';
const position = (over: Partial<DerivativesPositionView> = {}): DerivativesPositionView => ({
  symbol: SYMBOL,
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
  funding_paid: 0.0149,
  funding_rate: 0.0001,
  next_funding_time: 0,
  ...over,
});
const wallet = (positions: DerivativesPositionView[], supported = true) => ({
  success: true,
  exchange: 'binance',
  mode: 'paper',
  supported,
  wallet: { USDT: 10_000 },
  positions,
});

function responses(over: Record<string, Handler> = {}): Record<string, Handler> {
  return {
    '/api/wallet/derivatives': () => json(wallet([position()])),
    '/api/futures/funding': (url) =>
      json({
        success: true,
        exchange: url.searchParams.get('exchange'),
        symbol: url.searchParams.get('symbol'),
        rate: 0.0001,
        next_funding_time: Date.now() + 2 * 3600_000 + 30_500,
        mark_price: 61234.5,
      }),
    '/api/set_leverage': (url) =>
      json({
        success: true,
        exchange: url.searchParams.get('exchange'),
        symbol: url.searchParams.get('symbol'),
        leverage: 5,
        max_leverage: 125,
      }),
    ...over,
  };
}

const renderExtras = (over: Record<string, Handler> = {}, refresh = vi.fn()) => ({
  refresh,
  ...renderApp(<FuturesExtras exchange="binance" symbol={SYMBOL} price={61000} refresh={refresh} />, {
    user,
    responses: responses(over),
  }),
});

describe('FuturesExtras', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    act(() => notifications.clean());
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the position on this symbol with its figures and the other positions', async () => {
    renderExtras({
      '/api/wallet/derivatives': () =>
        json(
          wallet([
            position(),
            position({
              symbol: 'ETH/USDT:USDT',
              side: 'short',
              contracts: 0.5,
              unrealized_pnl: -3.1,
              leverage: 3,
            }),
          ]),
        ),
    });
    const card = await screen.findByTestId('futures-position');
    expect(card.dataset.side).toBe('long');
    const fig = (id: string) => within(card).getByTestId(`futures-position-${id}`).textContent;
    expect(fig('side')).toBe('Long');
    expect(fig('leverage')).toBe('10x');
    expect(fig('size')).toBe('0.012500 BTC');
    expect(fig('entry')).toBe('60,000.00');
    expect(fig('mark')).toBe('61,234.57');
    expect(fig('liquidation')).toBe('54,321.12');
    expect(fig('margin')).toBe('75.00 USDT');
    expect(fig('pnl')).toBe('+15.43 USDT (+20.58%)');
    expect(fig('funding')).toBe('+0.01 USDT');
    const others = screen.getAllByTestId('futures-other-position');
    expect(others).toHaveLength(1);
    expect(others[0]!.textContent).toBe('ETH/USDT:USDTShort 3x0.500000-3.10 USDT');
  });

  it('says when there is no position on the symbol, and when the account has no futures', async () => {
    const { unmount } = renderExtras({ '/api/wallet/derivatives': () => json(wallet([])) });
    expect((await screen.findByTestId('futures-position-none')).textContent).toBe(
      `No open position on ${SYMBOL}.`,
    );
    expect(screen.queryByTestId('futures-other-positions')).toBeNull();
    unmount();
    renderExtras({ '/api/wallet/derivatives': () => json(wallet([], false)) });
    expect(await screen.findByTestId('futures-positions-unsupported')).toBeTruthy();
  });

  it('closes at market only after the confirmation, then refreshes the screen', async () => {
    const closes: Record<string, unknown>[] = [];
    const { refresh } = renderExtras({
      '/api/futures/close': (_u, init) => {
        closes.push(bodyOf(init));
        return json({ success: true, message: SPOT_MESSAGES.closing });
      },
    });
    await userEvent.click(await screen.findByTestId('futures-position-close'));
    expect((await screen.findByTestId('futures-close-text')).textContent).toBe(
      `Close your Long position of 0.012500 BTC on ${SYMBOL} with a market order?`,
    );
    await userEvent.click(screen.getByTestId('futures-close-cancel'));
    await waitFor(() => expect(screen.queryByTestId('futures-close-text')).toBeNull());
    expect(closes).toEqual([]);

    await userEvent.click(screen.getByTestId('futures-position-close'));
    await userEvent.click(await screen.findByTestId('futures-close-confirm'));
    await waitFor(() => expect(closes).toEqual([{ exchange: 'binance', symbol: SYMBOL }]));
    expect(await screen.findByText(SPOT_MESSAGES.closing)).toBeTruthy();
    await waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
  });

  it('shows the refusal of a close in the page language', async () => {
    await i18n.changeLanguage('es');
    renderExtras({
      '/api/futures/close': () =>
        json({ success: false, error: SPOT_MESSAGES.noPosition.replace('{symbol}', SYMBOL) }, 400),
    });
    await userEvent.click(await screen.findByTestId('futures-position-close'));
    await userEvent.click(await screen.findByTestId('futures-close-confirm'));
    expect(await screen.findByText(`❌ No hay ninguna posición abierta en ${SYMBOL}.`)).toBeTruthy();
    expect(screen.getByTestId('futures-position-pnl')).toBeTruthy();
    expect(screen.getByText('Cerrar a mercado')).toBeTruthy();
  });

  it('polls the positions every 5 s', async () => {
    let reads = 0;
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderExtras({
      '/api/wallet/derivatives': (url) => {
        expect(url.searchParams.get('exchange')).toBe('binance');
        reads++;
        return json(wallet([position({ mark_price: 61000 + reads })]));
      },
    });
    expect((await screen.findByTestId('futures-position-mark')).textContent).toBe('61,001.00');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(POSITIONS_POLL_MS + 100);
    });
    await waitFor(() => expect(screen.getByTestId('futures-position-mark').textContent).toBe('61,002.00'));
  });

  it('reads the positions again when the screen refreshes its orders', async () => {
    let reads = 0;
    // The screen's orders query, and its refresh (it invalidates the orders).
    function ScreenRefresh() {
      const qc = useQueryClient();
      useQuery({ queryKey: tradingKeys.orders('binance', SYMBOL), queryFn: () => [] });
      return (
        <button
          type="button"
          onClick={() => void qc.invalidateQueries({ queryKey: tradingKeys.orders('binance', SYMBOL) })}
        >
          refresh orders
        </button>
      );
    }
    renderApp(
      <>
        <FuturesExtras exchange="binance" symbol={SYMBOL} price={null} refresh={vi.fn()} />
        <ScreenRefresh />
      </>,
      {
        user,
        responses: responses({
          '/api/wallet/derivatives': () => {
            reads++;
            return json(wallet([position({ contracts: reads })]));
          },
        }),
      },
    );
    expect((await screen.findByTestId('futures-position-size')).textContent).toBe('1.000000 BTC');
    await userEvent.click(screen.getByText('refresh orders'));
    await waitFor(() => expect(screen.getByTestId('futures-position-size').textContent).toBe('2.000000 BTC'));
  });

  it('shows the funding rate and counts down each second, reloading each minute', async () => {
    const asked: string[] = [];
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderExtras({
      '/api/futures/funding': (url) => {
        asked.push(url.search);
        return json({
          success: true,
          exchange: 'binance',
          symbol: SYMBOL,
          rate: asked.length === 1 ? 0.0001 : -0.00025,
          next_funding_time: Date.now() + 2 * 3600_000 + 30_500,
          mark_price: 61234.5,
        });
      },
    });
    const rate = await screen.findByTestId('futures-funding-rate');
    expect(rate.textContent).toBe('+0.0100%');
    expect(asked[0]).toBe(`?exchange=binance&symbol=${encodeURIComponent(SYMBOL)}`);
    const clock = screen.getByTestId('futures-funding-countdown');
    expect(clock.textContent).toMatch(/^02:00:(29|30)$/);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    expect(clock.textContent).toMatch(/^02:00:2[6-7]$/);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(FUNDING_RELOAD_MS);
    });
    await waitFor(() => expect(screen.getByTestId('futures-funding-rate').textContent).toBe('-0.0250%'));
    expect(asked.length).toBe(2);
  });

  it('reads the funding again when the countdown reaches zero', async () => {
    let reads = 0;
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderExtras({
      '/api/futures/funding': () => {
        reads++;
        return json({
          success: true,
          exchange: 'binance',
          symbol: SYMBOL,
          rate: 0.0001,
          next_funding_time: reads === 1 ? Date.now() + 2_000 : Date.now() + 8 * 3600_000,
          mark_price: null,
        });
      },
    });
    await screen.findByTestId('futures-funding-rate');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    await waitFor(() => expect(reads).toBe(2));
    await waitFor(() =>
      expect(screen.getByTestId('futures-funding-countdown').textContent).toMatch(/^0[78]:\d\d:\d\d$/),
    );
  });

  it('shows the stored leverage of the pair and stores a new one from the dialog', async () => {
    const sets: Record<string, unknown>[] = [];
    const gets: string[] = [];
    const { refresh } = renderExtras({
      '/api/set_leverage': (url, init) => {
        if (init?.method === 'POST') {
          const body = bodyOf(init);
          sets.push(body);
          return json({
            success: true,
            leverage: body.leverage,
            max_leverage: 125,
            message: `Leverage configured to ${String(body.leverage)}x`,
          });
        }
        gets.push(url.search);
        return json({
          success: true,
          exchange: 'binance',
          symbol: 'BTC/USDT',
          leverage: 5,
          max_leverage: 125,
        });
      },
    });
    expect((await screen.findByTestId('futures-leverage-value')).textContent).toBe('5x');
    // The leverage store is keyed by the user's pair, not the swap symbol.
    expect(gets[0]).toBe(`?exchange=binance&symbol=${encodeURIComponent('BTC/USDT')}`);
    await userEvent.click(screen.getByTestId('futures-leverage-btn'));
    await screen.findByTestId('futures-leverage-dialog');
    await userEvent.click(screen.getByTestId('futures-leverage-plus'));
    await userEvent.click(screen.getByTestId('futures-leverage-plus'));
    await userEvent.click(screen.getByTestId('futures-leverage-confirm'));
    await waitFor(() => expect(sets).toEqual([{ exchange: 'binance', symbol: 'BTC/USDT', leverage: 7 }]));
    expect(await screen.findByText('Leverage configured to 7x')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('futures-leverage-value').textContent).toBe('7x'));
    expect(refresh).toHaveBeenCalled();
  });

  it('shows a leverage the server refuses as it wrote it', async () => {
    const refusal = 'Leverage 126x is above the maximum of BTC/USDT on Binance (125x). Choose 125x or less.';
    renderExtras({
      '/api/set_leverage': (_u, init) =>
        init?.method === 'POST'
          ? json({ success: false, error: refusal }, 400)
          : json({
              success: true,
              exchange: 'binance',
              symbol: 'BTC/USDT',
              leverage: 125,
              max_leverage: 200,
            }),
    });
    await userEvent.click(await screen.findByTestId('futures-leverage-btn'));
    await userEvent.click(await screen.findByTestId('futures-leverage-plus'));
    await userEvent.click(screen.getByTestId('futures-leverage-confirm'));
    expect(await screen.findByText(refusal)).toBeTruthy();
    expect(screen.getByTestId('futures-leverage-value').textContent).toBe('125x');
  });
});
