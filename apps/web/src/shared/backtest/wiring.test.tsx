import type { BacktestView } from '@bytx/contract';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import { DashboardPage } from '../../features/classic-dca/components/DashboardPage';
import { BotDcaPage } from '../../features/grid-dca/components/BotDcaPage';
import { GridBotPage } from '../../features/grid/components/GridBotPage';
// Lazy chunks of the pages (the backtest dialog, the bot dialogs): loaded here first, so opening them in
// a test waits for no module transform on a busy machine.
import './BacktestDialog';
import '../bots/dialogs';
import i18n from '../i18n/index';
import { setValue } from '../../../test/setValue';

/** lightweight-charts draws on a canvas happy-dom lacks (the grid page's chart and the backtest's). */
vi.mock('lightweight-charts', () => ({
  BaselineSeries: { type: 'Baseline' },
  CandlestickSeries: { type: 'Candlestick' },
  ColorType: { Solid: 'solid' },
  LineStyle: { Solid: 0, Dotted: 1, Dashed: 2 },
  createChart: () => ({
    addSeries: () => ({
      setData: () => undefined,
      applyOptions: () => undefined,
      createPriceLine: () => ({}),
      removePriceLine: () => undefined,
    }),
    timeScale: () => ({ fitContent: () => undefined }),
    remove: () => undefined,
  }),
  createSeriesMarkers: () => ({ setMarkers: () => undefined }),
}));

type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const user = { id: 'u1', email: 'me@example.com' };
const ID = '0b9f3c57-7c1e-4a40-9d55-6f7f0d7a1a01';
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

/** The backtest calls, answering a finished run that echoes what it was sent. */
function backtestCalls(sent: Record<string, unknown>[]): Record<string, Handler> {
  return {
    '/api/backtest': (_u, init) => {
      sent.push(bodyOf(init));
      return json({ success: true, id: ID }, 202);
    },
    [`/api/backtest/${ID}`]: () => {
      const req = sent[sent.length - 1]!;
      const view: BacktestView = {
        success: true,
        id: ID,
        status: 'done',
        progress: 1,
        kind: req.kind as BacktestView['kind'],
        exchange: String(req.exchange),
        symbol: String(req.symbol),
        interval: '1m',
        from: 0,
        to: 60_000,
        source: 'exchange',
        created_at: '2025-01-01T00:00:00Z',
        finished_at: '2025-01-01T00:00:01Z',
        params: req.params as Record<string, unknown>,
        slippage_pct: 0.05,
        budget: 100,
        trades: [],
        fills: [],
        equity: [],
        candles: [],
        assumptions: [],
      };
      return json(view);
    },
  };
}

/** Backtest, Run, wait for the result, then 'Start this bot'. */
async function backtestThenStart() {
  await userEvent.click(screen.getByTestId('backtest-button'));
  await userEvent.click(await screen.findByTestId('backtest-run'));
  await userEvent.click(await screen.findByTestId('backtest-start', {}, { timeout: 3_000 }));
  await waitFor(() => expect(screen.queryByTestId('backtest-dialog')).toBeNull());
}

describe('the Backtest button on the start forms', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('Grid Bot DCA (/bot-dca): backtests exactly what Start sends, and "Start this bot" starts it', async () => {
    const sent: Record<string, unknown>[] = [];
    const starts: Record<string, unknown>[] = [];
    renderApp(<BotDcaPage />, {
      user,
      responses: {
        '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
        '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT'] }),
        '/api/bots_activos_dca': () => json({ success: true, bots: [] }),
        '/api/precios_actuales': () => json([]),
        '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
        '/api/min_cost': () => json({ success: true, min_cost: 5, min_amount: 0.0001, price: 50000 }),
        '/api/start_bot_dca': (_u, init) => {
          starts.push(bodyOf(init));
          return json({ success: true, message: 'ok' });
        },
        ...backtestCalls(sent),
      },
    });
    setValue(await screen.findByTestId('dca-exchange'), 'binance');
    setValue(screen.getByTestId('dca-pair'), 'btc/usdt');
    setValue(screen.getByTestId('dca-amount'), '50,5');
    setValue(screen.getByTestId('dca-os'), '4');
    await backtestThenStart();
    await waitFor(() => expect(starts).toHaveLength(1));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      kind: 'grid-dca',
      exchange: 'binance',
      symbol: 'BTC/USDT',
      interval: '1m',
    });
    expect(sent[0]!.params).toEqual(starts[0]);
    expect(starts[0]).toMatchObject({ symbol: 'BTC/USDT', amount: '50.5', os: '4', direction: 'LONG' });
  });

  it('classic DCA (/dashboard): backtests exactly what Start sends', async () => {
    const sent: Record<string, unknown>[] = [];
    const starts: Record<string, unknown>[] = [];
    renderApp(<DashboardPage />, {
      user,
      responses: {
        '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
        '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT'] }),
        '/api/bots_activos': () => json({ success: true, bots: [] }),
        '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
        '/api/min_cost': () => json({ success: true, min_cost: 5, min_amount: 0.001, price: 3000 }),
        '/api/vncs_actuales': () => json({ success: true, vncs: [] }),
        '/api/start_bot': (_u, init) => {
          starts.push(bodyOf(init));
          return json({ success: true, message: 'ok' });
        },
        ...backtestCalls(sent),
      },
    });
    setValue(await screen.findByTestId('dash-exchange'), 'binance');
    setValue(screen.getByTestId('dash-pair'), 'ETH/USDT');
    fireEvent.click(screen.getByTestId('dash-form-r'));
    setValue(screen.getByTestId('dash-form-tpvnc'), '2');
    await backtestThenStart();
    await waitFor(() => expect(starts).toHaveLength(1));
    expect(sent[0]).toMatchObject({ kind: 'classic-dca', exchange: 'binance', symbol: 'ETH/USDT' });
    expect(sent[0]!.params).toEqual(starts[0]);
    expect(starts[0]).toMatchObject({ symbol: 'ETH/USDT', r: true, tp_vnc: 2 });
  });

  it('grid (/grid-bot): backtests exactly what Start Grid Bot sends', async () => {
    const sent: Record<string, unknown>[] = [];
    const starts: Record<string, unknown>[] = [];
    renderApp(<GridBotPage />, {
      user,
      responses: {
        '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
        '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT'] }),
        '/api/precio': () => json({ price: 100 }),
        '/api/market/candles': () =>
          json({ exchange: 'binance', symbol: 'BTC/USDT', timeframe: '1m', candles: [] }),
        '/api/gridbot/niveles': () =>
          json({ ok: true, buyLevels: [], sellLevels: [], levels: [], price: 100 }),
        '/api/gridbot/activos': () => json({ ok: true, bots: [] }),
        '/api/gridbot/start': (_u, init) => {
          starts.push(bodyOf(init));
          return json({ ok: true });
        },
        ...backtestCalls(sent),
      },
    });
    setValue(await screen.findByTestId('grid-exchange'), 'binance');
    setValue(screen.getByTestId('grid-pair'), 'btc/u');
    const s = (await screen.findAllByTestId('grid-pair-suggestion')).find(
      (e) => e.textContent === 'BTC/USDT',
    );
    fireEvent.mouseDown(s!);
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('grid-high').value).toBe('105'));
    setValue(screen.getByTestId('grid-amount'), '20');
    await backtestThenStart();
    await waitFor(() => expect(starts).toHaveLength(1));
    expect(sent[0]).toMatchObject({ kind: 'grid', exchange: 'binance', symbol: 'BTC/USDT' });
    expect(sent[0]!.params).toEqual(starts[0]);
    expect(starts[0]).toMatchObject({ pair: 'BTC/USDT', highPrice: 105, lowPrice: 95, amountPerLevel: 20 });
  });
});
