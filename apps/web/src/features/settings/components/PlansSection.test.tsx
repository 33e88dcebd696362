import type { ChainInfo, PlansResponse } from '@bytx/contract';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { FAKE_ADDRESSES, fakeChain } from '../../../shared/onchain/testing/fakeChain';
import { resetWalletState } from '../../../shared/onchain/wallet';
import { PlansSection } from './PlansSection';

const USER = { id: 'u1', email: 'planner@example.com' };
const WALLET = '0x5555555555555555555555555555555555555555';
const REF = `0x${'ab'.repeat(32)}`;
const TX = `0x${'c'.repeat(64)}`;

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

const plans = (over: Partial<PlansResponse> = {}): PlansResponse => ({
  success: true,
  plans: [
    {
      id: 'basic',
      plan: 1,
      name: 'Basic',
      price_usd: 5,
      price_tokens: 2500,
      price_tokens_wei: '2500' + '0'.repeat(18),
      max_bots: 1,
    },
    {
      id: 'advanced',
      plan: 2,
      name: 'Advanced',
      price_usd: 15,
      price_tokens: 7500,
      price_tokens_wei: '7500' + '0'.repeat(18),
      max_bots: 5,
    },
    {
      id: 'professional',
      plan: 3,
      name: 'Professional',
      price_usd: 30,
      price_tokens: 15000,
      price_tokens_wei: '15000' + '0'.repeat(18),
      max_bots: 20,
    },
  ],
  payment_ref: REF,
  active: null,
  pending: [],
  required: false,
  days: 30,
  ...over,
});

function setup(answers: (() => PlansResponse)[], chain: ChainInfo = CHAIN) {
  let n = 0;
  return renderApp(<PlansSection />, {
    user: USER,
    responses: {
      '/api/chain': () => json(chain),
      '/api/plans': () => json(answers[Math.min(n++, answers.length - 1)]!()),
    },
  });
}

describe('PlansSection', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    resetWalletState();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('shows the three plans in USD and tokens, and pays one through the wallet: approve, then payPlan with the ref', async () => {
    const user = userEvent.setup();
    const chain = fakeChain({ account: WALLET, token: 10_000n * 10n ** 18n });
    vi.stubGlobal('ethereum', chain.provider);
    const expires = Date.UTC(2030, 0, 31, 12, 0, 0);
    setup([
      () => plans(),
      () =>
        plans({
          pending: [{ id: 'basic', plan: 1, tx_hash: chain.sent[1]!.hash, confirmations: 1, required: 2 }],
        }),
      () => plans({ active: { id: 'basic', plan: 1, expires_at: expires, tx_hash: chain.sent[1]!.hash } }),
    ]);
    expect((await screen.findByTestId('plan-basic-tokens')).textContent).toBe('≈ 2,500 BYTX');
    expect(screen.getByTestId('plan-advanced-tokens').textContent).toBe('≈ 7,500 BYTX');
    expect(screen.getByTestId('plan-professional-tokens').textContent).toBe('≈ 15,000 BYTX');
    expect(screen.getByTestId('plan-professional').textContent).toContain('$30');
    // No wallet yet: nothing to pay with.
    expect(screen.getByTestId<HTMLButtonElement>('plan-basic-pay').disabled).toBe(true);

    await user.click(await screen.findByTestId('plans-wallet-connect'));
    await waitFor(() => expect(screen.getByTestId<HTMLButtonElement>('plan-basic-pay').disabled).toBe(false));
    await user.click(screen.getByTestId('plan-basic-pay'));
    expect((await screen.findByTestId('plans-notice', {}, { timeout: 10_000 })).textContent).toBe(
      'Payment sent: the plan is active once the chain confirms it.',
    );
    expect(chain.sent.map((s) => `${s.contract}.${s.functionName}`)).toEqual([
      'token.approve',
      'plans.payPlan',
    ]);
    expect(chain.sent[0]!.args).toEqual([FAKE_ADDRESSES.plans, 2500n * 10n ** 18n]);
    expect(chain.sent[1]!.args).toEqual([1, REF]);

    expect((await screen.findByTestId('plans-pending-row')).textContent).toContain(
      'Basic: payment seen, 1 of 2 confirmations',
    );
    const active = await screen.findByTestId('plans-active', {}, { timeout: 6_000 });
    expect(screen.getByTestId('plans-active-text').textContent).toMatch(/^Active plan: Basic, until .*2030/);
    expect(active.getAttribute('data-plan')).toBe('basic');
    expect(screen.getByTestId('plans-active-tx').getAttribute('href')).toBe(
      `/chain/tx/${chain.sent[1]!.hash}`,
    );
    expect(screen.getByTestId('plan-basic-active').textContent).toBe('Active');
  });

  it('shows the active plan on load, its transaction on a real explorer', async () => {
    setup(
      [() => plans({ active: { id: 'advanced', plan: 2, expires_at: Date.UTC(2031, 5, 1), tx_hash: TX } })],
      {
        ...CHAIN,
        mode: 'rpc',
        explorerUrl: 'https://arbiscan.io/',
        faucet: false,
      },
    );
    expect((await screen.findByTestId('plans-active-text')).textContent).toMatch(
      /^Active plan: Advanced, until/,
    );
    expect(screen.getByTestId('plans-active-tx').getAttribute('href')).toBe(`https://arbiscan.io/tx/${TX}`);
  });

  it("shows the wallet's refusal as a payment error", async () => {
    const user = userEvent.setup();
    const chain = fakeChain({ account: WALLET, rejectSends: true });
    vi.stubGlobal('ethereum', chain.provider);
    setup([() => plans()]);
    await user.click(await screen.findByTestId('plans-wallet-connect'));
    await waitFor(() =>
      expect(screen.getByTestId<HTMLButtonElement>('plan-advanced-pay').disabled).toBe(false),
    );
    await user.click(screen.getByTestId('plan-advanced-pay'));
    expect((await screen.findByTestId('plans-error', {}, { timeout: 10_000 })).textContent).toBe(
      '❌ Payment error: User rejected the request.',
    );
  });

  it('says so when the server has no chain, still listing the USD prices', async () => {
    setup([() => plans()], { ...CHAIN, mode: 'off', addresses: null, rpcUrl: null, faucet: false });
    expect((await screen.findByTestId('plans-chain-off')).textContent).toBe(
      "Plans are paid on the token's chain, which is not configured on this server.",
    );
    expect(screen.queryByTestId('plans-wallet-connect')).toBeNull();
    expect(screen.getByTestId('plan-basic').textContent).toContain('$5');
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    setup([() => plans()]);
    expect((await screen.findByTestId('plan-basic-pay')).textContent).toBe('Pagar con la billetera');
    expect(screen.getByTestId('plan-professional').textContent).toContain('Profesional');
    await i18n.changeLanguage('en');
  });
});
