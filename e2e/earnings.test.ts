import { bytxTokenAbi } from '@bytx/chain';
import { chainFor } from '@bytx/chain/node';
import { createPublicClient, encodeFunctionData, http, parseUnits, toHex, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import {
  anvilUrlFromLogs,
  installTestWallet,
  rpc,
  waitForChain,
  type ChainInfoLike,
  type TestWallet,
} from './helpers/wallet';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'earnings-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
/** A fresh key: the proxy refuses what anvil's public dev keys sign (issue 37). */
const STAKER_KEY = generatePrivateKey();
const STAKER = { privateKey: STAKER_KEY, address: privateKeyToAccount(STAKER_KEY).address };

const tokensOf = (text: string | null) => Number((text ?? '').replace(/[^0-9.]/g, ''));

/**
 * `/earnings-pools` and the plans on the embedded chain (issue 17 "Tests"): connect-and-consult a
 * wallet, stake through the injected test wallet (approve → stake), see the stats; rewards grow after
 * time travel on the node; a second tab shows the notice; a plan paid in settings becomes active once
 * the server has confirmed the payment from the chain's events.
 */
describe.skipIf(!hasChromium)('Earnings pool and plans on the embedded chain', () => {
  let server: RunningServer;
  let browser: Browser;
  let wallet: TestWallet;
  let chain: ChainInfoLike;

  beforeAll(async () => {
    server = await startServer({ CHAIN: 'embedded' });
    chain = await waitForChain(server.baseUrl);
    browser = await openBrowser();
    // Already on the platform's chain (the token test covers the switch).
    wallet = await installTestWallet(browser.context, {
      privateKey: STAKER.privateKey,
      startChainId: chain.chainId,
      known: { chainId: chain.chainId, rpcUrl: chain.rpcUrl! },
    });
    // The staker gets 100,000 BYTX from the owner's 10M and 1 ETH for gas. The owner is the install's
    // own key (the test does not know it): impersonated on the node itself (the proxy refuses anvil_*).
    const anvil = anvilUrlFromLogs(server.logs());
    await rpc(anvil, 'anvil_setBalance', [STAKER.address, toHex(10n ** 18n)]);
    await rpc(anvil, 'anvil_impersonateAccount', [chain.owner]);
    const hash = (await rpc(anvil, 'eth_sendTransaction', [
      {
        from: chain.owner,
        to: chain.addresses!.token,
        data: encodeFunctionData({
          abi: bytxTokenAbi,
          functionName: 'transfer',
          args: [STAKER.address, parseUnits('100000', 18)],
        }),
      },
    ])) as Hash;
    await rpc(anvil, 'anvil_stopImpersonatingAccount', [chain.owner]);
    const reader = createPublicClient({
      chain: chainFor(chain.chainId, chain.rpcUrl!),
      transport: http(chain.rpcUrl!),
      pollingInterval: 200,
    });
    await reader.waitForTransactionReceipt({ hash });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('consults a wallet, stakes through the browser wallet and sees the stats and the rewards grow', async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await page.goto(`${server.baseUrl}/earnings-pools`);

    await expect
      .poll(() => page.getByTestId('earnings-pool-available').textContent(), { timeout: 20_000 })
      .toBe('50,000,000 BYTX');
    await expect.poll(() => page.getByTestId('earnings-pool-apy').textContent()).toBe('120 %');
    const current = page.locator('[data-testid="earnings-apy-row"][data-current="true"]');
    await expect.poll(() => current.textContent()).toContain('50M and above');
    await expect.poll(() => page.getByTestId('earnings-pool-warning').count()).toBe(0);

    // The spec's 42-character rule, in the error modal.
    await page.getByTestId('earnings-address').fill('0x1234');
    await page.getByTestId('earnings-consult').click();
    await expect
      .poll(() => page.getByTestId('earnings-error-message').textContent())
      .toBe('Invalid wallet address');
    await page.getByTestId('earnings-error-close').click();

    // Linking the address needs its signature (issue 37): the page asks the wallet to sign the server's
    // sign-in message.
    const signsBefore = wallet.methods.filter((m) => m === 'personal_sign').length;
    await page.getByTestId('earnings-address').fill(STAKER.address);
    await page.getByTestId('earnings-consult').click();
    await expect
      .poll(() => page.getByTestId('earnings-indicator').getAttribute('data-connected'), { timeout: 20_000 })
      .toBe('true');
    await expect.poll(() => page.getByTestId('earnings-balance').textContent()).toBe('0 BYTX');
    expect(wallet.methods.filter((m) => m === 'personal_sign').length).toBe(signsBefore + 1);

    // Stake 10,000 through the browser wallet: approve → stake.
    await page.getByTestId('earnings-wallet-connect').click();
    await expect
      .poll(() => page.getByTestId('earnings-wallet-balance').textContent(), { timeout: 20_000 })
      .toBe('In your wallet: 100,000 BYTX');
    await page.getByTestId('earnings-stake-amount').fill('10000');
    await page.getByTestId('earnings-stake').click();
    await expect
      .poll(() => page.getByTestId('earnings-staking-done').textContent(), { timeout: 30_000 })
      .toBe('Transaction confirmed.');
    await expect
      .poll(() => page.getByTestId('earnings-steps-approve').getAttribute('data-status'))
      .toBe('done');
    await expect
      .poll(() => page.getByTestId('earnings-steps-stake').getAttribute('data-status'))
      .toBe('done');
    // The page asks again every 10 s; the server reads the chain at most once per address per 10 s.
    await expect
      .poll(() => page.getByTestId('earnings-balance').textContent(), { timeout: 30_000 })
      .toBe('10,000 BYTX');
    await expect.poll(() => page.getByTestId('earnings-apy').textContent()).toBe('120 %');
    await expect
      .poll(async () => tokensOf(await page.getByTestId('earnings-per-second').textContent()))
      .toBeGreaterThan(0);
    await expect
      .poll(() => page.getByTestId('earnings-wallet-balance').textContent(), { timeout: 20_000 })
      .toBe('In your wallet: 90,000 BYTX');

    // An hour passes on the node: 10,000 × 120 % × 1 h / 1 y ≈ 1.37 BYTX, under the 2-token payout.
    const anvil = anvilUrlFromLogs(server.logs());
    await rpc(anvil, 'evm_increaseTime', [3600]);
    await rpc(anvil, 'evm_mine');
    await expect
      .poll(async () => tokensOf(await page.getByTestId('earnings-total').textContent()), { timeout: 30_000 })
      .toBeGreaterThan(1.3);
    await expect
      .poll(async () => tokensOf(await page.getByTestId('earnings-available').textContent()))
      .toBeGreaterThan(1.3);
    const available = tokensOf(await page.getByTestId('earnings-available').textContent());
    expect(available).toBeLessThanOrEqual(2);

    // The chart panel (our own chart; the server records the pool every 10 min).
    await page.getByTestId('earnings-chart-panel').waitFor();
    await expect.poll(() => page.getByTestId('earnings-local-chain').count()).toBe(1);
  });

  it('shows the notice in a second tab, with the button home', async () => {
    const second = await browser.context.newPage();
    try {
      await second.goto(`${server.baseUrl}/earnings-pools`);
      const notice = second.getByTestId('earnings-tab-notice');
      await notice.waitFor({ timeout: 15_000 });
      await expect.poll(() => notice.textContent()).toContain('This page is already open in another tab.');
      await second.getByTestId('earnings-tab-home').click();
      await second.waitForURL(`${server.baseUrl}/`);
    } finally {
      await second.close();
    }
    // The first tab still holds the page.
    await expect.poll(() => browser.page.getByTestId('earnings-page').count()).toBe(1);
  });

  it('pays a plan in settings through the wallet and sees it active with its transaction', async () => {
    const { page } = browser;
    await page.goto(`${server.baseUrl}/settings`);
    await expect
      .poll(() => page.getByTestId('plan-basic-tokens').textContent(), { timeout: 20_000 })
      .toBe('≈ 2,500 BYTX');
    await page.getByTestId('plans-wallet-connect').click();
    const pay = page.getByTestId('plan-basic-pay');
    await expect.poll(() => pay.isEnabled(), { timeout: 15_000 }).toBe(true);
    const sentBefore = wallet.sent.length;
    await pay.click();
    await expect
      .poll(() => page.getByTestId('plans-notice').textContent(), { timeout: 30_000 })
      .toBe('Payment sent: the plan is active once the chain confirms it.');
    const payHash = wallet.sent[sentBefore + 1]!;
    // Confirmations counted by the server, then the plan is active for 30 days.
    await expect
      .poll(() => page.getByTestId('plans-active-text').textContent(), { timeout: 60_000 })
      .toMatch(/^Active plan: Basic, until /);
    await expect
      .poll(() => page.getByTestId('plans-active-tx').getAttribute('href'))
      .toBe(`/chain/tx/${payHash}`);
    await expect.poll(() => page.getByTestId('plan-basic').getAttribute('data-active')).toBe('true');
  });

  it('deletes the wallet from the page, which resets it', async () => {
    const { page } = browser;
    await page.goto(`${server.baseUrl}/earnings-pools`);
    // The wallet linked to the account is consulted at once after a reload.
    await expect
      .poll(() => page.getByTestId('earnings-indicator').getAttribute('data-connected'), { timeout: 20_000 })
      .toBe('true');
    await expect.poll(() => page.getByTestId('earnings-balance').textContent()).toBe('10,000 BYTX');
    await page.getByTestId('earnings-delete').click();
    await expect
      .poll(() => page.getByTestId('earnings-indicator').getAttribute('data-connected'))
      .toBe('false');
    await expect.poll(() => page.getByTestId('earnings-stats').count()).toBe(0);
    await expect.poll(() => page.getByTestId('earnings-address').inputValue()).toBe('');
  });
});
