import type { BacktestView } from '@bytx/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/renderApp';
import { ApiError } from '../api/client';
import i18n from '../i18n/index';
import { BacktestButton } from './BacktestButton';
// The dialog is a lazy chunk (BacktestButton.tsx): loaded here first, so opening it in a test waits for
// no module transform on a busy machine.
import './BacktestDialog';
import { setValue } from '../../../test/setValue';

/** The calls, mocked at the module (the dialog's own logic is what is under test). */
const calls = vi.hoisted(() => ({ start: vi.fn(), get: vi.fn(), cancel: vi.fn() }));
vi.mock('./api', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./api')>()),
  backtestApi: calls,
}));

/** lightweight-charts draws on a canvas happy-dom lacks: a stand-in records what it is given. */
const chart = vi.hoisted(() => ({
  series: [] as { type: string; data: unknown[] }[],
  markers: [] as unknown[],
}));
vi.mock('lightweight-charts', () => ({
  BaselineSeries: { type: 'Baseline' },
  CandlestickSeries: { type: 'Candlestick' },
  ColorType: { Solid: 'solid' },
  createChart: () => ({
    addSeries: (def: { type: string }) => {
      const s = { type: def.type, data: [] as unknown[] };
      chart.series.push(s);
      return {
        setData: (d: unknown[]) => {
          s.data = d;
        },
        applyOptions: () => undefined,
      };
    },
    timeScale: () => ({ fitContent: () => undefined }),
    remove: () => undefined,
  }),
  createSeriesMarkers: (_s: unknown, m: unknown[]) => {
    chart.markers = m;
    return { setMarkers: (x: unknown[]) => (chart.markers = x) };
  },
}));

const PARAMS = {
  symbol: 'BTC/USDT',
  amount: '100',
  tp: '1',
  separacion: '1',
  os: '3',
  exchange: 'binance',
  user_id: 'u1',
  apartado: 'Spot',
  direction: 'LONG',
};
const ID = '0b9f3c57-7c1e-4a40-9d55-6f7f0d7a1a01';
const T0 = Date.UTC(2025, 0, 1);
const MIN = 60_000;

const base: BacktestView = {
  success: true,
  id: ID,
  status: 'running',
  progress: 0,
  kind: 'grid-dca',
  exchange: 'binance',
  symbol: 'BTC/USDT',
  interval: '1m',
  from: T0,
  to: T0 + 4 * MIN,
  source: 'exchange',
  created_at: '2025-01-01T00:00:00Z',
  finished_at: null,
  params: PARAMS,
  slippage_pct: 0.05,
  budget: 100,
};

const done: BacktestView = {
  ...base,
  status: 'done',
  progress: 1,
  finished_at: '2025-01-01T00:05:00Z',
  summary: {
    from: T0,
    to: T0 + 4 * MIN,
    candles: 5,
    initialEquity: 100,
    finalEquity: 112.3456,
    netPnl: 12.3456,
    returnPct: 12.3456,
    realizedPnl: 10,
    maxDrawdownPct: 5.2,
    maxDrawdownQuote: 5.6,
    feesPaid: 0.0042,
    closedTrades: 2,
    cycles: null,
    fills: 4,
    capitalPeak: 60,
    timeInMarketPct: 45.25,
    openPosition: { qty: 0.001, avgEntry: 30000, value: 30.5 },
    buyAndHoldPct: -3.1,
    buyAndHoldPnl: -3.1,
    rejections: { insufficient_funds: 1, min_cost: 0 },
    stopReason: null,
  },
  trades: [
    {
      buyTime: T0,
      sellTime: T0 + 2 * MIN,
      qty: 0.001,
      buyPrice: 30000,
      sellPrice: 30300,
      fees: 0.06,
      pnlNet: 0.24,
    },
    {
      buyTime: T0 + MIN,
      sellTime: T0 + 3 * MIN,
      qty: 0.001,
      buyPrice: 29700,
      sellPrice: 29400,
      fees: 0.06,
      pnlNet: -0.36,
    },
  ],
  fills: [
    {
      time: T0 + 10_000,
      side: 'buy',
      price: 30000,
      qty: 0.001,
      fee: 0.03,
      role: 'entry',
      orderType: 'market',
    },
    {
      time: T0 + MIN + 5,
      side: 'buy',
      price: 29700,
      qty: 0.001,
      fee: 0.03,
      role: 'ladder',
      orderType: 'limit',
    },
    { time: T0 + 2 * MIN, side: 'sell', price: 30300, qty: 0.001, fee: 0.03, role: 'tp', orderType: 'limit' },
    { time: T0 + 3 * MIN, side: 'sell', price: 29400, qty: 0.001, fee: 0.03, role: 'tp', orderType: 'limit' },
  ],
  equity: [
    { time: T0, equity: 100 },
    { time: T0 + MIN, equity: 99 },
    { time: T0 + 2 * MIN, equity: 101 },
    { time: T0 + 3 * MIN, equity: 112.3456 },
  ],
  candles: [
    [T0, 30000, 30100, 29900, 30050],
    [T0 + MIN, 30050, 30060, 29600, 29700],
    [T0 + 2 * MIN, 29700, 30400, 29650, 30300],
    [T0 + 3 * MIN, 30300, 30300, 29300, 29400],
  ],
  assumptions: ['No partial fills.', 'Market orders at the event price plus 0.05 % slippage.'],
};

function open(onStart?: (p: Record<string, unknown>) => void, getParams = () => PARAMS) {
  renderApp(
    <BacktestButton
      kind="grid-dca"
      getParams={getParams}
      exchange="binance"
      symbol="BTC/USDT"
      {...(onStart ? { onStart } : {})}
    />,
  );
  fireEvent.click(screen.getByTestId('backtest-button'));
}

const text = (id: string) => screen.getByTestId(id).textContent;

describe('BacktestDialog', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    calls.start.mockReset();
    calls.get.mockReset();
    calls.cancel.mockReset();
    calls.cancel.mockResolvedValue({ success: true, status: 'cancelled', message: 'Backtest cancelled.' });
    chart.series = [];
    chart.markers = [];
  });

  it('sends the form params unchanged with the last 7 days at 1m by default, then the chosen period and interval', async () => {
    calls.start.mockRejectedValue(new ApiError(400, 'nope', {}));
    const getParams = vi.fn(() => PARAMS);
    open(undefined, getParams);
    expect(await screen.findByTestId('backtest-dialog')).toBeTruthy();
    expect(screen.getByTestId('backtest-period-7').getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId<HTMLSelectElement>('backtest-interval').value).toBe('1m');
    fireEvent.click(screen.getByTestId('backtest-run'));
    await waitFor(() => expect(calls.start).toHaveBeenCalledTimes(1));
    const first = calls.start.mock.calls[0]![0] as Record<string, unknown>;
    expect(first).toEqual({
      kind: 'grid-dca',
      params: PARAMS,
      exchange: 'binance',
      symbol: 'BTC/USDT',
      interval: '1m',
      period: '7d',
    });
    // The very object the form built, not a copy that could drift from the start call.
    expect(first.params).toBe(PARAMS);
    expect(getParams).toHaveBeenCalledTimes(1);

    await screen.findByTestId('backtest-error');
    fireEvent.click(screen.getByTestId('backtest-period-90'));
    setValue(screen.getByTestId('backtest-interval'), '1h');
    fireEvent.click(screen.getByTestId('backtest-run'));
    await waitFor(() => expect(calls.start).toHaveBeenCalledTimes(2));
    expect(calls.start.mock.calls[1]![0]).toMatchObject({ period: '90d', interval: '1h', params: PARAMS });

    // Custom dates: from the start of the first day to the end of the last (at most now).
    await screen.findByTestId('backtest-error');
    fireEvent.click(screen.getByTestId('backtest-period-custom'));
    setValue(screen.getByTestId('backtest-from'), '2025-01-01');
    setValue(screen.getByTestId('backtest-to'), '2025-01-31');
    fireEvent.click(screen.getByTestId('backtest-run'));
    await waitFor(() => expect(calls.start).toHaveBeenCalledTimes(3));
    const custom = calls.start.mock.calls[2]![0] as Record<string, unknown>;
    expect(custom.period).toBeUndefined();
    expect(custom.from).toBe(new Date('2025-01-01T00:00:00').getTime());
    expect(custom.to).toBe(new Date('2025-01-31T23:59:59.999').getTime());

    // Dates the wrong way round are refused here, without a call.
    setValue(screen.getByTestId('backtest-from'), '2025-02-10');
    fireEvent.click(screen.getByTestId('backtest-run'));
    expect(text('backtest-error')).toBe('Choose a start date before the end date.');
    expect(calls.start).toHaveBeenCalledTimes(3);
  });

  it('sends an uploaded CSV as text instead of a period', async () => {
    calls.start.mockRejectedValue(new ApiError(400, 'The CSV file is malformed at line 3: bad close', {}));
    open();
    await screen.findByTestId('backtest-dialog');
    const csv = 'ts,open,high,low,close\n1735689600000,1,2,0.5,1.5\n1735689660000,1.5,2,1,x\n';
    const file = new File([csv], 'candles.csv', { type: 'text/csv' });
    await userEvent.upload(screen.getByTestId('backtest-csv'), file);
    expect(await screen.findByTestId('backtest-csv-name')).toBeTruthy();
    expect(screen.getByTestId<HTMLButtonElement>('backtest-period-7').disabled).toBe(true);
    fireEvent.click(screen.getByTestId('backtest-run'));
    await waitFor(() => expect(calls.start).toHaveBeenCalledTimes(1));
    const req = calls.start.mock.calls[0]![0] as Record<string, unknown>;
    expect(req.csv).toBe(csv);
    expect(req.period).toBeUndefined();
    expect(req.params).toBe(PARAMS);
    // The server's own message, as sent.
    expect((await screen.findByTestId('backtest-error')).textContent).toBe(
      'The CSV file is malformed at line 3: bad close',
    );
    fireEvent.click(screen.getByTestId('backtest-csv-clear'));
    expect(screen.queryByTestId('backtest-csv-name')).toBeNull();
    expect(screen.getByTestId<HTMLButtonElement>('backtest-period-7').disabled).toBe(false);
  });

  it('shows the start form’s own message from the server as sent, and a failed run’s error', async () => {
    const msg =
      'Separation (%) and Take Profit (%) must be greater than 0.5% to ensure proper bot performance.';
    calls.start.mockRejectedValueOnce(new ApiError(400, msg, { success: false, error: msg }));
    open();
    fireEvent.click(await screen.findByTestId('backtest-run'));
    expect((await screen.findByTestId('backtest-error')).textContent).toBe(msg);
    expect(calls.get).not.toHaveBeenCalled();

    calls.start.mockResolvedValueOnce({ success: true, id: ID });
    calls.get.mockResolvedValue({
      ...base,
      status: 'failed',
      error: 'No candles for BTC/USDT on binance in this period.',
    });
    fireEvent.click(screen.getByTestId('backtest-run'));
    expect(await screen.findByTestId('backtest-progress')).toBeTruthy();
    await waitFor(
      () => expect(text('backtest-error')).toBe('No candles for BTC/USDT on binance in this period.'),
      {
        timeout: 3_000,
      },
    );
    expect(screen.getByTestId('backtest-run')).toBeTruthy();
  });

  it('polls the progress every 500 ms, and Cancel sends DELETE and stops polling', async () => {
    calls.start.mockResolvedValue({ success: true, id: ID });
    calls.get.mockResolvedValue({ ...base, status: 'running', progress: 0.42 });
    open();
    fireEvent.click(await screen.findByTestId('backtest-run'));
    const bar = await screen.findByTestId('backtest-progress');
    expect(screen.queryByTestId('backtest-run')).toBeNull();
    await waitFor(() => expect(text('backtest-progress-text')).toBe('Running… 42 %'), { timeout: 3_000 });
    expect(bar.getAttribute('data-progress')).toBe('0.42');
    expect(calls.get).toHaveBeenCalledWith(ID);
    await waitFor(() => expect(calls.get.mock.calls.length).toBeGreaterThanOrEqual(2), { timeout: 3_000 });

    fireEvent.click(screen.getByTestId('backtest-cancel'));
    await waitFor(() => expect(calls.cancel).toHaveBeenCalledWith(ID));
    expect(await screen.findByTestId('backtest-cancelled')).toBeTruthy();
    expect(screen.queryByTestId('backtest-progress')).toBeNull();
    const polled = calls.get.mock.calls.length;
    await act(() => new Promise((r) => setTimeout(r, 1_100)));
    expect(calls.get.mock.calls.length).toBe(polled);
    expect(screen.getByTestId('backtest-run')).toBeTruthy();
  });

  it('closing the dialog while it runs cancels the backtest on the server', async () => {
    calls.start.mockResolvedValue({ success: true, id: ID });
    calls.get.mockResolvedValue({ ...base, status: 'queued', progress: 0 });
    open();
    fireEvent.click(await screen.findByTestId('backtest-run'));
    await screen.findByTestId('backtest-progress');
    fireEvent.click(document.querySelector('.mantine-Modal-close')!);
    await waitFor(() => expect(calls.cancel).toHaveBeenCalledWith(ID));
  });

  it('shows the result: summary figures, charts with every fill, trades and assumptions', async () => {
    calls.start.mockResolvedValue({ success: true, id: ID });
    calls.get.mockResolvedValueOnce({ ...base, progress: 0.5 }).mockResolvedValue(done);
    open();
    fireEvent.click(await screen.findByTestId('backtest-run'));
    expect(await screen.findByTestId('backtest-result', {}, { timeout: 3_000 })).toBeTruthy();

    expect(text('backtest-net-pnl')).toBe('+12.35 USDT');
    expect(text('backtest-return')).toBe('+12.35 %');
    expect(text('backtest-max-drawdown')).toBe('-5.20 % (-5.60 USDT)');
    expect(text('backtest-fees')).toBe('0.0042 USDT');
    expect(text('backtest-closed-trades')).toBe('2');
    expect(screen.queryByTestId('backtest-cycles')).toBeNull();
    expect(text('backtest-capital-peak')).toBe('60.00 USDT');
    expect(text('backtest-time-in-market')).toBe('45.25 %');
    expect(text('backtest-open-position')).toBe('0.001 BTC @ 30000 = 30.50 USDT');
    expect(text('backtest-buy-hold')).toBe('-3.10 % (-3.10 USDT)');
    expect(text('backtest-rejections')).toContain('1 for insufficient funds');

    const equity = await screen.findByTestId('backtest-equity-chart');
    expect(equity.getAttribute('data-points')).toBe('4');
    const price = screen.getByTestId('backtest-price-chart');
    expect(price.getAttribute('data-candles')).toBe('4');
    expect(price.getAttribute('data-markers')).toBe('4');
    // The charts are drawn in an effect, which may run after the attributes are rendered.
    await waitFor(() =>
      expect(chart.series.map((s) => [s.type, s.data.length])).toEqual([
        ['Baseline', 4],
        ['Candlestick', 4],
      ]),
    );
    // Each fill sits on the candle it happened in, at its own price.
    expect(chart.markers).toEqual([
      expect.objectContaining({ time: T0 / 1000, price: 30000, shape: 'arrowUp' }),
      expect.objectContaining({ time: (T0 + MIN) / 1000, price: 29700, shape: 'arrowUp' }),
      expect.objectContaining({ time: (T0 + 2 * MIN) / 1000, price: 30300, shape: 'arrowDown' }),
      expect.objectContaining({ time: (T0 + 3 * MIN) / 1000, price: 29400, shape: 'arrowDown' }),
    ]);

    const rows = screen.getAllByTestId('backtest-trade-row');
    expect(rows).toHaveLength(2);
    const cells = within(rows[0]!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells.slice(2)).toEqual(['0.001', '30000', '30300', '+0.24']);
    expect(within(rows[1]!).getByTestId('backtest-trade-pnl').textContent).toBe('-0.36');
    expect(
      within(screen.getByTestId('backtest-assumptions'))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(done.assumptions);
    // No 'Start this bot' without a start to call.
    expect(screen.queryByTestId('backtest-start')).toBeNull();
  });

  it('"Start this bot" calls the form’s start with the same params and closes the dialog', async () => {
    calls.start.mockResolvedValue({ success: true, id: ID });
    calls.get.mockResolvedValue(done);
    const onStart = vi.fn();
    open(onStart);
    fireEvent.click(await screen.findByTestId('backtest-run'));
    fireEvent.click(await screen.findByTestId('backtest-start', {}, { timeout: 3_000 }));
    expect(onStart).toHaveBeenCalledTimes(1);
    expect(onStart.mock.calls[0]![0]).toBe(PARAMS);
    await waitFor(() => expect(screen.queryByTestId('backtest-dialog')).toBeNull());
    // A finished backtest is not cancelled by closing.
    expect(calls.cancel).not.toHaveBeenCalled();
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    open();
    expect((await screen.findByTestId('backtest-run')).textContent).toBe('Ejecutar backtest');
    expect(text('backtest-period-30')).toBe('Últimos 30 días');
  });
});
