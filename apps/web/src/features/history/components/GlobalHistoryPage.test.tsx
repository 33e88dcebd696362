import type {
  AllHistoryResponse,
  GlobalHistoryRow,
  HistoryAggregates,
  HistoryTokenTotal,
} from '@bytx/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { csvFileName, historyCsv, validPrice } from '../api/history';
import { GlobalHistoryPage } from './GlobalHistoryPage';
import { barWidth } from './TokenPanel';
import { setValue } from '../../../../test/setValue';

/** lightweight-charts draws on a canvas happy-dom lacks: a stand-in records what the page gives it. */
const chartData = vi.hoisted(() => ({ points: [] as unknown[], created: 0 }));
vi.mock('lightweight-charts', () => ({
  BaselineSeries: { type: 'Baseline' },
  ColorType: { Solid: 'solid' },
  createChart: () => {
    chartData.created++;
    return {
      addSeries: () => ({
        setData: (d: unknown[]) => {
          chartData.points = d;
        },
      }),
      timeScale: () => ({ fitContent: () => undefined }),
      remove: () => undefined,
    };
  },
}));

const user = { id: 'u1', email: 'me@example.com' };
const BOT = '11111111-1111-4111-8111-111111111111';

const row = (id: number, over: Partial<GlobalHistoryRow> = {}): GlobalHistoryRow => ({
  id,
  bot_id: BOT,
  symbol: 'BTC/USDT',
  exchange: 'binance',
  qty: 0.001,
  buy_price: 100000,
  sell_price: 101000,
  buy_time: '2025-01-01T10:00:00.000Z',
  sell_time: '2025-01-01T11:00:00.000Z',
  pnl_net: 0.8,
  ...over,
});

const token = (symbol: string, pnl: number, usd: number | null): HistoryTokenTotal => {
  const [base = '', quote = ''] = symbol.split('/');
  return { symbol, base, quote, pnl, trades: 1, usd };
};

const aggregates: HistoryAggregates = {
  tokens: [token('XRP/EUR', 2, null), token('ETH/USDT', 1.5, 1.5), token('ETH/BTC', -0.0001, -5)],
  pnl_24h: 3.0501,
  pnl_24h_usd: 6.05,
  window_start: '2025-01-01T00:00:00.000Z',
  total_pnl: 4.2501,
  total_pnl_usd: -7.25,
  unpriced: ['EUR'],
  prices: [
    { exchange: 'binance', quote: 'USDT', usd: 1 },
    { exchange: 'binance', quote: 'EUR', usd: null },
  ],
  daily: [
    { day: '2025-01-01', pnl: 3, pnl_usd: 3, cumulative: 3, cumulative_usd: 3 },
    { day: '2025-01-03', pnl: -0.499, pnl_usd: 49.5, cumulative: 2.501, cumulative_usd: 52.5 },
  ],
};

type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;

/** A server with `total` rows (ids total … 1, newest first) and the aggregates above. */
function server(
  total = 30,
  over: { page?: Handler; aggregates?: Handler; del?: Handler; delAll?: Handler } = {},
) {
  const all = Array.from({ length: total }, (_, i) => row(total - i, { pnl_net: i % 2 ? -0.25 : 0.5 }));
  const pageOf = (url: URL): AllHistoryResponse => {
    const perPage = Number(url.searchParams.get('per_page') ?? 12);
    const pages = Math.max(1, Math.ceil(all.length / perPage));
    const page = Math.min(Number(url.searchParams.get('page') ?? 1), pages);
    return {
      success: true,
      history: all.slice((page - 1) * perPage, page * perPage),
      page,
      pages,
      per_page: perPage,
      total: all.length,
      total_pnl: 1,
    };
  };
  const responses: Record<string, Handler> = {
    '/api/dca/all_history': (url, init) => {
      if (url.searchParams.get('aggregates') === '1') {
        return over.aggregates ? over.aggregates(url, init) : json({ ...pageOf(url), aggregates });
      }
      return over.page ? over.page(url, init) : json(pageOf(url));
    },
    '/api/dca/history/delete_all': (url, init) => {
      if (over.delAll) return over.delAll(url, init);
      const n = all.length;
      all.length = 0;
      return json({ success: true, deleted: n });
    },
  };
  for (let id = 1; id <= total; id++) {
    responses[`/api/dca/history/${id}`] = (url, init) => {
      if (over.del) return over.del(url, init);
      const i = all.findIndex((r) => r.id === id);
      if (i < 0) return json({ success: false, error: 'History record not found.' }, 404);
      all.splice(i, 1);
      return json({ success: true });
    };
  }
  return { responses, all };
}

const calls = (fetchMock: ReturnType<typeof renderApp>['fetchMock'], path: string) =>
  fetchMock.mock.calls
    .map(([input, init]) => ({
      url: new URL(String(input instanceof Request ? input.url : input), 'http://localhost'),
      method: init?.method ?? 'GET',
    }))
    .filter((c) => c.url.pathname === path);

/** The app's own confirm dialog (shared/ui/ConfirmDialog) asked `question`: answers it, waits it gone. */
async function answer(question: string, ok: boolean) {
  expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(question);
  fireEvent.click(screen.getByTestId(ok ? 'confirm-dialog-ok' : 'confirm-dialog-cancel'));
  await waitFor(() => expect(screen.queryByTestId('confirm-dialog-text')).toBeNull());
}
const ASK_ONE = '¿Eliminar este registro de historial?';

describe('GlobalHistoryPage (/historial-global)', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('es');
    chartData.points = [];
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('shows the spec texts, the rows with 8 decimals, the token panel, the cards and the chart from the server', async () => {
    const { responses } = server(30);
    const { fetchMock } = renderApp(<GlobalHistoryPage />, { user, responses });
    expect(screen.getByTestId('gh-title').textContent).toBe('Historial global — Todos tus bots');
    expect(screen.getByTestId('gh-user').textContent).toContain('me@example.com');
    expect(screen.getByTestId('gh-refresh').textContent).toBe('Actualizar');
    expect(screen.getByTestId('gh-export').textContent).toBe('Exportar CSV');
    expect(screen.getByTestId('gh-delete-all').textContent).toBe('Eliminar todo');
    expect(screen.getByTestId('gh-loading').textContent).toBe('Cargando…');
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(12));
    const first = screen.getAllByTestId('gh-row')[0]!;
    expect(first.getAttribute('data-id')).toBe('30');
    // The spec's 8 decimals in the house style: Spanish separators (shared/ui/numbers).
    expect(first.textContent).toContain('0,00100000');
    expect(first.textContent).toContain('100.000,00000000');
    expect(within(first).getByTestId('gh-row-pnl').textContent).toBe('0,50000000');
    expect(screen.getAllByTestId('gh-row-pnl')[1]!.textContent).toBe('-0,25000000');
    const headers = [...screen.getByTestId('gh-table').querySelectorAll('th')].map((th) => th.textContent);
    expect(headers.slice(0, 10)).toEqual([
      'ID',
      'Bot',
      'Símbolo',
      'Exch',
      'Cant.',
      'Compra',
      'Venta',
      'Hora de compra',
      'Hora de venta',
      'PnL',
    ]);
    expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 1 de 3');
    // The page call and one aggregates call, the user named in both.
    const list = calls(fetchMock, '/api/dca/all_history');
    expect(list.map((c) => c.url.searchParams.get('user_id'))).toEqual(['me@example.com', 'me@example.com']);
    expect(list.filter((c) => c.url.searchParams.get('aggregates') === '1')).toHaveLength(1);

    // Left panel: tags, USD or 'USD n/d', bars scaled to the largest |PnL| (min 4 %).
    expect(screen.getByText('Tokens (PNL total)')).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId('gh-token')).toHaveLength(3));
    const [xrp, eth, ethBtc] = screen.getAllByTestId('gh-token');
    expect(within(xrp!).getByTestId('gh-token-base').textContent).toBe('XRP');
    expect(within(xrp!).getByTestId('gh-token-quote').textContent).toBe('EUR');
    expect(within(xrp!).getByTestId('gh-token-usd').textContent).toBe('USD n/d');
    expect(within(eth!).getByTestId('gh-token-usd').textContent).toBe('≈ 1,50 USD');
    expect(within(ethBtc!).getByTestId('gh-token-usd').textContent).toBe('≈ -5,00 USD');
    expect(within(xrp!).getByTestId('gh-token-bar').style.width).toBe('100%');
    expect(within(eth!).getByTestId('gh-token-bar').style.width).toBe('75%');
    expect(within(ethBtc!).getByTestId('gh-token-bar').style.width).toBe('4%');

    // Right panel: 2 decimals, sign colours, the unconverted sums and the unpriced quote.
    expect(screen.getByText('PNL 24h (rodante)')).toBeTruthy();
    expect(screen.getByText('PNL TOTAL (equivalente USD)')).toBeTruthy();
    expect(screen.getByText('PNL de esta página')).toBeTruthy();
    expect(screen.getByTestId('gh-card-24h-value').textContent).toBe('6,05 USD');
    expect(screen.getByTestId('gh-card-24h').textContent).toContain('Sin convertir: 3,05');
    expect(screen.getByTestId('gh-card-total-value').textContent).toBe('-7,25 USD');
    expect(screen.getByTestId('gh-card-total').textContent).toContain('Sin convertir: 4,25');
    expect(screen.getByTestId('gh-unpriced').textContent).toContain('EUR');
    // This page: 6 × 0.5 − 6 × 0.25 = 1.5
    expect(screen.getByTestId('gh-card-page-value').textContent).toBe('1,50');

    // The chart (lazy) draws the server's cumulative USD series.
    const chart = await screen.findByTestId('gh-chart');
    expect(chart.getAttribute('data-points')).toBe('2');
    await waitFor(() =>
      expect(chartData.points).toEqual([
        { time: '2025-01-01', value: 3 },
        { time: '2025-01-03', value: 52.5 },
      ]),
    );
  });

  it('pages with first / previous / next / last and changes the rows per page', async () => {
    const { responses } = server(30);
    const { fetchMock } = renderApp(<GlobalHistoryPage />, { user, responses });
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(12));
    expect(screen.getByTestId<HTMLButtonElement>('gh-first').disabled).toBe(true);
    expect(screen.getByTestId<HTMLButtonElement>('gh-prev').disabled).toBe(true);
    fireEvent.click(screen.getByTestId('gh-next'));
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 2 de 3'));
    await waitFor(() => expect(screen.getAllByTestId('gh-row')[0]!.getAttribute('data-id')).toBe('18'));
    fireEvent.click(screen.getByTestId('gh-last'));
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 3 de 3'));
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(6));
    expect(screen.getByTestId<HTMLButtonElement>('gh-next').disabled).toBe(true);
    fireEvent.click(screen.getByTestId('gh-prev'));
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 2 de 3'));
    fireEvent.click(screen.getByTestId('gh-first'));
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 1 de 3'));

    const perPage = screen.getByTestId<HTMLSelectElement>('gh-per-page');
    expect([...perPage.options].map((o) => o.value)).toEqual(['12', '24', '48', '100']);
    expect(perPage.value).toBe('12');
    fireEvent.click(screen.getByTestId('gh-next'));
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 2 de 3'));
    setValue(perPage, '24');
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 1 de 2'));
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(24));
    const last = calls(fetchMock, '/api/dca/all_history').at(-1)!;
    expect(last.url.searchParams.get('per_page')).toBe('24');
    expect(last.url.searchParams.get('page')).toBe('1');
  });

  it('lists the first 18 tokens with Ver más (N) / Ver menos', async () => {
    const many = Array.from({ length: 20 }, (_, i) => token(`T${i}/USDT`, 20 - i, 20 - i));
    const { responses } = server(3, {
      aggregates: (url) =>
        json({
          success: true,
          history: [],
          page: 1,
          pages: 1,
          per_page: Number(url.searchParams.get('per_page')),
          total: 3,
          total_pnl: 1,
          aggregates: { ...aggregates, tokens: many },
        }),
    });
    renderApp(<GlobalHistoryPage />, { user, responses });
    await waitFor(() => expect(screen.getAllByTestId('gh-token')).toHaveLength(18));
    const more = screen.getByTestId('gh-token-more');
    expect(more.textContent).toBe('Ver más (2)');
    fireEvent.click(more);
    expect(screen.getAllByTestId('gh-token')).toHaveLength(20);
    expect(more.textContent).toBe('Ver menos');
    fireEvent.click(more);
    expect(screen.getAllByTestId('gh-token')).toHaveLength(18);
  });

  it('deletes a row after the confirm, reloads the page and the aggregates; a refusal shows the spec text', async () => {
    const { responses } = server(30);
    const { fetchMock } = renderApp(<GlobalHistoryPage />, { user, responses });
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(12));
    fireEvent.click(screen.getAllByTestId('gh-row-delete')[0]!);
    await answer(ASK_ONE, false);
    expect(calls(fetchMock, '/api/dca/history/30')).toHaveLength(0);

    const before = calls(fetchMock, '/api/dca/all_history').length;
    fireEvent.click(screen.getAllByTestId('gh-row-delete')[0]!);
    await answer(ASK_ONE, true);
    await waitFor(() => expect(screen.getAllByTestId('gh-row')[0]!.getAttribute('data-id')).toBe('29'));
    const del = calls(fetchMock, '/api/dca/history/30');
    expect(del).toHaveLength(1);
    expect(del[0]!.method).toBe('DELETE');
    expect(del[0]!.url.searchParams.get('user_id')).toBe('me@example.com');
    const after = calls(fetchMock, '/api/dca/all_history').slice(before);
    expect(after.some((c) => c.url.searchParams.get('aggregates') === '1')).toBe(true);
    expect(after.some((c) => c.url.searchParams.get('aggregates') === null)).toBe(true);

    // The second delete of the same id answers 404: 'No se pudo eliminar: ' + the server's text.
    fireEvent.click(screen.getAllByTestId('gh-row-delete')[0]!);
    await answer(ASK_ONE, true);
    await waitFor(() => expect(screen.getAllByTestId('gh-row')[0]!.getAttribute('data-id')).toBe('28'));
    responses['/api/dca/history/28'] = () =>
      json({ success: false, error: 'History record not found.' }, 404);
    fireEvent.click(screen.getAllByTestId('gh-row-delete')[0]!);
    await answer(ASK_ONE, true);
    expect((await screen.findByTestId('gh-error')).textContent).toBe(
      'No se pudo eliminar: Registro de historial no encontrado.',
    );
  });

  it('deletes everything after its confirm and shows page 1; a failure shows the spec text', async () => {
    const { responses } = server(30);
    const { fetchMock } = renderApp(<GlobalHistoryPage />, { user, responses });
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(12));
    fireEvent.click(screen.getByTestId('gh-next'));
    await waitFor(() => expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 2 de 3'));
    fireEvent.click(screen.getByTestId('gh-delete-all'));
    await answer('Esto eliminará TODO tu historial. ¿Continuar?', true);
    expect((await screen.findByTestId('gh-empty')).textContent).toBe('No hay registros.');
    expect(screen.getByTestId('gh-page-info').textContent).toBe('Página 1 de 1');
    const del = calls(fetchMock, '/api/dca/history/delete_all');
    expect(del.map((c) => c.method)).toEqual(['DELETE']);
    expect(del[0]!.url.searchParams.get('user_id')).toBe('me@example.com');
    expect(screen.getByTestId<HTMLButtonElement>('gh-delete-all').disabled).toBe(true);
    expect(screen.getByTestId<HTMLButtonElement>('gh-export').disabled).toBe(true);

    const failing = server(5, {
      delAll: () => json({ success: false, error: 'Internal server error' }, 500),
    });
    renderApp(<GlobalHistoryPage />, { user, responses: failing.responses });
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(5));
    fireEvent.click(screen.getAllByTestId('gh-delete-all').at(-1)!);
    fireEvent.click(await screen.findByTestId('confirm-dialog-ok'));
    expect((await screen.findByTestId('gh-error')).textContent).toBe(
      'No se pudo eliminar el historial completo: Error interno del servidor',
    );
  });

  it('exports the current page as CSV named after the page', async () => {
    const { responses } = server(30);
    let blob: Blob | null = null;
    let name = '';
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      blob = b as Blob;
      return 'blob:history';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      name = this.download;
    });
    renderApp(<GlobalHistoryPage />, { user, responses });
    await waitFor(() => expect(screen.getAllByTestId('gh-row')).toHaveLength(12));
    fireEvent.click(screen.getByTestId('gh-next'));
    await waitFor(() => expect(screen.getAllByTestId('gh-row')[0]!.getAttribute('data-id')).toBe('18'));
    fireEvent.click(screen.getByTestId('gh-export'));
    expect(name).toBe('historial-global-pagina-2.csv');
    const text = await (blob as unknown as Blob).text();
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toBe('id,bot_id,symbol,exchange,qty,buy_price,sell_price,buy_time,sell_time,pnl_net');
    expect(lines).toHaveLength(13);
    expect(lines[1]).toBe(
      `18,${BOT},BTC/USDT,binance,0.001,100000,101000,2025-01-01T10:00:00.000Z,2025-01-01T11:00:00.000Z,0.5`,
    );
  });

  it('shows the load error texts, and an aggregation failure empties the panels (logged)', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { responses } = server(3, {
      page: () => json({ success: false, error: 'Internal server error' }, 500),
      aggregates: () => json({ success: false, error: 'boom' }, 500),
    });
    renderApp(<GlobalHistoryPage />, { user, responses });
    expect((await screen.findByTestId('gh-load-error')).textContent).toBe(
      'Error cargando historial: Error interno del servidor',
    );
    await waitFor(() => expect(log).toHaveBeenCalled());
    expect(screen.queryAllByTestId('gh-token')).toHaveLength(0);
    expect(screen.getByTestId('gh-card-total-value').textContent).toBe('—');

    // An answer with success false and no text: the spec's own.
    const quiet = server(3, { page: () => json({ success: false }) });
    renderApp(<GlobalHistoryPage />, { user, responses: quiet.responses });
    await waitFor(() =>
      expect(screen.getAllByTestId('gh-load-error').at(-1)!.textContent).toBe(
        'Error cargando historial: No se pudo cargar el historial global',
      ),
    );
  });

  it('speaks English too', async () => {
    await act(() => i18n.changeLanguage('en'));
    const { responses } = server(0, {
      aggregates: () =>
        json({
          success: true,
          history: [],
          page: 1,
          pages: 1,
          per_page: 1,
          total: 0,
          total_pnl: 0,
          aggregates: { ...aggregates, tokens: [], daily: [], unpriced: [], prices: [] },
        }),
    });
    renderApp(<GlobalHistoryPage />, { user, responses });
    expect((await screen.findByTestId('gh-empty')).textContent).toBe('No records.');
    expect(screen.getByText('Tokens (total PnL)')).toBeTruthy();
    expect(screen.getByText('TOTAL PnL (USD equivalent)')).toBeTruthy();
    expect(screen.getByTestId('gh-title').textContent).toBe('Global history — All your bots');
    expect(screen.getByTestId('gh-page-info').textContent).toBe('Page 1 of 1');
    // The spec's English texts of this page, as it writes them.
    expect(screen.getByTestId('gh-export').textContent).toBe('Export CSV');
    expect(i18n.t('history.table.buyTime')).toBe('Buy Time');
    expect(await screen.findByTestId('gh-chart-empty')).toBeTruthy();
  });
});

describe('global history helpers', () => {
  it('writes CSV cells safely and names the file after the page', () => {
    expect(csvFileName(3)).toBe('historial-global-pagina-3.csv');
    const csv = historyCsv([row(1, { symbol: 'A,"B"', exchange: '=cmd', pnl_net: -0.3 })]);
    expect(csv.split('\r\n')[1]).toBe(
      `1,${BOT},"A,""B""",'=cmd,0.001,100000,101000,2025-01-01T10:00:00.000Z,2025-01-01T11:00:00.000Z,-0.3`,
    );
  });

  it("logs 'Precio inválido' for a price that is not a finite number and counts it as none", () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(validPrice(50000)).toBe(50000);
    expect(validPrice(null)).toBeNull();
    expect(validPrice(Number.NaN)).toBeNull();
    expect(validPrice('12')).toBeNull();
    expect(log).toHaveBeenCalledTimes(2);
    expect((log.mock.calls[0]![0] as Error).message).toBe('Precio inválido');
    log.mockRestore();
  });

  it('scales bars to the largest absolute PnL with a 4 % minimum', () => {
    expect(barWidth(10, 10)).toBe(100);
    expect(barWidth(-5, 10)).toBe(50);
    expect(barWidth(0.01, 10)).toBe(4);
    expect(barWidth(0, 0)).toBe(4);
  });
});
