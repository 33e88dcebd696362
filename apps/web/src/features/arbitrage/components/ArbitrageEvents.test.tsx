import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { ArbitrageEvents } from './ArbitrageEvents';

const EVENTS = [
  {
    id: '3',
    ts: '2025-01-01T00:03:00Z',
    type: 'arb_round_trip',
    level: 'info',
    data: {
      buy_exchange: 'binance',
      sell_exchange: 'bybit',
      qty: 0.05,
      buy_price: 3001.5,
      sell_price: 3010.25,
      fees: 0.3,
      pnl_net: 0.1375,
      expected_net: 0.14,
    },
  },
  {
    id: '2',
    ts: '2025-01-01T00:02:00Z',
    type: 'arb_prepared',
    level: 'info',
    data: { exchange: 'bybit', qty: 0.1, price: 3000, fee: 0.01976298, base: 0.1, quote: '1200.5' },
  },
  {
    id: '1',
    ts: '2025-01-01T00:01:00Z',
    type: 'base_filled',
    level: 'warn',
    data: { fee: 0.01976298, qty: 2 },
  },
];

describe('arbitrage event log', () => {
  afterEach(() => i18n.changeLanguage('en'));

  it('prints each event as a sentence with its figures, never JSON', async () => {
    renderApp(<ArbitrageEvents userId="me@example.com" />, {
      user: { id: 'u1', email: 'me@example.com' },
      responses: { '/api/arbitraje/log': () => json({ success: true, bot_id: 'b1', events: EVENTS }) },
    });
    await userEvent.click(await screen.findByTestId('arb-events-toggle'));
    const texts = (await screen.findAllByTestId('arb-event-text')).map((e) => e.textContent);
    expect(texts).toEqual([
      'Round trip done: 0.05 bought on Binance at 3,001.5 and sold on Bybit at 3,010.25; fees 0.3, net 0.1375 USDT (expected 0.14).',
      'Inventory prepared on Bybit: bought 0.1 at 3,000 (fee 0.01976298); it holds 0.1 and 1,200.5 USDT.',
      // A code without a sentence of its own: a readable line.
      'Base filled: fee 0.01976298 · qty 2',
    ]);
    for (const row of screen.getAllByTestId('arb-event')) expect(row.textContent).not.toMatch(/[{}"]/);
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<ArbitrageEvents userId="me@example.com" />, {
      user: { id: 'u1', email: 'me@example.com' },
      responses: {
        '/api/arbitraje/log': () => json({ success: true, bot_id: 'b1', events: EVENTS.slice(1, 2) }),
      },
    });
    await userEvent.click(await screen.findByTestId('arb-events-toggle'));
    expect((await screen.findByTestId('arb-event-text')).textContent).toBe(
      'Inventario preparado en Bybit: comprados 0,1 a 3.000 (comisión 0,01976298); tiene 0,1 y 1.200,5 USDT.',
    );
  });
});
