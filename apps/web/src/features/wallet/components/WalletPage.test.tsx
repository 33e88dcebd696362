import { WALLET_COINS } from '@bytx/contract';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { sortCoins, WalletPage } from './WalletPage';

const user = { id: 'u1', email: 'me@example.com' };
const balances = Object.fromEntries(WALLET_COINS.map((c) => [c, 0]));

describe('WalletPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('sorts by balance, highest first, keeping the spec order for ties, and filters by search', () => {
    const sorted = sortCoins({ ...balances, BTC: 0.5, USDT: 100, SOL: 2 }, '');
    expect(sorted.slice(0, 4)).toEqual(['USDT', 'SOL', 'BTC', 'ETH']);
    expect(sorted).toHaveLength(26);
    expect(sortCoins(balances, ' bt')).toEqual(['BTC']);
  });

  it('says the user must log in when nobody is', async () => {
    renderApp(<WalletPage />);
    expect(await screen.findByText('You must be logged in to view your wallet')).toBeTruthy();
  });

  it('shows held coins with 4-decimal balances (26 rows with zeros shown), Loading... until addresses come, and the copy notice', async () => {
    let releaseAddresses: () => void = () => undefined;
    const addressesReady = new Promise<void>((r) => (releaseAddresses = r));
    renderApp(<WalletPage />, {
      user,
      responses: {
        '/api/wallet': () =>
          json({ balances: { ...balances, USDT: 10000, ETH: 1.23456 }, exchange: 'binance', mode: 'live' }),
        '/api/exchanges/connections': () =>
          json({
            success: true,
            connections: [
              { exchange: 'binance', name: 'Binance', mode: 'live', createdAt: '2025-01-01T00:00:00Z' },
            ],
          }),
        '/api/address': async () => {
          await addressesReady;
          return json({ ETH: '0x52908400098527886E0F7030069857D2E4169EE7' });
        },
      },
    });
    expect((await screen.findByTestId('wallet-balance-USDT')).textContent).toBe('10,000.0000');
    expect(screen.getByTestId('wallet-balance-ETH').textContent).toBe('1.2346');
    // Zero balances hidden by default; the switch shows all 26 in the spec's order.
    expect(screen.getAllByTestId(/^wallet-row-/).map((r) => r.dataset.symbol)).toEqual(['USDT', 'ETH']);
    expect(screen.getByTestId('wallet-zero-hidden').textContent).toBe('24 coins with a zero balance hidden.');
    await userEvent.click(screen.getByLabelText('Hide zero balances'));
    const rows = screen.getAllByTestId(/^wallet-row-/);
    expect(rows).toHaveLength(26);
    expect(rows.map((r) => r.dataset.symbol).slice(0, 3)).toEqual(['USDT', 'ETH', 'BYTX']);
    expect(screen.queryByTestId('wallet-zero-hidden')).toBeNull();
    expect(screen.getByTestId('wallet-address-ETH').textContent).toBe('Loading...');
    releaseAddresses();
    await waitFor(() =>
      expect(screen.getByTestId('wallet-address-ETH').textContent).toBe(
        '0x52908400098527886E0F7030069857D2E4169EE7',
      ),
    );
    await userEvent.click(screen.getByTestId('wallet-deposit-ETH'));
    expect((await screen.findByTestId('wallet-copied-ETH')).textContent).toBe('Address copied!');
    await waitFor(() => expect(screen.queryByTestId('wallet-copied-ETH')).toBeNull(), { timeout: 3000 });
    expect(screen.getByPlaceholderText('Search crypto (ex. BTC)')).toBeTruthy();
    // A live account: no simulated mark and no reset.
    expect(screen.queryByTestId('wallet-simulated-ETH')).toBeNull();
    expect(screen.queryByTestId('wallet-reset')).toBeNull();
  });

  it('marks paper addresses simulated in the row and the copied notice (EN and ES)', async () => {
    const addr = 'PAPER-bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    renderApp(<WalletPage />, {
      user,
      responses: {
        '/api/wallet': () =>
          json({ balances: { ...balances, USDT: 10000 }, exchange: 'binance', mode: 'paper' }),
        '/api/exchanges/connections': () =>
          json({
            success: true,
            connections: [
              { exchange: 'binance', name: 'Binance', mode: 'paper', createdAt: '2025-01-01T00:00:00Z' },
            ],
          }),
        '/api/address': () => json({ BTC: addr }),
      },
    });
    // A search finds a zero-balance coin even with zeros hidden (to deposit to it).
    await screen.findByTestId('wallet-row-USDT');
    expect(screen.queryByTestId('wallet-row-BTC')).toBeNull();
    await userEvent.type(screen.getByPlaceholderText('Search crypto (ex. BTC)'), 'btc');
    await waitFor(() => expect(screen.getByTestId('wallet-address-BTC').textContent).toBe(addr));
    expect(screen.getByTestId('wallet-simulated-BTC').textContent).toBe('Simulated');
    expect(screen.getByTestId('wallet-simulated-note-BTC').textContent).toContain('nobody holds its keys');
    await userEvent.click(screen.getByTestId('wallet-deposit-BTC'));
    expect((await screen.findByTestId('wallet-copied-BTC')).textContent).toBe(
      'Simulated address copied: it is not a real deposit address, never send funds to it.',
    );
    await i18n.changeLanguage('es');
    expect((await screen.findByTestId('wallet-simulated-BTC')).textContent).toBe('Simulada');
    expect(screen.getByTestId('wallet-copied-BTC').textContent).toBe(
      'Dirección simulada copiada: no es una dirección de depósito real, nunca envíes fondos a ella.',
    );
    expect(screen.getByTestId('wallet-simulated-note-BTC').textContent).toContain('nadie tiene sus claves');
  });

  it('resets a paper account after a confirmation; a 409 says to stop the bots first (EN and ES)', async () => {
    let usdt = 5;
    let refuse = true;
    const resets: unknown[] = [];
    const { requestedPaths } = renderApp(<WalletPage />, {
      user,
      responses: {
        '/api/wallet': () =>
          json({ balances: { ...balances, USDT: usdt }, exchange: 'binance', mode: 'paper' }),
        '/api/exchanges/connections': () =>
          json({
            success: true,
            connections: [
              { exchange: 'binance', name: 'Binance', mode: 'paper', createdAt: '2025-01-01T00:00:00Z' },
            ],
          }),
        '/api/address': () => json({}),
        '/api/wallet/reset': (_url, init) => {
          resets.push(JSON.parse(init?.body as string));
          if (refuse) return json({ success: false, error: 'Stop…', code: 'bots_running', running: 2 }, 409);
          usdt = 10000;
          return json({ success: true, exchange: 'binance', message: 'ok', balances: { USDT: 10000 } });
        },
      },
    });
    expect((await screen.findByTestId('wallet-balance-USDT')).textContent).toBe('5.0000');
    // Cancel sends nothing.
    await userEvent.click(screen.getByTestId('wallet-reset'));
    expect((await screen.findByTestId('wallet-reset-dialog')).textContent).toContain('10,000 USDT');
    await userEvent.click(screen.getByTestId('wallet-reset-cancel'));
    expect(requestedPaths()).not.toContain('/api/wallet/reset');

    await i18n.changeLanguage('es');
    await userEvent.click(screen.getByTestId('wallet-reset'));
    await userEvent.click(await screen.findByTestId('wallet-reset-confirm'));
    expect(
      await screen.findByText(
        '❌ Detén primero los 2 bot(s) y órdenes abiertas de esta cuenta paper y luego restablécela.',
      ),
    ).toBeTruthy();
    expect(screen.getByTestId('wallet-balance-USDT').textContent).toBe('5,0000');

    await i18n.changeLanguage('en');
    refuse = false;
    await userEvent.click(screen.getByTestId('wallet-reset'));
    await userEvent.click(await screen.findByTestId('wallet-reset-confirm'));
    expect(await screen.findByText('✅ Paper account reset: 10,000 USDT.')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('wallet-balance-USDT').textContent).toBe('10,000.0000'));
    expect(resets).toEqual([
      { exchange: 'binance', user_id: 'me@example.com' },
      { exchange: 'binance', user_id: 'me@example.com' },
    ]);
  });

  it('shows the derivatives wallet and each position with its liquidation price and funding (EN and ES)', async () => {
    const common = {
      '/api/wallet': () => json({ balances, exchange: 'binance', mode: 'paper' }),
      '/api/exchanges/connections': () =>
        json({
          success: true,
          connections: [
            { exchange: 'binance', name: 'Binance', mode: 'paper', createdAt: '2025-01-01T00:00:00Z' },
          ],
        }),
      '/api/address': () => json({}),
    };
    const derivatives = {
      success: true,
      exchange: 'binance',
      mode: 'paper',
      supported: true,
      wallet: { USDT: 9990, BTC: 0.1 },
      positions: [
        {
          symbol: 'BTC/USDT:USDT',
          market_type: 'Perpetual',
          side: 'short',
          contracts: 0.0005,
          entry_price: 100000,
          mark_price: 101000,
          leverage: 5,
          margin: 10,
          settle: 'USDT',
          liquidation_price: 119500,
          unrealized_pnl: -0.5,
          funding_paid: -0.005,
          funding_rate: 0.0001,
          next_funding_time: 1_700_006_400_000,
        },
      ],
    };
    const view = renderApp(<WalletPage />, {
      user,
      responses: { ...common, '/api/wallet/derivatives': () => json(derivatives) },
    });
    const row = await screen.findByTestId('wallet-position');
    expect(row.textContent).toContain('BTC/USDT:USDT');
    expect(row.textContent).toContain('Short');
    expect(row.textContent).toContain('5x');
    expect(screen.getByTestId('wallet-position-liq').textContent).toBe('119,500.00');
    expect(row.textContent).toContain('0.0100 % · -0.005 USDT');
    expect(row.textContent).toContain('10.00 USDT');
    expect(screen.getByTestId('wallet-derivatives-balances').textContent).toContain('BTC 0.1');
    expect(screen.getByTestId('wallet-derivatives-balances').textContent).toContain('USDT 9,990.00');
    await i18n.changeLanguage('es');
    expect((await screen.findByText('Cartera de derivados y posiciones')).textContent).toBeTruthy();
    expect(screen.getByTestId('wallet-position').textContent).toContain('Corto');
    expect(screen.getByTestId('wallet-position-liq').textContent).toBe('119.500,00');
    expect(screen.getByTestId('wallet-derivatives-balances').textContent).toContain('BTC 0,1');
    view.unmount();
    await i18n.changeLanguage('en');
    // A venue without derivatives: no panel at all.
    let answered = false;
    renderApp(<WalletPage />, {
      user,
      responses: {
        ...common,
        '/api/wallet/derivatives': () => {
          answered = true;
          return json({ ...derivatives, supported: false, wallet: {}, positions: [] });
        },
      },
    });
    await screen.findByTestId('wallet-all-zero');
    await waitFor(() => expect(answered).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('wallet-derivatives')).toBeNull();
  });

  it('totals the wallet in USDT, names the coins it cannot value, and marks a paper account (EN and ES)', async () => {
    const asked: string[] = [];
    renderApp(<WalletPage />, {
      user,
      responses: {
        '/api/wallet': () =>
          json({
            balances: { ...balances, USDT: 1000, USDC: 234.5, BTC: 0.01, BYTX: 50000 },
            exchange: 'binance',
            mode: 'paper',
          }),
        '/api/exchanges/connections': () =>
          json({
            success: true,
            connections: [
              { exchange: 'binance', name: 'Binance', mode: 'paper', createdAt: '2025-01-01T00:00:00Z' },
            ],
          }),
        '/api/address': () => json({}),
        // BTC has a USDT market on the account's exchange; BYTX does not (404).
        '/api/market/ticker': (url) => {
          const symbol = url.searchParams.get('symbol') ?? '';
          asked.push(`${url.searchParams.get('exchange')} ${symbol}`);
          return symbol === 'BTC/USDT'
            ? json({
                exchange: 'binance',
                symbol,
                last: 95000,
                bid: null,
                ask: null,
                percentage: null,
                timestamp: 0,
              })
            : json({ success: false, error: 'unknown symbol' }, 404);
        },
      },
    });
    // 1000 + 234.5 + 0.01 x 95000 = 2184.50; BYTX is left out and named, not counted as 0.
    await waitFor(() => expect(screen.getByTestId('wallet-total-value').textContent).toBe('≈ 2,184.50 USDT'));
    expect(screen.getByTestId('wallet-unvalued').textContent).toBe('Not in the total (no USDT price): BYTX');
    expect(screen.getByTestId('wallet-value-BTC').textContent).toBe('≈ 950.00 USDT');
    expect(screen.getByTestId('wallet-value-BYTX').textContent).toBe('No USDT price');
    expect(screen.getByTestId('wallet-balance-BYTX').textContent).toBe('50,000.0000');
    // Only held, non-stable coins are priced.
    expect(asked.sort()).toEqual(['binance BTC/USDT', 'binance BYTX/USDT']);
    expect(screen.getByTestId('wallet-paper-badge').textContent).toBe('Paper');
    await i18n.changeLanguage('es');
    await waitFor(() => expect(screen.getByTestId('wallet-total-value').textContent).toBe('≈ 2.184,50 USDT'));
    expect(screen.getByTestId('wallet-unvalued').textContent).toBe(
      'Fuera del total (sin precio en USDT): BYTX',
    );
    expect(screen.getByTestId('wallet-balance-BYTX').textContent).toBe('50.000,0000');
    expect(screen.getByLabelText('Ocultar saldos en cero')).toBeTruthy();
  });

  it('says every balance is 0 instead of an empty list, and a live account has no paper badge', async () => {
    renderApp(<WalletPage />, {
      user,
      responses: {
        '/api/wallet': () => json({ balances, exchange: 'binance', mode: 'live' }),
        '/api/exchanges/connections': () => json({ success: true, connections: [] }),
        '/api/address': () => json({}),
      },
    });
    expect((await screen.findByTestId('wallet-all-zero')).textContent).toContain('Every balance is 0');
    expect(screen.queryAllByTestId(/^wallet-row-/)).toHaveLength(0);
    expect(screen.getByTestId('wallet-total-value').textContent).toBe('≈ 0.00 USDT');
    expect(screen.queryByTestId('wallet-paper-badge')).toBeNull();
    await userEvent.click(screen.getByLabelText('Hide zero balances'));
    expect(screen.getAllByTestId(/^wallet-row-/)).toHaveLength(26);
    expect(screen.queryByTestId('wallet-all-zero')).toBeNull();
  });
});
