import {
  SPOT_MESSAGES,
  type SpotMarketResponse,
  type SpotOrderPreview,
  type SpotOrdersResponse,
  type SpotOrderView,
} from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import { TradingScreen, type TradingExtrasContext } from './TradingScreen';
import { setValue } from '../../../test/setValue';

/** lightweight-charts draws on a canvas happy-dom lacks: a stand-in records what it is given. */
const chart = vi.hoisted(() => ({ candles: 0, lines: [] as { price: number; title: string }[], markers: 0 }));
vi.mock('lightweight-charts', () => ({
  CandlestickSeries: { type: 'Candlestick' },
  ColorType: { Solid: 'solid' },
  LineStyle: { Solid: 0, Dotted: 1, Dashed: 2 },
  createSeriesMarkers: () => ({
    setMarkers: (m: unknown[]) => {
      chart.markers = m.length;
    },
  }),
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

const user = { id: 's1', email: 'support@example.com', isSupport: true, canTrade: true };
type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

const marketOf = (url: URL, over: Partial<SpotMarketResponse> = {}): SpotMarketResponse => {
  const symbol = url.searchParams.get('symbol') ?? 'BTC/USDT';
  const [base = 'BTC', quote = 'USDT'] = symbol.split(':')[0]!.split('/');
  return {
    success: true,
    exchange: url.searchParams.get('exchange') ?? 'binance',
    symbol,
    listed: base !== 'BYTX',
    base,
    quote,
    market: symbol.includes(':') ? 'swap' : 'spot',
    amount_step: 0.00001,
    price_step: 0.01,
    min_amount: 0.00001,
    min_cost: 5,
    taker: 0.001,
    maker: 0.001,
    max_leverage: symbol.includes(':') ? 125 : null,
    price: 100,
    base_free: 1,
    quote_free: 1000,
    ...over,
  };
};

/** 12 levels per side (the screen shows 10): asks 100.10 up, bids 99.90 down. */
const book = () => ({
  exchange: 'binance',
  symbol: 'BTC/USDT',
  asks: Array.from({ length: 12 }, (_, i) => [Number((100.1 + i * 0.1).toFixed(2)), 0.5 + i]),
  bids: Array.from({ length: 12 }, (_, i) => [Number((99.9 - i * 0.1).toFixed(2)), 1 + i]),
  timestamp: 1,
});

const order = (over: Partial<SpotOrderView> = {}): SpotOrderView => ({
  id: 'o1',
  exchange: 'binance',
  symbol: 'BTC/USDT',
  market: 'spot',
  side: 'buy',
  type: 'limit',
  price: 95,
  quantity: 0.5,
  filled: 0,
  average: null,
  cost: 0,
  fee: 0,
  fee_currency: null,
  status: 'open',
  reduce_only: false,
  tp: 110,
  sl: null,
  exit_state: 'waiting_entry',
  pnl: null,
  error: null,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
  ...over,
});

const previewOf = (b: Record<string, unknown>, price = 100): SpotOrderPreview => {
  const p = b.type === 'market' ? price : Number(b.price);
  const q = Number(b.quantity);
  const value = p * q;
  const [base = '', quote = ''] = String(b.symbol).split(':')[0]!.split('/');
  return {
    exchange: String(b.exchange),
    symbol: String(b.symbol),
    side: b.side as 'buy' | 'sell',
    type: b.type as 'limit' | 'market',
    price: p,
    quantity: q,
    value,
    fee: value * 0.004,
    net: value * 0.996,
    tp: (b.tp as number | null) ?? null,
    sl: (b.sl as number | null) ?? null,
    base,
    quote,
  };
};

function responses(over: Record<string, Handler> = {}, orders: Partial<SpotOrdersResponse> = {}) {
  let favorites = ['ADA/USDT'];
  return {
    '/api/exchanges/connections': () =>
      json({
        success: true,
        connections: [
          { exchange: 'binance', name: 'Binance', mode: 'paper', createdAt: '2025-01-01' },
          { exchange: 'bybit', name: 'Bybit', mode: 'live', createdAt: '2025-01-01' },
        ],
      }),
    '/api/market/pairs': (url: URL) =>
      json({
        exchange: url.searchParams.get('exchange'),
        pairs: ['ADA/USDT', 'BTC/USDC', 'BTC/USDT', 'ETH/USDT', 'SOL/USDT'],
      }),
    '/api/spot/favorites': (_u: URL, init?: RequestInit) => {
      if (init?.method === 'POST') {
        const b = bodyOf(init);
        favorites = b.favorite ? [...favorites, String(b.symbol)] : favorites.filter((f) => f !== b.symbol);
      }
      return json({ success: true, favorites });
    },
    '/api/spot/market': (url: URL) => json(marketOf(url)),
    '/api/market/orderbook': () => json(book()),
    '/api/market/candles': (url: URL) =>
      json({
        exchange: 'binance',
        symbol: url.searchParams.get('symbol'),
        timeframe: url.searchParams.get('timeframe'),
        candles: [
          [1_735_689_600_000, 99, 101, 98, 100, 1],
          [1_735_690_500_000, 100, 102, 99, 100.5, 1],
        ],
      }),
    '/api/spot/orders': () =>
      json({ success: true, open: [], recent: [], fills: [], ...orders } satisfies SpotOrdersResponse),
    '/api/dcas_actuales': () => json({ success: true, dcas: [] }),
    '/api/set_leverage': () =>
      json({ success: true, exchange: 'binance', symbol: 'BTC/USDT', leverage: 5, max_leverage: 125 }),
    ...over,
  };
}

const value = (id: string) => screen.getByTestId<HTMLInputElement>(id).value;
const type = (id: string, v: string) => setValue(screen.getByTestId(id), v);
const errorText = async () => (await screen.findByTestId('trade-order-error')).textContent;

/** The screen after the market facts arrived (the price is prefilled). */
async function ready() {
  await waitFor(() => expect(value('trade-order-price')).toBe('100'));
}

describe('TradingScreen', () => {
  let show: MockInstance<typeof notifications.show>;
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    act(() => notifications.clean());
    show = vi.spyOn(notifications, 'show');
    chart.candles = 0;
    chart.lines = [];
    chart.markers = 0;
  });
  afterEach(() => {
    show.mockRestore();
    vi.useRealTimers();
  });

  it('opens on BTC/USDT of the first connection: pairs, chart, a 10-level book, the panel', async () => {
    const { requestedPaths } = renderApp(<TradingScreen market="spot" />, { user, responses: responses() });
    expect((await screen.findByTestId('trade-symbol')).textContent).toBe('BTC/USDT');
    expect(screen.getByTestId('trade-title').textContent).toBe('Spot');
    expect(value('trade-exchange')).toBe('binance');
    const options = within(screen.getByTestId('trade-exchange')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Binance (paper)', 'Bybit']);
    await ready();
    expect(screen.getByTestId('trade-price').textContent).toBe('100.00');
    expect(screen.getByTestId('trade-available').textContent).toBe('1,000.00 USDT');

    await waitFor(() => expect(screen.getAllByTestId('trade-book-ask')).toHaveLength(10));
    expect(screen.getAllByTestId('trade-book-bid')).toHaveLength(10);
    // Asks read top down to the best (lowest); bids from the best (highest).
    const asks = screen.getAllByTestId('trade-book-ask').map((r) => Number(r.dataset.price));
    expect(asks[9]).toBe(100.1);
    expect(asks[0]).toBe(101);
    expect(Number(screen.getAllByTestId('trade-book-bid')[0]!.dataset.price)).toBe(99.9);
    expect(screen.getByTestId('trade-book-spread').textContent).toBe('Spread 0.20');
    // The book is one tab stop (the best bid); arrows move through the prices.
    const bestBid = screen.getAllByTestId('trade-book-bid')[0]!;
    expect(bestBid.tabIndex).toBe(0);
    expect(screen.getAllByTestId('trade-book-ask').every((r) => r.tabIndex === -1)).toBe(true);
    bestBid.focus();
    fireEvent.keyDown(bestBid, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(screen.getAllByTestId('trade-book-ask')[9]);

    const canvas = await screen.findByTestId('trade-chart-canvas');
    expect(canvas.dataset.candles).toBe('2');
    expect(screen.getByTestId('trade-tf-15M').getAttribute('aria-pressed')).toBe('true');
    expect(requestedPaths()).toContain('/api/market/candles');

    // Favourites float to the top; pairs the exchange does not list are marked.
    await waitFor(() => expect(screen.getAllByTestId('trade-pair')[0]!.dataset.symbol).toBe('ADA/USDT'));
    const bytx = screen.getAllByTestId('trade-pair').find((r) => r.dataset.symbol === 'BYTX/USDT')!;
    await waitFor(() => expect(bytx.dataset.listed).toBe('false'));
    expect(within(bytx).getByTestId('trade-pair-unlisted')).toBeTruthy();
    expect(screen.getByTestId('trade-orders-empty').textContent).toBe('No open orders on this pair.');
  });

  it('asks candles per timeframe (default 15M, then 1Mth as 1M)', async () => {
    const asked: string[] = [];
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({
        '/api/market/candles': (url) => {
          asked.push(url.searchParams.get('timeframe')!);
          return json({ exchange: 'binance', symbol: 'BTC/USDT', timeframe: '15m', candles: [] });
        },
      }),
    });
    await waitFor(() => expect(asked).toContain('15m'));
    fireEvent.click(screen.getByTestId('trade-tf-1Mth'));
    await waitFor(() => expect(asked).toContain('1M'));
    fireEvent.click(screen.getByTestId('trade-tf-1H'));
    await waitFor(() => expect(asked).toContain('1h'));
    expect(screen.getByTestId('trade-tf-1H').getAttribute('aria-pressed')).toBe('true');
  });

  it('remembers the exchange (tradeExchange), the pair (lastPair), the order type and TP/SL', async () => {
    localStorage.setItem('tradeExchange', 'bybit');
    localStorage.setItem('lastPair', JSON.stringify({ base: 'ETH', quote: 'USDT' }));
    localStorage.setItem('orderType', 'Market');
    localStorage.setItem('tpSlValues', JSON.stringify({ tp: '120', sl: '80' }));
    renderApp(<TradingScreen market="spot" />, { user, responses: responses() });
    expect((await screen.findByTestId('trade-symbol')).textContent).toBe('ETH/USDT');
    expect(value('trade-exchange')).toBe('bybit');
    expect(screen.getByTestId('trade-market-price')).toBeTruthy();
    expect(value('trade-order-tp')).toBe('120');
    expect(value('trade-order-sl')).toBe('80');

    setValue(screen.getByTestId('trade-exchange'), 'binance');
    expect(localStorage.getItem('tradeExchange')).toBe('binance');
    fireEvent.click(screen.getByTestId('trade-type-limit'));
    expect(localStorage.getItem('orderType')).toBe('Limit');
    type('trade-order-tp', '130');
    expect(JSON.parse(localStorage.getItem('tpSlValues')!)).toEqual({ tp: '130', sl: '80' });

    const sol = screen.getAllByTestId('trade-pair').find((r) => r.dataset.symbol === 'SOL/USDT')!;
    fireEvent.click(within(sol).getByTestId('trade-pair-select'));
    expect(JSON.parse(localStorage.getItem('lastPair')!)).toEqual({ base: 'SOL', quote: 'USDT' });
    fireEvent.click(screen.getByTestId('trade-quote-USDC'));
    expect(JSON.parse(localStorage.getItem('lastPair')!)).toEqual({ base: 'SOL', quote: 'USDC' });
    expect(screen.getByTestId('trade-symbol').textContent).toBe('SOL/USDC');
  });

  it('keeps favourites on the server: the star adds and removes them', async () => {
    const posts: Record<string, unknown>[] = [];
    const base = responses();
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: {
        ...base,
        '/api/spot/favorites': (u, init) => {
          if (init?.method === 'POST') posts.push(bodyOf(init));
          return base['/api/spot/favorites'](u, init);
        },
      },
    });
    await waitFor(() => expect(screen.getAllByTestId('trade-pair')[0]!.dataset.symbol).toBe('ADA/USDT'));
    const sol = () => screen.getAllByTestId('trade-pair').find((r) => r.dataset.symbol === 'SOL/USDT')!;
    fireEvent.click(within(sol()).getByTestId('trade-pair-star'));
    await waitFor(() => expect(sol().dataset.favorite).toBe('true'));
    expect(posts).toEqual([{ symbol: 'SOL/USDT', favorite: true }]);
    // Favourites in the coin order (SOL comes before ADA in the wallet list).
    expect(
      screen
        .getAllByTestId('trade-pair')
        .map((r) => r.dataset.symbol)
        .slice(0, 2),
    ).toEqual(['SOL/USDT', 'ADA/USDT']);
    fireEvent.click(within(sol()).getByTestId('trade-pair-star'));
    await waitFor(() => expect(sol().dataset.favorite).toBe('false'));
    expect(posts[1]).toEqual({ symbol: 'SOL/USDT', favorite: false });
  });

  it('a book price becomes the order price and switches to Limit', async () => {
    localStorage.setItem('orderType', 'Market');
    renderApp(<TradingScreen market="spot" />, { user, responses: responses() });
    const bid = (await screen.findAllByTestId('trade-book-bid'))[2]!;
    type('trade-order-quantity', '0.5');
    fireEvent.click(bid);
    expect(value('trade-order-price')).toBe('99.7');
    expect(value('trade-order-value')).toBe('49.85');
    expect(localStorage.getItem('orderType')).toBe('Limit');
    expect(screen.getByTestId('trade-type-limit').getAttribute('aria-pressed')).toBe('true');
  });

  it('the value (digits and one dot) sets the quantity from 6 up; the size buttons use the balance', async () => {
    renderApp(<TradingScreen market="spot" />, { user, responses: responses() });
    await ready();
    type('trade-order-value', '5a0');
    expect(value('trade-order-value')).toBe('50');
    expect(value('trade-order-quantity')).toBe('0.5');
    type('trade-order-quantity', '0.1');
    type('trade-order-value', '5');
    expect(value('trade-order-quantity')).toBe('0.1');
    fireEvent.click(screen.getByTestId('trade-pct-25'));
    // 25 % of 1000 USDT at 100.
    expect(value('trade-order-quantity')).toBe('2.5');
    expect(value('trade-order-value')).toBe('250');
    fireEvent.click(screen.getByTestId('trade-side-sell'));
    expect(screen.getByTestId('trade-available').textContent).toBe('1.000000 BTC');
    fireEvent.click(screen.getByTestId('trade-pct-100'));
    expect(value('trade-order-quantity')).toBe('1');
  });

  it('checks the order before calling, with the spec messages', async () => {
    const calls: unknown[] = [];
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({
        '/api/spot/order': (_u, init) => {
          calls.push(bodyOf(init));
          return json({ success: false, error: 'unexpected' }, 400);
        },
      }),
    });
    await ready();
    const submit = screen.getByTestId('trade-order-submit');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SPOT_MESSAGES.badQuantity);
    type('trade-order-price', '-1');
    type('trade-order-quantity', '1');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SPOT_MESSAGES.badLimitPrice);
    type('trade-order-price', '100');
    type('trade-order-tp', 'abc');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SPOT_MESSAGES.badTpSl);
    type('trade-order-tp', '99');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SPOT_MESSAGES.buyTpNotAbove);
    type('trade-order-tp', '');
    type('trade-order-quantity', '20');
    fireEvent.click(submit);
    expect(await errorText()).toBe('❌ Insufficient balance. Required: 2000.00, Available: 1000.00');
    expect(calls).toHaveLength(0);
  });

  it('says the market price is missing when the server has none', async () => {
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({ '/api/spot/market': (url) => json(marketOf(url, { price: null })) }),
    });
    await screen.findByTestId('trade-available');
    fireEvent.click(screen.getByTestId('trade-type-market'));
    type('trade-order-quantity', '1');
    fireEvent.click(screen.getByTestId('trade-order-submit'));
    expect(await errorText()).toBe('❌ Failed to fetch market price.');
  });

  it('buys: dry_run preview in the dialog, Enter confirms, the toast (3 s), orders and balance reload', async () => {
    const calls: Record<string, unknown>[] = [];
    let placed = false;
    let marketCalls = 0;
    const base = responses();
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: {
        ...base,
        '/api/spot/market': (url) => {
          marketCalls += 1;
          return json(marketOf(url, placed ? { quote_free: 950.2 } : {}));
        },
        '/api/spot/order': (_u, init) => {
          const b = bodyOf(init);
          calls.push(b);
          if (b.dry_run) return json({ success: true, message: 'preview', preview: previewOf(b) });
          placed = true;
          return json({
            success: true,
            message: '✅ Order placed: buy 0.49750 BTC at 99.90 USDT.',
            order: order({ price: 99.9, quantity: 0.4975 }),
          });
        },
        '/api/spot/orders': () =>
          json({
            success: true,
            open: placed ? [order({ price: 99.9, quantity: 0.4975 })] : [],
            recent: [],
            fills: [],
          }),
      },
    });
    await ready();
    const bid = (await screen.findAllByTestId('trade-book-bid'))[0]!;
    fireEvent.click(bid);
    type('trade-order-quantity', '0.497509');
    type('trade-order-tp', '110.006');
    fireEvent.click(screen.getByTestId('trade-order-submit'));

    const ok = await screen.findByTestId('trade-confirm-ok');
    expect(calls[0]).toEqual({
      exchange: 'binance',
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      price: 99.9,
      quantity: 0.4975,
      tp: 110.01,
      sl: null,
      dry_run: true,
    });
    expect(screen.getByTestId('trade-confirm-quantity').textContent).toBe('0.497500');
    // 99.9 × 0.4975 = 49.70025; fee 0.198801; net 49.50145.
    expect(screen.getByTestId('trade-confirm-value').textContent).toBe('49.70');
    expect(screen.getByTestId('trade-confirm-fee').textContent).toBe('0.20');
    expect(screen.getByTestId('trade-confirm-net').textContent).toBe('49.50');
    const before = marketCalls;

    fireEvent.keyDown(ok, { key: 'Enter' });
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toEqual({
      exchange: 'binance',
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      price: 99.9,
      quantity: 0.4975,
      tp: 110.01,
      sl: null,
    });
    await waitFor(() =>
      expect(show).toHaveBeenCalledWith(
        expect.objectContaining({
          // The server's 'buy' as the screen names the side.
          message: '✅ Order placed: Buy 0.49750 BTC at 99.90 USDT.',
          autoClose: 3000,
          'data-testid': 'trade-toast',
        }),
      ),
    );
    await waitFor(() => expect(screen.queryByTestId('trade-confirm-ok')).toBeNull());
    const row = await screen.findByTestId('trade-open-order');
    expect(row.dataset.status).toBe('open');
    expect(within(row).getByTestId('trade-order-cancel').textContent).toBe('Cancel');
    await waitFor(() => expect(marketCalls).toBeGreaterThan(before));
    await waitFor(() => expect(screen.getByTestId('trade-available').textContent).toBe('950.20 USDT'));
    expect(value('trade-order-quantity')).toBe('');
  });

  it('Escape cancels the dialog and nothing is placed', async () => {
    const calls: Record<string, unknown>[] = [];
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({
        '/api/spot/order': (_u, init) => {
          const b = bodyOf(init);
          calls.push(b);
          return json({ success: true, message: 'preview', preview: previewOf(b) });
        },
      }),
    });
    await ready();
    fireEvent.click(screen.getByTestId('trade-type-market'));
    type('trade-order-quantity', '0.1');
    fireEvent.click(screen.getByTestId('trade-order-submit'));
    const ok = await screen.findByTestId('trade-confirm-ok');
    expect(calls[0]).toMatchObject({ type: 'market', quantity: 0.1, dry_run: true });
    expect(calls[0]).not.toHaveProperty('price');
    fireEvent.keyDown(ok, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('trade-confirm-ok')).toBeNull());
    expect(calls).toHaveLength(1);
  });

  it('shows the server refusal and the exchange reason', async () => {
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({
        '/api/spot/order': (_u, init) => {
          const b = bodyOf(init);
          if (b.dry_run) return json({ success: true, message: 'preview', preview: previewOf(b) });
          return json(
            {
              success: false,
              error: SPOT_MESSAGES.executeFailed,
              reason: 'Account has insufficient balance',
            },
            422,
          );
        },
      }),
    });
    await ready();
    type('trade-order-quantity', '0.1');
    fireEvent.click(screen.getByTestId('trade-order-submit'));
    fireEvent.click(await screen.findByTestId('trade-confirm-ok'));
    expect(await errorText()).toBe('❌ Failed to execute order.');
    expect(screen.getByTestId('trade-order-reason').textContent).toBe('Account has insufficient balance');
  });

  it('a server check refused at dry_run shows its text (in Spanish too)', async () => {
    await i18n.changeLanguage('es');
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({
        '/api/spot/order': () =>
          json(
            {
              success: false,
              error: '❌ You already have 100 open orders. Cancel one before placing another.',
            },
            429,
          ),
      }),
    });
    await ready();
    type('trade-order-quantity', '0.1');
    fireEvent.click(screen.getByTestId('trade-order-submit'));
    expect(await errorText()).toBe('❌ Ya tienes 100 órdenes abiertas. Cancela una antes de colocar otra.');
    await i18n.changeLanguage('en');
  });

  it('cancels an open order, lists recent orders and fills', async () => {
    const deleted: string[] = [];
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses(
        {
          '/api/spot/orders/o2': (_u, init) => {
            deleted.push(init?.method ?? '');
            return json({ success: true, message: SPOT_MESSAGES.exitsCancelled, order: order({ id: 'o2' }) });
          },
        },
        {
          open: [
            order(),
            order({ id: 'o2', status: 'filled', filled: 0.5, average: 95, exit_state: 'active' }),
            order({ id: 'f1', market: 'swap', symbol: 'BTC/USDT:USDT' }),
          ],
          recent: [order({ id: 'o3', status: 'rejected', error: 'Insufficient funds' })],
          fills: [
            {
              id: 'c1',
              order_id: 'o2',
              symbol: 'BTC/USDT',
              side: 'buy',
              role: 'entry',
              price: 95,
              quantity: 0.5,
              value: 47.5,
              fee: 0.0005,
              fee_currency: 'BTC',
              time: '2025-01-01T00:16:00.000Z',
            },
          ],
        },
      ),
    });
    const rows = await screen.findAllByTestId('trade-open-order');
    // The futures order is the other screen's.
    expect(rows.map((r) => r.dataset.id)).toEqual(['o1', 'o2']);
    expect(screen.getByTestId('trade-orders-tab-open').textContent).toBe('Open orders (2)');
    expect(within(rows[1]!).getByTestId('trade-order-cancel').textContent).toBe('Cancel TP/SL');
    fireEvent.click(within(rows[1]!).getByTestId('trade-order-cancel'));
    await waitFor(() => expect(deleted).toEqual(['DELETE']));
    await waitFor(() =>
      expect(show).toHaveBeenCalledWith(
        expect.objectContaining({ message: SPOT_MESSAGES.exitsCancelled, autoClose: 3000 }),
      ),
    );
    // Trade History: the fill is a marker on its candle.
    await waitFor(() => expect(chart.markers).toBe(1));

    fireEvent.click(screen.getByTestId('trade-orders-tab-recent'));
    const recent = await screen.findByTestId('trade-recent-order');
    expect(recent.dataset.status).toBe('rejected');
    expect(within(recent).getByTestId('trade-recent-error').textContent).toBe('Insufficient funds');
    fireEvent.click(screen.getByTestId('trade-orders-tab-fills'));
    const fill = await screen.findByTestId('trade-fill');
    expect(fill.dataset.role).toBe('entry');
    expect(fill.textContent).toContain('0.500000');
    expect(fill.textContent).toContain('0.000500 BTC');
  });

  it('the chart menu: TP and SL lines at the panel values, each with a 30 s counter', async () => {
    renderApp(<TradingScreen market="spot" />, { user, responses: responses() });
    await ready();
    type('trade-order-tp', '110');
    type('trade-order-sl', '90');
    await screen.findByTestId('trade-chart-canvas');
    fireEvent.click(screen.getByTestId('trade-chart-settings'));
    const tp = await screen.findByTestId('trade-chart-toggle-tp');
    expect(screen.getByTestId<HTMLInputElement>('trade-chart-toggle-history').checked).toBe(true);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(tp);
    expect(screen.getByTestId('trade-chart-counter-tp').textContent).toBe('30 s');
    await waitFor(() => expect(chart.lines.map((l) => l.price)).toEqual([110]));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_000);
    });
    fireEvent.click(screen.getByTestId('trade-chart-toggle-sl'));
    expect(screen.getByTestId('trade-chart-counter-sl').textContent).toBe('30 s');
    const tpLeft = Number(screen.getByTestId('trade-chart-counter-tp').textContent.split(' ')[0]);
    expect(tpLeft).toBeLessThanOrEqual(20);
    await waitFor(() => expect(chart.lines.map((l) => l.price).sort((a, b) => a - b)).toEqual([90, 110]));
    for (let i = 0; i < 21; i += 1) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(1_000);
      });
    }
    // TP switched itself off at 0; SL still counts.
    expect(screen.queryByTestId('trade-chart-counter-tp')).toBeNull();
    expect(screen.getByTestId<HTMLInputElement>('trade-chart-toggle-tp').checked).toBe(false);
    expect(screen.getByTestId('trade-chart-counter-sl')).toBeTruthy();
    expect(chart.lines.map((l) => l.price)).toEqual([90]);
  });

  it('futures: Long / Short, Reduce-only, the swap symbol, margin at the leverage, and the extras', async () => {
    const calls: Record<string, unknown>[] = [];
    const extras: TradingExtrasContext[] = [];
    renderApp(
      <TradingScreen
        market="swap"
        renderExtras={(ctx) => {
          extras.push(ctx);
          return <div data-testid="extras-probe">{ctx.symbol}</div>;
        }}
      />,
      {
        user,
        responses: responses({
          '/api/spot/order': (_u, init) => {
            const b = bodyOf(init);
            calls.push(b);
            return json({ success: true, message: 'preview', preview: previewOf(b) });
          },
        }),
      },
    );
    expect((await screen.findByTestId('trade-symbol')).textContent).toBe('BTC/USDT:USDT');
    expect(screen.getByTestId('trade-title').textContent).toBe('Futures');
    await ready();
    expect(screen.getByTestId('trade-side-buy').textContent).toBe('Long');
    expect(screen.getByTestId('trade-side-sell').textContent).toBe('Short');
    expect(screen.getByTestId('trade-order-panel').dataset.market).toBe('swap');
    expect((await screen.findByTestId('extras-probe')).textContent).toBe('BTC/USDT:USDT');
    expect(extras.at(-1)).toMatchObject({ exchange: 'binance', symbol: 'BTC/USDT:USDT', price: 100 });
    await waitFor(() => expect(screen.getByTestId('trade-leverage').textContent).toBe('5x'));

    // 100 % of 1000 USDT at 5x and 100 → 50.
    fireEvent.click(screen.getByTestId('trade-pct-100'));
    expect(value('trade-order-quantity')).toBe('50');
    type('trade-order-quantity', '60');
    fireEvent.click(screen.getByTestId('trade-side-sell'));
    fireEvent.click(screen.getByTestId('trade-order-submit'));
    // 60 × 100 / 5 = 1200 of margin.
    expect(await errorText()).toBe('❌ Insufficient balance. Required: 1200.00, Available: 1000.00');
    fireEvent.click(screen.getByTestId('trade-order-reduce-only'));
    fireEvent.click(screen.getByTestId('trade-order-submit'));
    await screen.findByTestId('trade-confirm-ok');
    expect(calls[0]).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      side: 'sell',
      quantity: 60,
      reduce_only: true,
      dry_run: true,
    });
    expect(screen.getByTestId('trade-confirm-side').textContent).toBe('Short');
    expect(screen.getByTestId('trade-confirm-reduce-only')).toBeTruthy();
  });

  it('says to connect an exchange when none is', async () => {
    renderApp(<TradingScreen market="spot" />, {
      user,
      responses: responses({
        '/api/exchanges/connections': () => json({ success: true, connections: [] }),
      }),
    });
    expect((await screen.findByTestId('trade-no-exchange')).textContent).toContain(
      'No exchange is connected',
    );
  });
});
