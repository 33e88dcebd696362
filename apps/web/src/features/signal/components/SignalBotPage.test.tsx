import {
  SIGNAL_MESSAGES,
  SIGNAL_REASONS,
  signalTemplate,
  type SignalBotView,
  type SignalRow,
} from '@bytx/contract';
import { notifications } from '@mantine/notifications';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { SIGNAL_POLL_MS, validateSignalCreate, type SignalForm } from '../api/signal';
import { SignalBotPage } from './SignalBotPage';
import { setValue } from '../../../../test/setValue';

const user = { id: 'u1', email: 'me@example.com' };
type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;
const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

const ID = '11111111-1111-4111-8111-111111111111';
const SECRET = 'sEcReT-abc_123';
const bot = (over: Partial<SignalBotView> = {}): SignalBotView => ({
  id: ID,
  exchange: 'binance',
  symbol: 'ETH/USDT',
  quote: 'USDT',
  amount: 50,
  max_position: 200,
  status: 'active',
  problem: null,
  reason: null,
  webhook_url: `http://localhost/api/signalbot/webhook/${ID}`,
  position_qty: 0.0166,
  avg_entry: 3010,
  price: 3000,
  position_value: 49.8,
  pnl_realized: 0,
  pnl_unrealized: -0.166,
  signals_accepted: 1,
  signals_rejected: 2,
  created_at: '2025-01-01T00:00:00Z',
  stopped_at: null,
  secret_rotated_at: null,
  secret_rotated_reason: null,
  ...over,
});

const signal = (over: Partial<SignalRow>): SignalRow => ({
  id: 's1',
  seq: 1,
  received_at: '2025-01-01T00:01:00Z',
  source_ip: '203.0.113.9',
  payload: { action: 'buy', symbol: 'ETH/USDT', id: 'a1' },
  status: 'executed',
  reason: null,
  reason_text: null,
  orders: [{ client_order_id: 'c1', side: 'buy', amount: 0.0166, price: 3010, status: 'filled' }],
  ...over,
});

function responses(over: Record<string, Handler> = {}, bots: SignalBotView[] = []): Record<string, Handler> {
  return {
    '/api/estado_conexion': () => json({ conexiones: { binance: true, bybit: false, okx: true } }),
    '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT'] }),
    '/api/signalbot/bots': () => json({ success: true, bots }),
    [`/api/signalbot/bots/${ID}/signals`]: () =>
      json({ success: true, signals: [], page: 1, per_page: 20, pages: 1, total: 0 }),
    ...over,
  };
}

const errorText = async () => (await screen.findByTestId('signal-form-error')).textContent;

describe('signal texts', () => {
  it('are the contract texts in English, in both languages', () => {
    const en = i18n.getResourceBundle('en', 'translation') as {
      signal: { messages: Record<string, string>; reasons: Record<string, string> };
    };
    const es = i18n.getResourceBundle('es', 'translation') as typeof en;
    for (const [k, v] of Object.entries(en.signal.messages)) {
      const contract = SIGNAL_MESSAGES[k as keyof typeof SIGNAL_MESSAGES];
      if (k === 'templateHint') {
        expect(
          i18n.t('signal.messages.templateHint', {
            lng: 'en',
            action: '{{strategy.order.action}}',
            timenow: '{{timenow}}',
          }),
        ).toBe(contract);
      } else {
        expect(v.replace(/\{\{(\w+)\}\}/g, '{$1}')).toBe(contract);
      }
    }
    expect(Object.keys(es.signal.messages).sort()).toEqual(Object.keys(en.signal.messages).sort());
    // Every reason code and status has a label in both languages.
    for (const code of Object.keys(SIGNAL_REASONS)) {
      expect(en.signal.reasons[code]).toBeTruthy();
      expect(es.signal.reasons[code]).toBeTruthy();
    }
  });
});

describe('validateSignalCreate', () => {
  const ok: SignalForm = {
    exchange: 'binance',
    symbol: 'ETH/USDT',
    amount: '50',
    maxPosition: '200',
    connected: { binance: true },
  };
  it('checks in the server order', () => {
    expect(validateSignalCreate(ok)).toBeNull();
    expect(validateSignalCreate({ ...ok, exchange: '', symbol: '' })?.key).toBe('noExchange');
    expect(validateSignalCreate({ ...ok, symbol: ' ', amount: '' })?.key).toBe('noSymbol');
    expect(validateSignalCreate({ ...ok, amount: '0' })?.key).toBe('badAmount');
    expect(validateSignalCreate({ ...ok, amount: 'x' })?.key).toBe('badAmount');
    expect(validateSignalCreate({ ...ok, maxPosition: '' })?.key).toBe('badMaxPosition');
    expect(validateSignalCreate({ ...ok, amount: '300' })).toEqual({
      key: 'amountOverMax',
      params: { amount: 300, max: 200 },
    });
    expect(validateSignalCreate({ ...ok, amount: '50,5' })).toBeNull();
    expect(validateSignalCreate({ ...ok, connected: {} })?.key).toBe('notConnected');
  });
});

describe('SignalBotPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    act(() => notifications.clean());
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('offers only the connected exchanges and validates the form with its texts', async () => {
    const creates: unknown[] = [];
    renderApp(<SignalBotPage />, {
      user,
      responses: responses({
        '/api/signalbot/bots': (_u, init) => {
          if (init?.method === 'POST') creates.push(bodyOf(init));
          return json({ success: true, bots: [] });
        },
      }),
    });
    expect((await screen.findByTestId('signal-no-bots')).textContent).toBe('No signal bot yet.');
    const select = screen.getByTestId('signal-exchange');
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(3));
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Select a connected exchange', 'Binance', 'OKX']);
    const submit = screen.getByTestId('signal-create-submit');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SIGNAL_MESSAGES.noExchange);
    setValue(select, 'binance');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SIGNAL_MESSAGES.noSymbol);
    setValue(screen.getByTestId('signal-symbol'), 'eth/usdt');
    expect(screen.getByTestId<HTMLInputElement>('signal-symbol').value).toBe('ETH/USDT');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SIGNAL_MESSAGES.badAmount);
    setValue(screen.getByTestId('signal-amount'), '300');
    fireEvent.click(submit);
    expect(await errorText()).toBe(SIGNAL_MESSAGES.badMaxPosition);
    setValue(screen.getByTestId('signal-max-position'), '200');
    fireEvent.click(submit);
    expect(await errorText()).toBe('Amount per signal (300) must not exceed the max position (200).');
    expect(creates).toHaveLength(0);
  });

  it('creates a bot with the exact fields and shows its secret and the template at once', async () => {
    const creates: Record<string, unknown>[] = [];
    let bots: SignalBotView[] = [];
    renderApp(<SignalBotPage />, {
      user,
      responses: responses({
        '/api/signalbot/bots': (_u, init) => {
          if (init?.method === 'POST') {
            creates.push(bodyOf(init));
            bots = [bot()];
            return json({
              success: true,
              message: SIGNAL_MESSAGES.created,
              bot: bots[0],
              id: ID,
              webhook_url: bots[0]!.webhook_url,
              secret: SECRET,
            });
          }
          return json({ success: true, bots });
        },
      }),
    });
    const select = await screen.findByTestId('signal-exchange');
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(3));
    setValue(select, 'binance');
    setValue(screen.getByTestId('signal-symbol'), 'ETH/USDT');
    setValue(screen.getByTestId('signal-amount'), '50');
    setValue(screen.getByTestId('signal-max-position'), '200,5');
    fireEvent.click(screen.getByTestId('signal-create-submit'));
    await waitFor(() =>
      expect(creates).toEqual([{ exchange: 'binance', symbol: 'ETH/USDT', amount: 50, max_position: 200.5 }]),
    );
    expect(await screen.findByText(SIGNAL_MESSAGES.created)).toBeTruthy();
    const card = await screen.findByTestId('signal-bot');
    await waitFor(() => expect(within(card).getByTestId('signal-secret').textContent).toBe(SECRET));
    // Shown this once, with a copy button and the notice that it will not be seen again.
    expect(within(card).getByTestId('signal-secret-once').textContent).toBe(SIGNAL_MESSAGES.secretOnce);
    expect(within(card).getByTestId('signal-secret-copy')).toBeTruthy();
    expect(within(card).getByTestId('signal-template').textContent).toBe(
      `{"secret":"${SECRET}","action":"{{strategy.order.action}}","symbol":"ETH/USDT","id":"{{timenow}}","time":"{{timenow}}"}`,
    );
    // "I saved it" forgets it: nothing can show it again.
    await userEvent.click(within(card).getByTestId('signal-secret-hide'));
    expect(within(card).getByTestId('signal-secret').textContent).not.toContain(SECRET);
    expect(within(card).getByTestId('signal-template').textContent).not.toContain(SECRET);
    expect(within(card).getByTestId('signal-secret-hidden').textContent).toBe(SIGNAL_MESSAGES.secretHidden);
    expect(within(card).queryByTestId('signal-secret-copy')).toBeNull();
  });

  it('shows the webhook, position and PnL; never reads the secret; rotates after a confirmation and shows the new one once', async () => {
    const writes: string[] = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: (s: string) => (writes.push(s), Promise.resolve()) },
    });
    let rotations = 0;
    const secretCalls: string[] = [];
    renderApp(<SignalBotPage />, {
      user,
      responses: responses(
        {
          [`/api/signalbot/bots/${ID}/secret`]: (_u, init) => {
            secretCalls.push(init?.method ?? 'GET');
            rotations++;
            return json({ success: true, secret: 'NEW-secret', message: SIGNAL_MESSAGES.secretRotated });
          },
        },
        [bot()],
      ),
    });
    const card = await screen.findByTestId('signal-bot');
    expect(within(card).getByTestId('signal-webhook-url').textContent).toBe(
      `http://localhost/api/signalbot/webhook/${ID}`,
    );
    expect(within(card).getByTestId('signal-position-qty').textContent).toBe('0.0166 ETH');
    expect(within(card).getByTestId('signal-avg-entry').textContent).toBe('3010');
    const upnl = within(card).getByTestId('signal-pnl-unrealized');
    expect(upnl.textContent).toBe('-0.166 USDT');
    expect(upnl.getAttribute('style') ?? '').toContain('red');
    expect(within(card).getByTestId('signal-counts').textContent).toBe('Signals: 1 accepted · 2 rejected');

    // Not known to the page: hidden, no reveal and no copy of it; the template has a placeholder.
    const secret = within(card).getByTestId('signal-secret');
    expect(secret.getAttribute('data-shown')).toBe('0');
    expect(within(card).queryByTestId('signal-secret-reveal')).toBeNull();
    expect(within(card).queryByTestId('signal-secret-copy')).toBeNull();
    expect(within(card).getByTestId('signal-secret-hidden').textContent).toBe(SIGNAL_MESSAGES.secretHidden);
    expect(within(card).getByTestId('signal-template').textContent).toBe(
      signalTemplate('YOUR_SECRET', 'ETH/USDT'),
    );
    await userEvent.click(within(card).getByTestId('signal-webhook-copy'));
    await waitFor(() => expect(writes).toEqual([`http://localhost/api/signalbot/webhook/${ID}`]));
    expect(within(card).getByTestId('signal-webhook-copy').textContent).toBe('Copied');

    // Rotate: Cancel changes nothing; confirming shows the new secret once and says so.
    await userEvent.click(within(card).getByTestId('signal-bot-actions'));
    await userEvent.click(await screen.findByTestId('signal-secret-rotate'));
    expect(await screen.findByText(SIGNAL_MESSAGES.rotateConfirm)).toBeTruthy();
    await userEvent.click(screen.getByTestId('signal-rotate-cancel'));
    expect(rotations).toBe(0);
    await userEvent.click(within(card).getByTestId('signal-bot-actions'));
    await userEvent.click(await screen.findByTestId('signal-secret-rotate'));
    await userEvent.click(await screen.findByTestId('signal-rotate-confirm'));
    await waitFor(() => expect(secret.textContent).toBe('NEW-secret'));
    expect(rotations).toBe(1);
    expect(secretCalls).toEqual(['POST']);
    expect(within(card).getByTestId('signal-secret-once').textContent).toBe(SIGNAL_MESSAGES.secretOnce);
    expect(within(card).getByTestId('signal-template').textContent).toBe(
      signalTemplate('NEW-secret', 'ETH/USDT'),
    );
    expect(await screen.findByText(SIGNAL_MESSAGES.secretRotated)).toBeTruthy();
    await userEvent.click(within(card).getByTestId('signal-secret-copy'));
    await waitFor(() => expect(writes[1]).toBe('NEW-secret'));
    await userEvent.click(within(card).getByTestId('signal-template-copy'));
    await waitFor(() => expect(writes[2]).toBe(signalTemplate('NEW-secret', 'ETH/USDT')));
    expect(JSON.parse(writes[2]!)).toEqual({
      secret: 'NEW-secret',
      action: '{{strategy.order.action}}',
      symbol: 'ETH/USDT',
      id: '{{timenow}}',
      time: '{{timenow}}',
    });
    await userEvent.click(within(card).getByTestId('signal-secret-hide'));
    expect(secret.textContent).not.toContain('NEW-secret');
    expect(secretCalls).toEqual(['POST']);
  });

  it('asks for the password when the rotate call needs a recent sign-in, then rotates', async () => {
    const reauths: Record<string, unknown>[] = [];
    let confirmed = false;
    renderApp(<SignalBotPage />, {
      user,
      responses: responses(
        {
          [`/api/signalbot/bots/${ID}/secret`]: () =>
            confirmed
              ? json({ success: true, secret: 'AFTER-reauth', message: SIGNAL_MESSAGES.secretRotated })
              : json(
                  {
                    success: false,
                    error: 'Confirm your password to continue',
                    error_code: 'reauth_required',
                  },
                  403,
                ),
          '/api/reauth': (_u, init) => {
            const body = bodyOf(init);
            reauths.push(body);
            if (body.password !== 'right-pass') {
              return json(
                { success: false, error: 'The password is incorrect.', error_code: 'wrong_password' },
                400,
              );
            }
            confirmed = true;
            return json({ success: true, message: 'Password confirmed.' });
          },
        },
        [bot({ secret_rotated_at: '2025-01-02T00:00:00Z', secret_rotated_reason: 'password_change' })],
      ),
    });
    const card = await screen.findByTestId('signal-bot');
    // The secret was replaced by a password change: the card says so and asks for a rotation.
    expect(within(card).getByTestId('signal-secret-password-notice').textContent).toMatch(
      /^Your password was changed on .+, so this bot's webhook secret was replaced/,
    );
    await userEvent.click(within(card).getByTestId('signal-bot-actions'));
    await userEvent.click(await screen.findByTestId('signal-secret-rotate'));
    await userEvent.click(await screen.findByTestId('signal-rotate-confirm'));
    const dialog = await screen.findByTestId('reauth-form');
    await userEvent.type(within(dialog).getByTestId('reauth-password'), 'wrong-pass');
    await userEvent.click(within(dialog).getByTestId('reauth-confirm'));
    expect((await screen.findByTestId('reauth-error')).textContent).toBe('❌ The password is incorrect.');
    await userEvent.clear(within(dialog).getByTestId('reauth-password'));
    await userEvent.type(within(dialog).getByTestId('reauth-password'), 'right-pass');
    await userEvent.click(within(dialog).getByTestId('reauth-confirm'));
    await waitFor(() => expect(within(card).getByTestId('signal-secret').textContent).toBe('AFTER-reauth'));
    expect(reauths).toEqual([{ password: 'wrong-pass' }, { password: 'right-pass' }]);
    expect(within(card).queryByTestId('signal-secret-password-notice')).toBeNull();
  });

  it('shows the signal log paged with each status and reason, polled every 5 s', async () => {
    const asked: string[] = [];
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderApp(<SignalBotPage />, {
      user,
      responses: responses(
        {
          [`/api/signalbot/bots/${ID}/signals`]: (url) => {
            asked.push(url.search);
            const page = Number(url.searchParams.get('page'));
            return json({
              success: true,
              signals:
                page === 1
                  ? [
                      signal({
                        id: 's5',
                        status: 'duplicate',
                        payload: { action: 'buy', id: 'a1' },
                        orders: [],
                      }),
                      signal({
                        id: 's4',
                        status: 'rejected',
                        seq: null,
                        reason: 'wrong_secret',
                        reason_text: SIGNAL_REASONS.wrong_secret,
                        orders: [],
                      }),
                      signal({
                        id: 's3',
                        status: 'skipped',
                        reason: 'max_position',
                        reason_text: SIGNAL_REASONS.max_position,
                        orders: [],
                      }),
                      signal({ id: 's2', status: 'accepted', orders: [] }),
                    ]
                  : [signal({ id: 's1' })],
              page,
              per_page: 4,
              pages: 2,
              total: 5,
            });
          },
        },
        [bot()],
      ),
    });
    const card = await screen.findByTestId('signal-bot');
    await userEvent.click(within(card).getByTestId('signal-bot-actions'));
    await userEvent.click(await screen.findByTestId('signal-log-toggle'));
    const rows = await within(card).findAllByTestId('signal-log-row');
    expect(rows.map((r) => r.dataset.status)).toEqual(['duplicate', 'rejected', 'skipped', 'accepted']);
    expect(rows.map((r) => within(r).getByTestId('signal-log-status').textContent)).toEqual([
      'Duplicate',
      'Rejected',
      'Skipped',
      'Accepted',
    ]);
    expect(within(rows[1]!).getByTestId('signal-log-reason').textContent).toBe(
      `Wrong secret${SIGNAL_REASONS.wrong_secret}`,
    );
    expect(within(rows[2]!).getByTestId('signal-log-reason').textContent).toContain('Max position reached');
    expect(within(card).getByTestId('signal-log-total').textContent).toBe('5 signals');
    expect(asked[0]).toBe('?page=1&per_page=20');

    await act(async () => {
      await vi.advanceTimersByTimeAsync(SIGNAL_POLL_MS + 100);
    });
    await waitFor(() => expect(asked.length).toBeGreaterThanOrEqual(2));
    expect(asked[1]).toBe('?page=1&per_page=20');

    await userEvent.click(within(within(card).getByTestId('signal-log-pager')).getByText('2'));
    const row1 = await waitFor(() => {
      const r = within(card).getAllByTestId('signal-log-row');
      expect(r).toHaveLength(1);
      return r[0]!;
    });
    expect(row1.dataset.status).toBe('executed');
    expect(within(row1).getByTestId('signal-log-orders').textContent).toBe('Buy 0.0166 @ 3010 (filled)');
    expect(within(row1).getByTestId('signal-log-action').textContent).toBe('buy');
    expect(asked).toContain('?page=2&per_page=20');
  });

  it('polls the bot list every 5 s and stops a bot: sell by default, keep when chosen', async () => {
    const stops: { path: string; body: Record<string, unknown> }[] = [];
    let lists = 0;
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderApp(<SignalBotPage />, {
      user,
      responses: responses({
        '/api/signalbot/bots': () => {
          lists++;
          return json({
            success: true,
            bots: [bot(), bot({ id: 'x2', status: 'stopped', stopped_at: '2025-01-02T00:00:00Z' })],
          });
        },
        [`/api/signalbot/bots/${ID}/stop`]: (url, init) => {
          const body = bodyOf(init);
          stops.push({ path: url.pathname, body });
          return json({
            success: true,
            message: body.keep_assets ? SIGNAL_MESSAGES.stoppedKeepAssets : SIGNAL_MESSAGES.stopped,
          });
        },
      }),
    });
    const cards = await screen.findAllByTestId('signal-bot');
    expect(cards).toHaveLength(2);
    // A stopped bot's actions menu has no Stop.
    await userEvent.click(within(cards[1]!).getByTestId('signal-bot-actions'));
    expect(await screen.findByTestId('signal-log-toggle')).toBeTruthy();
    expect(screen.queryByTestId('signal-bot-stop')).toBeNull();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('signal-log-toggle')).toBeNull());
    expect(within(cards[1]!).getByTestId('signal-bot-status').textContent).toBe('Stopped');
    const before = lists;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(SIGNAL_POLL_MS + 100);
    });
    await waitFor(() => expect(lists).toBeGreaterThan(before));

    await userEvent.click(within(cards[0]!).getByTestId('signal-bot-actions'));
    await userEvent.click(await screen.findByTestId('signal-bot-stop'));
    await userEvent.click(await screen.findByTestId('signal-stop-confirm'));
    await waitFor(() =>
      expect(stops).toEqual([{ path: `/api/signalbot/bots/${ID}/stop`, body: { keep_assets: false } }]),
    );
    expect(await screen.findByText(SIGNAL_MESSAGES.stopped)).toBeTruthy();
    await userEvent.click(within(screen.getAllByTestId('signal-bot')[0]!).getByTestId('signal-bot-actions'));
    await userEvent.click(await screen.findByTestId('signal-bot-stop'));
    await userEvent.click(await screen.findByRole('radio', { name: 'Keep it & stop' }));
    await userEvent.click(screen.getByTestId('signal-stop-confirm'));
    await waitFor(() => expect(stops[1]?.body).toEqual({ keep_assets: true }));
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<SignalBotPage />, { user, responses: responses({}, [bot()]) });
    expect(await screen.findByText('Nuevo bot de señales')).toBeTruthy();
    const card = await screen.findByTestId('signal-bot');
    await userEvent.click(within(card).getByTestId('signal-bot-actions'));
    expect((await screen.findByTestId('signal-secret-rotate')).textContent).toBe('Renovar secreto');
    await userEvent.keyboard('{Escape}');
    expect(within(card).getByTestId('signal-secret-hidden').textContent).toBe(
      'Se muestra una sola vez, al crear el bot o al renovar el secreto.',
    );
    expect(within(card).getByText('URL del webhook')).toBeTruthy();
    fireEvent.click(screen.getByTestId('signal-create-submit'));
    expect(await errorText()).toBe('Debes seleccionar un exchange.');
  });
});
