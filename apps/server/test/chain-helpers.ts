import { bytxTokenAbi, earningsPoolAbi, planPaymentsAbi, testStablecoinAbi, tokenSaleAbi } from '@bytx/chain';
import { chainFor } from '@bytx/chain/node';
import {
  createPublicClient,
  createWalletClient,
  custom,
  parseUnits,
  type Address,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { chainModules, type ChainModule } from '../src/modules/chain/routes';
import type { TestApp } from './helpers';

/** The chain module of a test app (its runtime must be ready). */
export function chainOf(t: TestApp): ChainModule {
  const m = chainModules.get(t.ctx);
  if (!m) throw new Error('no chain module');
  return m;
}

/** A JSON-RPC transport through the app's own proxy (what a browser wallet uses). */
export function proxyTransport(t: TestApp) {
  let id = 0;
  return custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/chain/rpc',
        payload: { jsonrpc: '2.0', id: ++id, method, params: params ?? [] },
      });
      const body = res.json<{
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      }>();
      if (body.error) {
        const err = new Error(body.error.message) as Error & { code: number; data?: unknown };
        err.code = body.error.code;
        err.data = body.error.data;
        throw err;
      }
      // A margin on gas estimates, as browser wallets add one (paddedHttp in @bytx/chain/node).
      if (method === 'eth_estimateGas' && typeof body.result === 'string') {
        return `0x${((BigInt(body.result) * 5n) / 4n).toString(16)}`;
      }
      return body.result;
    },
  });
}

/** A user's own wallet (a fresh key), signing in the test and sending raw transactions through the proxy. */
export function userWallet(t: TestApp, key: Hex = generatePrivateKey()) {
  const account: PrivateKeyAccount = privateKeyToAccount(key);
  const chain = chainFor(t.ctx.config.chain.chainId, 'http://proxy.invalid');
  const transport = proxyTransport(t);
  const wallet = createWalletClient({ account, chain, transport });
  const client = createPublicClient({ chain, transport });
  const m = chainOf(t);
  const addresses = () => m.runtime.require().addresses;
  /** Waits for the receipt (the embedded chain mines each transaction at once) and checks it. */
  const sent = async (hash: Hash) => {
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (r.status !== 'success') throw new Error(`reverted: ${hash}`);
    return r;
  };
  return {
    account,
    address: account.address,
    wallet,
    client,
    sent,
    async faucetDirect(usdt = 1_000) {
      // The owner mints test USDT straight away (the faucet call has its own test).
      const a = addresses();
      const owner = m.runtime.ownerWallet();
      const hash = await owner.writeContract({
        address: a.usdt,
        abi: testStablecoinAbi,
        functionName: 'faucet',
        args: [account.address, parseUnits(String(usdt), 6)],
        account: owner.account,
        chain: null,
      });
      await m.runtime.test().setBalance({ address: account.address, value: 10n ** 18n });
      return sent(hash);
    },
    /** approve → buyTokensWith(USDT): `usdt` whole USDT for tokens at 0.002. */
    async buy(usdt: number, coin: 'usdt' | 'usdc' = 'usdt') {
      const a = addresses();
      const amount = parseUnits(String(usdt), 6);
      await sent(
        await wallet.writeContract({
          address: a[coin],
          abi: testStablecoinAbi,
          functionName: 'approve',
          args: [a.sale, amount],
        }),
      );
      return sent(
        await wallet.writeContract({
          address: a.sale,
          abi: tokenSaleAbi,
          functionName: 'buyTokensWith',
          args: [a[coin], amount],
        }),
      );
    },
    async stake(tokens: number) {
      const a = addresses();
      const amount = parseUnits(String(tokens), 18);
      await sent(
        await wallet.writeContract({
          address: a.token,
          abi: bytxTokenAbi,
          functionName: 'approve',
          args: [a.pool, amount],
        }),
      );
      return sent(
        await wallet.writeContract({
          address: a.pool,
          abi: earningsPoolAbi,
          functionName: 'stake',
          args: [amount],
        }),
      );
    },
    /** approve → payPlan(plan, ref); returns the payment's hash without mining more. */
    async payPlan(plan: 1 | 2 | 3, ref: Hex, priceWei: bigint) {
      const a = addresses();
      await sent(
        await wallet.writeContract({
          address: a.token,
          abi: bytxTokenAbi,
          functionName: 'approve',
          args: [a.plans, priceWei],
        }),
      );
      return sent(
        await wallet.writeContract({
          address: a.plans,
          abi: planPaymentsAbi,
          functionName: 'payPlan',
          args: [plan, ref],
        }),
      );
    },
    async tokenBalance(): Promise<bigint> {
      return client.readContract({
        address: addresses().token,
        abi: bytxTokenAbi,
        functionName: 'balanceOf',
        args: [account.address],
      });
    },
  };
}

/** Mines `n` blocks on the embedded chain at once. */
export async function mine(t: TestApp, n = 1): Promise<void> {
  await chainOf(t).runtime.test().mine({ blocks: n });
}

/** Moves the embedded chain's clock forward and mines a block there. */
export async function timeTravel(t: TestApp, seconds: number): Promise<void> {
  const test = chainOf(t).runtime.test();
  await test.increaseTime({ seconds });
  await test.mine({ blocks: 1 });
  chainOf(t).reader.clear();
}

export const isAddr = (a: unknown): a is Address => typeof a === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a);

/**
 * The proof that links a new earnings wallet (issue 37): the server's sign-in message for `user` and
 * `account.address`, signed with the account's key as a browser wallet's personal_sign would.
 */
export async function proofFor(
  t: TestApp,
  user: { auth: { authorization: string } },
  account: PrivateKeyAccount,
): Promise<{ nonce: string; signature: Hex }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/earnings/nonce',
    headers: user.auth,
    payload: { address: account.address },
  });
  if (res.statusCode !== 200) throw new Error(`nonce: ${res.statusCode} ${res.body}`);
  const { nonce, message } = res.json<{ nonce: string; message: string }>();
  return { nonce, signature: await account.signMessage({ message }) };
}
