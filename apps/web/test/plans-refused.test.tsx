import type { ChainInfo, PlansResponse } from '@bytx/contract';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { PlansSection } from '../src/features/settings/components/PlansSection';
import i18n from '../src/shared/i18n/index';
import { FAKE_ADDRESSES } from '../src/shared/onchain/testing/fakeChain';
import { resetWalletState } from '../src/shared/onchain/wallet';
import { json, renderApp } from './renderApp';

/**
 * Issue 37 point 1 in the web app: a plan payment the server refused (fewer tokens than the plan cost at
 * its block's sale price, or 0) is shown to its user in Settings → Plans with its transaction, the plan,
 * the tokens paid against the tokens needed and why, in English and Spanish.
 */

const USER = { id: 'u1', email: 'underpaid@example.com' };
const UNDER = `0x${'d'.repeat(64)}`;
const ZERO = `0x${'e'.repeat(64)}`;
const PAID_AT = Date.UTC(2030, 2, 4, 10, 0, 0);

const CHAIN: ChainInfo = {
  success: true,
  mode: 'rpc',
  chainId: 42161,
  rpcUrl: 'https://arb1.example/rpc',
  explorerUrl: 'https://arbiscan.io/',
  addresses: FAKE_ADDRESSES,
  owner: null,
  faucet: false,
  confirmations: 2,
  ready: true,
};

const plan = (id: 'basic' | 'advanced' | 'professional', n: 1 | 2 | 3, usd: number, max: number) => ({
  id,
  plan: n,
  name: id,
  price_usd: usd,
  price_tokens: usd * 500,
  price_tokens_wei: `${usd * 500}${'0'.repeat(18)}`,
  max_bots: max,
});

const PLANS: PlansResponse = {
  success: true,
  plans: [plan('basic', 1, 5, 1), plan('advanced', 2, 15, 5), plan('professional', 3, 30, 20)],
  payment_ref: `0x${'ab'.repeat(32)}`,
  active: null,
  pending: [],
  refused: [
    {
      id: 'advanced',
      plan: 2,
      tx_hash: UNDER,
      reason: 'paid 7499.5 tokens; the advanced plan costs 15000 tokens at the sale price of block 812',
      tokens: 7499.5,
      price_tokens: 15_000,
      paid_at: PAID_AT,
    },
    {
      id: 'professional',
      plan: 3,
      tx_hash: ZERO,
      reason: 'paid 0 tokens; the professional plan costs 0 tokens at the sale price of block 700',
      tokens: 0,
      price_tokens: 0,
      paid_at: PAID_AT - 86_400_000,
    },
  ],
  required: false,
  days: 30,
};

function setup(answer: PlansResponse = PLANS) {
  return renderApp(<PlansSection />, {
    user: USER,
    responses: { '/api/chain': () => json(CHAIN), '/api/plans': () => json(answer) },
  });
}

const row = async (hash: string) =>
  (await screen.findAllByTestId('plans-refused-row')).find((r) => r.getAttribute('data-hash') === hash)!;
const text = (el: HTMLElement, id: string) => within(el).getByTestId(id).textContent;

describe('Settings → Plans: refused payments', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    resetWalletState();
  });

  it('shows an underpaid and a 0-token payment: plan, tokens paid vs needed, why, and the transaction', async () => {
    setup();
    const under = await row(UNDER);
    expect(under.getAttribute('data-plan')).toBe('advanced');
    expect(text(under, 'plans-refused-title')).toMatch(
      /^Advanced: payment refused, the plan was not activated · .*2030/,
    );
    expect(text(under, 'plans-refused-amounts')).toBe(
      'Paid: 7,499.5 BYTX · Needed: 15,000 BYTX at the sale price when it was paid',
    );
    expect(text(under, 'plans-refused-reason')).toBe(
      'This payment carried 7,499.5 BYTX, less than the 15,000 BYTX the Advanced plan cost at the ' +
        "token's sale price in the block where it was paid, so it does not pay for the plan.",
    );
    expect(text(under, 'plans-refused-next')).toBe(
      'Its tokens went to the rewards pool. To activate the Advanced plan, pay it again at its full price (≈ 7,500 BYTX today).',
    );
    // Linked like the other transactions: the configured explorer, a new tab.
    const link = within(under).getByTestId('plans-refused-tx');
    expect(link.getAttribute('href')).toBe(`https://arbiscan.io/tx/${UNDER}`);
    expect(link.getAttribute('target')).toBe('_blank');

    const zero = await row(ZERO);
    expect(text(zero, 'plans-refused-title')).toMatch(/^Professional: payment refused/);
    expect(text(zero, 'plans-refused-amounts')).toBe("Paid: 0 BYTX · Needed: 15,000 BYTX at today's price");
    expect(text(zero, 'plans-refused-reason')).toBe(
      "This payment carried 0 BYTX: the token's sale price at that moment made the Professional plan cost nothing, and a plan is never activated for free.",
    );
    // Nothing is shown as active.
    expect(screen.queryByTestId('plans-active')).toBeNull();
    expect(screen.getByTestId('plan-advanced').getAttribute('data-active')).toBe('false');
  });

  it('says it in Spanish', async () => {
    await i18n.changeLanguage('es');
    setup();
    const under = await row(UNDER);
    expect(text(under, 'plans-refused-title')).toMatch(/^Avanzado: pago rechazado, el plan no se activó · /);
    expect(text(under, 'plans-refused-amounts')).toBe(
      'Pagado: 7,499.5 BYTX · Necesario: 15,000 BYTX al precio de venta del momento del pago',
    );
    expect(text(under, 'plans-refused-reason')).toBe(
      'Este pago llevaba 7,499.5 BYTX, menos de los 15,000 BYTX que costaba el plan Avanzado al precio de ' +
        'venta del token en el bloque en que se pagó, así que no paga el plan.',
    );
    expect(text(under, 'plans-refused-next')).toBe(
      'Sus tokens fueron al pool de recompensas. Para activar el plan Avanzado, págalo de nuevo a su precio completo (≈ 7,500 BYTX hoy).',
    );
    const zero = await row(ZERO);
    expect(text(zero, 'plans-refused-amounts')).toBe(
      'Pagado: 0 BYTX · Necesario: 15,000 BYTX al precio de hoy',
    );
    expect(text(zero, 'plans-refused-reason')).toMatch(/^Este pago llevaba 0 BYTX: .*Profesional.*gratis\.$/);
    await i18n.changeLanguage('en');
  });

  it("words another reason of the server's, and shows nothing when no payment was refused", async () => {
    const other: PlansResponse = {
      ...PLANS,
      refused: [
        {
          id: 'basic',
          plan: 1,
          tx_hash: UNDER,
          reason: 'the payment names 100 US cents; the basic plan costs 500',
          tokens: 500,
          price_tokens: null,
          paid_at: PAID_AT,
        },
      ],
    };
    const { unmount } = setup(other);
    const r = await row(UNDER);
    expect(text(r, 'plans-refused-reason')).toBe(
      "This payment does not match the Basic plan's price, so it does not pay for it. Server's reason: the payment names 100 US cents; the basic plan costs 500",
    );
    expect(text(r, 'plans-refused-amounts')).toBe("Paid: 500 BYTX · Needed: 2,500 BYTX at today's price");
    unmount();

    // A server from before the refused list (the field is optional) and one with none: no section.
    const { refused: _omit, ...older } = PLANS;
    setup(older);
    expect(await screen.findByTestId('plan-basic-tokens')).toBeTruthy();
    expect(screen.queryByTestId('plans-refused')).toBeNull();
  });
});
