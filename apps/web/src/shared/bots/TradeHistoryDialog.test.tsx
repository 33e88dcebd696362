import type { DcaTradeView } from '@bytx/contract';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import { TradeHistoryDialog } from './dialogs';
import type { BotScreen } from './screen';

const user = { id: 'u1', email: 'me@example.com' };
const SCREEN: BotScreen = { ids: { prefix: 'dca', dialogIdOn: 'modal' }, scope: 'dca', ns: 'grid-dca' };
const bot = { id: 'bot-1', exchange: 'binance', symbol: 'BTC/USDT' };

const trade = (id: number, pnl: number): DcaTradeView => ({
  id,
  buy_time: '2025-01-01T10:00:00Z',
  sell_time: '2025-01-01T11:00:00Z',
  qty: 0.001,
  buy_price: 100000,
  sell_price: 101000,
  pnl_net: pnl,
});

/** The per-bot trading history modal: a delete per row (spec part 2 §5 confirm), then a reload. */
describe('TradeHistoryDialog row delete', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('asks the spec question, deletes through DELETE /api/dca/history/{id} and reloads; a failure says why', async () => {
    let rows = [trade(7, 0.5), trade(6, -0.2)];
    const load = vi.fn(async () => ({
      historial: rows,
      total_pnl: rows.reduce((s, r) => s + r.pnl_net, 0),
      pages: 1,
    }));
    // The spec's question is Spanish: the Spanish interface asks it as written, in the app's own dialog.
    await i18n.changeLanguage('es');
    const { fetchMock } = renderApp(
      <TradeHistoryDialog screen={SCREEN} bot={bot} load={load} onClose={() => undefined} />,
      {
        user,
        responses: {
          '/api/dca/history/7': () => {
            rows = rows.filter((r) => r.id !== 7);
            return json({ success: true });
          },
          '/api/dca/history/6': () => json({ success: false, error: 'History record not found.' }, 404),
        },
      },
    );
    await waitFor(() => expect(screen.getAllByTestId('dca-history-row')).toHaveLength(2));
    const deletes = () =>
      fetchMock.mock.calls
        .map(([input, init]) => ({
          url: new URL(input instanceof Request ? input.url : input.toString(), 'http://localhost'),
          method: init?.method,
        }))
        .filter((c) => c.url.pathname.startsWith('/api/dca/history/'));

    fireEvent.click(screen.getAllByTestId('dca-history-delete')[0]!);
    expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(
      '¿Eliminar este registro de historial?',
    );
    fireEvent.click(screen.getByTestId('confirm-dialog-cancel'));
    await waitFor(() => expect(screen.queryByTestId('confirm-dialog-text')).toBeNull());
    expect(deletes()).toHaveLength(0);

    fireEvent.click(screen.getAllByTestId('dca-history-delete')[0]!);
    fireEvent.click(await screen.findByTestId('confirm-dialog-ok'));
    await waitFor(() => expect(screen.getAllByTestId('dca-history-row')).toHaveLength(1));
    expect(deletes()[0]).toMatchObject({ method: 'DELETE' });
    expect(deletes()[0]!.url.pathname).toBe('/api/dca/history/7');
    expect(deletes()[0]!.url.searchParams.get('user_id')).toBe('me@example.com');
    expect(screen.getByTestId('dca-history-total').textContent).toContain('-0.2');

    fireEvent.click(screen.getAllByTestId('dca-history-delete')[0]!);
    fireEvent.click(await screen.findByTestId('confirm-dialog-ok'));
    expect((await screen.findByTestId('dca-history-delete-error')).textContent).toBe(
      'No se pudo eliminar: Registro de historial no encontrado.',
    );
  });
});
