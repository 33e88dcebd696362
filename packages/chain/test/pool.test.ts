/** EarningsPool against a real anvil: tiers, accrual over time, the 2-token auto-pay, caps, owner calls. */
import {
  createPublicClient,
  http,
  parseEventLogs,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  APY_TIERS,
  AUTO_PAY_THRESHOLD,
  apyBpsForReserve,
  apyPercentForPool,
  bytxTokenAbi,
  earningsPoolAbi,
  planPaymentsAbi,
} from '../src/index';
import { paddedHttp } from '../src/node';
import { TOKEN, YEAR, revertName, startChain, type Fixture } from './fixture';

let f: Fixture;
let snapshot: Hex;
let pool: Address;
let token: Address;

beforeAll(async () => {
  f = await startChain();
  ({ pool, token } = f.addresses);
}, 60_000);
afterAll(async () => {
  await f?.close();
});
beforeEach(async () => {
  snapshot = await f.snapshot();
});
afterEach(async () => {
  await f.revert(snapshot);
});

type PoolView = 'poolAvailable' | 'apyBps' | 'totalStaked' | 'AUTO_PAY_THRESHOLD';
const view = (functionName: PoolView) =>
  f.publicClient.readContract({ address: pool, abi: earningsPoolAbi, functionName });
type UserView = 'stakedOf' | 'pendingRewards' | 'rewardPerSecond' | 'totalPaid';
const userView = (functionName: UserView, user: Address) =>
  f.publicClient.readContract({ address: pool, abi: earningsPoolAbi, functionName, args: [user] });
const balanceOf = (who: Address) =>
  f.publicClient.readContract({ address: token, abi: bytxTokenAbi, functionName: 'balanceOf', args: [who] });

/** Token base units accrued by `staked` over `dt` seconds at `bps` (the contract's formula). */
const accrual = (staked: bigint, bps: bigint, dt: bigint) => (staked * bps * dt) / (10_000n * YEAR);

const paidEvents = (receipt: TransactionReceipt) =>
  parseEventLogs({ abi: earningsPoolAbi, logs: receipt.logs, eventName: 'RewardPaid' }).map((e) => e.args);

async function give(i: number, amount: bigint): Promise<void> {
  await f.mined(
    f.wallet(0).writeContract({
      address: token,
      abi: bytxTokenAbi,
      functionName: 'transfer',
      args: [f.address(i), amount],
    }),
  );
}
async function approvePool(i: number, amount: bigint): Promise<void> {
  await f.mined(
    f
      .wallet(i)
      .writeContract({ address: token, abi: bytxTokenAbi, functionName: 'approve', args: [pool, amount] }),
  );
}
/** Account `i` stakes `amount` (approving first); the stake's block gets `at` as timestamp when given. */
async function stake(i: number, amount: bigint, at?: bigint): Promise<TransactionReceipt> {
  await approvePool(i, amount);
  if (at !== undefined) await f.setNextTimestamp(at);
  return f.mined(
    f.wallet(i).writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'stake', args: [amount] }),
  );
}
async function payout(users: Address[], at?: bigint, caller = 9): Promise<TransactionReceipt> {
  if (at !== undefined) await f.setNextTimestamp(at);
  return f.mined(
    f
      .wallet(caller)
      .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'payout', args: [users] }),
  );
}
/** Moves the rewards reserve to exactly `target` base units: the owner withdraws or funds the difference. */
async function setReserve(target: bigint): Promise<void> {
  const current = await view('poolAvailable');
  if (current > target) {
    await f.mined(
      f.wallet(0).writeContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'withdraw',
        args: [f.address(0), current - target],
      }),
    );
  } else if (current < target) {
    await approvePool(0, target - current);
    await f.mined(
      f.wallet(0).writeContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'fund',
        args: [target - current],
      }),
    );
  }
  expect(await view('poolAvailable')).toBe(target);
}

describe('EarningsPool', () => {
  it('starts with the 50M reserve at 120 %, nothing staked, owned by the deployer', async () => {
    expect(await view('poolAvailable')).toBe(50_000_000n * TOKEN);
    expect(await view('apyBps')).toBe(12_000n);
    expect(await view('totalStaked')).toBe(0n);
    expect(await view('AUTO_PAY_THRESHOLD')).toBe(AUTO_PAY_THRESHOLD);
    expect(
      await f.publicClient.readContract({ address: pool, abi: earningsPoolAbi, functionName: 'token' }),
    ).toBe(token);
    expect(
      await f.publicClient.readContract({ address: pool, abi: earningsPoolAbi, functionName: 'owner' }),
    ).toBe(f.addresses.owner);
  });

  it('APY tiers: each boundary and one wei under it, down to 0 and back up, as apyPercentForPool says', async () => {
    const check = async () => {
      const reserve = await view('poolAvailable');
      const bps = await view('apyBps');
      // The contract floors the reserve to whole tokens before comparing (a float of 50M - 1 wei rounds up).
      expect(apyPercentForPool(Number(reserve / TOKEN)) * 100).toBe(Number(bps));
      expect(apyBpsForReserve(reserve)).toBe(Number(bps));
      return Number(bps);
    };
    for (const [i, tier] of APY_TIERS.entries()) {
      if (tier.minPoolTokens === 0) continue;
      await setReserve(BigInt(tier.minPoolTokens) * TOKEN);
      expect(await check()).toBe(tier.apyBps);
      await setReserve(BigInt(tier.minPoolTokens) * TOKEN - 1n);
      expect(await check()).toBe(APY_TIERS[i + 1]!.apyBps);
    }
    await setReserve(0n);
    expect(await check()).toBe(0);
    // Back up through a few tiers with fund.
    for (const tokens of [1_000_000n, 5_000_000n, 29_999_999n, 30_000_000n, 50_000_000n, 60_000_000n]) {
      await setReserve(tokens * TOKEN);
      await check();
    }
    expect(await view('apyBps')).toBe(12_000n);
    expect(apyPercentForPool(60_000_000)).toBe(120);
    expect(apyPercentForPool(4_999_999.5)).toBe(5);
    expect(apyPercentForPool(0)).toBe(0);
  });

  it('stake / unstake move tokens and stakes, not the reserve; their reverts', async () => {
    const user = f.address(1);
    await give(1, 1_000n * TOKEN);
    expect(
      await revertName(
        f.wallet(1).writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'stake', args: [0n] }),
      ),
    ).toBe('InvalidAmount');
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'stake', args: [TOKEN] }),
      ),
    ).toBe('ERC20InsufficientAllowance');
    const staked = await stake(1, 600n * TOKEN);
    expect(parseEventLogs({ abi: earningsPoolAbi, logs: staked.logs, eventName: 'Staked' })[0]?.args).toEqual(
      {
        user,
        amount: 600n * TOKEN,
      },
    );
    await stake(1, 100n * TOKEN);
    expect(await userView('stakedOf', user)).toBe(700n * TOKEN);
    expect(await view('totalStaked')).toBe(700n * TOKEN);
    expect(await view('poolAvailable')).toBe(50_000_000n * TOKEN);
    expect(await balanceOf(user)).toBe(300n * TOKEN);

    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'unstake', args: [0n] }),
      ),
    ).toBe('InvalidAmount');
    expect(
      await revertName(
        f.wallet(1).writeContract({
          address: pool,
          abi: earningsPoolAbi,
          functionName: 'unstake',
          args: [700n * TOKEN + 1n],
        }),
      ),
    ).toBe('InsufficientStake');
    expect(
      await revertName(
        f
          .wallet(2)
          .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'unstake', args: [1n] }),
      ),
    ).toBe('InsufficientStake');
    const unstaked = await f.mined(
      f.wallet(1).writeContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'unstake',
        args: [200n * TOKEN],
      }),
    );
    expect(
      parseEventLogs({ abi: earningsPoolAbi, logs: unstaked.logs, eventName: 'Unstaked' })[0]?.args,
    ).toEqual({
      user,
      amount: 200n * TOKEN,
    });
    expect(await userView('stakedOf', user)).toBe(500n * TOKEN);
    expect(await view('totalStaked')).toBe(500n * TOKEN);
    expect(await balanceOf(user)).toBe(500n * TOKEN);
    expect(await view('poolAvailable')).toBe(50_000_000n * TOKEN);
  });

  it('accrues staked * apy * dt / year: pendingRewards is live, rewardPerSecond matches', async () => {
    const user = f.address(1);
    const staked = 1_000n * TOKEN;
    await give(1, staked);
    const t0 = (await f.now()) + 10n;
    await stake(1, staked, t0);
    expect(await userView('rewardPerSecond', user)).toBe(accrual(staked, 12_000n, 1n)); // ≈ 3.8e13 wei/s
    // One hour later (a mined block, no interaction): the view includes the time since the checkpoint.
    await f.setNextTimestamp(t0 + 3_600n);
    await f.testClient.mine({ blocks: 1 });
    expect(await userView('pendingRewards', user)).toBe(accrual(staked, 12_000n, 3_600n)); // ≈ 0.137 token
    // A checkpoint (payout below the threshold) keeps the amount and pays nothing.
    const receipt = await payout([user], t0 + 7_200n);
    expect(paidEvents(receipt)).toEqual([]);
    const atCheckpoint = accrual(staked, 12_000n, 7_200n);
    expect(await userView('pendingRewards', user)).toBe(atCheckpoint);
    // Then it continues from the checkpoint (each interval floored on its own).
    await f.setNextTimestamp(t0 + 10_000n);
    await f.testClient.mine({ blocks: 1 });
    expect(await userView('pendingRewards', user)).toBe(atCheckpoint + accrual(staked, 12_000n, 2_800n));
    expect(await userView('totalPaid', user)).toBe(0n);
    expect(await userView('rewardPerSecond', f.address(2))).toBe(0n);
    expect(await userView('pendingRewards', f.address(2))).toBe(0n);
  });

  it('counts an interval at the APY in force at the checkpoint (documented approximation)', async () => {
    const user = f.address(1);
    const staked = 1_000n * TOKEN;
    await give(1, staked);
    const t0 = (await f.now()) + 10n;
    await stake(1, staked, t0);
    await setReserve(30_000_000n * TOKEN); // 50 % from now on
    await payout([user], t0 + 3_600n);
    expect(await userView('pendingRewards', user)).toBe(accrual(staked, 5_000n, 3_600n));
    expect(await userView('rewardPerSecond', user)).toBe(accrual(staked, 5_000n, 1n));
  });

  it('pays automatically once pending reaches 2 tokens, not one second before (payout, by anyone)', async () => {
    const user = f.address(1);
    const staked = 1_000n * TOKEN;
    await give(1, staked);
    const t0 = (await f.now()) + 10n;
    await stake(1, staked, t0);
    // 1,000 tokens at 120 % earn exactly 2 tokens in 52,560 s (14.6 h).
    expect(accrual(staked, 12_000n, 52_560n)).toBe(AUTO_PAY_THRESHOLD);
    const inner = await f.snapshot();
    const early = await payout([user], t0 + 52_559n);
    expect(paidEvents(early)).toEqual([]);
    expect(await userView('pendingRewards', user)).toBe(accrual(staked, 12_000n, 52_559n));
    await f.revert(inner);

    const before = await balanceOf(user);
    const reserve = await view('poolAvailable');
    const onTime = await payout([user, f.address(2)], t0 + 52_560n, 7);
    expect(paidEvents(onTime)).toEqual([{ user, amount: AUTO_PAY_THRESHOLD }]);
    expect(await balanceOf(user)).toBe(before + AUTO_PAY_THRESHOLD);
    expect(await userView('totalPaid', user)).toBe(AUTO_PAY_THRESHOLD);
    expect(await userView('pendingRewards', user)).toBe(0n);
    expect(await view('poolAvailable')).toBe(reserve - AUTO_PAY_THRESHOLD);
    expect(await userView('stakedOf', user)).toBe(staked);
  });

  it('payout handles several users, paying only those due; totalPaid adds up', async () => {
    const [a, b, c] = [f.address(1), f.address(2), f.address(3)];
    await give(1, 10_000n * TOKEN);
    await give(2, 100n * TOKEN);
    // 45M: 80 %, away from a tier boundary (at exactly 50M the first reward paid would drop it to 80 %).
    await setReserve(45_000_000n * TOKEN);
    const t0 = (await f.now()) + 10n;
    await stake(1, 10_000n * TOKEN, t0);
    await stake(2, 100n * TOKEN, t0 + 1n);
    const day = 86_400n;
    const r1 = await payout([a, b, c], t0 + day);
    const dueA = accrual(10_000n * TOKEN, 8_000n, day); // ≈ 21.9 tokens
    expect(paidEvents(r1)).toEqual([{ user: a, amount: dueA }]);
    expect(await userView('pendingRewards', b)).toBe(accrual(100n * TOKEN, 8_000n, day - 1n)); // ≈ 0.22, kept
    const r2 = await payout([a, b], t0 + 2n * day);
    expect(paidEvents(r2)).toEqual([{ user: a, amount: dueA }]);
    expect(await userView('totalPaid', a)).toBe(2n * dueA);
    expect(await userView('totalPaid', b)).toBe(0n);
    expect(await userView('totalPaid', c)).toBe(0n);
  });

  it('stake, unstake and claim also pay pending once due; claim below 2 tokens reverts NothingToClaim', async () => {
    const user = f.address(1);
    const staked = 1_000n * TOKEN;
    await give(1, 2n * staked);
    await setReserve(45_000_000n * TOKEN); // 80 %, away from a tier boundary
    const t0 = (await f.now()) + 10n;
    await stake(1, staked, t0);
    expect(
      await revertName(
        f.wallet(1).writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'claim' }),
      ),
    ).toBe('NothingToClaim');

    const day = 86_400n;
    const due = accrual(staked, 8_000n, day); // ≈ 2.19 tokens
    // stake pays (the accrual uses the stake held during the interval)
    const r1 = await stake(1, staked, t0 + day);
    expect(paidEvents(r1)).toEqual([{ user, amount: due }]);
    // unstake pays (a day on twice the stake)
    await f.setNextTimestamp(t0 + 2n * day);
    const r2 = await f.mined(
      f
        .wallet(1)
        .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'unstake', args: [staked] }),
    );
    const due2 = accrual(2n * staked, 8_000n, day);
    expect(paidEvents(r2)).toEqual([{ user, amount: due2 }]);
    // claim pays
    await f.setNextTimestamp(t0 + 3n * day);
    const r3 = await f.mined(
      f.wallet(1).writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'claim' }),
    );
    expect(paidEvents(r3)).toEqual([{ user, amount: due }]);
    expect(await userView('totalPaid', user)).toBe(2n * due + due2);
    expect(await balanceOf(user)).toBe(staked + 2n * due + due2);
  });

  it('caps a payment by the reserve; the rest stays pending and is paid after funding', async () => {
    const user = f.address(1);
    const staked = 5_000_000n * TOKEN;
    await give(1, staked);
    await setReserve(1_000_000n * TOKEN); // 3 %
    const t0 = (await f.now()) + 10n;
    await stake(1, staked, t0);
    // 7 years at 3 % on 5M = 1.05M tokens, more than the 1M reserve.
    const due = accrual(staked, 300n, 7n * YEAR);
    expect(due).toBe(1_050_000n * TOKEN);
    const r1 = await payout([user], t0 + 7n * YEAR);
    expect(paidEvents(r1)).toEqual([{ user, amount: 1_000_000n * TOKEN }]);
    expect(await view('poolAvailable')).toBe(0n);
    expect(await view('apyBps')).toBe(0n);
    expect(await userView('pendingRewards', user)).toBe(50_000n * TOKEN);
    expect(
      await revertName(
        f.wallet(1).writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'claim' }),
      ),
    ).toBe('NothingToClaim');
    // The stakes are never used to pay rewards.
    expect(await balanceOf(pool)).toBe(staked);

    await setReserve(100_000n * TOKEN); // 0 % (under 1M): nothing more accrues
    const r2 = await payout([user]);
    expect(paidEvents(r2)).toEqual([{ user, amount: 50_000n * TOKEN }]);
    expect(await userView('totalPaid', user)).toBe(1_050_000n * TOKEN);
    expect(await userView('pendingRewards', user)).toBe(0n);
    expect(await view('poolAvailable')).toBe(50_000n * TOKEN);
  });

  it('fund adds to the reserve by anyone (Funded); 0 and a missing allowance revert', async () => {
    const funder = f.address(4);
    await give(4, 1_000n * TOKEN);
    expect(
      await revertName(
        f.wallet(4).writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'fund', args: [0n] }),
      ),
    ).toBe('InvalidAmount');
    expect(
      await revertName(
        f
          .wallet(4)
          .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'fund', args: [TOKEN] }),
      ),
    ).toBe('ERC20InsufficientAllowance');
    await approvePool(4, 1_000n * TOKEN);
    const receipt = await f.mined(
      f
        .wallet(4)
        .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'fund', args: [1_000n * TOKEN] }),
    );
    expect(
      parseEventLogs({ abi: earningsPoolAbi, logs: receipt.logs, eventName: 'Funded' })[0]?.args,
    ).toEqual({
      from: funder,
      amount: 1_000n * TOKEN,
    });
    expect(await view('poolAvailable')).toBe(50_001_000n * TOKEN);
    expect(await view('totalStaked')).toBe(0n);
  });

  it('gas estimates carry a 25 % margin (an unstake a second after the estimate costs more)', async () => {
    await give(1, 100n * TOKEN);
    await stake(1, 100n * TOKEN);
    const call = {
      account: f.address(1),
      address: pool,
      abi: earningsPoolAbi,
      functionName: 'unstake',
      args: [TOKEN],
    } as const;
    const plain = createPublicClient({ transport: http(f.anvil.rpcUrl) });
    // Both at one mined block: two estimates of the pending block a second apart differ by design.
    const at = { ...call, blockNumber: await plain.getBlockNumber() };
    const exact = await plain.estimateContractGas(at);
    const padded = await createPublicClient({ transport: paddedHttp(f.anvil.rpcUrl) }).estimateContractGas(
      at,
    );
    expect(padded).toBe((exact * 5n) / 4n);
  });

  it('withdraw: owner only, from the reserve only (never the stakes), emits LiquidityWithdrawn', async () => {
    await give(1, 100n * TOKEN);
    await stake(1, 100n * TOKEN);
    const to = f.address(5);
    expect(
      await revertName(
        f.wallet(1).writeContract({
          address: pool,
          abi: earningsPoolAbi,
          functionName: 'withdraw',
          args: [to, TOKEN],
        }),
      ),
    ).toBe('OwnableUnauthorizedAccount');
    expect(
      await revertName(
        f
          .wallet(0)
          .writeContract({ address: pool, abi: earningsPoolAbi, functionName: 'withdraw', args: [to, 0n] }),
      ),
    ).toBe('InvalidAmount');
    const reserve = await view('poolAvailable');
    expect(
      await revertName(
        f.wallet(0).writeContract({
          address: pool,
          abi: earningsPoolAbi,
          functionName: 'withdraw',
          args: [to, reserve + 1n],
        }),
      ),
    ).toBe('InsufficientLiquidity');
    const receipt = await f.mined(
      f.wallet(0).writeContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'withdraw',
        args: [to, reserve],
      }),
    );
    expect(
      parseEventLogs({ abi: earningsPoolAbi, logs: receipt.logs, eventName: 'LiquidityWithdrawn' })[0]?.args,
    ).toEqual({
      to,
      amount: reserve,
    });
    expect(await balanceOf(to)).toBe(reserve);
    expect(await view('poolAvailable')).toBe(0n);
    expect(await balanceOf(pool)).toBe(100n * TOKEN);
    // The stake is still whole and can leave.
    await f.mined(
      f.wallet(1).writeContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'unstake',
        args: [100n * TOKEN],
      }),
    );
    expect(await balanceOf(f.address(1))).toBe(100n * TOKEN);
  });

  it('a plan payment lands in the reserve and can lift the APY a tier', async () => {
    const { plans } = f.addresses;
    await setReserve(40_000_000n * TOKEN - 1_000n * TOKEN);
    expect(await view('apyBps')).toBe(5_000n);
    await give(3, 15_000n * TOKEN);
    await f.mined(
      f.wallet(3).writeContract({
        address: token,
        abi: bytxTokenAbi,
        functionName: 'approve',
        args: [plans, 15_000n * TOKEN],
      }),
    );
    await f.mined(
      f.wallet(3).writeContract({
        address: plans,
        abi: planPaymentsAbi,
        functionName: 'payPlan',
        args: [3, `0x${'11'.repeat(32)}`],
      }),
    );
    expect(await view('poolAvailable')).toBe(40_014_000n * TOKEN);
    expect(await view('apyBps')).toBe(8_000n);
  });
});
