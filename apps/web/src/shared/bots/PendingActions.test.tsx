import type { PendingOrderView } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import { PendingOrdersDialog } from './dialogs';
import { parseFundsAmount } from './pending-actions';
import type { BotScreen } from './screen';
import { setValue } from '../../../test/setValue';

const user = { id: 'u1', email: 'me@example.com' };
const SCREEN: BotScreen = { ids: { prefix: 'dca', dialogIdOn: 'modal' }, scope: 'dca', ns: 'grid-dca' };
const bot = { id: 'bot-1', exchange: 'binance', symbol: 'BTC/USDT' };

const lot = (id: string, over: Partial<PendingOrderView> = {}): PendingOrderView => ({
  id,
  bot_id: 'bot-1',
  kind: 'grid-dca',
  created_at: '2025-01-01T00:00:00Z',
  exchange: 'binance',
  symbol: 'BTC/USDT',
  entry_price: 100000,
  limit_price: 101000,
  amount_quote: 20,
  amount_base: 0.0002,
  qty: 0.0002,
  quote: 'USDT',
  status: 'open',
  tp_pct: 1,
  result: -0.1,
  drawdown_pct: -0.5,
  auto_fund: false,
  auto_fund_steps: 0,
  busy: null,
  closed_at: null,
  sell_price: null,
  ...over,
});

const bodiesOf = (fetchMock: ReturnType<typeof renderApp>['fetchMock'], path: string) =>
  fetchMock.mock.calls
    .filter(([input]) => new URL(String(input instanceof Request ? input.url : input)).pathname === path)
    .map(
      ([, init]) => JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>,
    );

const rowOf = (i: number) => screen.getAllByTestId('dca-pending-row')[i]!;

describe('parseFundsAmount', () => {
  it('takes 1 to 4 digits above 0 only', () => {
    expect(parseFundsAmount('25')).toBe(25);
    expect(parseFundsAmount(' 9999 ')).toBe(9999);
    for (const bad of ['', '0', '0000', '10000', '1.5', '1,5', '-3', 'abc', '1e3']) {
      expect(parseFundsAmount(bad)).toBeNull();
    }
  });
});

// Long click-through flows: room for a busy 2-core machine.
describe('PendingOrdersDialog actions (both bot screens)', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    act(() => notifications.clean());
  });

  it('sells, adds funds, deletes and switches auto-fund with confirmations, toasts and reloads', async () => {
    let rows = [lot('b-1'), lot('b-2', { auto_fund: true }), lot('b-3', { status: 'completed' })];
    const load = vi.fn(async () => ({ orders: rows, pages: 1 }));
    const { fetchMock } = renderApp(
      <PendingOrdersDialog screen={SCREEN} bot={bot} load={load} onClose={() => undefined} />,
      {
        user,
        responses: {
          '/api/dca/pending_orders/sell': () => {
            rows = rows.map((r) => (r.id === 'b-1' ? { ...r, status: 'completed' } : r));
            return json({ success: true, row: rows[0], message: 'ok' });
          },
          '/api/dca/pending_orders/add_funds': () => json({ success: true, row: rows[1] }),
          '/api/dca/pending_orders/b-2': () =>
            json({ success: false, error: 'Pending order not found.' }, 404),
          '/api/pending/auto_fund/toggle': () => json({ success: true, enabled: false }),
        },
      },
    );
    await waitFor(() => expect(screen.getAllByTestId('dca-pending-row')).toHaveLength(3));
    // The completed lot offers no action (not even greyed buttons); the open ones read 'Open' / 'in wait'.
    for (const name of ['sell', 'funds', 'delete', 'autofund']) {
      expect(within(rowOf(2)).queryByTestId(`dca-pending-${name}`), name).toBeNull();
    }
    expect(within(rowOf(2)).getByTestId('dca-pending-no-actions').textContent).toBe('Completed: no actions');
    expect(within(rowOf(2)).queryByTestId('dca-pending-in-wait')).toBeNull();
    expect(within(rowOf(0)).getByTestId('dca-pending-state').textContent).toBe('Open');
    expect(within(rowOf(0)).getByTestId('dca-pending-in-wait').textContent).toBe('in wait');

    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-sell'));
    await userEvent.click(await screen.findByTestId('dca-pending-confirm-yes'));
    expect(await screen.findByText('Order sold (IOC) ✅')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/dca/pending_orders/sell')).toEqual([
      { user_id: 'me@example.com', id: 'b-1' },
    ]);
    await waitFor(() => expect(within(rowOf(0)).queryByTestId('dca-pending-no-actions')).toBeTruthy());
    expect(within(rowOf(0)).queryByTestId('dca-pending-sell')).toBeNull();
    expect(load).toHaveBeenCalledTimes(2);

    await userEvent.click(within(rowOf(1)).getByTestId('dca-pending-funds'));
    const input = await screen.findByTestId('dca-pending-funds-input');
    setValue(input, '12345');
    await userEvent.click(screen.getByTestId('dca-pending-funds-confirm'));
    expect(screen.getByTestId('dca-pending-funds-error').textContent).toBe(
      'Enter a valid amount (up to 4 digits).',
    );
    setValue(input, '15');
    await userEvent.click(screen.getByTestId('dca-pending-funds-confirm'));
    expect(await screen.findByText('Funds added successfully ✅')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/dca/pending_orders/add_funds')).toEqual([
      { user_id: 'me@example.com', id: 'b-2', amount_quote: 15 },
    ]);

    await userEvent.click(within(rowOf(1)).getByTestId('dca-pending-autofund'));
    expect((await screen.findByTestId('dca-pending-confirm')).getAttribute('data-kind')).toBe('autofund');
    await userEvent.click(screen.getByTestId('dca-pending-confirm-yes'));
    expect(await screen.findByText('OFF disabled ✅')).toBeTruthy();
    expect(bodiesOf(fetchMock, '/api/pending/auto_fund/toggle')).toEqual([
      { user_id: 'me@example.com', id: 'b-2', enabled: false },
    ]);

    await userEvent.click(within(rowOf(1)).getByTestId('dca-pending-delete'));
    await userEvent.click(await screen.findByTestId('dca-pending-confirm-yes'));
    expect(await screen.findByText('Order no longer existed (cleanup) ✅')).toBeTruthy();
    await waitFor(() => expect(load).toHaveBeenCalledTimes(5));
  });

  it('tells a refusal from a network failure', async () => {
    const load = vi.fn(async () => ({ orders: [lot('b-1')], pages: 1 }));
    renderApp(<PendingOrdersDialog screen={SCREEN} bot={bot} load={load} onClose={() => undefined} />, {
      user,
      responses: {
        '/api/dca/pending_orders/sell': () => {
          throw new TypeError('Failed to fetch');
        },
        '/api/dca/pending_orders/b-1': () => json({ success: false, error: 'TP cancel failed' }, 502),
        '/api/dca/pending_orders/add_funds': () => json({ success: false, error: 'No price yet' }, 503),
      },
    });
    await waitFor(() => expect(screen.getAllByTestId('dca-pending-row')).toHaveLength(1));
    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-sell'));
    await userEvent.click(await screen.findByTestId('dca-pending-confirm-yes'));
    expect(await screen.findByText('Could not sell')).toBeTruthy();
    expect(screen.getByText('❌ Network error')).toBeTruthy();

    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-delete'));
    await userEvent.click(await screen.findByTestId('dca-pending-confirm-yes'));
    expect(await screen.findByText('❌ Could not delete: TP cancel failed')).toBeTruthy();

    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-funds'));
    setValue(await screen.findByTestId('dca-pending-funds-input'), '5');
    await userEvent.click(screen.getByTestId('dca-pending-funds-confirm'));
    expect(await screen.findByText('Error adding funds: No price yet')).toBeTruthy();
  });

  it("says '❌ No se pudo vender: …' and '❌ Error al comprar: …' where the spec shows them (ES and EN)", async () => {
    await i18n.changeLanguage('es');
    const load = vi.fn(async () => ({ orders: [lot('b-1')], pages: 1 }));
    renderApp(<PendingOrdersDialog screen={SCREEN} bot={bot} load={load} onClose={() => undefined} />, {
      user,
      responses: {
        '/api/dca/pending_orders/sell': () =>
          json({ success: false, error: 'order_rejected (insufficient balance)' }, 400),
        '/api/dca/pending_orders/add_funds': () =>
          json({ success: false, error: 'No se pudo agregar fondos: order_rejected (market closed)' }, 400),
      },
    });
    await waitFor(() => expect(screen.getAllByTestId('dca-pending-row')).toHaveLength(1));
    expect(within(rowOf(0)).getByTestId('dca-pending-in-wait').textContent).toBe('en espera');
    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-sell'));
    await userEvent.click(await screen.findByTestId('dca-pending-confirm-yes'));
    expect(
      await screen.findByText('❌ No se pudo vender: order_rejected (insufficient balance)'),
    ).toBeTruthy();
    expect(screen.getByText('No se pudo vender')).toBeTruthy(); // the toast's title

    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-funds'));
    setValue(await screen.findByTestId('dca-pending-funds-input'), '5');
    await userEvent.click(screen.getByTestId('dca-pending-funds-confirm'));
    expect(await screen.findByText('❌ Error al comprar: order_rejected (market closed)')).toBeTruthy();

    act(() => notifications.clean());
    await i18n.changeLanguage('en');
    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-sell'));
    await userEvent.click(await screen.findByTestId('dca-pending-confirm-yes'));
    expect(await screen.findByText('❌ Could not sell: order_rejected (insufficient balance)')).toBeTruthy();
    await userEvent.click(within(rowOf(0)).getByTestId('dca-pending-funds'));
    setValue(await screen.findByTestId('dca-pending-funds-input'), '5');
    await userEvent.click(screen.getByTestId('dca-pending-funds-confirm'));
    expect(await screen.findByText('❌ Error buying: order_rejected (market closed)')).toBeTruthy();
  });
});
