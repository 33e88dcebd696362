import { ARBITRAGE_MESSAGES, type ArbitrageBotView, type ArbitrageHistoryRow } from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { ARBITRAGE_POLL_MS, parseWaiting, spreadVerdict, validateArbitrageStart } from '../api/arbitrage';
import { ArbitragePage } from './ArbitragePage';
import { setValue } from '../../../../test/setValue';

const user = { id: 'u1', email: 'me@example.com' };
type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

const bot = (over: Partial<ArbitrageBotView> = {}): ArbitrageBotView => ({
  id: 'b1',
  symbol: 'ETH/USDT',
  monto_usdt: 1000,
  pnl: 1.2345,
  trips: 3,
  spread: {
    binance_to_bybit: { edge_pct: 0.05, fees_pct: 0.2, margin_pct: 0.1 },
    bybit_to_binance: { edge_pct: 0.45, fees_pct: 0.2, margin_pct: 0.1 },
  },
  books: { binance: { bid: 2999.5, ask: 3000.5 }, bybit: { bid: 3013, ask: 3014 } },
  inventory: { binance: { base: 0.08, quote: 240.5 }, bybit: { base: 0.0825, quote: 251 } },
  waiting: null,
  paused_until: null,
  status: 'active',
  phase: 'running',
  problem: null,
  started_at: '2025-01-01T00:00:00Z',
  ...over,
});

const row = (over: Partial<ArbitrageHistoryRow> = {}): ArbitrageHistoryRow => ({
  exchange_compra: 'binance',
  exchange_venta: 'bybit',
  precio_compra: 3000.5,
  precio_venta: 3013,
  monto: 0.08,
  comision_total: 0.482,
  ganancia: 0.518,
  timestamp: '2025-01-01T00:01:00Z',
  id: '1',
  bot_id: 'b1',
  symbol: 'ETH/USDT',
  ...over,
});

function responses(
  over: Record<string, Handler> = {},
  state: { connected?: boolean; bot?: ArbitrageBotView | null; rows?: ArbitrageHistoryRow[] } = {},
): Record<string, Handler> {
  const b = state.bot ?? null;
  return {
    '/api/estado_bot_arbitraje': () =>
      json({ success: true, activo: b !== null, connected: state.connected ?? true, bot: b }),
    '/api/historial_arbitraje': () => json({ success: true, historial: state.rows ?? [] }),
    ...over,
  };
}

const errorText = async () => (await screen.findByTestId('arb-form-error')).textContent;

describe('arbitrage texts', () => {
  it('are the contract texts in English', () => {
    const en = i18n.getResourceBundle('en', 'translation') as {
      arbitrage: { messages: Record<string, string> };
    };
    const keys = Object.keys(en.arbitrage.messages);
    expect(keys.length).toBeGreaterThanOrEqual(4);
    for (const k of keys)
      expect(en.arbitrage.messages[k]).toBe(ARBITRAGE_MESSAGES[k as keyof typeof ARBITRAGE_MESSAGES]);
    expect(en.arbitrage.messages.connected).toBe('✅ Exchanges Connected');
    expect(en.arbitrage.messages.connectBoth).toBe('❌ Connect both Binance and Bybit');
    expect(en.arbitrage.messages.invalidAmount).toBe('Enter a valid amount in USDT.');
    expect(en.arbitrage.messages.notConnected).toBe('Both Binance and Bybit must be connected.');
    const es = i18n.getResourceBundle('es', 'translation') as {
      arbitrage: { messages: Record<string, string> };
    };
    expect(Object.keys(es.arbitrage.messages).sort()).toEqual(keys.sort());
  });
});

describe('arbitrage helpers', () => {
  it('checks connection first, then the amount', () => {
    expect(validateArbitrageStart({ connected: false, amount: '' })).toBe('notConnected');
    expect(validateArbitrageStart({ connected: true, amount: '' })).toBe('invalidAmount');
    expect(validateArbitrageStart({ connected: true, amount: 'abc' })).toBe('invalidAmount');
    expect(validateArbitrageStart({ connected: true, amount: '0' })).toBe('invalidAmount');
    expect(validateArbitrageStart({ connected: true, amount: '-5' })).toBe('invalidAmount');
    expect(validateArbitrageStart({ connected: true, amount: '100,5' })).toBeNull();
  });
  it('judges a direction against fees plus margin, and reads the waiting code', () => {
    expect(spreadVerdict(null)).toBe('unknown');
    expect(spreadVerdict({ edge_pct: null, fees_pct: 0.2, margin_pct: 0.1 })).toBe('thin');
    expect(spreadVerdict({ edge_pct: 0.3, fees_pct: 0.2, margin_pct: 0.1 })).toBe('below');
    expect(spreadVerdict({ edge_pct: 0.31, fees_pct: 0.2, margin_pct: 0.1 })).toBe('trade');
    expect(parseWaiting('base_on_bybit')).toEqual({ side: 'base', exchange: 'bybit' });
    expect(parseWaiting('quote_on_binance')).toEqual({ side: 'quote', exchange: 'binance' });
    expect(parseWaiting(null)).toBeNull();
    expect(parseWaiting('other')).toBeNull();
  });
});

describe('ArbitragePage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    act(() => notifications.clean());
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the fixed symbol, the status line and the empty history with its columns', async () => {
    renderApp(<ArbitragePage />, { user, responses: responses() });
    expect((await screen.findByTestId('arb-connection')).textContent).toBe('✅ Exchanges Connected');
    expect(screen.getByTestId('arb-symbol').textContent).toBe('ETH/USDT');
    expect(screen.getByTestId('arb-start').textContent).toBe('Start');
    const head = within(screen.getByTestId('arb-history-table')).getAllByRole('columnheader');
    expect(head.map((h) => h.textContent)).toEqual([
      'Buy Exchange',
      'Sell Exchange',
      'Buy Price',
      'Sell Price',
      'Amount',
      'Fees',
      'Profit',
      'Time',
    ]);
    expect((await screen.findByTestId('arb-history-empty')).textContent).toBe('No operations yet.');
    expect(screen.getByTestId('arb-live-none')).toBeTruthy();
  });

  it('validates in the spec order with its texts and sends nothing', async () => {
    const starts: unknown[] = [];
    let connected = false;
    renderApp(<ArbitragePage />, {
      user,
      responses: {
        ...responses({
          '/api/start_arbitraje': (_u, init) => {
            starts.push(bodyOf(init));
            return json({ success: true, message: 'Arbitrage bot started.', id: 'b1' });
          },
        }),
        '/api/estado_bot_arbitraje': () => json({ success: true, activo: false, connected, bot: null }),
      },
    });
    expect((await screen.findByTestId('arb-connection')).textContent).toBe(
      '❌ Connect both Binance and Bybit',
    );
    setValue(screen.getByTestId('arb-amount'), '100');
    fireEvent.click(screen.getByTestId('arb-start'));
    expect(await errorText()).toBe('Both Binance and Bybit must be connected.');
    expect(starts).toHaveLength(0);
    connected = true;
    // The next poll sees both exchanges connected.
    await waitFor(
      () => expect(screen.getByTestId('arb-connection').textContent).toBe('✅ Exchanges Connected'),
      { timeout: ARBITRAGE_POLL_MS + 2_000 },
    );
    setValue(screen.getByTestId('arb-amount'), 'abc');
    fireEvent.click(screen.getByTestId('arb-start'));
    expect(await errorText()).toBe('Enter a valid amount in USDT.');
    setValue(screen.getByTestId('arb-amount'), '0');
    fireEvent.click(screen.getByTestId('arb-start'));
    expect(await errorText()).toBe('Enter a valid amount in USDT.');
    expect(starts).toHaveLength(0);
    setValue(screen.getByTestId('arb-amount'), '250,5');
    fireEvent.click(screen.getByTestId('arb-start'));
    await waitFor(() =>
      expect(starts).toEqual([{ user_id: 'me@example.com', monto_usdt: 250.5, symbol: 'ETH/USDT' }]),
    );
    expect(await screen.findByText('Arbitrage bot started.')).toBeTruthy();
  }, 15_000);

  it("shows the server's refusal as it answers", async () => {
    const refusal =
      'binance has 10 USDT available but the bot needs 500 USDT there (half of 1000 USDT on each exchange).';
    renderApp(<ArbitragePage />, {
      user,
      responses: responses({ '/api/start_arbitraje': () => json({ success: false, error: refusal }, 400) }),
    });
    await screen.findByTestId('arb-connection');
    setValue(screen.getByTestId('arb-amount'), '1000');
    fireEvent.click(screen.getByTestId('arb-start'));
    expect(await errorText()).toBe(refusal);
  });

  it('polls the status and the history every 5 s with the user', async () => {
    const calls: { path: string; body: Record<string, unknown>; at: number }[] = [];
    const rec =
      (path: string, answer: () => Response): Handler =>
      (_u, init) => {
        calls.push({ path, body: bodyOf(init), at: Date.now() });
        return answer();
      };
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderApp(<ArbitragePage />, {
      user,
      responses: {
        '/api/estado_bot_arbitraje': rec('status', () =>
          json({ success: true, activo: false, connected: true, bot: null }),
        ),
        '/api/historial_arbitraje': rec('history', () => json({ success: true, historial: [] })),
      },
    });
    await waitFor(() => expect(calls.filter((c) => c.path === 'history')).toHaveLength(1));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ARBITRAGE_POLL_MS + 100);
    });
    await waitFor(() => expect(calls.filter((c) => c.path === 'history').length).toBeGreaterThanOrEqual(2));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ARBITRAGE_POLL_MS + 100);
    });
    await waitFor(() => expect(calls.filter((c) => c.path === 'history').length).toBeGreaterThanOrEqual(3));
    expect(calls.filter((c) => c.path === 'status').length).toBeGreaterThanOrEqual(3);
    for (const c of calls) expect(c.body).toEqual({ user_id: 'me@example.com' });
  });

  it('shows the live spread of both directions against the fees, the books, profit, inventory and waiting', async () => {
    renderApp(<ArbitragePage />, {
      user,
      responses: responses({}, { bot: bot({ waiting: 'base_on_bybit', pnl: -0.5 }) }),
    });
    const spreads = await screen.findAllByTestId('arb-spread');
    expect(spreads.map((s) => s.dataset.direction)).toEqual(['binance_to_bybit', 'bybit_to_binance']);
    expect(within(spreads[0]!).getByText('Buy Binance → Sell Bybit')).toBeTruthy();
    expect(within(spreads[0]!).getByTestId('arb-spread-edge').textContent).toBe('Spread 0.050 %');
    expect(within(spreads[0]!).getByTestId('arb-spread-fees').textContent).toBe(
      'Fees 0.200 % + margin 0.100 %',
    );
    expect(within(spreads[0]!).getByTestId('arb-spread-verdict').textContent).toBe('Below fees: no trade');
    expect(within(spreads[1]!).getByTestId('arb-spread-verdict').textContent).toBe('Trades');
    const books = screen.getAllByTestId('arb-book');
    expect(books.map((b) => b.dataset.exchange)).toEqual(['binance', 'bybit']);
    expect(within(books[1]!).getByTestId('arb-book-bid').textContent).toBe('3013');
    expect(within(books[0]!).getByTestId('arb-book-ask').textContent).toBe('3000.5');
    const pnl = screen.getByTestId('arb-pnl');
    expect(pnl.textContent).toBe('-0.5000 USDT');
    expect(pnl.getAttribute('style') ?? '').toContain('red');
    expect(screen.getByTestId('arb-trips').textContent).toBe('3');
    expect(screen.getAllByTestId('arb-inventory-row').map((r) => r.textContent)).toEqual([
      'Binance: 0.08 ETH · 240.5 USDT',
      'Bybit: 0.0825 ETH · 251 USDT',
    ]);
    expect(screen.getByTestId('arb-waiting').textContent).toBe(
      'Out of ETH on Bybit: it cannot sell there until a trip the other way brings some back.',
    );
    expect(screen.getByTestId('arb-stop').textContent).toBe('Stop');
    expect(screen.getByTestId<HTMLInputElement>('arb-amount').disabled).toBe(true);
    expect(screen.queryByTestId('arb-paused')).toBeNull();
  });

  it('says until when it is paused after a failed leg', async () => {
    const until = '2025-01-01T10:00:00Z';
    renderApp(<ArbitragePage />, { user, responses: responses({}, { bot: bot({ paused_until: until }) }) });
    const paused = await screen.findByTestId('arb-paused');
    expect(paused.textContent).toContain(new Date(until).toLocaleTimeString());
    expect(paused.textContent).toContain('A leg of the last trip failed');
  });

  it('lists the operations, negative profit in red', async () => {
    renderApp(<ArbitragePage />, {
      user,
      responses: responses(
        {},
        {
          bot: bot(),
          rows: [
            row(),
            row({ id: '2', exchange_compra: 'bybit', exchange_venta: 'bybit', ganancia: -0.123456 }),
          ],
        },
      ),
    });
    const rows = await screen.findAllByTestId('arb-history-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByTestId('arb-row-buy-exchange').textContent).toBe('Binance');
    expect(within(rows[0]!).getByTestId('arb-row-sell-exchange').textContent).toBe('Bybit');
    expect(within(rows[0]!).getByTestId('arb-row-buy-price').textContent).toBe('3000.5');
    expect(within(rows[0]!).getByTestId('arb-row-sell-price').textContent).toBe('3013');
    expect(within(rows[0]!).getByTestId('arb-row-amount').textContent).toBe('0.08');
    expect(within(rows[0]!).getByTestId('arb-row-fees').textContent).toBe('0.482');
    const good = within(rows[0]!).getByTestId('arb-row-profit');
    expect(good.textContent).toBe('0.518000');
    expect(good.getAttribute('style') ?? '').toContain('green');
    const bad = within(rows[1]!).getByTestId('arb-row-profit');
    expect(bad.textContent).toBe('-0.123456');
    expect(bad.dataset.negative).toBe('1');
    expect(bad.getAttribute('style') ?? '').toContain('red');
    expect(rows[1]!.dataset.unwind).toBe('1');
  });

  it('stops selling the inventory by default, or keeping it; Cancel sends nothing', async () => {
    const stops: Record<string, unknown>[] = [];
    renderApp(<ArbitragePage />, {
      user,
      responses: responses(
        {
          '/api/stop_arbitraje': (_u, init) => {
            const b = bodyOf(init);
            stops.push(b);
            return json({
              success: true,
              message: b.keep_assets ? ARBITRAGE_MESSAGES.stoppedKeepAssets : ARBITRAGE_MESSAGES.stopped,
            });
          },
        },
        { bot: bot() },
      ),
    });
    await userEvent.click(await screen.findByTestId('arb-stop'));
    await userEvent.click(await screen.findByTestId('arb-stop-cancel'));
    await userEvent.click(screen.getByTestId('arb-stop'));
    await userEvent.click(await screen.findByTestId('arb-stop-confirm'));
    await waitFor(() => expect(stops).toEqual([{ user_id: 'me@example.com', keep_assets: false }]));
    expect(await screen.findByText('Arbitrage bot stopped.')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId<HTMLButtonElement>('arb-stop').disabled).toBe(false));
    await userEvent.click(screen.getByTestId('arb-stop'));
    await userEvent.click(await screen.findByRole('radio', { name: 'Keep it & stop' }));
    await userEvent.click(screen.getByTestId('arb-stop-confirm'));
    await waitFor(() => expect(stops[1]).toEqual({ user_id: 'me@example.com', keep_assets: true }));
  });

  it("loads the bot's event log only when shown", async () => {
    const asked: string[] = [];
    const { requestedPaths } = renderApp(<ArbitragePage />, {
      user,
      responses: responses({
        '/api/arbitraje/log': (url) => {
          asked.push(url.search);
          return json({
            success: true,
            bot_id: 'b1',
            events: [
              {
                id: '2',
                ts: '2025-01-01T00:02:00Z',
                type: 'arb_round_trip',
                level: 'info',
                data: { pnl: '0.5' },
              },
              { id: '1', ts: '2025-01-01T00:01:00Z', type: 'arb_prepared', level: 'info', data: {} },
            ],
          });
        },
      }),
    });
    await screen.findByTestId('arb-connection');
    expect(requestedPaths()).not.toContain('/api/arbitraje/log');
    await userEvent.click(screen.getByTestId('arb-events-toggle'));
    const events = await screen.findAllByTestId('arb-event');
    expect(events.map((e) => e.dataset.type)).toEqual(['arb_round_trip', 'arb_prepared']);
    expect(events[0]!.textContent).toContain('Round trip');
    expect(asked[0]).toBe('?user_id=me%40example.com&limit=20');
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<ArbitragePage />, { user, responses: responses({}, { connected: false }) });
    expect((await screen.findByTestId('arb-connection')).textContent).toBe('❌ Conecta Binance y Bybit');
    expect(screen.getByText('Historial de operaciones')).toBeTruthy();
    fireEvent.click(screen.getByTestId('arb-start'));
    expect(await errorText()).toBe('Binance y Bybit deben estar conectados.');
  });
});
