import type { HistoryAggregates } from '@bytx/contract';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { SummaryCards } from './SummaryCards';

const aggregates = (over: Partial<HistoryAggregates>): HistoryAggregates => ({
  tokens: [],
  pnl_24h: 4.38,
  pnl_24h_usd: 4.38,
  window_start: '2025-01-01T00:00:00Z',
  total_pnl: 1234.5,
  total_pnl_usd: 1234.5,
  unpriced: [],
  prices: [],
  daily: [],
  ...over,
});

describe('SummaryCards', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('leaves out "Not converted" when it repeats the USD figure (stablecoin quotes only)', async () => {
    await i18n.changeLanguage('en');
    renderApp(<SummaryCards aggregates={aggregates({})} pagePnl={1.5} />);
    expect(screen.getByTestId('gh-card-24h-value').textContent).toBe('4.38 USD');
    expect(screen.getByTestId('gh-card-total-value').textContent).toBe('1,234.50 USD');
    expect(screen.queryAllByTestId('gh-unconverted')).toHaveLength(0);
  });

  it('shows it when the quotes differ from USD, with the Spanish separators in Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(
      <SummaryCards
        aggregates={aggregates({ total_pnl: 0.0021, total_pnl_usd: 210.5, unpriced: [] })}
        pagePnl={null}
      />,
    );
    expect(screen.getByTestId('gh-card-total-value').textContent).toBe('210,50 USD');
    const lines = screen.getAllByTestId('gh-unconverted');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.textContent).toBe('Sin convertir: 0,00');
  });
});
