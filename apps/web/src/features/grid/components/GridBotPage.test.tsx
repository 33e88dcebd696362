import { DERIVATIVES_MESSAGES, GRID_MESSAGES, type GridBotDetail } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import {
  defaultRange,
  GRID_EXCHANGES,
  validateGridStart,
  venueSymbol,
  type GridBotRow,
  type GridForm,
} from '../api/grid';
import { GridBotPage } from './GridBotPage';
import { setValue } from '../../../../test/setValue';

/** lightweight-charts draws on a canvas happy-dom lacks: a stand-in records the lines it is given. */
const chart = vi.hoisted(() => ({ lines: [] as { price: number; title: string }[], candles: 0 }));
vi.mock('lightweight-charts', () => ({
  CandlestickSeries: { type: 'Candlestick' },
  ColorType: { Solid: 'solid' },
  LineStyle: { Solid: 0, Dotted: 1 },
  createChart: () => ({
    addSeries: () => ({
      setData: (d: unknown[]) => {
        chart.candles = d.length;
      },
      applyOptions: () => undefined,
      createPriceLine: (o: { price: number; title: string }) => {
        const line = { price: o.price, title: o.title };
        chart.lines.push(line);
        return line;
      },
      removePriceLine: (l: unknown) => {
        chart.lines = chart.lines.filter((x) => x !== l);
      },
    }),
    timeScale: () => ({ fitContent: () => undefined }),
    remove: () => undefined,
  }),
}));

const user = { id: 'u1', email: 'me@example.com' };
const MSG = {
  session: '⚠️ Your session is not loaded. Please refresh or re-login.',
  exchange: 'You must select an exchange.',
  pair: 'You must select a trading pair first.',
  incomplete: 'Please complete all fields before starting the bot.',
  lowHigh: 'Low Price must be less than High Price.',
  step: 'Step % must be greater than 0.',
  notConnected: 'This exchange is not connected. Please connect it in Settings.',
  leverageNoExchange: 'Please select an Exchange before setting leverage.',
};

type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

function responses(over: Record<string, Handler> = {}, bots: GridBotRow[] = []): Record<string, Handler> {
  return {
    '/api/estado_conexion': () => json({ conexiones: { binance: true, bybit: false } }),
    '/api/market/pairs': () =>
      json({ exchange: 'binance', pairs: ['BTC/USDT', 'BTC/USDT:USDT', 'ETH/USDT', 'ETH/BTC'] }),
    '/api/precio': () => json({ price: 100 }),
    '/api/market/candles': (url) =>
      json({
        exchange: 'binance',
        symbol: url.searchParams.get('symbol'),
        timeframe: '1m',
        candles: [
          [1_700_000_000_000, 99, 101, 98, 100, 1],
          [1_700_000_060_000, 100, 102, 99, 100.5, 1],
        ],
      }),
    '/api/gridbot/niveles': () =>
      json({
        ok: true,
        buyLevels: [97.5, 95],
        sellLevels: [102.5, 105],
        levels: [95, 97.5, 100, 102.5, 105],
        price: 100,
      }),
    '/api/gridbot/activos': () => json({ ok: true, bots }),
    '/api/gridbot/historial': () => json({ ok: true, history: [] }),
    ...over,
  };
}

const errorText = async () => (await screen.findByTestId('grid-form-error')).textContent;

/** Exchange binance, then the pair picked from the suggestions (price 100). */
async function choosePair(exchange = 'binance', typed = 'btc/u', pick = 'BTC/USDT') {
  setValue(await screen.findByTestId('grid-exchange'), exchange);
  setValue(screen.getByTestId('grid-pair'), typed);
  const s = (await screen.findAllByTestId('grid-pair-suggestion')).find((e) => e.textContent === pick);
  fireEvent.mouseDown(s!);
  await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('grid-high').value).toBe('105'));
}

describe('grid texts', () => {
  it('are the contract texts in English', () => {
    const en = i18n.getResourceBundle('en', 'translation') as {
      grid: { validation: Record<string, string>; errors: Record<string, string> };
      bots: { leverage: Record<string, string> };
    };
    for (const [k, v] of Object.entries(en.grid.validation)) {
      expect(v).toBe(GRID_MESSAGES[k as keyof typeof GRID_MESSAGES]);
    }
    expect(en.grid.errors.startFailed).toBe(GRID_MESSAGES.startError);
    expect(en.grid.errors.network).toBe(GRID_MESSAGES.startFailed);
    expect(en.bots.leverage.noExchange).toBe(DERIVATIVES_MESSAGES.leverageNoExchange);
    expect(String(en.bots.leverage.toast).replace('{{n}}', '{leverage}')).toBe(
      DERIVATIVES_MESSAGES.leverageConfigured,
    );
  });
});

describe('validateGridStart', () => {
  const ok: GridForm = {
    email: 'me@example.com',
    exchange: 'binance',
    pair: 'BTC/USDT',
    high: '105',
    low: '95',
    amount: '20',
    step: '0.5',
    profitCurrency: 'quote',
    connected: { binance: true },
  };
  it('checks in the spec order and names the first failing rule', () => {
    expect(validateGridStart(ok)).toBeNull();
    expect(validateGridStart({ ...ok, email: '', exchange: '' })).toBe('noSession');
    expect(validateGridStart({ ...ok, exchange: '', pair: '' })).toBe('noExchange');
    expect(validateGridStart({ ...ok, pair: ' ', high: '' })).toBe('noPair');
    for (const f of ['high', 'low', 'amount', 'step', 'profitCurrency'] as const) {
      expect(validateGridStart({ ...ok, [f]: '', low: f === 'low' ? '' : '200' })).toBe('incomplete');
    }
    expect(validateGridStart({ ...ok, low: '105', step: '0' })).toBe('lowNotBelowHigh');
    expect(validateGridStart({ ...ok, step: '0', connected: {} })).toBe('stepNotPositive');
    expect(validateGridStart({ ...ok, step: '-1' })).toBe('stepNotPositive');
    expect(validateGridStart({ ...ok, connected: { binance: false } })).toBe('notConnected');
  });
  it('fills ±5 % and a 0.5 % step from the price, and maps the venue symbol per market type', () => {
    expect(defaultRange(100)).toEqual({ high: '105', low: '95', step: '0.5' });
    expect(defaultRange(100_000)).toEqual({ high: '105000', low: '95000', step: '0.5' });
    expect(defaultRange(0.123456789)).toEqual({ high: '0.12962963', low: '0.11728395', step: '0.5' });
    expect(venueSymbol('BTC/USDT', 'spot')).toBe('BTC/USDT');
    expect(venueSymbol('BTC/USDT', 'margin')).toBe('BTC/USDT');
    expect(venueSymbol('BTC/USDT', 'perpetual')).toBe('BTC/USDT:USDT');
    expect(venueSymbol('BTC/USDT', 'inverse')).toBe('BTC/USD:BTC');
  });
  it('lists 19 exchanges, without Bybit_Testnet', () => {
    expect(GRID_EXCHANGES).toHaveLength(19);
    expect(GRID_EXCHANGES.map((e) => e.name as string)).not.toContain('Bybit_Testnet');
  });
});

describe('GridBotPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    // The notifications store outlives a test; what an earlier test showed would queue new ones.
    act(() => notifications.clean());
    chart.lines = [];
    chart.candles = 0;
  });

  it('draws the three panels; no chart until a pair is picked', async () => {
    renderApp(<GridBotPage />, { user, responses: responses() });
    expect(await screen.findByText('Real-Time Grid Data')).toBeTruthy();
    expect(screen.getByText('Grid Bot Settings')).toBeTruthy();
    expect(screen.getByTestId('grid-chart-empty').textContent).toBe('Select a pair to view chart');
    const options = within(screen.getByTestId('grid-exchange')).getAllByRole('option');
    expect(options).toHaveLength(20); // the placeholder and 19 exchanges
    expect(options.map((o) => o.textContent)).not.toContain('Bybit_Testnet');
    expect(screen.getByText('Start Grid Bot')).toBeTruthy();
  });

  it('says the session is not loaded when the user has no email', async () => {
    renderApp(<GridBotPage />, { user: { id: 'u1', email: '' }, responses: responses() });
    await userEvent.click(await screen.findByTestId('grid-start'));
    expect(await errorText()).toBe(MSG.session);
  });

  it('checks the start in the spec order with its messages', async () => {
    const starts: unknown[] = [];
    renderApp(<GridBotPage />, {
      user,
      responses: responses({
        '/api/estado_conexion': () => json({ conexiones: { binance: false } }),
        '/api/gridbot/start': (_u, init) => {
          starts.push(bodyOf(init));
          return json({ ok: true });
        },
      }),
    });
    const start = await screen.findByTestId('grid-start');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.exchange);
    // Choosing an unconnected exchange says so at once.
    await waitFor(() => expect(screen.queryByTestId('grid-exchange-badge')).toBeNull());
    setValue(screen.getByTestId('grid-exchange'), 'binance');
    await waitFor(async () => expect(await errorText()).toBe(MSG.notConnected));
    expect(screen.getByTestId('grid-exchange-badge').textContent).toBe('Not connected');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.pair);
    // Typing is not picking: the pair must come from the suggestions.
    setValue(screen.getByTestId('grid-pair'), 'btc');
    expect(screen.getByTestId<HTMLInputElement>('grid-pair').value).toBe('BTC');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.pair);
    await choosePair('binance');
    expect(screen.getByTestId<HTMLInputElement>('grid-low').value).toBe('95');
    expect(screen.getByTestId<HTMLInputElement>('grid-step').value).toBe('0.5');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.incomplete); // amount per level is empty
    setValue(screen.getByTestId('grid-amount'), '20');
    setValue(screen.getByTestId('grid-low'), '105');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.lowHigh);
    setValue(screen.getByTestId('grid-low'), '95,5');
    expect(screen.getByTestId<HTMLInputElement>('grid-low').value).toBe('95.5');
    setValue(screen.getByTestId('grid-step'), '0');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.step);
    setValue(screen.getByTestId('grid-step'), '0.5');
    fireEvent.click(start);
    expect(await errorText()).toBe(MSG.notConnected);
    expect(starts).toHaveLength(0);
  });

  it('starts a grid with the exact fields, and shows the server refusal, the failed answer and a network failure', async () => {
    const starts: Record<string, unknown>[] = [];
    let answer: () => Response | Promise<Response> = () => json({ ok: true });
    renderApp(<GridBotPage />, {
      user,
      responses: responses({
        '/api/gridbot/start': (_u, init) => {
          starts.push(bodyOf(init));
          return answer();
        },
      }),
    });
    await choosePair();
    setValue(screen.getByTestId('grid-amount'), '20');
    // Spot grids are long only.
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Neutral' }).disabled).toBe(true);
    setValue(screen.getByTestId('grid-market-type'), 'perpetual');
    await userEvent.click(screen.getByRole('radio', { name: 'Neutral' }));
    await userEvent.click(screen.getByRole('radio', { name: 'Base' }));
    await userEvent.click(screen.getByTestId('grid-start'));
    await waitFor(() => expect(starts).toHaveLength(1));
    expect(starts[0]).toEqual({
      user: 'me@example.com',
      exchange: 'binance',
      pair: 'BTC/USDT',
      marketType: 'perpetual',
      highPrice: 105,
      lowPrice: 95,
      amountPerLevel: 20,
      stepPercentage: 0.5,
      profitCurrency: 'base',
      position: 'neutral',
      leverage: 1,
    });
    expect(await screen.findByText('Grid bot started: BTC/USDT on Binance.')).toBeTruthy();
    expect(screen.queryByTestId('grid-form-error')).toBeNull();

    answer = () => json({ ok: false, error: 'Not enough USDT: the grid needs 200 USDT, free 10 USDT.' }, 400);
    await userEvent.click(screen.getByTestId('grid-start'));
    await waitFor(async () =>
      expect(await errorText()).toBe('Not enough USDT: the grid needs 200 USDT, free 10 USDT.'),
    );
    answer = () => json({ ok: false });
    await userEvent.click(screen.getByTestId('grid-start'));
    await waitFor(async () => expect(await errorText()).toBe('Error starting bot.'));
    answer = () => {
      throw new TypeError('Failed to fetch');
    };
    await userEvent.click(screen.getByTestId('grid-start'));
    await waitFor(async () => expect(await errorText()).toBe('Failed to start bot.'));
    expect(starts).toHaveLength(4);
  });

  it('adjusts leverage only with an exchange: − / + / input kept within 1–200, Cancel, Confirm and its toast', async () => {
    const sets: Record<string, unknown>[] = [];
    const starts: Record<string, unknown>[] = [];
    renderApp(<GridBotPage />, {
      user,
      responses: responses({
        '/api/set_leverage': (_u, init) => {
          sets.push(bodyOf(init));
          return json({ success: true, leverage: 1 });
        },
        '/api/gridbot/start': (_u, init) => {
          starts.push(bodyOf(init));
          return json({ ok: true });
        },
      }),
    });
    const btn = await screen.findByTestId('grid-leverage-btn');
    await userEvent.click(btn);
    expect(await errorText()).toBe(MSG.leverageNoExchange);
    expect(screen.queryByTestId('grid-leverage-dialog')).toBeNull();

    await choosePair();
    await userEvent.click(btn);
    expect(await screen.findByText('Adjust Leverage')).toBeTruthy();
    const input = screen.getByTestId<HTMLInputElement>('grid-leverage-input');
    expect(input.value).toBe('1');
    expect(screen.getByTestId<HTMLButtonElement>('grid-leverage-minus').disabled).toBe(true);
    await userEvent.click(screen.getByTestId('grid-leverage-plus'));
    await userEvent.click(screen.getByTestId('grid-leverage-plus'));
    expect(input.value).toBe('3');
    await userEvent.click(screen.getByTestId('grid-leverage-minus'));
    expect(input.value).toBe('2');
    await userEvent.click(screen.getByTestId('grid-leverage-cancel'));
    await waitFor(() => expect(screen.queryByTestId('grid-leverage-input')).toBeNull());
    expect(btn.textContent).toBe('Leverage: 1x');
    expect(sets).toHaveLength(0);

    await userEvent.click(btn);
    const input2 = await screen.findByTestId<HTMLInputElement>('grid-leverage-input');
    await userEvent.clear(input2);
    await userEvent.type(input2, '250');
    await waitFor(() => expect(input2.value).toBe('200'));
    expect(screen.getByTestId<HTMLButtonElement>('grid-leverage-plus').disabled).toBe(true);
    await userEvent.click(screen.getByTestId('grid-leverage-confirm'));
    expect(await screen.findByText('Leverage configured to 200x')).toBeTruthy();
    expect(btn.textContent).toBe('Leverage: 200x');
    await waitFor(() =>
      expect(sets).toEqual([
        { user_id: 'me@example.com', exchange: 'binance', symbol: 'BTC/USDT', leverage: 200 },
      ]),
    );
    setValue(screen.getByTestId('grid-amount'), '20');
    await userEvent.click(screen.getByTestId('grid-start'));
    await waitFor(() => expect(starts[0]?.leverage).toBe(200));
  });

  it('lists active grids and stops one: keep by default, Sell All when chosen, Cancel sends nothing', async () => {
    const stops: Record<string, unknown>[] = [];
    const bots: GridBotRow[] = [
      { id: 'g1', symbol: 'BTC/USDT', market_type: 'spot', pnl_quote: 0.1234 },
      { id: 'g2', symbol: 'ETH/USDT', market_type: 'perpetual', pnl_quote: -0.5 },
    ];
    renderApp(<GridBotPage />, {
      user,
      responses: responses(
        {
          '/api/gridbot/detener': (_u, init) => {
            stops.push(bodyOf(init));
            return json({ ok: true });
          },
        },
        bots,
      ),
    });
    const rows = await screen.findAllByTestId('grid-bot-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByTestId('grid-bot-pnl').textContent).toBe('0.1234 USDT');
    expect(within(rows[1]!).getByTestId('grid-bot-market').textContent).toBe('Perpetual');
    expect(within(rows[1]!).getByTestId('grid-bot-pnl').textContent).toBe('-0.5000 USDT');
    // Its profit as a percentage of what it commits (amount per level × levels) and its runtime.
    const boxes = within(rows[0]!).getAllByRole<HTMLInputElement>('checkbox');
    expect(boxes.map((b) => b.disabled)).toEqual([true, true]);

    await userEvent.click(within(rows[0]!).getByTestId('grid-bot-actions'));
    await userEvent.click(await screen.findByTestId('grid-bot-stop'));
    const keep = await screen.findByRole('radio', { name: 'Keep Assets & Close' });
    expect((keep as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Sell All to Market & Close' }).checked).toBe(
      false,
    );
    await userEvent.click(screen.getByTestId('grid-stop-cancel'));
    await userEvent.click(within(rows[0]!).getByTestId('grid-bot-actions'));
    await userEvent.click(await screen.findByTestId('grid-bot-stop'));
    await userEvent.click(await screen.findByTestId('grid-stop-confirm'));
    await waitFor(() => expect(stops).toEqual([{ grid_id: 'g1', vender: false }]));

    await userEvent.click(within(rows[1]!).getByTestId('grid-bot-actions'));
    await userEvent.click(await screen.findByTestId('grid-bot-stop'));
    await userEvent.click(await screen.findByRole('radio', { name: 'Sell All to Market & Close' }));
    await userEvent.click(screen.getByTestId('grid-stop-confirm'));
    await waitFor(() => expect(stops[1]).toEqual({ grid_id: 'g2', vender: true }));
    expect(await screen.findByText('Grid bot ETH/USDT stopped.')).toBeTruthy();
  });

  it("shows the user's closed grids from the server in History", async () => {
    const asked: Record<string, unknown>[] = [];
    renderApp(<GridBotPage />, {
      user,
      responses: responses({
        '/api/gridbot/historial': (_u, init) => {
          asked.push(bodyOf(init));
          return json({
            ok: true,
            history: [
              {
                id: 'h1',
                symbol: 'BTC/USDT',
                market_type: 'spot',
                exchange: 'binance',
                started_at: '2025-01-01T00:00:00Z',
                stopped_at: '2025-01-02T00:00:00Z',
                pnl_quote: 1.5,
                rounds: 7,
              },
            ],
          });
        },
      }),
    });
    await userEvent.click(await screen.findByTestId('grid-tab-history'));
    const row = await screen.findByTestId('grid-history-row');
    expect(within(row).getByTestId('grid-history-rounds').textContent).toBe('7');
    expect(within(row).getByTestId('grid-history-pnl').textContent).toBe('1.5000 USDT');
    expect(row.textContent).toContain('Binance');
    expect(asked).toEqual([{ user_id: 'me@example.com' }]);
  });

  it('charts the venue symbol with the high and low lines and every level', async () => {
    const candleSymbols: string[] = [];
    const levelBodies: Record<string, unknown>[] = [];
    const r = responses();
    renderApp(<GridBotPage />, {
      user,
      responses: {
        ...r,
        '/api/market/candles': (url, init) => {
          candleSymbols.push(url.searchParams.get('symbol') ?? '');
          return r['/api/market/candles']!(url, init);
        },
        '/api/gridbot/niveles': (url, init) => {
          levelBodies.push(bodyOf(init));
          return r['/api/gridbot/niveles']!(url, init);
        },
      },
    });
    setValue(await screen.findByTestId('grid-market-type'), 'perpetual');
    await choosePair();
    const legend = await screen.findByTestId('grid-chart-legend');
    await waitFor(() =>
      expect(legend.textContent).toBe('BTC/USDT:USDT · High 105 · Low 95 · 5 levels (2 buy, 2 sell)'),
    );
    await waitFor(() => expect(chart.lines).toHaveLength(7));
    expect(chart.lines.map((l) => l.price).sort((a, b) => a - b)).toEqual([
      95, 95, 97.5, 100, 102.5, 105, 105,
    ]);
    expect(chart.lines.filter((l) => l.title === 'Buy').map((l) => l.price)).toEqual([95, 97.5]);
    expect(chart.lines.filter((l) => l.title === 'High').map((l) => l.price)).toEqual([105]);
    expect(chart.candles).toBe(2);
    expect(candleSymbols).toContain('BTC/USDT:USDT');
    expect(levelBodies[0]).toEqual({
      exchange: 'binance',
      pair: 'BTC/USDT',
      price: 100,
      highPrice: 105,
      lowPrice: 95,
      stepPercentage: 0.5,
      marketType: 'perpetual',
    });
    // Venue-only symbols are not offered as pairs.
    setValue(screen.getByTestId('grid-pair'), 'BTC');
    const offered = (await screen.findAllByTestId('grid-pair-suggestion')).map((e) => e.textContent);
    expect(offered).toEqual(['BTC/USDT', 'ETH/BTC']);
  });

  it('charts a started grid from its own levels and open orders, with its PNL; a row picks a grid', async () => {
    const detail = (id: string, pnl: number): GridBotDetail => ({
      id,
      exchange: 'binance',
      symbol: 'BTC/USDT',
      market_type: 'spot',
      market_symbol: 'BTC/USDT',
      pnl_quote: pnl,
      quote: 'USDT',
      position: 'long',
      profit_currency: 'quote',
      low_price: 95,
      high_price: 105,
      step_percentage: 2.5,
      amount_per_level: 20,
      leverage: 1,
      levels: 5,
      open_buys: 2,
      open_sells: 1,
      base_held: 0.2,
      rounds: 3,
      status: 'active',
      problem: null,
      reason: null,
      started_at: '2025-01-01T00:00:00Z',
      level_prices: [95, 97.5, 100, 102.5, 105],
      orders: [
        { side: 'buy', price: 95, amount: 0.2 },
        { side: 'buy', price: 97.5, amount: 0.2 },
        { side: 'sell', price: 105, amount: 0.2 },
      ],
      price: 101,
      stopped_at: null,
      stop_reason: null,
    });
    const ID = '22222222-2222-4222-8222-222222222222';
    const OTHER = '33333333-3333-4333-8333-333333333333';
    renderApp(<GridBotPage />, {
      user,
      responses: responses(
        {
          '/api/gridbot/start': () => json({ ok: true, id: ID }),
          [`/api/gridbot/${ID}`]: () => json({ ok: true, bot: detail(ID, 0.1875) }),
          [`/api/gridbot/${OTHER}`]: () =>
            json({ ok: true, bot: { ...detail(OTHER, -1), symbol: 'ETH/USDT', market_symbol: 'ETH/USDT' } }),
        },
        [{ id: OTHER, symbol: 'ETH/USDT', market_type: 'spot', pnl_quote: -1 }],
      ),
    });
    await choosePair();
    setValue(screen.getByTestId('grid-amount'), '20');
    fireEvent.click(screen.getByTestId('grid-start'));
    const pnl = await screen.findByTestId('grid-chart-pnl');
    expect(pnl.textContent).toBe('PNL 0.1875 USDT · Rounds: 3');
    await waitFor(() =>
      expect(screen.getByTestId('grid-chart-legend').textContent).toBe(
        'BTC/USDT · High 105 · Low 95 · 5 levels (2 open buys, 1 open sells)',
      ),
    );
    await waitFor(() => expect(chart.lines).toHaveLength(7));
    expect(chart.lines.filter((l) => l.title === 'Sell').map((l) => l.price)).toEqual([105]);
    await userEvent.click(await screen.findByTestId('grid-bot-show'));
    await waitFor(() =>
      expect(screen.getByTestId('grid-chart-pnl').textContent).toBe('PNL -1.0000 USDT · Rounds: 3'),
    );
    expect(screen.getByTestId('grid-bot-row').dataset.selected).toBe('1');
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<GridBotPage />, { user, responses: responses() });
    expect(await screen.findByText('Configuración del Grid Bot')).toBeTruthy();
    expect(screen.getByText('Datos del Grid en tiempo real')).toBeTruthy();
    expect(screen.getByTestId('grid-chart-empty').textContent).toBe('Selecciona un par para ver el gráfico');
    await userEvent.click(screen.getByTestId('grid-start'));
    expect(await errorText()).toBe('Debes seleccionar un exchange.');
  });
});
