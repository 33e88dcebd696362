import { SPOT_BASES } from '@bytx/contract';
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/renderApp';
import { orderPairs, PairList } from './PairList';
import { setValue } from '../../../test/setValue';

describe('orderPairs', () => {
  it('lists the 24 spot bases against the quote in the spec order', () => {
    const rows = orderPairs({ quote: 'USDT', favorites: [], listed: null, search: '' });
    expect(rows).toHaveLength(24);
    expect(rows.map((r) => r.base)).toEqual([...SPOT_BASES]);
    expect(rows.some((r) => r.base === 'USDT' || r.base === 'USDC')).toBe(false);
    expect(rows[0]).toEqual({ base: 'ETH', symbol: 'ETH/USDT', favorite: false, listed: null });
  });

  it('floats favourites of this quote to the top, each group in coin order', () => {
    const rows = orderPairs({
      quote: 'USDT',
      favorites: ['SOL/USDT', 'BTC/USDT', 'ETH/USDC'],
      listed: null,
      search: '',
    });
    expect(rows.slice(0, 3).map((r) => [r.symbol, r.favorite])).toEqual([
      ['BTC/USDT', true],
      ['SOL/USDT', true],
      ['ETH/USDT', false],
    ]);
    expect(rows.filter((r) => r.favorite)).toHaveLength(2);
  });

  it('marks (does not hide) the pairs the exchange does not list', () => {
    const rows = orderPairs({
      quote: 'USDC',
      favorites: [],
      listed: new Set(['BTC/USDC', 'ETH/USDC']),
      search: '',
    });
    expect(rows).toHaveLength(24);
    expect(rows.find((r) => r.base === 'BTC')!.listed).toBe(true);
    expect(rows.find((r) => r.base === 'BYTX')!.listed).toBe(false);
  });

  it('searches by base or pair, any case', () => {
    expect(
      orderPairs({ quote: 'USDT', favorites: [], listed: null, search: 'b' }).map((r) => r.base),
    ).toEqual(['BYTX', 'BTC', 'BNB', 'BCH', 'ARB', 'HBAR']);
    expect(orderPairs({ quote: 'USDT', favorites: [], listed: null, search: 'sol/us' })).toHaveLength(1);
    expect(orderPairs({ quote: 'USDT', favorites: [], listed: null, search: 'zzz' })).toHaveLength(0);
  });
});

describe('PairList', () => {
  it('shows stars, the unlisted mark, search, the quote selector and selection', () => {
    const onSelect = vi.fn();
    const onQuote = vi.fn();
    const onFavorite = vi.fn();
    renderApp(
      <PairList
        exchangeName="Binance"
        pair={{ base: 'BTC', quote: 'USDT' }}
        favorites={['ADA/USDT']}
        listed={new Set(['BTC/USDT', 'ADA/USDT', 'ETH/USDT'])}
        onSelect={onSelect}
        onQuote={onQuote}
        onFavorite={onFavorite}
      />,
    );
    const rows = screen.getAllByTestId('trade-pair');
    expect(rows[0]!.dataset.symbol).toBe('ADA/USDT');
    expect(rows[0]!.dataset.favorite).toBe('true');
    const btc = rows.find((r) => r.dataset.symbol === 'BTC/USDT')!;
    expect(btc.dataset.selected).toBe('true');
    expect(btc.dataset.listed).toBe('true');
    const bytx = rows.find((r) => r.dataset.symbol === 'BYTX/USDT')!;
    expect(bytx.dataset.listed).toBe('false');
    expect(within(bytx).getByTestId('trade-pair-unlisted').textContent).toBe('Not listed');
    expect(within(btc).queryByTestId('trade-pair-unlisted')).toBeNull();

    fireEvent.click(within(btc).getByTestId('trade-pair-star'));
    expect(onFavorite).toHaveBeenCalledWith('BTC/USDT', true);
    fireEvent.click(within(rows[0]!).getByTestId('trade-pair-star'));
    expect(onFavorite).toHaveBeenCalledWith('ADA/USDT', false);
    fireEvent.click(within(bytx).getByTestId('trade-pair-select'));
    expect(onSelect).toHaveBeenCalledWith('BYTX');
    fireEvent.click(screen.getByTestId('trade-quote-USDC'));
    expect(onQuote).toHaveBeenCalledWith('USDC');
    expect(screen.getByTestId('trade-quote-USDT').getAttribute('aria-pressed')).toBe('true');

    // One tab stop (the selected pair); arrows move between pairs and to a pair's star.
    const selects = screen.getAllByTestId('trade-pair-select');
    expect(selects.filter((b) => b.tabIndex === 0)).toEqual([within(btc).getByTestId('trade-pair-select')]);
    expect(screen.getAllByTestId('trade-pair-star').every((b) => b.tabIndex === -1)).toBe(true);
    const btcSelect = within(btc).getByTestId('trade-pair-select');
    btcSelect.focus();
    fireEvent.keyDown(btcSelect, { key: 'ArrowDown' });
    const next = rows[rows.indexOf(btc) + 1]!;
    expect(document.activeElement).toBe(within(next).getByTestId('trade-pair-select'));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(within(next).getByTestId('trade-pair-star'));
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    expect(document.activeElement).toBe(within(rows[0]!).getByTestId('trade-pair-star'));

    setValue(screen.getByTestId('trade-pair-search'), 'eth');
    expect(screen.getAllByTestId('trade-pair').map((r) => r.dataset.symbol)).toEqual(['ETH/USDT']);
    setValue(screen.getByTestId('trade-pair-search'), 'nope');
    expect(screen.getByTestId('trade-pairs-empty')).toBeTruthy();
  });
});
