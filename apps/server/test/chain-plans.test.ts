/* eslint-disable @typescript-eslint/no-unsafe-call -- JSON answers read loosely */
import { bytxTokenAbi, planPaymentsAbi, tokenSaleAbi } from '@bytx/chain';
import { CHAIN_MESSAGES, fillMessage, PLAN_DAYS } from '@bytx/contract';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activePlanOf, dueOfRefusal } from '../src/modules/chain/plans.service';
import type { PlanPaymentRow } from '../src/modules/chain/repository';
import { chainOf, mine, userWallet } from './chain-helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
const DAY = 86_400_000;

describe('plan periods (docs/plans.md)', () => {
  const pay = (plan: number, at: number, tx = `0x${String(plan).repeat(64)}`) =>
    ({ plan, paidAt: new Date(at), txHash: tx }) as PlanPaymentRow;
  const t0 = Date.UTC(2026, 0, 1);

  it('30 days a payment; the same plan extends; another plan starts now with the rest converted', () => {
    expect(activePlanOf([], t0)).toBeNull();
    expect(activePlanOf([pay(1, t0)], t0 + DAY)).toMatchObject({ id: 'basic', expiresAt: t0 + 30 * DAY });
    expect(activePlanOf([pay(1, t0)], t0 + 30 * DAY)).toBeNull();
    expect(activePlanOf([pay(1, t0), pay(1, t0 + 10 * DAY)], t0)).toMatchObject({ expiresAt: t0 + 60 * DAY });
    // Expired before the next payment: a new period.
    expect(activePlanOf([pay(1, t0), pay(1, t0 + 40 * DAY)], t0 + 41 * DAY)).toMatchObject({
      expiresAt: t0 + 70 * DAY,
    });
    // Basic with 20 days left ($5 → $15): 20 days × 5/15 carried over.
    const up = activePlanOf([pay(1, t0), pay(2, t0 + 10 * DAY)], t0 + 11 * DAY);
    expect(up).toMatchObject({ id: 'advanced', plan: 2 });
    expect(up!.expiresAt).toBe(t0 + 10 * DAY + 30 * DAY + Math.floor((20 * DAY) / 3));
  });

  it("reads the tokens a refused payment needed back from the indexer's reason", () => {
    expect(
      dueOfRefusal('paid 7500 tokens; the advanced plan costs 15000 tokens at the sale price of block 9'),
    ).toBe(15_000);
    expect(
      dueOfRefusal('paid 0 tokens; the professional plan costs 0 tokens at the sale price of block 4'),
    ).toBe(0);
    expect(dueOfRefusal('the payment names 100 US cents; the basic plan costs 500')).toBeNull();
    expect(dueOfRefusal('the sale price at block 3 is 0')).toBeNull();
  });
});

/**
 * Plans on a real embedded chain: prices, the payment ref, a payment counted as pending until its
 * confirmations, then active for 30 days; a reorg before the confirmations and a chain that went back
 * after them undo the payment; PLANS_REQUIRED gates bot starts with the plan's limit.
 */
describe('plans paid on the embedded chain, PLANS_REQUIRED', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let w: ReturnType<typeof userWallet>;
  let ref: Hex;
  let prices: bigint[];
  const call = apiCaller(() => t.app);
  const plans = async (u: User = alice) => (await call(u, 'GET', '/api/plans')).body;
  const startBot = (u: User, symbol: string) =>
    call(u, 'POST', '/api/start_bot_dca', {
      exchange: 'binance',
      symbol,
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
    });

  beforeAll(async () => {
    t = await makeTestApp({
      CHAIN: 'embedded',
      PLANS_REQUIRED: '1',
      BOT_RUNNER: '1',
      SIMULATOR_CONTROL: '1',
    });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
      expect(r.status).toBe(200);
    }
    // Blocks only when the test mines them: confirmations and reorgs at the test's pace.
    chainOf(t).runtime.mineOnDemand = false;
    w = userWallet(t);
    await w.faucetDirect(1_000);
    await w.buy(200); // 100,000 tokens
  }, 90_000);
  afterAll(async () => t?.close());

  it('lists the plans with USD and token prices and the user’s payment ref', async () => {
    const p = await plans();
    expect(p).toMatchObject({ success: true, active: null, pending: [], required: true, days: PLAN_DAYS });
    expect(p.plans).toEqual([
      expect.objectContaining({ id: 'basic', plan: 1, price_usd: 5, price_tokens: 2_500, max_bots: 1 }),
      expect.objectContaining({ id: 'advanced', plan: 2, price_usd: 15, price_tokens: 7_500, max_bots: 5 }),
      expect.objectContaining({
        id: 'professional',
        plan: 3,
        price_usd: 30,
        price_tokens: 15_000,
        max_bots: 20,
      }),
    ]);
    expect(p.payment_ref).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await plans()).payment_ref).toBe(p.payment_ref);
    expect((await plans(bob)).payment_ref).not.toBe(p.payment_ref);
    ref = p.payment_ref;
    prices = p.plans.map((x: { price_tokens_wei: string }) => BigInt(x.price_tokens_wei));
  });

  it('refuses to start a bot without an active plan', async () => {
    const r = await startBot(alice, 'BTC/USDT');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ message: CHAIN_MESSAGES.planRequired, code: 'plan_required' });
    const [{ n }] = (await t.ctx.database.sql.query('SELECT count(*)::int AS n FROM bots')) as [
      { n: number },
    ];
    expect(n).toBe(0);
  });

  it('counts confirmations, then activates the plan for 30 days', async () => {
    const idx = chainOf(t).indexer;
    const receipt = await w.payPlan(1, ref, prices[0]!);
    await idx.tick();
    const pending = await plans();
    expect(pending.active).toBeNull();
    expect(pending.pending).toEqual([
      { id: 'basic', plan: 1, tx_hash: receipt.transactionHash, confirmations: 1, required: 2 },
    ]);
    await mine(t, 1);
    await idx.tick();
    const p = await plans();
    expect(p.pending).toEqual([]);
    expect(p.active).toMatchObject({ id: 'basic', plan: 1, tx_hash: receipt.transactionHash });
    const block = await w.client.getBlock({ blockNumber: receipt.blockNumber });
    expect(p.active.expires_at).toBe(Number(block.timestamp) * 1000 + PLAN_DAYS * 86_400_000);
    // The tokens went to the rewards pool.
    const pool = (await call(null, 'GET', '/api/pool_state')).body;
    expect(pool.pool_available).toBeGreaterThanOrEqual(50_002_500);
  });

  it('starts bots up to the plan’s limit', async () => {
    const first = await startBot(alice, 'BTC/USDT');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const second = await startBot(alice, 'ETH/USDT');
    expect(second.status).toBe(403);
    expect(second.body.message).toBe(fillMessage(CHAIN_MESSAGES.planLimit, { plan: 'Basic', max: 1 }));
    // Bob pays nothing: no bot.
    expect((await startBot(bob, 'BTC/USDT')).status).toBe(403);
  });

  it('a reorg before the confirmations undoes the payment', async () => {
    const idx = chainOf(t).indexer;
    const receipt = await w.payPlan(2, ref, prices[1]!);
    await idx.tick();
    expect((await plans()).pending).toHaveLength(1);
    // The payment's block is replaced by an empty one (anvil_reorg), then two blocks come.
    await chainOf(t)
      .runtime.test()
      .request({ method: 'anvil_reorg' as 'evm_mine', params: [1, []] as never });
    await mine(t, 2);
    await idx.tick();
    const p = await plans();
    expect(p.pending).toEqual([]);
    expect(p.active.id).toBe('basic');
    const rows = await t.ctx.database.sql.query('SELECT * FROM chain_events WHERE tx_hash = $1', [
      receipt.transactionHash,
    ]);
    expect(rows).toEqual([]);
  });

  it('a chain that went back after the confirmations takes the plan back', async () => {
    const idx = chainOf(t).indexer;
    const test = chainOf(t).runtime.test();
    const snap = await test.snapshot();
    const receipt = await w.payPlan(3, ref, prices[2]!);
    await mine(t, 2);
    await idx.tick();
    expect((await plans()).active).toMatchObject({ id: 'professional', tx_hash: receipt.transactionHash });
    expect((await startBot(alice, 'ETH/USDT')).status).toBe(200);
    await test.revert({ id: snap });
    // Whether the chain is still below our cursor or has grown past it again, the payment is gone.
    await mine(t, 5);
    await idx.tick();
    const p = await plans();
    expect(p.active.id).toBe('basic');
    const rows = await t.ctx.database.sql.query('SELECT * FROM chain_plans WHERE tx_hash = $1', [
      receipt.transactionHash,
    ]);
    expect(rows).toEqual([]);
  });

  it('another payment of the same plan extends it by 30 days', async () => {
    const before = (await plans()).active.expires_at as number;
    await w.payPlan(1, ref, prices[0]!);
    await mine(t, 2);
    await chainOf(t).indexer.tick();
    expect((await plans()).active.expires_at).toBe(before + PLAN_DAYS * 86_400_000);
  });

  it('lists a payment below its plan price as refused, with the tokens paid and the tokens needed', async () => {
    const m = chainOf(t);
    const { addresses } = m.runtime.require();
    const test = m.runtime.test();
    const owner = m.runtime.ownerWallet();
    const before = (await plans()).active;
    const setPrice = (price: bigint) =>
      owner.writeContract({
        address: addresses.sale,
        abi: tokenSaleAbi,
        functionName: 'setPrice',
        args: [price],
        account: owner.account,
        chain: null,
        gas: 100_000n,
      });
    await w.sent(
      await w.wallet.writeContract({
        address: addresses.token,
        abi: bytxTokenAbi,
        functionName: 'approve',
        args: [addresses.plans, prices[1]!],
      }),
    );
    // The payment and then the sale price halved (0.002 → 0.001 USDT a token), in one block: it carries
    // 7,500 tokens, and at that block's price the Advanced plan costs 15,000.
    await test.setAutomine(false);
    let payHash: Hex;
    try {
      payHash = await w.wallet.writeContract({
        address: addresses.plans,
        abi: planPaymentsAbi,
        functionName: 'payPlan',
        args: [2, ref],
        gas: 300_000n,
        // Ahead of the price change in the block whatever order the node picks by fee.
        maxPriorityFeePerGas: 2_000_000_000n,
      });
      await setPrice(1000n);
      await mine(t, 1);
    } finally {
      await test.setAutomine(true);
    }
    const paid = await w.sent(payHash);
    await m.runtime
      .require()
      .client.waitForTransactionReceipt({ hash: await setPrice(2000n), pollingInterval: 50 });
    await mine(t, 2);
    await m.indexer.tick();
    const view = await plans();
    const block = await w.client.getBlock({ blockNumber: paid.blockNumber });
    expect(view.refused).toEqual([
      {
        id: 'advanced',
        plan: 2,
        tx_hash: paid.transactionHash,
        reason: expect.stringContaining('paid 7500 tokens; the advanced plan costs 15000 tokens'),
        tokens: 7_500,
        price_tokens: 15_000,
        paid_at: Number(block.timestamp) * 1000,
      },
    ]);
    // It activated nothing: the Basic plan runs on unchanged.
    expect(view.active).toEqual(before);
  });
});
