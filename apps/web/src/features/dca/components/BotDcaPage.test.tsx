import { BOT_PROBLEMS, type DcaBotView } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { pageWindow } from '../api/dca';
import { BotDcaPage } from './BotDcaPage';
import { setValue } from '../../../../test/setValue';

const user = { id: 'u1', email: 'me@example.com' };
const MIN_PCT =
  'Separation (%) and Take Profit (%) must be greater than 0.5% to ensure proper bot performance and cover exchange fees.';

const bot: DcaBotView = {
  id: '11111111-1111-4111-8111-111111111111',
  exchange: 'binance',
  symbol: 'ETH/USDT',
  monto: 20,
  tp_pct: 1,
  os: 3,
  sep_pct: 1,
  precio: 3000.123456,
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

function responses(over: Record<string, Parameters<typeof json>[0]> = {}, activeBots: DcaBotView[] = []) {
  return {
    '/api/estado_conexion': () => json({ conexiones: { binance: true, bybit: false } }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT', 'ETH/BTC'] }),
    '/api/bots_activos_dca': () => json({ success: true, bots: activeBots }),
    '/api/precios_actuales': () => json([{ exchange: 'binance', symbol: 'ETH/USDT', price: 3001 }]),
    '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
    '/api/min_cost': () => json({ success: true, min_cost: 5, min_amount: 0.0017, price: 3000 }),
    ...Object.fromEntries(Object.entries(over).map(([k, v]) => [k, () => json(v)])),
  };
}

describe('BotDcaPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('turns commas into dots, flags TP below 0.5 with the attention dialog, and ACCEPT focuses the field', async () => {
    renderApp(<BotDcaPage />, { user, responses: responses() });
    const tp = await screen.findByTestId('dca-tp');
    setValue(tp, '0,3');
    expect((tp as HTMLInputElement).value).toBe('0.3');
    await userEvent.click(screen.getByTestId('dca-start'));
    expect((await screen.findByTestId('dca-attention-text')).textContent).toBe(MIN_PCT);
    expect(tp.closest('.dca-invalid')).not.toBeNull();
    await userEvent.click(screen.getByTestId('dca-attention-accept'));
    await waitFor(() => expect(document.activeElement).toBe(tp));
    setValue(tp, '0.5');
    expect(tp.closest('.dca-invalid')).toBeNull();
  });

  it('asks for an exchange, says when it is not connected, and checks the pair against its list', async () => {
    renderApp(<BotDcaPage />, { user, responses: responses() });
    await userEvent.click(await screen.findByTestId('dca-start'));
    expect((await screen.findByTestId('dca-form-error')).textContent).toBe(
      '⚠️ Debes seleccionar un exchange antes de iniciar el bot.',
    );
    const select = screen.getByTestId('dca-exchange');
    await waitFor(() =>
      expect(select.querySelector('option[value="binance"]')?.textContent).toContain('✅ Conectado'),
    );
    setValue(select, 'bybit');
    expect((await screen.findByTestId('dca-form-error')).textContent).toBe(
      'Este exchange no está conectado. Conéctalo en Settings.',
    );
    expect(screen.getByTestId('dca-exchange-badge').textContent).toBe('No conectado');
    setValue(select, 'binance');
    const pair = screen.getByTestId('dca-pair');
    await userEvent.type(pair, 'eth');
    expect((pair as HTMLInputElement).value).toBe('ETH');
    await waitFor(() => expect(screen.getAllByTestId('dca-pair-suggestion')).toHaveLength(2));
    await userEvent.clear(pair);
    await userEvent.type(pair, 'XYZ/USDT');
    await userEvent.click(screen.getByTestId('dca-start'));
    expect((await screen.findByTestId('dca-form-error')).textContent).toBe(
      '⚠️ This pair is not available on Binance.',
    );
  });

  it('shows the start progress, and on failure the error and no leftover optimistic row', async () => {
    const r = responses();
    renderApp(<BotDcaPage />, {
      user,
      responses: {
        ...r,
        '/api/start_bot_dca': () => json({ success: false, error: 'boom' }, 400),
      },
    });
    setValue(await screen.findByTestId('dca-exchange'), 'binance');
    await userEvent.type(screen.getByTestId('dca-pair'), 'BTC/USDT');
    await waitFor(() => expect(screen.queryAllByTestId('dca-pair-suggestion').length).toBe(0));
    await userEvent.click(screen.getByTestId('dca-start'));
    expect(await screen.findByText('Failed to start the Bot')).toBeTruthy();
    expect(screen.getByText('❌ Error al iniciar bot: boom')).toBeTruthy();
    expect(screen.queryAllByTestId('dca-bot-row')).toHaveLength(0);
  });

  it('refuses an amount below the minimum cost with the spec message', async () => {
    renderApp(<BotDcaPage />, { user, responses: responses() });
    setValue(await screen.findByTestId('dca-exchange'), 'binance');
    await userEvent.type(screen.getByTestId('dca-pair'), 'ETH/USDT');
    setValue(screen.getByTestId('dca-amount'), '2');
    await userEvent.click(screen.getByTestId('dca-start'));
    expect((await screen.findByTestId('dca-form-error')).textContent).toBe(
      'Monto insuficiente. El mínimo para ETH/USDT es ≈ 5 USDT (0.00166667 unidades a precio 3000)',
    );
  });

  it('lists an active bot: summary with a 4-decimal entry, in-range dot, SL countdown', async () => {
    renderApp(<BotDcaPage />, { user, responses: responses({}, [bot]) });
    const summary = await screen.findByTestId('dca-bot-summary');
    expect(summary.textContent).toBe(
      'binance · ETH/USDT · TP 1% · 20 USDT · OS 3 · Sep 1% · Entry 3000.1235',
    );
    await waitFor(() => expect(screen.getByTestId('dca-status-dot').dataset.inRange).toBe('1'));
    setValue(screen.getByTestId('dca-sl-input'), '2800,5');
    expect(screen.getByTestId<HTMLInputElement>('dca-sl-input').value).toBe('2800.5');
    expect(await screen.findByText('30s')).toBeTruthy();
    expect(screen.getByTestId('dca-active-count').textContent).toBe('Active bots: 1');
  });

  it("shows why a bot cannot trade, in the user's language", async () => {
    const paused = {
      ...bot,
      status: 'error' as const,
      problem: 'pair_delisted' as const,
      reason: BOT_PROBLEMS.pair_delisted,
    };
    renderApp(<BotDcaPage />, { user, responses: responses({}, [paused]) });
    const problem = await screen.findByTestId('dca-bot-problem');
    expect(problem.dataset.problem).toBe('pair_delisted');
    expect(problem.textContent).toBe(BOT_PROBLEMS.pair_delisted.en);
  });

  it('off Spot shows leverage (exchange first, −/+, toast) and LONG/SHORT, and sends both with the start', async () => {
    act(() => notifications.clean());
    const sets: unknown[] = [];
    const starts: Record<string, unknown>[] = [];
    const r = responses();
    renderApp(<BotDcaPage />, {
      user,
      responses: {
        ...r,
        '/api/set_leverage': (_u: URL, init?: RequestInit) => {
          sets.push(JSON.parse(typeof init?.body === 'string' ? init.body : '{}'));
          return json({ success: true, leverage: 3 });
        },
        '/api/start_bot_dca': (_u: URL, init?: RequestInit) => {
          starts.push(
            JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>,
          );
          return json({ success: true, message: 'ok' });
        },
      },
    });
    // Spot: neither control; the start says LONG and sends no leverage.
    setValue(await screen.findByTestId('dca-exchange'), 'binance');
    setValue(screen.getByTestId('dca-pair'), 'BTC/USDT');
    expect(screen.queryByTestId('dca-leverage-btn')).toBeNull();
    expect(screen.queryByTestId('dca-direction')).toBeNull();
    fireEvent.click(screen.getByTestId('dca-start'));
    await waitFor(() => expect(starts).toHaveLength(1));
    expect(starts[0]).toMatchObject({ apartado: 'Spot', direction: 'LONG' });
    expect(starts[0]).not.toHaveProperty('leverage');

    setValue(screen.getByTestId('dca-market-type'), 'Perpetual');
    setValue(screen.getByTestId('dca-exchange'), '');
    await userEvent.click(await screen.findByTestId('dca-leverage-btn'));
    expect((await screen.findByTestId('dca-form-error')).textContent).toBe(
      'Please select an Exchange before setting leverage.',
    );
    setValue(screen.getByTestId('dca-exchange'), 'binance');
    await userEvent.click(screen.getByTestId('dca-leverage-btn'));
    expect(await screen.findByText('Adjust Leverage')).toBeTruthy();
    await userEvent.click(screen.getByTestId('dca-leverage-plus'));
    await userEvent.click(screen.getByTestId('dca-leverage-plus'));
    await userEvent.click(screen.getByTestId('dca-leverage-confirm'));
    expect(await screen.findByText('Leverage configured to 3x')).toBeTruthy();
    expect(screen.getByTestId('dca-leverage-btn').textContent).toBe('Leverage: 3x');
    await waitFor(() =>
      expect(sets).toEqual([
        { user_id: 'me@example.com', exchange: 'binance', symbol: 'BTC/USDT', leverage: 3 },
      ]),
    );
    await userEvent.click(screen.getByRole('radio', { name: 'SHORT' }));
    fireEvent.click(screen.getByTestId('dca-start'));
    await waitFor(() => expect(starts).toHaveLength(2));
    expect(starts[1]).toMatchObject({
      apartado: 'Perpetual',
      direction: 'SHORT',
      leverage: 3,
      symbol: 'BTC/USDT',
    });
  });

  it('shows at most 7 page buttons around the current page', () => {
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(10, 20)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    expect(pageWindow(20, 20)).toEqual([14, 15, 16, 17, 18, 19, 20]);
  });
});
