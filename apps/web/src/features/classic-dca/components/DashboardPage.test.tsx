import { BOT_PROBLEMS, CLASSIC_DCA_MESSAGES, TP_VNC_OPTIONS, type ClassicBotView } from '@bytx/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { formatTtr } from '../api/dashboard';
import { DashboardPage } from './DashboardPage';
// The bot dialogs are a lazy chunk (shared/bots/BotDialogs.tsx): loaded here first, so opening one in a
// test waits for no module transform on a busy machine.
import '../../../shared/bots/dialogs';
import { setValue } from '../../../../test/setValue';

const user = { id: 'u1', email: 'me@example.com' };
const MIN_PCT =
  'Separation (%) and Take Profit (%) must be greater than 0.5% to ensure proper bot performance and cover exchange fees.';

const bot: ClassicBotView = {
  id: '22222222-2222-4222-8222-222222222222',
  exchange: 'binance',
  symbol: 'ETH/USDT',
  monto: 20,
  tp_pct: 1,
  sep_pct: 1,
  os: 3,
  dca: 3000.123456,
  pnl: 0.5,
  precio: 2990,
  ttr: 10,
  r: false,
  r_os: false,
  sl: null,
  tp_plus: null,
  tp_vnc: 0.5,
  qty: 0,
  position_qty: 0.0066,
  tp_price: 3030.12,
  next_safety: 2970,
  safety_filled: 0,
  cycles: 0,
  realized_pnl: 0,
  phase: 'in_position',
  waiting_for: null,
  trend_filter: true,
  smart_averaging: true,
  status: 'active',
  problem: null,
  reason: null,
  started_at: '2025-01-01T00:00:00Z',
};

type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;

function responses(activeBots: ClassicBotView[] = [], over: Record<string, Handler> = {}) {
  const base: Record<string, Handler> = {
    '/api/estado_conexion': () => json({ conexiones: { binance: true, bybit: false } }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT', 'ETH/BTC'] }),
    '/api/bots_activos': () => json({ success: true, bots: activeBots }),
    '/api/precios_actuales': () => json([{ exchange: 'binance', symbol: 'ETH/USDT', price: 2990 }]),
    '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
    '/api/min_cost': () => json({ success: true, min_cost: 5, min_amount: 0.0017, price: 3000 }),
    '/api/dcas_actuales': () =>
      json({ success: true, dcas: [{ exchange: 'binance', symbol: 'ETH/USDT', dca: 2985.5 }] }),
    '/api/pnls_actuales': () =>
      json({
        success: true,
        pnls: [
          { exchange: 'binance', symbol: 'ETH/USDT', kind: 'classic-dca', pnl: -1.25, ttr: 3725 },
          { exchange: 'binance', symbol: 'ETH/USDT', kind: 'grid-dca', pnl: 7, ttr: 1 },
        ],
        total_pnl: 5.75,
      }),
    '/api/vncs_actuales': () =>
      json({
        success: true,
        vncs: [
          {
            exchange: 'binance',
            symbol: 'ETH/USDT',
            qty: 0.0123,
            cost_price: 3100,
            sell_price: 3115.5,
            tp_vnc: 0.5,
          },
        ],
      }),
    '/api/market/candles': () =>
      json({
        exchange: 'binance',
        symbol: 'ETH/USDT',
        timeframe: '1m',
        candles: [
          [1, 3000, 3001, 2999, 3000, 1],
          [2, 3000, 3001, 2980, 2990, 1],
        ],
      }),
  };
  return { ...base, ...over };
}

/** The JSON bodies the page posted to `path`. */
const bodiesOf = (fetchMock: ReturnType<typeof renderApp>['fetchMock'], path: string) =>
  fetchMock.mock.calls
    .filter(([input]) => new URL(String(input instanceof Request ? input.url : input)).pathname === path)
    .map(
      ([, init]) => JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>,
    );

const callsTo = (requested: () => string[], path: string) => requested().filter((p) => p === path).length;

describe('DashboardPage (classic DCA)', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renders the start form with the spec defaults and explains the two options', async () => {
    renderApp(<DashboardPage />, { user, responses: responses() });
    const amount = await screen.findByTestId<HTMLInputElement>('dash-amount');
    expect(amount.value).toBe('20');
    expect(screen.getByTestId<HTMLInputElement>('dash-tp').value).toBe('1');
    expect(screen.getByTestId<HTMLInputElement>('dash-os').value).toBe('3');
    expect(screen.getByTestId<HTMLInputElement>('dash-form-trend').checked).toBe(true);
    expect(screen.getByTestId<HTMLInputElement>('dash-form-smart').checked).toBe(true);
    expect(screen.getByTestId<HTMLInputElement>('dash-form-r').checked).toBe(false);
    expect(screen.getByTestId<HTMLInputElement>('dash-form-ros').checked).toBe(false);
    const tpVnc = screen.getByTestId<HTMLSelectElement>('dash-form-tpvnc');
    expect(tpVnc.value).toBe('0.5');
    expect([...tpVnc.options].map((o) => Number(o.value))).toEqual([...TP_VNC_OPTIONS]);
    const select = screen.getByTestId<HTMLSelectElement>('dash-exchange');
    expect(select.options).toHaveLength(21); // placeholder + 20 exchanges
    expect(
      [...screen.getByTestId<HTMLSelectElement>('dash-market-type').options].map((o) => o.value),
    ).toEqual(['Spot', 'Perpetual', 'Inverse', 'Margin']);
    expect(
      screen.getByText(
        "Trend rule (70-period moving average, 1-minute candles): a new cycle's first buy waits until the price closes above the average",
      ),
    ).toBeTruthy();
    expect(
      screen.getByText(
        'Smart averaging: +10 USDT at market per confirmed reversal candle while the price is below your average entry',
      ),
    ).toBeTruthy();
    expect(screen.getByTestId('dash-active-count').textContent).toBe('Active bots: 0');
  });

  it('shows the Spanish texts of the options', async () => {
    await i18n.changeLanguage('es');
    renderApp(<DashboardPage />, { user, responses: responses() });
    expect(await screen.findByText(/^Regla de tendencia \(media móvil de 70 periodos/)).toBeTruthy();
    expect(screen.getByText(/^Promediado inteligente: \+10 USDT a mercado/)).toBeTruthy();
  });

  it('turns commas into dots, flags a TP below 0.5 with the attention dialog, and ACCEPT focuses the field', async () => {
    const { requestedPaths } = renderApp(<DashboardPage />, { user, responses: responses() });
    const tp = await screen.findByTestId('dash-tp');
    setValue(tp, '0,3');
    expect((tp as HTMLInputElement).value).toBe('0.3');
    await userEvent.click(screen.getByTestId('dash-start'));
    expect((await screen.findByTestId('dash-attention-text')).textContent).toBe(MIN_PCT);
    expect(tp.closest('.dash-invalid')).not.toBeNull();
    await userEvent.click(screen.getByTestId('dash-attention-accept'));
    await waitFor(() => expect(document.activeElement).toBe(tp));
    setValue(tp, '0.5');
    expect(tp.closest('.dash-invalid')).toBeNull();
    expect(requestedPaths()).not.toContain('/api/start_bot');
  });

  it('alerts on an unconnected exchange and saves the market type', async () => {
    const { fetchMock } = renderApp(<DashboardPage />, { user, responses: responses() });
    const select = await screen.findByTestId('dash-exchange');
    await waitFor(() =>
      expect(select.querySelector('option[value="binance"]')?.textContent).toContain('✅ Connected'),
    );
    setValue(select, 'bybit');
    expect((await screen.findByTestId('dash-form-error')).textContent).toBe(
      'This exchange is not connected. Connect it in Settings.',
    );
    expect(screen.getByTestId('dash-exchange-badge').textContent).toBe('Not connected');
    setValue(screen.getByTestId('dash-market-type'), 'Margin');
    await waitFor(() =>
      expect(bodiesOf(fetchMock, '/api/apartado_usuario')).toContainEqual({
        user_id: 'me@example.com',
        apartado: 'Margin',
      }),
    );
  });

  it('starts a bot with the options and TP VNC, and on failure shows the error and drops the optimistic row', async () => {
    const { fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([], {
        '/api/start_bot': () => json({ success: false, error: 'boom' }, 400),
      }),
    });
    setValue(await screen.findByTestId('dash-exchange'), 'binance');
    await userEvent.type(screen.getByTestId('dash-pair'), 'eth/usdt');
    expect(screen.getByTestId<HTMLInputElement>('dash-pair').value).toBe('ETH/USDT');
    setValue(screen.getByTestId('dash-amount'), '25,5');
    fireEvent.click(screen.getByTestId('dash-form-trend'));
    setValue(screen.getByTestId('dash-form-tpvnc'), '2');
    await userEvent.click(screen.getByTestId('dash-start'));
    expect(await screen.findByText('Failed to start the Bot')).toBeTruthy();
    expect(screen.getAllByText('❌ Error starting bot: boom').length).toBeGreaterThan(0);
    expect(screen.queryAllByTestId('dash-bot-row')).toHaveLength(0);
    expect(bodiesOf(fetchMock, '/api/start_bot')[0]).toEqual({
      symbol: 'ETH/USDT',
      amount: '25.5',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: 'binance',
      user_id: 'me@example.com',
      r: false,
      r_os: false,
      apartado: 'Spot',
      trend_filter: false,
      smart_averaging: true,
      tp_vnc: 2,
    });
  });

  it('lists a bot with its figures: dca, pnl in red, ttr as h m s, VNC quantity, chart, footer', async () => {
    renderApp(<DashboardPage />, { user, responses: responses([bot]) });
    const row = await screen.findByTestId('dash-bot-row');
    await waitFor(() => expect(within(row).getByTestId('dash-bot-dca').textContent).toBe('2985.5'));
    expect(within(row).getByTestId('dash-bot-summary').textContent).toBe(
      'binance · ETH/USDT · TP 1% · 20 USDT · OS 3 · Sep 1% · Entry 2,985.5000',
    );
    await waitFor(() => expect(within(row).getByTestId('dash-bot-pnl').textContent).toBe('-1.2500 USDT'));
    expect(within(row).getByTestId('dash-bot-pnl').getAttribute('style')).toContain('red');
    expect(within(row).getByTestId('dash-bot-ttr').textContent).toBe('1h 2m 5s');
    await waitFor(() => expect(within(row).getByTestId('dash-bot-vnc').textContent).toBe('0.0123'));
    const chart = within(row).getByRole('img');
    await waitFor(() => expect(chart.getAttribute('aria-label')).toContain('last 2 one-minute closes'));
    expect(chart.getAttribute('aria-label')).toContain('average entry 2,985.50');
    expect(chart.getAttribute('aria-label')).toContain('take profit 3,030.12');
    expect(chart.getAttribute('aria-label')).toContain('next safety order 2,970.00');
    expect(within(row).getByTestId('dash-chart-tp').textContent).toBe('TP 3,030.12');
    // Footer: only the classic DCA PnL counts.
    await waitFor(() =>
      expect(screen.getByTestId('dash-total-pnl').textContent).toBe('Total PnL: -1.25 USDT'),
    );
    expect(screen.getByTestId('dash-active-count').textContent).toBe('Active bots: 1');
  });

  it('shows a green pnl when it is zero or more, and pages the list 2 per page', async () => {
    const bots = [0, 1, 2].map((i) => ({ ...bot, id: `id-${i}`, symbol: `T${i}/USDT`, pnl: 0 }));
    renderApp(<DashboardPage />, { user, responses: responses(bots) });
    await waitFor(() => expect(screen.getAllByTestId('dash-bot-row')).toHaveLength(2));
    expect(screen.getAllByTestId('dash-bot-pnl')[0]!.getAttribute('style')).toContain('green');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getAllByTestId('dash-bot-row')).toHaveLength(1);
    expect(screen.getByTestId('dash-bot-row').dataset.symbol).toBe('T2/USDT');
  });

  it("shows why a bot cannot trade, in the user's language", async () => {
    const paused = {
      ...bot,
      status: 'error' as const,
      problem: 'pair_delisted' as const,
      reason: BOT_PROBLEMS.pair_delisted,
    };
    renderApp(<DashboardPage />, { user, responses: responses([paused]) });
    const problem = await screen.findByTestId('dash-bot-problem');
    expect(problem.dataset.problem).toBe('pair_delisted');
    expect(problem.textContent).toBe(BOT_PROBLEMS.pair_delisted.en);
  });

  it("adds funds: 'Compra enviada' for 2 s, 'Cantidad inválida' for a bad amount", async () => {
    // The spec's Spanish texts, in the Spanish interface; the English one after.
    await i18n.changeLanguage('es');
    let answerBad = false;
    const { fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([bot], {
        '/api/anadir_fondos': () =>
          answerBad
            ? json({ success: false, error: CLASSIC_DCA_MESSAGES.badFunds }, 400)
            : json({ success: true, message: CLASSIC_DCA_MESSAGES.fundsSent }),
      }),
    });
    const row = await screen.findByTestId('dash-bot-row');
    const input = within(row).getByTestId('dash-funds-input');
    // Client-side check: not above 0.
    setValue(input, '0');
    await userEvent.click(within(row).getByTestId('dash-funds-btn'));
    expect((await within(row).findByTestId('dash-funds-error')).textContent).toBe('Cantidad inválida');
    expect(bodiesOf(fetchMock, '/api/anadir_fondos')).toHaveLength(0);
    // Server refusal.
    answerBad = true;
    setValue(input, '5');
    await userEvent.click(within(row).getByTestId('dash-funds-btn'));
    await waitFor(() => expect(bodiesOf(fetchMock, '/api/anadir_fondos')).toHaveLength(1));
    expect((await within(row).findByTestId('dash-funds-error')).textContent).toBe('Cantidad inválida');
    // Success.
    answerBad = false;
    setValue(input, '12,5');
    await userEvent.click(within(row).getByTestId('dash-funds-btn'));
    expect((await within(row).findByTestId('dash-funds-ok')).textContent).toBe('Compra enviada');
    await act(() => i18n.changeLanguage('en'));
    answerBad = true;
    setValue(input, '7');
    await userEvent.click(within(row).getByTestId('dash-funds-btn'));
    expect((await within(row).findByTestId('dash-funds-error')).textContent).toBe('Invalid amount');
    expect(bodiesOf(fetchMock, '/api/anadir_fondos')[1]).toEqual({
      symbol: 'ETH/USDT',
      exchange: 'binance',
      amount: '12.5',
      user_id: 'me@example.com',
    });
    await waitFor(() => expect(within(row).queryByTestId('dash-funds-ok')).toBeNull(), { timeout: 3_000 });
  });

  it('sends a TP VNC change with update_tp_vnc and R with actualizar_bot', async () => {
    const { fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([bot], {
        '/api/update_tp_vnc': () => json({ success: true, tp_vnc: 5 }),
        '/api/actualizar_bot': () => json({ success: true }),
      }),
    });
    const row = await screen.findByTestId('dash-bot-row');
    const select = within(row).getByTestId<HTMLSelectElement>('dash-tpvnc-select');
    expect(select.value).toBe('0.5');
    setValue(select, '5');
    await waitFor(() =>
      expect(bodiesOf(fetchMock, '/api/update_tp_vnc')).toEqual([
        { symbol: 'ETH/USDT', exchange: 'binance', tp_vnc: 5, user_id: 'me@example.com' },
      ]),
    );
    expect(select.value).toBe('5');
    fireEvent.click(within(row).getByTestId('dash-r-switch'));
    await waitFor(() =>
      expect(bodiesOf(fetchMock, '/api/actualizar_bot')).toEqual([
        { user_id: 'me@example.com', symbol: 'ETH/USDT', exchange: 'binance', r: true },
      ]),
    );
  });

  it('stops with the mode chosen in the dialog, clearing R and R(OS) first, and removes the row', async () => {
    const { fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([{ ...bot, r: true, r_os: true }], {
        '/api/stop_bot': () => json({ success: true, message: 'Bot stopped successfully' }),
      }),
    });
    const row = await screen.findByTestId('dash-bot-row');
    expect(within(row).getByTestId<HTMLInputElement>('dash-r-switch').checked).toBe(true);
    // Stop is in the row's actions menu.
    await userEvent.click(within(row).getByTestId('dash-actions-btn'));
    await userEvent.click(await screen.findByTestId('dash-stop-btn'));
    await userEvent.click(await screen.findByTestId('dash-stop-cancel-only'));
    expect(within(row).getByTestId<HTMLInputElement>('dash-r-switch').checked).toBe(false);
    expect(within(row).getByTestId<HTMLInputElement>('dash-ros-switch').checked).toBe(false);
    expect(await screen.findByText('Bot stopped successfully')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/stop_bot')).toEqual([
      { symbol: 'ETH/USDT', exchange: 'binance', user_id: 'me@example.com', mode: 'cancel_only' },
    ]);
    await waitFor(() => expect(screen.queryAllByTestId('dash-bot-row')).toHaveLength(0), { timeout: 3_500 });
  });

  it('shows the stop error when the server refuses', async () => {
    const { fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([bot], {
        '/api/stop_bot': () => json({ success: false, error: 'nope' }, 400),
      }),
    });
    await userEvent.click(await screen.findByTestId('dash-actions-btn'));
    await userEvent.click(await screen.findByTestId('dash-stop-btn'));
    await userEvent.click(await screen.findByTestId('dash-stop-close-market'));
    expect(await screen.findByText('Failed to stop the Bot')).toBeTruthy();
    // In the progress modal and in its toast.
    expect(screen.getAllByText('❌ Error stopping bot: nope').length).toBeGreaterThan(0);
    expect(bodiesOf(fetchMock, '/api/stop_bot')[0]?.mode).toBe('close_market');
  });

  it('renders the event log in both languages, unknown codes as a readable line', async () => {
    const events = [
      {
        id: 1,
        ts: '2025-01-01T00:00:00Z',
        level: 'info',
        code: 'trend_wait',
        params: { close: 100, ma: 101 },
      },
      {
        id: 2,
        ts: '2025-01-01T00:01:00Z',
        level: 'info',
        code: 'trend_warming',
        params: { have: 3, need: 70 },
      },
      { id: 3, ts: '2025-01-01T00:02:00Z', level: 'warn', code: 'mystery', params: { a: 1 } },
    ];
    const { requestedPaths, fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([bot], {
        [`/api/bots/${bot.id}/events`]: () => json({ success: true, events }),
      }),
    });
    await userEvent.click(await screen.findByTestId('dash-actions-btn'));
    await userEvent.click(await screen.findByTestId('dash-events-btn'));
    const rows = await screen.findAllByTestId('dash-event-row');
    expect(rows[0]!.textContent).toContain(
      'Waiting for the trend: the last close 100 is not above the 70-period average 101.',
    );
    expect(rows[1]!.textContent).toContain('3 of 70 one-minute candles');
    // A code no catalog names: a readable line, never JSON.
    expect(rows[2]!.textContent).toContain('Mystery: a 1');
    expect(rows[2]!.textContent).not.toContain('{');
    expect(requestedPaths()).toContain(`/api/bots/${bot.id}/events`);
    const url = fetchMock.mock.calls
      .map(([input]) => new URL(String(input instanceof Request ? input.url : input)))
      .find((u) => u.pathname.endsWith('/events'))!;
    expect(url.searchParams.get('user_id')).toBe('me@example.com');
    expect(url.searchParams.get('limit')).toBe('50');
    await act(() => i18n.changeLanguage('es'));
    expect(screen.getAllByTestId('dash-event-row')[0]!.textContent).toContain(
      'Esperando la tendencia: el último cierre 100 no está por encima de la media de 70 periodos 101.',
    );
  });

  it('shows the closed bots of the footer history with their PnL', async () => {
    const { fetchMock } = renderApp(<DashboardPage />, {
      user,
      responses: responses([], {
        '/api/historial': () =>
          json({
            success: true,
            historial: [
              {
                exchange: 'binance',
                symbol: 'BTC/USDT',
                amount: 100,
                tp: 1,
                os: 2,
                r: false,
                r_os: false,
                datetime_inicio: '2025-01-01T00:00:00Z',
                datetime_cierre: '2025-01-01T01:00:00Z',
                pnl: 0.91,
              },
            ],
          }),
      }),
    });
    await userEvent.click(await screen.findByTestId('dash-closed-btn'));
    const row = await screen.findByTestId('dash-closed-row');
    expect(row.textContent).toContain('BTC/USDT');
    expect(within(row).getByTestId('dash-closed-pnl').textContent).toBe('0.91 USDT');
    for (const h of ['Exchange', 'Symbol', 'Amount', 'TP', 'OS', 'Start', 'End', 'PnL']) {
      expect(screen.getByRole('columnheader', { name: h })).toBeTruthy();
    }
    // The spec's headers (part 2 §2) in the Spanish interface, as the spec writes them.
    await act(() => i18n.changeLanguage('es'));
    for (const h of ['Exchange', 'Símbolo', 'Monto', 'TP', 'OS', 'Inicio', 'Cierre', 'PnL']) {
      expect(await screen.findByRole('columnheader', { name: h })).toBeTruthy();
    }
    await act(() => i18n.changeLanguage('en'));
    const url = fetchMock.mock.calls
      .map(([input]) => new URL(String(input instanceof Request ? input.url : input)))
      .find((u) => u.pathname === '/api/historial')!;
    expect(url.searchParams.get('kind')).toBe('classic-dca');
  });

  it('pauses polling while a dialog is open', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { requestedPaths } = renderApp(<DashboardPage />, { user, responses: responses([bot]) });
    await screen.findByTestId('dash-bot-row');
    await waitFor(() => expect(callsTo(requestedPaths, '/api/pnls_actuales')).toBeGreaterThan(0));
    await act(() => vi.advanceTimersByTimeAsync(5_500));
    const bots0 = callsTo(requestedPaths, '/api/bots_activos');
    expect(bots0).toBeGreaterThanOrEqual(2); // polled every 5 s
    fireEvent.click(screen.getByTestId('dash-actions-btn'));
    await act(() => vi.advanceTimersByTimeAsync(50));
    fireEvent.click(screen.getByTestId('dash-history-btn'));
    await screen.findByTestId('dash-history-dialog');
    const before = [
      '/api/bots_activos',
      '/api/pnls_actuales',
      '/api/dcas_actuales',
      '/api/precios_actuales',
    ].map((p) => callsTo(requestedPaths, p));
    await act(() => vi.advanceTimersByTimeAsync(25_000));
    const during = [
      '/api/bots_activos',
      '/api/pnls_actuales',
      '/api/dcas_actuales',
      '/api/precios_actuales',
    ].map((p) => callsTo(requestedPaths, p));
    expect(during).toEqual(before);
    fireEvent.keyDown(screen.getByTestId('dash-history-dialog'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('dash-history-dialog')).toBeNull());
    await act(() => vi.advanceTimersByTimeAsync(11_000));
    expect(callsTo(requestedPaths, '/api/bots_activos')).toBeGreaterThan(before[0]!);
    expect(callsTo(requestedPaths, '/api/pnls_actuales')).toBeGreaterThan(before[1]!);
  });

  it('formats the time in trade', () => {
    expect(formatTtr(0)).toBe('0s');
    expect(formatTtr(65)).toBe('1m 5s');
    expect(formatTtr(3725)).toBe('1h 2m 5s');
  });

  it('denies without a user', async () => {
    renderApp(<DashboardPage />, { responses: responses() });
    expect(await screen.findByText('Access denied. Please sign in.')).toBeTruthy();
  });
});
