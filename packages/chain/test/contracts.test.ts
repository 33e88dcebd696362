/** BytxToken, TestStablecoin, TokenSale and PlanPayments against a real anvil (one for the file). */
import { parseEventLogs, zeroAddress, type Address, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PLAN_IDS,
  PLAN_USD_CENTS,
  SALE_PRICE,
  STABLE_DECIMALS,
  TOKEN_DECIMALS,
  bytxTokenAbi,
  earningsPoolAbi,
  planPaymentsAbi,
  planPriceInTokens,
  testStablecoinAbi,
  tokenSaleAbi,
  tokensForStable,
} from '../src/index';
import { tokenSaleBytecode } from '../src/bytecode';
import { STABLE, TOKEN, revertName, startChain, type Fixture } from './fixture';

let f: Fixture;
let snapshot: Hex;

beforeAll(async () => {
  f = await startChain();
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

const erc20Balance = (token: Address, who: Address) =>
  f.publicClient.readContract({ address: token, abi: bytxTokenAbi, functionName: 'balanceOf', args: [who] });

/** Gives account `i` `amount` test stablecoin base units through the faucet (10,000 units per call). */
async function faucet(stablecoin: Address, i: number, amount: bigint): Promise<void> {
  for (let left = amount; left > 0n;) {
    const part = left > 10_000n * STABLE ? 10_000n * STABLE : left;
    await f.mined(
      f.wallet(i).writeContract({
        address: stablecoin,
        abi: testStablecoinAbi,
        functionName: 'faucet',
        args: [f.address(i), part],
      }),
    );
    left -= part;
  }
}

async function approve(token: Address, i: number, spender: Address, amount: bigint): Promise<void> {
  await f.mined(
    f
      .wallet(i)
      .writeContract({ address: token, abi: bytxTokenAbi, functionName: 'approve', args: [spender, amount] }),
  );
}

describe('BytxToken', () => {
  it('is BYTX, 18 decimals, capped at 100M, all minted to the deployer who distributed it', async () => {
    const { token, pool, sale, owner } = f.addresses;
    const read = <F extends 'name' | 'symbol' | 'decimals' | 'cap' | 'totalSupply' | 'MAX_SUPPLY'>(
      functionName: F,
    ) => f.publicClient.readContract({ address: token, abi: bytxTokenAbi, functionName });
    expect(await read('name')).toBe('BYTX');
    expect(await read('symbol')).toBe('BYTX');
    expect(await read('decimals')).toBe(TOKEN_DECIMALS);
    expect(await read('cap')).toBe(100_000_000n * TOKEN);
    expect(await read('MAX_SUPPLY')).toBe(100_000_000n * TOKEN);
    expect(await read('totalSupply')).toBe(100_000_000n * TOKEN);
    expect(await erc20Balance(token, pool)).toBe(50_000_000n * TOKEN);
    expect(await erc20Balance(token, sale)).toBe(40_000_000n * TOKEN);
    expect(await erc20Balance(token, owner)).toBe(10_000_000n * TOKEN);
  });

  it('transfers, approves and transferFroms like an ERC20 and rejects overdrafts', async () => {
    const { token } = f.addresses;
    await f.mined(
      f.wallet(0).writeContract({
        address: token,
        abi: bytxTokenAbi,
        functionName: 'transfer',
        args: [f.address(1), 5n * TOKEN],
      }),
    );
    expect(await erc20Balance(token, f.address(1))).toBe(5n * TOKEN);
    await approve(token, 1, f.address(2), 3n * TOKEN);
    await f.mined(
      f.wallet(2).writeContract({
        address: token,
        abi: bytxTokenAbi,
        functionName: 'transferFrom',
        args: [f.address(1), f.address(3), 3n * TOKEN],
      }),
    );
    expect(await erc20Balance(token, f.address(3))).toBe(3n * TOKEN);
    expect(
      await revertName(
        f.wallet(1).writeContract({
          address: token,
          abi: bytxTokenAbi,
          functionName: 'transfer',
          args: [f.address(2), 3n * TOKEN],
        }),
      ),
    ).toBe('ERC20InsufficientBalance');
  });
});

describe('TestStablecoin', () => {
  it('has 6 decimals and the names given at deployment', async () => {
    const { usdt, usdc } = f.addresses;
    const read = (address: Address, functionName: 'name' | 'symbol' | 'decimals') =>
      f.publicClient.readContract({ address, abi: testStablecoinAbi, functionName });
    expect(await read(usdt, 'decimals')).toBe(STABLE_DECIMALS);
    expect(await read(usdc, 'decimals')).toBe(STABLE_DECIMALS);
    expect(await read(usdt, 'symbol')).toBe('USDT');
    expect(await read(usdc, 'symbol')).toBe('USDC');
    expect(await read(usdt, 'name')).toBe('Test Tether USD');
    expect(await read(usdc, 'name')).toBe('Test USD Coin');
  });

  it('faucet: anyone, to anyone, at most 10,000 units per call', async () => {
    const { usdt } = f.addresses;
    await f.mined(
      f.wallet(4).writeContract({
        address: usdt,
        abi: testStablecoinAbi,
        functionName: 'faucet',
        args: [f.address(5), 10_000n * STABLE],
      }),
    );
    expect(await erc20Balance(usdt, f.address(5))).toBe(10_000n * STABLE);
    expect(
      await revertName(
        f.wallet(4).writeContract({
          address: usdt,
          abi: testStablecoinAbi,
          functionName: 'faucet',
          args: [f.address(5), 10_000n * STABLE + 1n],
        }),
      ),
    ).toBe('FaucetLimit');
  });
});

describe('TokenSale', () => {
  it('is set up as deployed: price 2000, token, USDT, USDC, owner', async () => {
    const { sale, token, usdt, usdc, owner } = f.addresses;
    const read = (functionName: 'price' | 'token' | 'usdt' | 'usdc' | 'owner') =>
      f.publicClient.readContract({ address: sale, abi: tokenSaleAbi, functionName });
    expect(await read('price')).toBe(SALE_PRICE);
    expect(await read('token')).toBe(token);
    expect(await read('usdt')).toBe(usdt);
    expect(await read('usdc')).toBe(usdc);
    expect(await read('owner')).toBe(owner);
    const tokensFor = (amount: bigint) =>
      f.publicClient.readContract({
        address: sale,
        abi: tokenSaleAbi,
        functionName: 'tokensFor',
        args: [amount],
      });
    expect(await tokensFor(2000n)).toBe(TOKEN); // 0.002 USDT buys one token
    expect(await tokensFor(100n * STABLE)).toBe(50_000n * TOKEN);
    expect(await tokensFor(1n)).toBe(tokensForStable(1n));
  });

  it('buyTokens pays USDT for tokens and emits TokensPurchased', async () => {
    const { sale, token, usdt } = f.addresses;
    await faucet(usdt, 1, 100n * STABLE);
    await approve(usdt, 1, sale, 100n * STABLE);
    const receipt = await f.mined(
      f
        .wallet(1)
        .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [30n * STABLE] }),
    );
    expect(await erc20Balance(token, f.address(1))).toBe(15_000n * TOKEN);
    expect(await erc20Balance(usdt, f.address(1))).toBe(70n * STABLE);
    expect(await erc20Balance(usdt, sale)).toBe(30n * STABLE);
    expect(await erc20Balance(token, sale)).toBe(40_000_000n * TOKEN - 15_000n * TOKEN);
    const [event] = parseEventLogs({ abi: tokenSaleAbi, logs: receipt.logs, eventName: 'TokensPurchased' });
    expect(event?.args).toEqual({
      buyer: f.address(1),
      stablecoin: usdt,
      paid: 30n * STABLE,
      tokens: 15_000n * TOKEN,
    });
  });

  it('buyTokensWith takes USDT or USDC and nothing else', async () => {
    const { sale, token, usdt, usdc } = f.addresses;
    await faucet(usdc, 2, 10n * STABLE);
    await approve(usdc, 2, sale, 10n * STABLE);
    const receipt = await f.mined(
      f.wallet(2).writeContract({
        address: sale,
        abi: tokenSaleAbi,
        functionName: 'buyTokensWith',
        args: [usdc, 10n * STABLE],
      }),
    );
    expect(await erc20Balance(token, f.address(2))).toBe(5_000n * TOKEN);
    expect(await erc20Balance(usdc, sale)).toBe(10n * STABLE);
    const [event] = parseEventLogs({ abi: tokenSaleAbi, logs: receipt.logs, eventName: 'TokensPurchased' });
    expect(event?.args.stablecoin).toBe(usdc);

    await faucet(usdt, 2, 1n * STABLE);
    await approve(usdt, 2, sale, 1n * STABLE);
    await f.mined(
      f.wallet(2).writeContract({
        address: sale,
        abi: tokenSaleAbi,
        functionName: 'buyTokensWith',
        args: [usdt, STABLE],
      }),
    );
    expect(await erc20Balance(token, f.address(2))).toBe(5_500n * TOKEN);

    for (const other of [token, zeroAddress, f.address(3)]) {
      expect(
        await revertName(
          f.wallet(2).writeContract({
            address: sale,
            abi: tokenSaleAbi,
            functionName: 'buyTokensWith',
            args: [other, 1n],
          }),
        ),
      ).toBe('UnsupportedStablecoin');
    }
  });

  it('reverts InvalidAmount on 0 or when the amount buys no token, and without an allowance', async () => {
    const { sale, usdt } = f.addresses;
    await faucet(usdt, 1, 10n * STABLE);
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [0n] }),
      ),
    ).toBe('InvalidAmount');
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [STABLE] }),
      ),
    ).toBe('ERC20InsufficientAllowance');
    await approve(usdt, 1, sale, 10n * STABLE);
    // At 2e18 base units per token, one base unit buys 0.5e-18 token: rounds down to 0.
    await f.mined(
      f
        .wallet(0)
        .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'setPrice', args: [2n * TOKEN] }),
    );
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [1n] }),
      ),
    ).toBe('InvalidAmount');
    await f.mined(
      f.wallet(1).writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [2n] }),
    );
    expect(await erc20Balance(f.addresses.token, f.address(1))).toBe(1n);
  });

  it('reverts SoldOut when the sale holds fewer tokens than bought; selling exactly the stock works', async () => {
    const { sale, token, usdt } = f.addresses;
    // Price 1 base unit per token: 40,000,000 base units buy the whole 40M stock.
    await f.mined(
      f.wallet(0).writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'setPrice', args: [1n] }),
    );
    await faucet(usdt, 1, 50n * STABLE);
    await approve(usdt, 1, sale, 50n * STABLE);
    expect(
      await revertName(
        f.wallet(1).writeContract({
          address: sale,
          abi: tokenSaleAbi,
          functionName: 'buyTokens',
          args: [40_000_001n],
        }),
      ),
    ).toBe('SoldOut');
    await f.mined(
      f
        .wallet(1)
        .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [40_000_000n] }),
    );
    expect(await erc20Balance(token, sale)).toBe(0n);
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'buyTokens', args: [1n] }),
      ),
    ).toBe('SoldOut');
  });

  it('setPrice: owner only, not 0, emits PriceChanged and changes tokensFor', async () => {
    const { sale } = f.addresses;
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'setPrice', args: [4000n] }),
      ),
    ).toBe('OwnableUnauthorizedAccount');
    expect(
      await revertName(
        f.wallet(0).writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'setPrice', args: [0n] }),
      ),
    ).toBe('InvalidPrice');
    const receipt = await f.mined(
      f
        .wallet(0)
        .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'setPrice', args: [4000n] }),
    );
    expect(
      parseEventLogs({ abi: tokenSaleAbi, logs: receipt.logs, eventName: 'PriceChanged' })[0]?.args,
    ).toEqual({
      price: 4000n,
    });
    expect(
      await f.publicClient.readContract({ address: sale, abi: tokenSaleAbi, functionName: 'price' }),
    ).toBe(4000n);
    expect(
      await f.publicClient.readContract({
        address: sale,
        abi: tokenSaleAbi,
        functionName: 'tokensFor',
        args: [4000n],
      }),
    ).toBe(TOKEN);
  });

  it('the constructor rejects a 0 price', async () => {
    const { token, usdt, usdc } = f.addresses;
    expect(
      await revertName(
        f
          .wallet(0)
          .deployContract({ abi: tokenSaleAbi, bytecode: tokenSaleBytecode, args: [token, usdt, usdc, 0n] }),
      ),
    ).toBe('InvalidPrice');
  });

  it('withdrawUSDT / withdrawStablecoin: owner only, supported coins only, emit Withdrawn', async () => {
    const { sale, usdt, usdc, token } = f.addresses;
    for (const coin of [usdt, usdc]) {
      await faucet(coin, 1, 20n * STABLE);
      await approve(coin, 1, sale, 20n * STABLE);
      await f.mined(
        f.wallet(1).writeContract({
          address: sale,
          abi: tokenSaleAbi,
          functionName: 'buyTokensWith',
          args: [coin, 20n * STABLE],
        }),
      );
    }
    const to = f.address(6);
    expect(
      await revertName(
        f.wallet(1).writeContract({
          address: sale,
          abi: tokenSaleAbi,
          functionName: 'withdrawUSDT',
          args: [to, STABLE],
        }),
      ),
    ).toBe('OwnableUnauthorizedAccount');
    expect(
      await revertName(
        f.wallet(1).writeContract({
          address: sale,
          abi: tokenSaleAbi,
          functionName: 'withdrawStablecoin',
          args: [usdc, to, STABLE],
        }),
      ),
    ).toBe('OwnableUnauthorizedAccount');
    expect(
      await revertName(
        f.wallet(0).writeContract({
          address: sale,
          abi: tokenSaleAbi,
          functionName: 'withdrawStablecoin',
          args: [token, to, TOKEN],
        }),
      ),
    ).toBe('UnsupportedStablecoin');
    expect(
      await revertName(
        f.wallet(0).writeContract({
          address: sale,
          abi: tokenSaleAbi,
          functionName: 'withdrawUSDT',
          args: [to, 21n * STABLE],
        }),
      ),
    ).toBe('ERC20InsufficientBalance');

    const r1 = await f.mined(
      f.wallet(0).writeContract({
        address: sale,
        abi: tokenSaleAbi,
        functionName: 'withdrawUSDT',
        args: [to, 20n * STABLE],
      }),
    );
    expect(parseEventLogs({ abi: tokenSaleAbi, logs: r1.logs, eventName: 'Withdrawn' })[0]?.args).toEqual({
      stablecoin: usdt,
      to,
      amount: 20n * STABLE,
    });
    const r2 = await f.mined(
      f.wallet(0).writeContract({
        address: sale,
        abi: tokenSaleAbi,
        functionName: 'withdrawStablecoin',
        args: [usdc, to, 5n * STABLE],
      }),
    );
    expect(
      parseEventLogs({ abi: tokenSaleAbi, logs: r2.logs, eventName: 'Withdrawn' })[0]?.args.stablecoin,
    ).toBe(usdc);
    expect(await erc20Balance(usdt, to)).toBe(20n * STABLE);
    expect(await erc20Balance(usdc, to)).toBe(5n * STABLE);
    expect(await erc20Balance(usdt, sale)).toBe(0n);
    expect(await erc20Balance(usdc, sale)).toBe(15n * STABLE);
  });
});

describe('PlanPayments', () => {
  const price = (plan: number) =>
    f.publicClient.readContract({
      address: f.addresses.plans,
      abi: planPaymentsAbi,
      functionName: 'priceInTokens',
      args: [plan],
    });

  it('is wired to the token, the sale and the pool, owned by the deployer', async () => {
    const { plans, token, sale, pool, owner } = f.addresses;
    const read = (functionName: 'token' | 'sale' | 'pool' | 'owner') =>
      f.publicClient.readContract({ address: plans, abi: planPaymentsAbi, functionName });
    expect(await read('token')).toBe(token);
    expect(await read('sale')).toBe(sale);
    expect(await read('pool')).toBe(pool);
    expect(await read('owner')).toBe(owner);
  });

  it('prices plans in USD cents and in tokens at the sale price, following setPrice', async () => {
    const { plans, sale } = f.addresses;
    for (const [name, id] of Object.entries(PLAN_IDS) as [keyof typeof PLAN_IDS, number][]) {
      expect(
        await f.publicClient.readContract({
          address: plans,
          abi: planPaymentsAbi,
          functionName: 'planUsdCents',
          args: [id],
        }),
      ).toBe(BigInt(PLAN_USD_CENTS[name]));
      expect(await price(id)).toBe(planPriceInTokens(PLAN_USD_CENTS[name]));
    }
    expect(await price(1)).toBe(2_500n * TOKEN); // $5 at 0.002
    expect(await price(2)).toBe(7_500n * TOKEN);
    expect(await price(3)).toBe(15_000n * TOKEN);
    await f.mined(
      f
        .wallet(0)
        .writeContract({ address: sale, abi: tokenSaleAbi, functionName: 'setPrice', args: [4000n] }),
    );
    expect(await price(1)).toBe(1_250n * TOKEN);
    expect(await price(3)).toBe(planPriceInTokens(3000, 4000n));
  });

  it('reverts UnknownPlan outside 1..3 (views and payPlan)', async () => {
    const { plans } = f.addresses;
    for (const plan of [0, 4, 255]) {
      expect(await revertName(price(plan))).toBe('UnknownPlan');
      expect(
        await revertName(
          f.publicClient.readContract({
            address: plans,
            abi: planPaymentsAbi,
            functionName: 'planUsdCents',
            args: [plan],
          }),
        ),
      ).toBe('UnknownPlan');
      expect(
        await revertName(
          f.wallet(0).writeContract({
            address: plans,
            abi: planPaymentsAbi,
            functionName: 'payPlan',
            args: [plan, `0x${'ab'.repeat(32)}`],
          }),
        ),
      ).toBe('UnknownPlan');
    }
  });

  it('payPlan moves the price from the payer into the pool (its reserve grows) and emits PlanPaid', async () => {
    const { plans, token, pool } = f.addresses;
    const ref: Hex = `0x${'0'.repeat(56)}deadbeef`;
    const buyer = f.address(1);
    await f.mined(
      f.wallet(0).writeContract({
        address: token,
        abi: bytxTokenAbi,
        functionName: 'transfer',
        args: [buyer, 20_000n * TOKEN],
      }),
    );
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: plans, abi: planPaymentsAbi, functionName: 'payPlan', args: [2, ref] }),
      ),
    ).toBe('ERC20InsufficientAllowance');
    await approve(token, 1, plans, 20_000n * TOKEN);
    const before = await f.publicClient.readContract({
      address: pool,
      abi: earningsPoolAbi,
      functionName: 'poolAvailable',
    });
    const receipt = await f.mined(
      f
        .wallet(1)
        .writeContract({ address: plans, abi: planPaymentsAbi, functionName: 'payPlan', args: [2, ref] }),
    );
    expect(await erc20Balance(token, buyer)).toBe(12_500n * TOKEN);
    expect(await erc20Balance(token, plans)).toBe(0n);
    expect(
      await f.publicClient.readContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'poolAvailable',
      }),
    ).toBe(before + 7_500n * TOKEN);
    const [event] = parseEventLogs({ abi: planPaymentsAbi, logs: receipt.logs, eventName: 'PlanPaid' });
    expect(event?.args).toEqual({ payer: buyer, plan: 2, ref, tokens: 7_500n * TOKEN, usdCents: 1500n });
    // The indexer filters by the indexed ref: the topic is the raw bytes32.
    expect(event?.topics[3]).toBe(ref);

    // Professional (15,000) is more than the 12,500 left (the allowance is checked first).
    await approve(token, 1, plans, 20_000n * TOKEN);
    expect(
      await revertName(
        f
          .wallet(1)
          .writeContract({ address: plans, abi: planPaymentsAbi, functionName: 'payPlan', args: [3, ref] }),
      ),
    ).toBe('ERC20InsufficientBalance');
  });
});
