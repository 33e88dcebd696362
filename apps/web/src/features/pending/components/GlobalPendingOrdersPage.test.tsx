import { PENDING_MESSAGES, PENDING_SPLASH_MS, type PendingOrderView } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { GlobalPendingOrdersPage } from './GlobalPendingOrdersPage';
import { setValue } from '../../../../test/setValue';

const user = { id: 'u1', email: 'me@example.com' };
type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;

const order = (over: Partial<PendingOrderView> & { id: string }): PendingOrderView => ({
  bot_id: 'bot-1',
  kind: 'grid-dca',
  created_at: '2025-01-01T00:00:00Z',
  exchange: 'binance',
  symbol: 'BTC/USDT',
  entry_price: 100,
  limit_price: 101,
  amount_quote: 20,
  amount_base: 0.2,
  qty: 0.2,
  quote: 'USDT',
  status: 'open',
  tp_pct: 1,
  result: 0,
  drawdown_pct: 0,
  auto_fund: false,
  auto_fund_steps: 0,
  busy: null,
  closed_at: null,
  sell_price: null,
  ...over,
});

/** Open BTC lot (drawdown −7 % from the records: yellow), open ETH lot with no bot TP (red), one sale. */
const btc = order({
  id: 'b1-1',
  created_at: '2025-01-03T10:00:00Z',
  entry_price: 100000,
  limit_price: 101000,
  amount_quote: 20,
  qty: 0.0002,
  result: -1.4,
  drawdown_pct: -2,
});
const eth = order({
  id: 'b2-1',
  bot_id: 'bot-2',
  exchange: 'bybit',
  symbol: 'ETH/USDT',
  created_at: '2025-01-01T10:00:00Z',
  entry_price: 3000,
  limit_price: 0,
  tp_pct: null,
  amount_quote: 60,
  qty: 0.02,
  result: -7.2,
  drawdown_pct: -12,
});
const sol = order({
  id: 'b3-1#b3-2',
  bot_id: 'bot-3',
  symbol: 'SOL/USDT',
  created_at: '2025-01-02T10:00:00Z',
  closed_at: '2025-01-04T10:00:00Z',
  entry_price: 140,
  limit_price: 150,
  sell_price: 150,
  amount_quote: 30,
  status: 'completed',
  result: 2.1,
  drawdown_pct: null,
});

const filler = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    order({
      id: `f-${i}`,
      symbol: 'XRP/USDT',
      created_at: new Date(Date.UTC(2024, 11, 1, 0, i)).toISOString(),
      entry_price: 1 + i / 100,
      drawdown_pct: -1,
    }),
  );

const listAnswer = (orders: PendingOrderView[], over: Record<string, unknown> = {}) => ({
  success: true,
  orders,
  rows: orders,
  page: 1,
  pages: 1,
  total: orders.length,
  summary: {
    open: orders.filter((o) => o.status === 'open').length,
    completed: orders.filter((o) => o.status === 'completed').length,
    completed_pnl: orders.filter((o) => o.status === 'completed').reduce((s, o) => s + (o.result ?? 0), 0),
  },
  ...over,
});

function responses(orders: PendingOrderView[] = [btc, eth, sol], over: Record<string, Handler> = {}) {
  const base: Record<string, Handler> = {
    '/api/dca/pending_orders': () => json(listAnswer(orders)),
    '/api/pending/drawdowns/refresh': () => json({ success: true, by_id: {} }),
    '/api/pending/drawdowns': () =>
      json({
        success: true,
        by_id: { 'b1-1': { pct: -7, enabled: false }, 'b2-1': { pct: -12, enabled: true } },
      }),
  };
  return { ...base, ...over };
}

const bodiesOf = (fetchMock: ReturnType<typeof renderApp>['fetchMock'], path: string) =>
  fetchMock.mock.calls
    .filter(([input]) => new URL(String(input instanceof Request ? input.url : input)).pathname === path)
    .map(
      ([, init]) => JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>,
    );
const urlsTo = (fetchMock: ReturnType<typeof renderApp>['fetchMock'], path: string) =>
  fetchMock.mock.calls
    .map(([input]) => new URL(String(input instanceof Request ? input.url : input)))
    .filter((u) => u.pathname === path);

const bodyOf = (init?: RequestInit): unknown => JSON.parse(typeof init?.body === 'string' ? init.body : '{}');
const hrefOf = (input: RequestInfo | URL) =>
  input instanceof Request ? input.url : input instanceof URL ? input.href : input;

const rowIds = () => screen.queryAllByTestId('gp-row').map((r) => r.getAttribute('data-id'));
const rowOf = (id: string) => screen.getAllByTestId('gp-row').find((r) => r.getAttribute('data-id') === id)!;

// Long click-through flows: room for a busy 2-core machine.
describe('GlobalPendingOrdersPage', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    // Toasts live in a global store (5 shown at a time): start every test without the last one's.
    act(() => notifications.clean());
  });

  it('lists every order (status=all, 200 a call), merges the drawdowns by id and colours them', async () => {
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, { user, responses: responses() });
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    // Default sort: date, newest first (a completed row dates from its sale).
    expect(rowIds()).toEqual(['b3-1#b3-2', 'b1-1', 'b2-1']);
    expect(screen.queryByTestId('gp-splash')).toBeNull();

    const [list] = urlsTo(fetchMock, '/api/dca/pending_orders');
    expect(Object.fromEntries(list!.searchParams)).toEqual({
      user_id: 'me@example.com',
      page: '1',
      per_page: '200',
      status: 'all',
    });
    await waitFor(() =>
      expect(bodiesOf(fetchMock, '/api/pending/drawdowns/refresh')).toEqual([
        { user_id: 'me@example.com', ids: ['b1-1', 'b2-1'] },
      ]),
    );
    expect(urlsTo(fetchMock, '/api/pending/drawdowns')[0]?.searchParams.get('user_id')).toBe(
      'me@example.com',
    );

    // The records' −7 % replaces the row's −2 %: yellow; −12 % red; the sale has none.
    await waitFor(() =>
      expect(within(rowOf('b1-1')).getByTestId('gp-cell-drawdown').textContent).toBe('-7.00 %'),
    );
    const btcDd = within(rowOf('b1-1')).getByTestId('gp-cell-drawdown');
    expect(btcDd.classList.contains('gp-dd-warn')).toBe(true);
    const ethDd = within(rowOf('b2-1')).getByTestId('gp-cell-drawdown');
    expect(ethDd.classList.contains('gp-dd-alert')).toBe(true);
    expect(within(rowOf('b3-1#b3-2')).getByTestId('gp-cell-drawdown').classList.contains('gp-dd-none')).toBe(
      true,
    );
    // Amount-weighted total of the open rows: (−7 × 20 + −12 × 60) / 80 = −10.75 % → red.
    const total = screen.getByTestId('gp-drawdown-total');
    expect(total.textContent).toBe('-10.75 %');
    expect(total.classList.contains('gp-dd-alert')).toBe(true);
    // Auto-fund state from the records.
    expect(within(rowOf('b2-1')).getByTestId('gp-autofund').getAttribute('data-enabled')).toBe('true');
    expect(within(rowOf('b1-1')).getByTestId('gp-autofund').textContent).toContain('OFF');

    // Unknown bot TP: 2 % assumed, limit derived from the entry (3000 × 1.02).
    expect(within(rowOf('b2-1')).getByTestId('gp-cell-limit').textContent).toContain('3,060.00');
    expect(within(rowOf('b2-1')).getByTestId('gp-tp-pct').textContent).toBe('TP 2 % (assumed)');
    expect(within(rowOf('b1-1')).getByTestId('gp-tp-pct').textContent).toBe('TP 1 %');

    expect(screen.getByTestId('gp-completed-pnl').textContent).toBe('2.10');
    expect(screen.getByTestId('gp-count-open').textContent).toBe('Open: 2');
    expect(screen.getByTestId('gp-count-completed').textContent).toBe('Completed: 1');
    expect(within(rowOf('b1-1')).getByTestId('gp-cell-exchange').textContent).toBe('Binance');

    // Completed rows offer no action at all (no Sell, Add funds, Delete or Auto-fund, not even greyed).
    const done = within(rowOf('b3-1#b3-2'));
    for (const name of ['gp-sell', 'gp-funds', 'gp-delete', 'gp-autofund']) {
      expect(done.queryByTestId(name), name).toBeNull();
    }
    expect(done.getByTestId('gp-no-actions').textContent).toBe('Completed: no actions');
    expect(done.queryByTestId('gp-in-wait')).toBeNull();
    expect(within(rowOf('b1-1')).getByTestId<HTMLButtonElement>('gp-sell').disabled).toBe(false);
    // The open state reads 'Open' / 'in wait' (spec part 2 §4).
    expect(within(rowOf('b1-1')).getByTestId('gp-state').textContent).toBe('Open');
    expect(within(rowOf('b1-1')).getByTestId('gp-in-wait').textContent).toBe('in wait');
    await i18n.changeLanguage('es');
    expect((await within(rowOf('b1-1')).findByTestId('gp-in-wait')).textContent).toBe('en espera');
    expect(within(rowOf('b3-1#b3-2')).getByTestId('gp-no-actions').textContent).toBe(
      'Completada: sin acciones',
    );
    await i18n.changeLanguage('en');
  });

  it('colours the drawdown total yellow between −6 % and −10 %, plain above', async () => {
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses(
        [btc, order({ id: 'x', symbol: 'XRP/USDT', drawdown_pct: -3, amount_quote: 20 })],
        {
          '/api/pending/drawdowns': () =>
            json({
              success: true,
              by_id: { 'b1-1': { pct: -9, enabled: false }, x: { pct: -5, enabled: false } },
            }),
        },
      ),
    });
    await waitFor(() => expect(screen.getByTestId('gp-drawdown-total').textContent).toBe('-7.00 %'));
    expect(screen.getByTestId('gp-drawdown-total').classList.contains('gp-dd-warn')).toBe(true);
    setValue(screen.getByTestId('gp-filter-pair'), 'BTC/USDT');
    // Only the BTC lot is shown: −9 %.
    expect(screen.getByTestId('gp-drawdown-total').textContent).toBe('-9.00 %');
    setValue(screen.getByTestId('gp-filter-pair'), '');
    const x = within(rowOf('x')).getByTestId('gp-cell-drawdown');
    expect(x.classList.contains('gp-dd-ok')).toBe(true);
  });

  it('sorts by a column both ways with an indicator', async () => {
    renderApp(<GlobalPendingOrdersPage />, { user, responses: responses() });
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    const entry = screen.getByTestId('gp-sort-entry');
    await userEvent.click(entry);
    expect(entry.getAttribute('data-sort')).toBe('asc');
    expect(screen.getByTestId('gp-th-entry').getAttribute('aria-sort')).toBe('ascending');
    expect(within(entry).getByTestId('gp-sort-indicator').textContent).toBe('▲');
    expect(rowIds()).toEqual(['b3-1#b3-2', 'b2-1', 'b1-1']);
    await userEvent.click(entry);
    expect(entry.getAttribute('data-sort')).toBe('desc');
    expect(within(entry).getByTestId('gp-sort-indicator').textContent).toBe('▼');
    expect(rowIds()).toEqual(['b1-1', 'b2-1', 'b3-1#b3-2']);
    expect(screen.getByTestId('gp-sort-date').getAttribute('data-sort')).toBe('none');

    await userEvent.click(screen.getByTestId('gp-sort-pair'));
    expect(rowIds()).toEqual(['b1-1', 'b2-1', 'b3-1#b3-2']);
    await userEvent.click(screen.getByTestId('gp-sort-pair'));
    expect(rowIds()).toEqual(['b3-1#b3-2', 'b2-1', 'b1-1']);

    // Drawdown: the sale (no drawdown) stays last both ways.
    await userEvent.click(screen.getByTestId('gp-sort-drawdown'));
    await waitFor(() => expect(rowIds()).toEqual(['b2-1', 'b1-1', 'b3-1#b3-2']));
    await userEvent.click(screen.getByTestId('gp-sort-drawdown'));
    expect(rowIds()).toEqual(['b1-1', 'b2-1', 'b3-1#b3-2']);
  });

  it('filters by state, exchange and pair', async () => {
    renderApp(<GlobalPendingOrdersPage />, { user, responses: responses() });
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    const state = screen.getByTestId('gp-filter-state');
    setValue(state, 'completed');
    expect(rowIds()).toEqual(['b3-1#b3-2']);
    expect(within(rowOf('b3-1#b3-2')).getByTestId('gp-state').textContent).toBe('Completed');
    setValue(state, 'open');
    expect(rowIds()).toEqual(['b1-1', 'b2-1']);
    setValue(screen.getByTestId('gp-filter-exchange'), 'bybit');
    expect(rowIds()).toEqual(['b2-1']);
    expect([...screen.getByTestId<HTMLSelectElement>('gp-filter-pair').options].map((o) => o.value)).toEqual([
      '',
      'ETH/USDT',
    ]);
    setValue(screen.getByTestId('gp-filter-exchange'), 'binance');
    setValue(state, 'open');
    setValue(screen.getByTestId('gp-filter-pair'), 'SOL/USDT');
    expect(rowIds()).toEqual([]);
    expect(screen.getByTestId('gp-empty').textContent).toBe('No pending orders.');
    await userEvent.click(screen.getByTestId('gp-filter-clear'));
    expect(rowIds()).toHaveLength(3);
  });

  it('pages 20 rows by default, and 10, 30 or 50 on choice', async () => {
    renderApp(<GlobalPendingOrdersPage />, { user, responses: responses(filler(45)) });
    await waitFor(() => expect(rowIds()).toHaveLength(20));
    const size = screen.getByTestId<HTMLSelectElement>('gp-page-size');
    expect(size.value).toBe('20');
    expect([...size.options].map((o) => o.value)).toEqual(['10', '20', '30', '50']);
    expect(screen.getByTestId('gp-page-info').textContent).toBe('Page 1 of 3 · 45 orders');
    const pager = screen.getByTestId('gp-pager');
    await userEvent.click(within(pager).getByText('3'));
    expect(rowIds()).toHaveLength(5);
    setValue(size, '10');
    expect(rowIds()).toHaveLength(10);
    expect(screen.getByTestId('gp-page-info').textContent).toBe('Page 1 of 5 · 45 orders');
    setValue(size, '30');
    expect(rowIds()).toHaveLength(30);
    setValue(size, '50');
    expect(rowIds()).toHaveLength(45);
    expect(screen.queryByTestId('gp-pager')).toBeNull();
  });

  it('loops over the server pages', async () => {
    const all = filler(5);
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses(all, {
        '/api/dca/pending_orders': (url) => {
          const page = Number(url.searchParams.get('page'));
          return json(listAnswer(all.slice((page - 1) * 2, page * 2), { page, pages: 3 }));
        },
      }),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(5));
    expect(urlsTo(fetchMock, '/api/dca/pending_orders').map((u) => u.searchParams.get('page'))).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('sells after the confirmation, toasts and reloads; a refusal toasts "No se pudo vender"', async () => {
    let sold = false;
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([btc, eth, sol], {
        '/api/dca/pending_orders': () =>
          json(
            listAnswer(
              sold
                ? [eth, sol, { ...btc, status: 'completed', closed_at: '2025-01-05T00:00:00Z' }]
                : [btc, eth, sol],
            ),
          ),
        '/api/dca/pending_orders/sell': (_u, init) => {
          const body = bodyOf(init) as { id: string };
          if (body.id === 'b2-1') return json({ success: false, error: 'Exchange down' }, 502);
          sold = true;
          return json({ success: true, row: btc, message: 'ok' });
        },
      }),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-sell'));
    const confirm = await screen.findByTestId('gp-confirm');
    expect(within(confirm).getByTestId('gp-confirm-text').textContent).toContain('BTC/USDT');
    // Cancel sends nothing.
    await userEvent.click(within(confirm).getByTestId('gp-confirm-no'));
    expect(bodiesOf(fetchMock, '/api/dca/pending_orders/sell')).toEqual([]);

    const listCalls = urlsTo(fetchMock, '/api/dca/pending_orders').length;
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-sell'));
    await userEvent.click(await screen.findByTestId('gp-confirm-yes'));
    expect(await screen.findByText('Order sold (IOC) ✅')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/dca/pending_orders/sell')).toEqual([
      { user_id: 'me@example.com', id: 'b1-1' },
    ]);
    await waitFor(() =>
      expect(urlsTo(fetchMock, '/api/dca/pending_orders').length).toBeGreaterThan(listCalls),
    );
    await waitFor(() => expect(rowOf('b1-1').getAttribute('data-status')).toBe('completed'));

    await userEvent.click(within(rowOf('b2-1')).getByTestId('gp-sell'));
    await userEvent.click(await screen.findByTestId('gp-confirm-yes'));
    expect(await screen.findByText('Could not sell')).toBeTruthy();
    expect(screen.getByText('❌ Could not sell: Exchange down')).toBeTruthy();
  });

  it('validates the add-funds amount before sending (digits only, up to 4, above 0)', async () => {
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([btc], {
        '/api/dca/pending_orders/add_funds': () => json({ success: true, row: btc }),
      }),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(1));
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-funds'));
    const input = await screen.findByTestId('gp-funds-input');
    for (const bad of ['12345', '1.5', 'abc', '0', '']) {
      setValue(input, bad);
      await userEvent.click(screen.getByTestId('gp-funds-confirm'));
      expect(screen.getByTestId('gp-funds-error').textContent).toBe('Enter a valid amount (up to 4 digits).');
    }
    expect(bodiesOf(fetchMock, '/api/dca/pending_orders/add_funds')).toEqual([]);
    setValue(input, '25');
    expect(screen.queryByTestId('gp-funds-error')).toBeNull();
    await userEvent.click(screen.getByTestId('gp-funds-confirm'));
    expect(await screen.findByText('Funds added successfully ✅')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/dca/pending_orders/add_funds')).toEqual([
      { user_id: 'me@example.com', id: 'b1-1', amount_quote: 25 },
    ]);
  });

  it("shows the server's refusal of an amount in the dialog", async () => {
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([btc], {
        '/api/dca/pending_orders/add_funds': () =>
          json({ success: false, error: PENDING_MESSAGES.badAmount }, 400),
      }),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(1));
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-funds'));
    setValue(await screen.findByTestId('gp-funds-input'), '9999');
    await userEvent.click(screen.getByTestId('gp-funds-confirm'));
    expect((await screen.findByTestId('gp-funds-error')).textContent).toBe(
      'Enter a valid amount (up to 4 digits).',
    );
  });

  it('deletes after the confirmation; a 404 counts as already deleted', async () => {
    let status = 200;
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([btc, eth], {
        '/api/dca/pending_orders/b1-1': () =>
          status === 404
            ? json({ success: false, error: 'Pending order not found.' }, 404)
            : json({ success: true, message: 'ok' }),
      }),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(2));
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-delete'));
    await userEvent.click(await screen.findByTestId('gp-confirm-yes'));
    expect(await screen.findByText('Order removed from the database ✅')).toBeTruthy();
    const [del] = fetchMock.mock.calls.filter(([input]) =>
      hrefOf(input).includes('/api/dca/pending_orders/b1-1'),
    );
    expect(del?.[1]?.method).toBe('DELETE');
    expect(new URL(hrefOf(del![0])).searchParams.get('user_id')).toBe('me@example.com');

    status = 404;
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-delete'));
    await userEvent.click(await screen.findByTestId('gp-confirm-yes'));
    expect(await screen.findByText('Order no longer existed (cleanup) ✅')).toBeTruthy();
  });

  it('switches auto-fund ON and OFF with confirmation and toasts, and says when it could not', async () => {
    let fail = false;
    const enabled: Record<string, boolean> = { 'b1-1': false, 'b2-1': true };
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([btc, eth], {
        '/api/pending/auto_fund/toggle': (_u, init) => {
          const body = bodyOf(init) as { id: string; enabled: boolean };
          if (fail) return json({ success: false, error: 'nope' }, 500);
          enabled[body.id] = body.enabled;
          return json({ success: true, enabled: body.enabled });
        },
        '/api/pending/drawdowns': () =>
          json({
            success: true,
            by_id: {
              'b1-1': { pct: -7, enabled: enabled['b1-1'] },
              'b2-1': { pct: -12, enabled: enabled['b2-1'] },
            },
          }),
      }),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(2));
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-autofund'));
    expect((await screen.findByTestId('gp-confirm')).getAttribute('data-kind')).toBe('autofund');
    await userEvent.click(screen.getByTestId('gp-confirm-yes'));
    expect(await screen.findByText('ON enabled ✅')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/pending/auto_fund/toggle')).toEqual([
      { user_id: 'me@example.com', id: 'b1-1', enabled: true },
    ]);
    await waitFor(() =>
      expect(within(rowOf('b1-1')).getByTestId('gp-autofund').getAttribute('data-enabled')).toBe('true'),
    );

    await waitFor(() =>
      expect(within(rowOf('b2-1')).getByTestId('gp-autofund').getAttribute('data-enabled')).toBe('true'),
    );
    await userEvent.click(within(rowOf('b2-1')).getByTestId('gp-autofund'));
    await userEvent.click(await screen.findByTestId('gp-confirm-yes'));
    expect(await screen.findByText('OFF disabled ✅')).toBeTruthy();

    fail = true;
    await userEvent.click(within(rowOf('b1-1')).getByTestId('gp-autofund'));
    await userEvent.click(await screen.findByTestId('gp-confirm-yes'));
    expect(await screen.findByText('Could not save the ON/OFF state')).toBeTruthy();
  });

  it('shows a busy order and keeps its actions off', async () => {
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([{ ...btc, busy: 'selling' }]),
    });
    await waitFor(() => expect(rowIds()).toHaveLength(1));
    const row = within(rowOf('b1-1'));
    expect(row.getByTestId('gp-busy').textContent).toBe('Selling…');
    expect(row.getByTestId<HTMLButtonElement>('gp-sell').disabled).toBe(true);
    expect(row.getByTestId<HTMLButtonElement>('gp-funds').disabled).toBe(true);
    expect(row.getByTestId<HTMLButtonElement>('gp-delete').disabled).toBe(true);
  });

  it('says in the side panel when the orders cannot be loaded', async () => {
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([], {
        '/api/dca/pending_orders': () => json({ success: false, error: 'db down' }, 500),
      }),
    });
    const err = await screen.findByTestId('gp-load-error', {}, { timeout: 4000 });
    expect(err.textContent).toBe('Could not load the pending orders.');
    expect(within(screen.getByTestId('gp-side')).getByTestId('gp-load-error')).toBe(err);
    expect(screen.queryByTestId('gp-splash')).toBeNull();
  });

  it('alerts when the drawdowns cannot be refreshed', async () => {
    // The spec's Spanish text, in the Spanish interface, in the app's own dialog.
    await i18n.changeLanguage('es');
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([btc], {
        '/api/pending/drawdowns/refresh': () => json({ success: false, error: 'boom' }, 500),
      }),
    });
    expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(
      'No se pudo actualizar drawdowns: boom',
    );
    // The row keeps its own drawdown (Spanish separators).
    expect(within(rowOf('b1-1')).getByTestId('gp-cell-drawdown').textContent).toBe('-2,00 %');
  });

  it('refresh re-fetches the orders and the drawdowns', async () => {
    const { fetchMock } = renderApp(<GlobalPendingOrdersPage />, { user, responses: responses() });
    await waitFor(() => expect(bodiesOf(fetchMock, '/api/pending/drawdowns/refresh')).toHaveLength(1));
    await userEvent.click(screen.getByTestId('gp-refresh'));
    await waitFor(() => expect(bodiesOf(fetchMock, '/api/pending/drawdowns/refresh')).toHaveLength(2));
    expect(urlsTo(fetchMock, '/api/dca/pending_orders')).toHaveLength(2);
    expect(urlsTo(fetchMock, '/api/pending/drawdowns')).toHaveLength(2);
  });

  it('shows the splash while loading: dismissable, and gone after 10 s at most', async () => {
    const never: Handler = () => new Promise<Response>(() => undefined);
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([], { '/api/dca/pending_orders': never }),
    });
    expect(await screen.findByTestId('gp-splash')).toBeTruthy();
    await userEvent.click(screen.getByTestId('gp-splash-close'));
    expect(screen.queryByTestId('gp-splash')).toBeNull();
  });

  it('ends the splash after PENDING_SPLASH_MS when the data never comes', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const never: Handler = () => new Promise<Response>(() => undefined);
    renderApp(<GlobalPendingOrdersPage />, {
      user,
      responses: responses([], { '/api/dca/pending_orders': never }),
    });
    expect(await screen.findByTestId('gp-splash')).toBeTruthy();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(PENDING_SPLASH_MS - 500);
    });
    expect(screen.queryByTestId('gp-splash')).not.toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });
    expect(screen.queryByTestId('gp-splash')).toBeNull();
  });

  it('speaks Spanish with the spec texts', async () => {
    await i18n.changeLanguage('es');
    renderApp(<GlobalPendingOrdersPage />, { user, responses: responses([]) });
    expect((await screen.findByTestId('gp-empty')).textContent).toBe('Sin órdenes pendientes.');
    expect(screen.getByTestId('gp-title').textContent).toBe('Órdenes pendientes globales');
    expect(screen.getByTestId('gp-refresh').textContent).toBe('Actualizar');
    const es = i18n.getResourceBundle('es', 'translation') as {
      pending: Record<string, string>;
      bots: { pendingActions: Record<string, string> };
    };
    expect(es.pending.loadFailed).toBe(PENDING_MESSAGES.loadFailed);
    expect(es.pending.drawdownFailed).toBe(PENDING_MESSAGES.drawdownFailed.replace('{msg}', '{{msg}}'));
    for (const k of [
      'badAmount',
      'sold',
      'sellFailed',
      'deleted',
      'alreadyDeleted',
      'fundsAdded',
      'autoFundOn',
      'autoFundOff',
      'autoFundFailed',
    ] as const) {
      expect(es.bots.pendingActions[k]).toBe(PENDING_MESSAGES[k]);
    }
  });
});
