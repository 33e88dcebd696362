import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppMantine } from '../../app/mantine';
import { ResponsiveTable, type ResponsiveColumn } from './ResponsiveTable';

interface Row {
  id: number;
  pair: string;
  pnl: number;
}
const ROWS: Row[] = [
  { id: 1, pair: 'BTC/USDT', pnl: 1.5 },
  { id: 2, pair: 'ETH/USDT', pnl: -0.25 },
];
const COLUMNS: ResponsiveColumn<Row>[] = [
  { key: 'pair', label: 'Pair', cell: (r) => r.pair, cellProps: () => ({ 'data-testid': 'cell-pair' }) },
  {
    key: 'pnl',
    label: 'PnL',
    th: <button data-testid="sort-pnl">PnL ↕</button>,
    cell: (r) => r.pnl.toFixed(2),
    cellProps: (r) => ({ 'data-testid': 'cell-pnl', 'data-sign': r.pnl < 0 ? 'neg' : 'pos' }),
  },
];

const happy = () =>
  (window as unknown as { happyDOM: { setViewport: (v: { width: number }) => void } }).happyDOM;

function renderAt(width: number, onDelete = vi.fn<(id: number) => void>()) {
  happy().setViewport({ width });
  render(
    <AppMantine>
      <ResponsiveTable
        columns={COLUMNS}
        rows={ROWS}
        rowKey={(r) => r.id}
        rowProps={(r) => ({ 'data-testid': 'row', 'data-id': r.id })}
        actions={{
          label: 'Actions',
          cell: (r) => (
            <button aria-label="Delete" data-testid="row-delete" onClick={() => onDelete(r.id)}>
              ✕
            </button>
          ),
        }}
        cardsTop={<div data-testid="cards-top">sort</div>}
        testId="rt"
      />
    </AppMantine>,
  );
  return onDelete;
}

afterEach(() => happy().setViewport({ width: 1024 }));

describe('ResponsiveTable', () => {
  it('is a table with its headers on a wide screen', () => {
    renderAt(1280);
    const table = screen.getByTestId('rt');
    expect(table.tagName).toBe('TABLE');
    expect(table.getAttribute('data-layout')).toBe('table');
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((th) => th.textContent);
    expect(headers).toEqual(['Pair', 'PnL ↕', 'Actions']);
    expect(screen.getByTestId('sort-pnl')).toBeTruthy();
    expect(screen.queryByTestId('cards-top')).toBeNull();
    const rows = screen.getAllByTestId('row');
    expect(rows.map((r) => r.tagName)).toEqual(['TR', 'TR']);
    expect(rows.map((r) => r.getAttribute('data-id'))).toEqual(['1', '2']);
    expect(screen.getAllByTestId('cell-pnl').map((c) => [c.tagName, c.textContent])).toEqual([
      ['TD', '1.50'],
      ['TD', '-0.25'],
    ]);
  });

  it('is one card a row on a phone: every label and value, the actions at the bottom', async () => {
    const onDelete = renderAt(390);
    const box = screen.getByTestId('rt');
    expect(box.getAttribute('data-layout')).toBe('cards');
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByTestId('cards-top')).toBeTruthy();
    const cards = screen.getAllByTestId('row');
    expect(cards.map((c) => c.getAttribute('data-id'))).toEqual(['1', '2']);
    for (const [i, card] of cards.entries()) {
      const row = ROWS[i]!;
      const terms = [...card.querySelectorAll('dt')].map((d) => d.textContent);
      const values = [...card.querySelectorAll('dd')].map((d) => d.textContent);
      expect(terms).toEqual(['Pair', 'PnL']);
      expect(values).toEqual([row.pair, row.pnl.toFixed(2)]);
      // The cell's attributes travel with its value.
      expect(within(card).getByTestId('cell-pnl').getAttribute('data-sign')).toBe(
        row.pnl < 0 ? 'neg' : 'pos',
      );
      // The actions come after the values.
      const del = within(card).getByTestId('row-delete');
      const dl = card.querySelector('dl')!;
      expect(dl.compareDocumentPosition(del) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    }
    await userEvent.click(within(cards[1]!).getByRole('button', { name: 'Delete' }));
    expect(onDelete).toHaveBeenCalledWith(2);
  });
});
