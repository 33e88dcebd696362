import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { descriptionOf, expectEveryFieldHelped, valuesOf } from '../../../../test/formHelp';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { SignalCreateForm } from './SignalCreateForm';
import { localHostOf, WebhookReach } from './WebhookReach';

function responses(creates: Record<string, unknown>[] = []) {
  return {
    '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['ETH/USDT'] }),
    '/api/signalbot/bots': (_u: URL, init?: RequestInit) => {
      creates.push(JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>);
      return json({ success: false, error: 'stop here' }, 400);
    },
  };
}

describe('the signal bot create form', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('gives every field its help (what, unit, example), in both languages', async () => {
    renderApp(<SignalCreateForm userId="u1" onCreated={() => undefined} />, { responses: responses() });
    const form = await screen.findByTestId('signal-form');
    expectEveryFieldHelped(form, /E\.g\./, 4);
    expect(descriptionOf(screen.getByTestId('signal-max-position'))).toMatch(/quote currency/);
    await i18n.changeLanguage('es');
    await waitFor(() => expect(descriptionOf(screen.getByTestId('signal-amount'))).toMatch(/Ej\.: 25/));
    expectEveryFieldHelped(form, /Ej\.:/, 4);
  });

  it('fills amount and max position from a preset that shows them, and Enter creates with them', async () => {
    const creates: Record<string, unknown>[] = [];
    renderApp(<SignalCreateForm userId="u1" onCreated={() => undefined} />, {
      responses: responses(creates),
    });
    const exchange = await screen.findByTestId('signal-exchange');
    await waitFor(() => expect(exchange.querySelector('option[value="binance"]')).not.toBeNull());
    fireEvent.change(exchange, { target: { value: 'binance' } });
    fireEvent.input(screen.getByTestId('signal-symbol'), { target: { value: 'ETH/USDT' } });
    const conservative = screen.getByTestId('signal-presets-conservative');
    expect(conservative.textContent).toBe('Conservative10 USDT per signal · max 50 USDT');
    await userEvent.click(conservative);
    expect(valuesOf(document, ['signal-amount', 'signal-max-position'])).toEqual({
      'signal-amount': '10',
      'signal-max-position': '50',
    });
    await userEvent.click(screen.getByTestId('signal-presets-aggressive'));
    screen.getByTestId('signal-max-position').focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(creates).toHaveLength(1));
    expect(creates[0]).toMatchObject({
      exchange: 'binance',
      symbol: 'ETH/USDT',
      amount: 50,
      max_position: 500,
    });
  });
});

describe('the webhook URL on a local address', () => {
  it('knows the local hosts', () => {
    expect(localHostOf('http://localhost:3000/api/signalbot/webhook/x')).toBe('localhost');
    expect(localHostOf('http://127.0.0.1:3000/x')).toBe('127.0.0.1');
    expect(localHostOf('http://[::1]:3000/x')).toBe('[::1]');
    expect(localHostOf('https://bots.example.com/api/signalbot/webhook/x')).toBeNull();
    expect(localHostOf('not a url')).toBeNull();
  });

  it('says TradingView cannot reach it and that PUBLIC_URL sets it (EN, ES); nothing on a public URL', async () => {
    const { rerender } = renderApp(<WebhookReach url="http://localhost:3000/api/signalbot/webhook/x" />);
    expect((await screen.findByTestId('signal-webhook-local')).textContent).toBe(
      "This URL is on localhost: TradingView cannot reach it from the internet. It is built from the server's PUBLIC_URL setting; set PUBLIC_URL to the server's public address (e.g. https://bots.example.com) and restart it.",
    );
    await i18n.changeLanguage('es');
    await waitFor(() =>
      expect(screen.getByTestId('signal-webhook-local').textContent).toMatch(
        /^Esta URL está en localhost: TradingView no puede llegar a ella.*PUBLIC_URL/,
      ),
    );
    await i18n.changeLanguage('en');
    rerender(<WebhookReach url="https://bots.example.com/api/signalbot/webhook/x" />);
    expect(screen.queryByTestId('signal-webhook-local')).toBeNull();
  });
});
