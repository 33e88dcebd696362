import { apyPercentForPool } from '@bytx/chain';
import type { ChainInfo, EarningsResponse } from '@bytx/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { verifyMessage, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { FAKE_ADDRESSES, fakeChain } from '../../../shared/onchain/testing/fakeChain';
import { resetWalletState } from '../../../shared/onchain/wallet';
import { liveRewards, tierIndex } from '../apy';
import { EarningsPoolsPage } from './EarningsPoolsPage';

/** lightweight-charts draws on a canvas happy-dom lacks: a stand-in records what the page gives it. */
const chartData = vi.hoisted(() => ({ series: [] as unknown[][], created: 0 }));
vi.mock('lightweight-charts', () => ({
  AreaSeries: { type: 'Area' },
  LineSeries: { type: 'Line' },
  ColorType: { Solid: 'solid' },
  createChart: () => {
    chartData.created++;
    return {
      addSeries: () => {
        const i = chartData.series.length;
        chartData.series.push([]);
        return {
          setData: (d: unknown[]) => {
            chartData.series[i] = d;
          },
        };
      },
      timeScale: () => ({ fitContent: () => undefined }),
      remove: () => undefined,
    };
  },
}));

const USER = { id: 'u1', email: 'staker@example.com' };
const WALLET = '0x3333333333333333333333333333333333333333';
const OTHER = '0x4444444444444444444444444444444444444444';

const CHAIN: ChainInfo = {
  success: true,
  mode: 'embedded',
  chainId: 42161,
  rpcUrl: 'http://localhost/api/chain/rpc',
  explorerUrl: null,
  addresses: FAKE_ADDRESSES,
  owner: null,
  faucet: true,
  confirmations: 2,
  ready: true,
};

const earnings = (over: Partial<EarningsResponse> = {}): EarningsResponse => ({
  success: true,
  balance: 1000,
  apy: 120,
  today_profit: 0.25,
  total_profit: 1.5,
  available_rewards: 0.5,
  reward_per_second: 0.00003805,
  message: 'Wallet connected.',
  address: WALLET,
  pending_rewards: 0.5,
  balance_wei: '1000000000000000000000',
  pending_wei: '500000000000000000',
  wallet_tokens: 0,
  wallet_tokens_wei: '0',
  pool_available: 50_000_000,
  read_at: Date.now(),
  ...over,
});

const refusal = (status: number, message: string, code: string) =>
  json({ success: false, error: message, message, code }, status);

type Handler = (url: URL, init?: RequestInit) => Response | Promise<Response>;

function setup(
  over: Record<string, Handler> = {},
  { pool = 50_000_000, linked = null as string | null } = {},
) {
  const bodies: Record<string, unknown>[] = [];
  const responses: Record<string, Handler> = {
    '/api/chain': () => json(CHAIN),
    '/api/earnings/wallet': () => json({ success: true, address: linked }),
    '/api/pool_state': () =>
      json({
        success: true,
        pool_available: pool,
        apy: apyPercentForPool(pool),
        total_staked: 0,
        read_at: 1,
      }),
    '/api/earnings/history': () =>
      json({
        success: true,
        address: null,
        points: [
          { t: 1_700_000_000_000, pool_available: 50_000_000, rewards: 0 },
          { t: 1_700_000_600_000, pool_available: 49_999_990, rewards: 0.2 },
        ],
      }),
    '/api/delete_wallet': () => json({ success: true, message: 'Wallet disconnected.' }),
    '/api/earnings': (_u, init) => {
      bodies.push(JSON.parse(init?.body as string) as Record<string, unknown>);
      return json(earnings());
    },
    ...over,
  };
  const wrapped: Record<string, Handler> = { ...responses };
  if (over['/api/earnings']) {
    wrapped['/api/earnings'] = (u, init) => {
      bodies.push(JSON.parse(init?.body as string) as Record<string, unknown>);
      return over['/api/earnings']!(u, init);
    };
  }
  const r = renderApp(<EarningsPoolsPage />, {
    user: USER,
    responses: wrapped,
    initialPath: '/earnings-pools',
  });
  return { ...r, bodies };
}

/** Web Locks stand-in: `held` says another tab holds the page. */
function stubLocks(held: boolean) {
  const requests: string[] = [];
  Object.defineProperty(navigator, 'locks', {
    configurable: true,
    value: {
      request: async (name: string, _o: unknown, cb: (lock: unknown) => unknown) => {
        requests.push(name);
        return cb(held ? null : { name });
      },
    },
  });
  return requests;
}

describe('earnings rules', () => {
  it('finds the APY tier of a pool size and caps the live rewards at 2', () => {
    expect(tierIndex(50_000_000)).toBe(0);
    expect(tierIndex(49_999_999)).toBe(1);
    expect(tierIndex(4_999_999)).toBe(6);
    expect(tierIndex(999_999)).toBe(8);
    expect(liveRewards(0.5, 0.1, 10)).toBeCloseTo(1.5);
    expect(liveRewards(1.9, 0.1, 10)).toBe(2);
  });
});

describe('EarningsPoolsPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    resetWalletState();
    stubLocks(false);
    chartData.series = [];
    chartData.created = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    delete (navigator as unknown as { locks?: unknown }).locks;
  });

  it('shows the pool, the APY table with the current tier, the chart, links, how to start and security notes', async () => {
    const user = userEvent.setup();
    setup();
    // Generous waits: the first render loads the page's modules (and the lazy chart) on a busy machine.
    await waitFor(
      () => expect(screen.getByTestId('earnings-pool-available').textContent).toBe('50,000,000 BYTX'),
      { timeout: 5_000 },
    );
    expect(screen.getByTestId('earnings-pool-apy').textContent).toBe('120 %');
    const rows = screen.getAllByTestId('earnings-apy-row');
    expect(rows.map((r) => r.textContent)).toEqual([
      '50M and aboveCurrent120 %',
      '40M to 50M80 %',
      '30M to 40M50 %',
      '20M to 30M35 %',
      '10M to 20M20 %',
      '5M to 10M10 %',
      '2M to 5M5 %',
      '1M to 2M3 %',
      'under 1M0 %',
    ]);
    expect(rows.filter((r) => r.getAttribute('data-current') === 'true')).toHaveLength(1);
    expect(screen.queryByTestId('earnings-pool-warning')).toBeNull();
    expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('false');

    // Our chart (lazy): the pool and the rewards series, in seconds.
    const chart = await screen.findByTestId('earnings-chart', {}, { timeout: 5_000 });
    expect(chart.getAttribute('data-points')).toBe('2');
    await waitFor(
      () =>
        expect(chartData.series).toEqual([
          [
            { time: 1_700_000_000, value: 50_000_000 },
            { time: 1_700_000_600, value: 49_999_990 },
          ],
          [
            { time: 1_700_000_000, value: 0 },
            { time: 1_700_000_600, value: 0.2 },
          ],
        ]),
      { timeout: 5_000 },
    );
    await user.click(screen.getByTestId('earnings-chart-expand'));
    expect(await screen.findByTestId('earnings-chart-large')).toBeTruthy();

    expect(screen.getByTestId('earnings-dex-uniswap').getAttribute('href')).toContain('uniswap');
    expect(screen.getByTestId('earnings-dex-camelot').getAttribute('href')).toContain('camelot');
    // The embedded chain has no public explorer.
    expect(screen.getByTestId('earnings-local-chain')).toBeTruthy();
    expect(within(screen.getByTestId('earnings-howto')).getAllByRole('listitem')).toHaveLength(5);
    expect(within(screen.getByTestId('earnings-security')).getAllByRole('listitem')).toHaveLength(4);
  });

  it('warns when the pool is under 5M and marks its tier', async () => {
    setup({}, { pool: 3_000_000 });
    expect((await screen.findByTestId('earnings-pool-warning')).textContent).toContain('less than 5M');
    const current = screen
      .getAllByTestId('earnings-apy-row')
      .find((r) => r.getAttribute('data-current') === 'true');
    expect(current?.textContent).toBe('2M to 5MCurrent5 %');
  });

  it("refuses an address that is not 42 characters with 'Invalid wallet address', without asking the server", async () => {
    const user = userEvent.setup();
    const { bodies } = setup();
    await user.type(await screen.findByTestId('earnings-address'), '0x1234');
    await user.click(screen.getByTestId('earnings-consult'));
    expect(await screen.findByText('Something went wrong')).toBeTruthy();
    expect(screen.getByTestId('earnings-error-message').textContent).toBe('Invalid wallet address');
    expect(bodies).toHaveLength(0);
  });

  it('connects and consults, shows the stats with the green indicator, and asks again every 10 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
    const { bodies } = setup();
    await user.type(await screen.findByTestId('earnings-address'), WALLET);
    await user.click(screen.getByTestId('earnings-consult'));
    expect((await screen.findByTestId('earnings-balance')).textContent).toBe('1,000 BYTX');
    expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('true');
    expect(screen.getByTestId('earnings-connected-text').textContent).toBe(`Wallet connected: ${WALLET}`);
    expect(screen.getByTestId('earnings-apy').textContent).toBe('120 %');
    expect(screen.getByTestId('earnings-today').textContent).toBe('0.25 BYTX');
    expect(screen.getByTestId('earnings-total').textContent).toBe('1.5 BYTX');
    expect(screen.getByTestId('earnings-available').textContent).toMatch(/^0\.5\d* BYTX$/);
    expect(screen.getByTestId('earnings-per-second').textContent).toBe('0.00003805 BYTX');
    expect(bodies).toEqual([{ address: WALLET }]);

    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_500);
    });
    await waitFor(() => expect(bodies.length).toBeGreaterThanOrEqual(2));
    expect(bodies[1]).toEqual({ address: WALLET });
  });

  it("asks before switching to another wallet, then sends 'force'", async () => {
    const user = userEvent.setup();
    const { bodies } = setup({
      '/api/earnings': (_u, init) => {
        const body = JSON.parse(init?.body as string) as { force?: boolean };
        return body.force
          ? json(earnings({ address: OTHER }))
          : refusal(
              409,
              '⚠️ This wallet is different from your current one. Do you want to switch?',
              'wallet_different',
            );
      },
    });
    await user.type(await screen.findByTestId('earnings-address'), OTHER);
    await user.click(screen.getByTestId('earnings-consult'));
    expect((await screen.findByTestId('earnings-error-message')).textContent).toBe(
      '⚠️ This wallet is different from your current one. Do you want to switch?',
    );
    await user.click(screen.getByTestId('earnings-switch'));
    await waitFor(() =>
      expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('true'),
    );
    expect(bodies.slice(0, 2)).toEqual([{ address: OTHER }, { address: OTHER, force: true }]);
  });

  it("shows '❌ Wallet already connected in another session.' without a switch, and the generic text on a chain failure", async () => {
    const user = userEvent.setup();
    let status = 409;
    setup({
      '/api/earnings': () =>
        status === 409
          ? refusal(409, '❌ Wallet already connected in another session.', 'wallet_taken')
          : refusal(503, 'Error connecting to wallet.', 'chain_error'),
    });
    await user.type(await screen.findByTestId('earnings-address'), OTHER);
    await user.click(screen.getByTestId('earnings-consult'));
    expect((await screen.findByTestId('earnings-error-message')).textContent).toBe(
      '❌ Wallet already connected in another session.',
    );
    expect(screen.queryByTestId('earnings-switch')).toBeNull();
    await user.click(screen.getByTestId('earnings-error-close'));
    status = 503;
    await user.click(screen.getByTestId('earnings-consult'));
    await waitFor(() =>
      expect(screen.getByTestId('earnings-error-message').textContent).toBe('Error connecting to wallet.'),
    );
    expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('false');
  });

  it('consults the wallet linked to the account at once, and deleting it resets everything', async () => {
    const user = userEvent.setup();
    const { requestedPaths } = setup({}, { linked: WALLET });
    expect((await screen.findByTestId('earnings-balance')).textContent).toBe('1,000 BYTX');
    expect(screen.getByTestId<HTMLInputElement>('earnings-address').value).toBe(WALLET);
    await user.click(screen.getByTestId('earnings-delete'));
    await waitFor(() =>
      expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('false'),
    );
    expect(requestedPaths()).toContain('/api/delete_wallet');
    expect(screen.queryByTestId('earnings-stats')).toBeNull();
    expect(screen.getByTestId<HTMLInputElement>('earnings-address').value).toBe('');
  });

  it('stakes through the browser wallet (approve → stake) and unstakes, then asks for the figures again', async () => {
    const user = userEvent.setup();
    const chain = fakeChain({ account: WALLET, token: 5000n * 10n ** 18n });
    vi.stubGlobal('ethereum', chain.provider);
    const { bodies } = setup({}, { linked: WALLET });
    await screen.findByTestId('earnings-balance');
    await user.click(screen.getByTestId('earnings-wallet-connect'));
    expect((await screen.findByTestId('earnings-wallet-balance')).textContent).toBe(
      'In your wallet: 5,000 BYTX',
    );
    expect(screen.queryByTestId('earnings-wallet-mismatch')).toBeNull();
    await user.type(screen.getByTestId('earnings-stake-amount'), '1000');
    const before = bodies.length;
    await user.click(screen.getByTestId('earnings-stake'));
    expect((await screen.findByTestId('earnings-staking-done', {}, { timeout: 10_000 })).textContent).toBe(
      'Transaction confirmed.',
    );
    expect(chain.sent.map((s) => `${s.contract}.${s.functionName}`)).toEqual(['token.approve', 'pool.stake']);
    expect(chain.sent[0]!.args).toEqual([FAKE_ADDRESSES.pool, 1000n * 10n ** 18n]);
    expect(screen.getByTestId('earnings-steps-stake-link').getAttribute('href')).toBe(
      `/chain/tx/${chain.sent[1]!.hash}`,
    );
    await waitFor(() => expect(bodies.length).toBeGreaterThan(before));
    await waitFor(() =>
      expect(screen.getByTestId('earnings-wallet-balance').textContent).toBe('In your wallet: 4,000 BYTX'),
    );

    await user.click(screen.getByTestId('earnings-unstake'));
    await waitFor(() => expect(chain.sent.map((s) => s.functionName)).toContain('unstake'));
    expect(chain.state.staked).toBe(0n);
  });

  it('shows the contract error of a failed unstake, and warns when the browser wallet is another one', async () => {
    const user = userEvent.setup();
    const chain = fakeChain({ account: OTHER, revert: { unstake: 'InsufficientStake' } });
    vi.stubGlobal('ethereum', chain.provider);
    setup({}, { linked: WALLET });
    await screen.findByTestId('earnings-balance');
    await user.click(screen.getByTestId('earnings-wallet-connect'));
    expect(await screen.findByTestId('earnings-wallet-mismatch')).toBeTruthy();
    await user.type(screen.getByTestId('earnings-stake-amount'), '1');
    await user.click(screen.getByTestId('earnings-unstake'));
    expect((await screen.findByTestId('earnings-staking-error', {}, { timeout: 10_000 })).textContent).toBe(
      '❌ Transaction error: Execution reverted: InsufficientStake()',
    );
  });

  it("shows the 'already open in another tab' notice with the button home in a second tab", async () => {
    const user = userEvent.setup();
    const requests = stubLocks(true);
    setup();
    expect((await screen.findByTestId('earnings-tab-notice', {}, { timeout: 3_000 })).textContent).toContain(
      'This page is already open in another tab.',
    );
    expect(requests).toEqual(['bytx-earnings-pools', 'bytx-earnings-pools']);
    expect(screen.queryByTestId('earnings-page')).toBeNull();
    await user.click(screen.getByTestId('earnings-tab-home'));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/'));
  });

  it('speaks Spanish, the server texts included', async () => {
    await i18n.changeLanguage('es');
    const user = userEvent.setup();
    setup({
      '/api/earnings': () => refusal(409, '❌ Wallet already connected in another session.', 'wallet_taken'),
    });
    await user.type(await screen.findByTestId('earnings-address'), OTHER);
    await user.click(screen.getByTestId('earnings-consult'));
    expect(await screen.findByText('Algo salió mal')).toBeTruthy();
    expect(screen.getByTestId('earnings-error-message').textContent).toBe(
      '❌ Billetera ya conectada en otra sesión.',
    );
    await i18n.changeLanguage('en');
  });

  describe('linking a new address needs its signature (issue 37)', () => {
    const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
    const holder = privateKeyToAccount(KEY);
    const MESSAGE = `localhost wants you to sign in with your Ethereum account:\n${holder.address}\n\nLink this wallet.\n\nURI: http://localhost\nVersion: 1\nChain ID: 42161\nNonce: 0123456789abcdef\nIssued At: 2026-12-01T00:00:00.000Z`;
    const NONCE = '0123456789abcdef0123456789abcdef';

    /** A browser wallet holding `account`'s key; `personal_sign` signs the hex message here. */
    function installSigner(account: PrivateKeyAccount, opts: { reject?: boolean } = {}) {
      const methods: string[] = [];
      vi.stubGlobal('ethereum', {
        request: async ({ method, params }: { method: string; params?: unknown }) => {
          methods.push(method);
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account.address];
          if (method === 'eth_chainId') return '0xa4b1';
          if (method === 'personal_sign') {
            if (opts.reject) throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
            return account.signMessage({ message: { raw: (params as [Hex])[0] } });
          }
          throw new Error(`unexpected ${method}`);
        },
        on: () => undefined,
        removeListener: () => undefined,
      });
      return methods;
    }

    /** The server: 403 signature_required without a proof; with one, checks it as the server does. */
    const server = () => ({
      '/api/earnings/nonce': () =>
        json({ success: true, address: holder.address, nonce: NONCE, message: MESSAGE, expires_at: 1 }),
      '/api/earnings': async (_u: URL, init?: RequestInit) => {
        const body = JSON.parse(init?.body as string) as { nonce?: string; signature?: Hex };
        if (!body.signature) {
          return refusal(
            403,
            'Sign the message in your wallet to prove this address is yours.',
            'signature_required',
          );
        }
        const ok =
          body.nonce === NONCE &&
          (await verifyMessage({ address: holder.address, message: MESSAGE, signature: body.signature }));
        return ok
          ? json(earnings({ address: holder.address }))
          : refusal(
              403,
              'The signature does not prove this address is yours, or the message expired. Please sign again.',
              'signature_invalid',
            );
      },
    });

    it('asks the browser wallet to sign the server’s message, then links the address', async () => {
      const user = userEvent.setup();
      const methods = installSigner(holder);
      const { bodies } = setup(server());
      await user.type(await screen.findByTestId('earnings-address'), holder.address);
      await user.click(screen.getByTestId('earnings-consult'));
      await waitFor(() =>
        expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('true'),
      );
      expect(methods).toContain('personal_sign');
      expect(bodies[0]).toEqual({ address: holder.address });
      expect(bodies[1]).toMatchObject({ address: holder.address, nonce: NONCE });
      expect(
        await verifyMessage({
          address: holder.address,
          message: MESSAGE,
          signature: bodies[1]!.signature as Hex,
        }),
      ).toBe(true);
    });

    it('says why when the wallet cannot sign for that address: no wallet, another account, a refusal', async () => {
      const user = userEvent.setup();
      const { bodies } = setup(server());
      const input = await screen.findByTestId('earnings-address');
      await user.type(input, holder.address);
      await user.click(screen.getByTestId('earnings-consult'));
      expect((await screen.findByTestId('earnings-error-message')).textContent).toMatch(
        /^Linking a wallet needs its signature/,
      );
      await user.click(screen.getByTestId('earnings-error-close'));

      installSigner(privateKeyToAccount(generatePrivateKey()));
      await user.click(screen.getByTestId('earnings-consult'));
      await waitFor(() =>
        expect(screen.getByTestId('earnings-error-message').textContent).toBe(
          `Your browser wallet does not hold ${holder.address}. Switch it to that account to sign.`,
        ),
      );
      await user.click(screen.getByTestId('earnings-error-close'));

      installSigner(holder, { reject: true });
      await i18n.changeLanguage('es');
      try {
        await user.click(screen.getByTestId('earnings-consult'));
        await waitFor(() =>
          expect(screen.getByTestId('earnings-error-message').textContent).toBe(
            'La firma fue rechazada en la billetera: la billetera no se vinculó.',
          ),
        );
      } finally {
        await i18n.changeLanguage('en');
      }
      expect(bodies.every((b) => b.signature === undefined)).toBe(true);
      expect(screen.getByTestId('earnings-indicator').getAttribute('data-connected')).toBe('false');
    });
  });
});
