import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { descriptionOf, expectEveryFieldHelped, valuesOf } from '../../../../test/formHelp';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { GridSettings } from './GridSettings';
import { useGridForm } from './useGridForm';

/** 'Grid Bot Settings' with its real state hook, as the page draws it. */
function Harness() {
  const form = useGridForm('me@example.com', 'me@example.com', true);
  return <GridSettings form={form} onLeverage={() => undefined} />;
}

function responses(starts: Record<string, unknown>[] = []) {
  return {
    '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT'] }),
    '/api/precio': () => json({ price: 100000 }),
    '/api/gridbot/start': (_u: URL, init?: RequestInit) => {
      starts.push(JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>);
      return json({ ok: true, id: 'g1' });
    },
  };
}

const FIGURES = ['grid-high', 'grid-low', 'grid-step', 'grid-amount'];

describe('Grid Bot Settings explain themselves', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('gives every field its help (what, unit, example), in both languages', async () => {
    renderApp(<Harness />, { responses: responses() });
    const form = await screen.findByTestId('grid-form');
    // Exchange, market type, pair, leverage, high, low, profit currency, amount, step, position.
    expectEveryFieldHelped(form, /E\.g\./, 10);
    expect(descriptionOf(screen.getByTestId('grid-high'))).toMatch(
      /price in the quote currency \(not a percent\)/,
    );
    expect(descriptionOf(screen.getByTestId('grid-step'))).toMatch(/in percent/);
    expect(descriptionOf(screen.getByRole('radiogroup', { name: 'Position' }))).toMatch(/Neutral/);
    await i18n.changeLanguage('es');
    await waitFor(() => expect(descriptionOf(screen.getByTestId('grid-step'))).toMatch(/en porcentaje/));
    expectEveryFieldHelped(form, /Ej\.:/, 10);
  });

  it("fills step and amount from a preset, and High and Low around the pair's price with its range", async () => {
    renderApp(<Harness />, { responses: responses() });
    const presets = await screen.findByTestId('grid-presets');
    const conservative = within(presets).getByTestId('grid-presets-conservative');
    expect(conservative.textContent).toBe('Conservative±3 % · step 1 % · 10 USDT/level');
    await userEvent.click(conservative);
    expect(valuesOf(document, FIGURES)).toEqual({
      'grid-high': '',
      'grid-low': '',
      'grid-step': '1',
      'grid-amount': '10',
    });
    // The pair picked after the preset takes its ±3 % (not the spec's ±5 %) around the price.
    fireEvent.change(screen.getByTestId('grid-exchange'), { target: { value: 'binance' } });
    const pair = screen.getByTestId('grid-pair');
    await userEvent.click(pair);
    await userEvent.keyboard('btc');
    await screen.findByRole('listbox');
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('grid-high').value).toBe('103000'));
    expect(valuesOf(document, FIGURES)).toEqual({
      'grid-high': '103000',
      'grid-low': '97000',
      'grid-step': '1',
      'grid-amount': '10',
    });
    expect(conservative.getAttribute('aria-pressed')).toBe('true');
    const aggressive = within(presets).getByTestId('grid-presets-aggressive');
    await userEvent.click(aggressive);
    expect(valuesOf(document, FIGURES)).toEqual({
      'grid-high': '110000',
      'grid-low': '90000',
      'grid-step': '0.5',
      'grid-amount': '25',
    });
    expect(aggressive.getAttribute('aria-pressed')).toBe('true');
  });

  it('starts from the keyboard: Enter picks the pair, then Enter in a field starts the grid once', async () => {
    const starts: Record<string, unknown>[] = [];
    renderApp(<Harness />, { responses: responses(starts) });
    const exchange = await screen.findByTestId('grid-exchange');
    exchange.focus();
    fireEvent.change(exchange, { target: { value: 'binance' } });
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId('grid-market-type'));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId('grid-pair'));
    await userEvent.keyboard('eth');
    await screen.findByRole('listbox');
    await userEvent.keyboard('{ArrowDown}{Enter}');
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('grid-step').value).toBe('0.5'));
    expect(starts).toHaveLength(0);
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId('grid-leverage-btn'));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId('grid-presets-conservative'));
    await userEvent.click(screen.getByTestId('grid-presets-balanced'));
    screen.getByTestId('grid-amount').focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(starts).toHaveLength(1));
    expect(starts[0]).toMatchObject({
      pair: 'ETH/USDT',
      highPrice: 105000,
      lowPrice: 95000,
      stepPercentage: 0.5,
      amountPerLevel: 20,
    });
  });
});
