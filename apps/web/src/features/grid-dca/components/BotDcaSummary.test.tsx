import type { DcaBotView } from '@bytx/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { BotDcaPage } from './BotDcaPage';
import '../../../shared/bots/dialogs';

const user = { id: 'u1', email: 'me@example.com' };
const startedAt = new Date(Date.now() - (3 * 24 + 4) * 3_600_000 - 60_000).toISOString();
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
  pnl: 2,
  open_lots: 1,
  waiting_buys: 3,
  range_low: 2910,
  range_high: 3030,
  started_at: startedAt,
  stop_reason: null,
  problem: null,
  reason: null,
};
const closed = (daysAgo: number, pnl: number) => ({
  id: `c${daysAgo}`,
  exchange: 'binance',
  symbol: 'BTC/USDT',
  amount: 20,
  tp: 1,
  os: 3,
  r: false,
  r_os: false,
  datetime_inicio: new Date(Date.now() - (daysAgo + 1) * 86_400_000).toISOString(),
  datetime_cierre: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
  pnl,
});

function responses(bots: () => DcaBotView[], history: unknown[]) {
  return {
    '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['ETH/USDT'] }),
    '/api/bots_activos_dca': () => json({ success: true, bots: bots() }),
    '/api/precios_actuales': () => json([{ exchange: 'binance', symbol: 'ETH/USDT', price: 3001 }]),
    '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
    '/api/historial': () => json({ success: true, historial: history }),
  };
}

describe('Grid Bot DCA list and summary', () => {
  beforeEach(() => i18n.changeLanguage('en'));
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps the stopped bots' realised profit (today, 7 days, all) when no bot runs", async () => {
    renderApp(<BotDcaPage />, {
      user,
      responses: responses(() => [], [closed(0, 1.5), closed(3, 2), closed(30, -0.25)]),
    });
    // Total PnL counts running bots: none. The stopped bots' profit stays in the summary.
    expect((await screen.findByTestId('dca-total-pnl')).textContent).toBe('Total PnL: 0.00 USDT');
    await waitFor(() => expect(screen.getByTestId('dca-realised-today').textContent).toBe('today 1.50 USDT'));
    expect(screen.getByTestId('dca-realised-week').textContent).toBe('7 days 3.50 USDT');
    expect(screen.getByTestId('dca-realised-all').textContent).toBe('all 3.25 USDT');
  });

  it("shows each row's profit in USDT and %, its runtime, and its actions in a menu", async () => {
    renderApp(<BotDcaPage />, { user, responses: responses(() => [bot], []) });
    const row = await screen.findByTestId('dca-bot-row');
    // 2 USDT on 20 USDT × (1 + 3 OS) = 80 USDT committed.
    expect(within(row).getByTestId('dca-bot-profit').textContent).toBe('Profit: 2.00 USDT (+2.50%)');
    expect(within(row).getByTestId('dca-bot-runtime').textContent).toBe('Running for 3 d 4 h');
    await userEvent.click(within(row).getByTestId('dca-actions-btn'));
    for (const id of ['history', 'pending', 'relocate', 'events', 'stop']) {
      expect(await screen.findByTestId(`dca-${id}-btn`)).toBeTruthy();
    }
  });

  it('toasts a fill when a poll shows a lot opened, then closed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let polled = bot;
    renderApp(<BotDcaPage />, { user, responses: responses(() => [polled], []) });
    await screen.findByTestId('dca-bot-row');
    expect(screen.queryByText(/Buy filled/)).toBeNull();
    polled = { ...bot, open_lots: 2 };
    await act(() => vi.advanceTimersByTimeAsync(5_100));
    expect(await screen.findByText('Buy filled: ETH/USDT on binance.')).toBeTruthy();
    polled = { ...bot, open_lots: 1, pnl: 2.75 };
    await act(() => vi.advanceTimersByTimeAsync(5_100));
    expect(await screen.findByText('Take profit filled: ETH/USDT on binance, PnL 0.75 USDT.')).toBeTruthy();
  });
});
