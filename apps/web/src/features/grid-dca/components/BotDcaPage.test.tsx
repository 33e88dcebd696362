import { BOT_PROBLEMS, type DcaBotView } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { pageWindow } from '../api/dca';
import { BotDcaPage } from './BotDcaPage';
// The bot dialogs are a lazy chunk (shared/bots/BotDialogs.tsx): loaded here first, so opening one in a
// test waits for no module transform on a busy machine.
import '../../../shared/bots/dialogs';
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
    // The spec writes these messages in Spanish: the Spanish interface shows them as written.
    await i18n.changeLanguage('es');
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
      '⚠️ Este par no está disponible en Binance.',
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
    expect(screen.getAllByText('❌ Error starting bot: boom').length).toBeGreaterThan(0);
    expect(screen.queryAllByTestId('dca-bot-row')).toHaveLength(0);
  });

  it('refuses an amount below the minimum cost with the spec message', async () => {
    await i18n.changeLanguage('es');
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
      'binance · ETH/USDT · TP 1% · 20 USDT · OS 3 · Sep 1% · Entry 3,000.1235',
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

  it('says the connections are being checked while they load, not "❌ No conectado" (EN and ES)', async () => {
    let release: () => void = () => undefined;
    const ready = new Promise<void>((r) => (release = r));
    renderApp(<BotDcaPage />, {
      user,
      responses: {
        ...responses(),
        '/api/estado_conexion': async () => {
          await ready;
          return json({ conexiones: { binance: true, bybit: false } });
        },
      },
    });
    const select = await screen.findByTestId('dca-exchange');
    const option = (key: string) => select.querySelector(`option[value="${key}"]`)?.textContent ?? '';
    expect(option('binance')).toBe('Binance ⏳ checking…');
    expect(select.textContent).not.toContain('No conectado');
    setValue(select, 'binance');
    expect(screen.getByTestId('dca-exchange-badge').textContent).toBe('Checking…');
    expect(screen.queryByTestId('dca-form-error')).toBeNull();
    await i18n.changeLanguage('es');
    expect((await screen.findByTestId('dca-exchange-badge')).textContent).toBe('Comprobando…');
    expect(option('bybit')).toBe('Bybit ⏳ comprobando…');
    release();
    await waitFor(() => expect(screen.getByTestId('dca-exchange-badge').textContent).toBe('Conectado'));
    expect(option('binance')).toContain('✅ Conectado');
    expect(option('bybit')).toContain('❌ No conectado');
  });

  it('SL / TP+: units and the current price beside them, checked as typed, Update sends at once', async () => {
    act(() => notifications.clean());
    const sent: { path: string; body: Record<string, unknown> }[] = [];
    const record = (path: string) => (_u: URL, init?: RequestInit) => {
      sent.push({ path, body: JSON.parse(init?.body as string) as Record<string, unknown> });
      return json({ success: true });
    };
    renderApp(<BotDcaPage />, {
      user,
      responses: {
        ...responses({}, [bot]),
        '/api/update_sl': record('sl'),
        '/api/update_tp_plus': record('tp_plus'),
      },
    });
    const sl = await screen.findByTestId<HTMLInputElement>('dca-sl-input');
    expect(screen.getByLabelText('SL price (USDT)')).toBe(sl);
    expect(screen.getByLabelText('TP+ price (USDT)')).toBe(screen.getByTestId('dca-tpplus-input'));
    await waitFor(() =>
      expect(screen.getByTestId('dca-price-now').textContent).toBe('Price now: 3,001 USDT'),
    );

    // Wrong values are said at once, beside the field, and never sent.
    setValue(sl, '3100');
    expect(screen.getByTestId('dca-sl-input-error').textContent).toBe(
      'The SL must be below the current price (3,001): it sells when the price falls to it.',
    );
    setValue(sl, 'abc');
    expect(screen.getByTestId('dca-sl-input-error').textContent).toBe(
      'Enter a price above 0 (at most 1,000,000,000), or leave it empty to clear it.',
    );
    setValue(screen.getByTestId('dca-tpplus-input'), '2900');
    expect(screen.getByTestId('dca-tpplus-input-error').textContent).toBe(
      'TP+ must be above the current price (3,001): it sells when the price rises to it.',
    );
    await i18n.changeLanguage('es');
    expect((await screen.findByTestId('dca-tpplus-input-error')).textContent).toBe(
      'El TP+ debe estar por encima del precio actual (3,001): vende cuando el precio sube hasta él.',
    );
    expect(screen.getByLabelText('Precio SL (USDT)')).toBe(sl);
    expect(screen.getByTestId('dca-price-now').textContent).toBe('Precio actual: 3,001 USDT');
    await userEvent.click(screen.getByTestId('dca-update-btn'));
    expect(await screen.findByText('Corrige primero el valor marcado: no se envió nada.')).toBeTruthy();
    expect(sent).toEqual([]);
    await i18n.changeLanguage('en');

    // Valid values: Update sends both now, not after the 30 s countdown.
    setValue(sl, '2800,5');
    setValue(screen.getByTestId('dca-tpplus-input'), '3200');
    expect(screen.queryByTestId('dca-sl-input-error')).toBeNull();
    expect(screen.queryByTestId('dca-tpplus-input-error')).toBeNull();
    expect(screen.getAllByText(/^\d+s$/)).toHaveLength(2); // both countdowns run
    await userEvent.click(screen.getByTestId('dca-update-btn'));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent).toEqual([
      {
        path: 'sl',
        body: { user_id: 'me@example.com', exchange: 'binance', symbol: 'ETH/USDT', sl: 2800.5 },
      },
      {
        path: 'tp_plus',
        body: { user_id: 'me@example.com', exchange: 'binance', symbol: 'ETH/USDT', tp_plus: 3200 },
      },
    ]);
    expect(await screen.findByText('✅ SL / TP+ saved.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText(/^\d+s$/)).toBeNull()); // countdowns over
  });

  it('sends an SL edit still counting down when the page is left', async () => {
    const sent: unknown[] = [];
    const view = renderApp(<BotDcaPage />, {
      user,
      responses: {
        ...responses({}, [bot]),
        '/api/update_sl': (_u: URL, init?: RequestInit) => {
          sent.push(JSON.parse(init?.body as string));
          return json({ success: true });
        },
      },
    });
    setValue(await screen.findByTestId('dca-sl-input'), '2700');
    expect(await screen.findByText('30s')).toBeTruthy();
    view.unmount();
    await waitFor(() =>
      expect(sent).toEqual([
        { user_id: 'me@example.com', exchange: 'binance', symbol: 'ETH/USDT', sl: 2700 },
      ]),
    );
  });

  it("a stop that fails with a 5xx says '❌ Error al detener el bot.' (ES) / '❌ Error stopping the bot.' (EN)", async () => {
    await i18n.changeLanguage('es');
    renderApp(<BotDcaPage />, {
      user,
      responses: {
        ...responses({}, [bot]),
        '/api/stop_bot_dca': () => json({ success: false, error: 'Internal Server Error' }, 500),
      },
    });
    await userEvent.click(await screen.findByTestId('dca-actions-btn'));
    await userEvent.click(await screen.findByTestId('dca-stop-btn'));
    await userEvent.click(await screen.findByTestId('dca-stop-close-market'));
    expect((await screen.findAllByText('❌ Error al detener el bot.')).length).toBeGreaterThan(0);
    // The progress modal closes after 2 s: the English counterpart is read from the catalog.
    expect(i18n.getFixedT('en')('bots.errors.stopPlain')).toBe('❌ Error stopping the bot.');
  });

  it('shows at most 7 page buttons around the current page', () => {
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(10, 20)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    expect(pageWindow(20, 20)).toEqual([14, 15, 16, 17, 18, 19, 20]);
  });
});
