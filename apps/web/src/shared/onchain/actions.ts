/**
 * Everything that talks to the contracts through the browser wallet (viem over EIP-1193). Loaded on
 * demand (`loadChainActions()`), so viem and the ABIs stay out of the first page.
 */
import {
  bytxTokenAbi,
  earningsPoolAbi,
  planPaymentsAbi,
  STABLE_DECIMALS,
  testStablecoinAbi,
  TOKEN_DECIMALS,
  tokenSaleAbi,
} from '@bytx/chain';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  formatUnits,
  parseUnits,
  UserRejectedRequestError,
  type Address,
  type Hash,
} from 'viem';
import { chainName } from './wallet';
import type { Eip1193Provider, LiveChain } from './types';

/** One transaction of a flow: signed in the wallet, then mined. */
export type StepKey = 'approve' | 'buy' | 'withdraw' | 'stake' | 'unstake' | 'claim' | 'pay';
export interface StepEvent {
  step: StepKey;
  phase: 'sign' | 'wait' | 'done';
  hash?: Hash;
}
export type OnStep = (e: StepEvent) => void;

export interface ChainContext {
  provider: Eip1193Provider;
  info: LiveChain;
  account: Address;
  /** How often a receipt is polled (ms); the embedded chain mines every second. */
  pollingInterval?: number;
}

function clients(ctx: ChainContext) {
  const chain = defineChain({
    id: ctx.info.chainId,
    name: chainName(ctx.info),
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [ctx.info.rpcUrl] } },
  });
  const transport = custom(ctx.provider);
  const pollingInterval = ctx.pollingInterval ?? (ctx.info.mode === 'embedded' ? 500 : 2_000);
  return {
    wallet: createWalletClient({ account: ctx.account, chain, transport, pollingInterval }),
    pub: createPublicClient({ chain, transport, pollingInterval }),
  };
}
type Clients = ReturnType<typeof clients>;

/** Signs and sends one transaction, waits for it to be mined, fails on a revert. */
/** The approve step before a contract takes `value` of an ERC-20 (stablecoin or token) from the user. */
function approveStep(c: Clients, onStep: OnStep, coin: Address, spender: Address, value: bigint) {
  return run(c, 'approve', onStep, () =>
    c.wallet.writeContract({
      address: coin,
      abi: bytxTokenAbi,
      functionName: 'approve',
      args: [spender, value],
    }),
  );
}

/** The sale's USDT balance in base units (what Withdraw USDT takes). */
function saleUsdt(c: Clients, a: ChainContext['info']['addresses']) {
  return c.pub.readContract({
    address: a.usdt,
    abi: testStablecoinAbi,
    functionName: 'balanceOf',
    args: [a.sale],
  });
}

async function run(c: Clients, step: StepKey, onStep: OnStep, send: () => Promise<Hash>): Promise<Hash> {
  onStep({ step, phase: 'sign' });
  const hash = await send();
  onStep({ step, phase: 'wait', hash });
  const receipt = await c.pub.waitForTransactionReceipt({ hash, timeout: 180_000 });
  if (receipt.status !== 'success') throw new Error(`Transaction ${hash} reverted.`);
  onStep({ step, phase: 'done', hash });
  return hash;
}

/** The first line a person can act on: the contract's own error name, a rejection, or viem's short message. */
export function chainErrorText(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      const name = revert.data?.errorName;
      if (name) return `Execution reverted: ${name}()`;
      if (revert.reason) return `Execution reverted: ${revert.reason}`;
    }
    if (err.walk((e) => e instanceof UserRejectedRequestError)) return 'User rejected the request.';
    return err.shortMessage || err.message;
  }
  const e = err as { message?: unknown; code?: unknown } | null;
  if (e && e.code === 4001) return 'User rejected the request.';
  return typeof e?.message === 'string' && e.message ? e.message : String(err);
}

export type Stablecoin = 'USDT' | 'USDC';

export interface Balances {
  token: string;
  usdt: string;
  usdc: string;
}

/** The connected account's BYTX, USDT and USDC balances (display strings). */
export async function readBalances(ctx: ChainContext): Promise<Balances> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const [token, usdt, usdc] = await Promise.all([
    c.pub.readContract({
      address: a.token,
      abi: bytxTokenAbi,
      functionName: 'balanceOf',
      args: [ctx.account],
    }),
    c.pub.readContract({
      address: a.usdt,
      abi: testStablecoinAbi,
      functionName: 'balanceOf',
      args: [ctx.account],
    }),
    c.pub.readContract({
      address: a.usdc,
      abi: testStablecoinAbi,
      functionName: 'balanceOf',
      args: [ctx.account],
    }),
  ]);
  return {
    token: formatUnits(token, TOKEN_DECIMALS),
    usdt: formatUnits(usdt, STABLE_DECIMALS),
    usdc: formatUnits(usdc, STABLE_DECIMALS),
  };
}

/**
 * Token purchase (spec part 1 §4): approve the stablecoin spend, wait, then buy, wait. `amount` is the
 * stablecoin amount (6 decimals). Returns the tokens bought (display string).
 */
export async function buyTokens(
  ctx: ChainContext,
  stable: Stablecoin,
  amount: string,
  onStep: OnStep,
): Promise<{ tokens: string }> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const value = parseUnits(amount, STABLE_DECIMALS);
  const coin = stable === 'USDT' ? a.usdt : a.usdc;
  const tokens = await c.pub.readContract({
    address: a.sale,
    abi: tokenSaleAbi,
    functionName: 'tokensFor',
    args: [value],
  });
  await approveStep(c, onStep, coin, a.sale, value);
  await run(c, 'buy', onStep, async () => {
    const { request } = await c.pub.simulateContract({
      account: ctx.account,
      address: a.sale,
      abi: tokenSaleAbi,
      functionName: 'buyTokensWith',
      args: [coin, value],
    });
    return c.wallet.writeContract(request);
  });
  return { tokens: formatUnits(tokens, TOKEN_DECIMALS) };
}

/** The sale's USDT balance (what Withdraw USDT takes), display string. */
export async function saleUsdtBalance(ctx: ChainContext): Promise<string> {
  return formatUnits(await saleUsdt(clients(ctx), ctx.info.addresses), STABLE_DECIMALS);
}

/** Withdraw USDT (the sale's owner only): the sale's whole USDT balance to the connected address. */
export async function withdrawSaleUsdt(ctx: ChainContext, onStep: OnStep): Promise<{ amount: string }> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const bal = await saleUsdt(c, a);
  if (bal === 0n) throw new Error('The sale holds no USDT to withdraw.');
  await run(c, 'withdraw', onStep, async () => {
    const { request } = await c.pub.simulateContract({
      account: ctx.account,
      address: a.sale,
      abi: tokenSaleAbi,
      functionName: 'withdrawUSDT',
      args: [ctx.account, bal],
    });
    return c.wallet.writeContract(request);
  });
  return { amount: formatUnits(bal, STABLE_DECIMALS) };
}

/** Staking in the earnings pool: approve the tokens, wait, stake, wait. `amount` in whole tokens. */
export async function stakeTokens(ctx: ChainContext, amount: string, onStep: OnStep): Promise<void> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const value = parseUnits(amount, TOKEN_DECIMALS);
  await approveStep(c, onStep, a.token, a.pool, value);
  await run(c, 'stake', onStep, async () => {
    const { request } = await c.pub.simulateContract({
      account: ctx.account,
      address: a.pool,
      abi: earningsPoolAbi,
      functionName: 'stake',
      args: [value],
    });
    return c.wallet.writeContract(request);
  });
}

/** Unstaking: one transaction. `amount` in whole tokens. */
export async function unstakeTokens(ctx: ChainContext, amount: string, onStep: OnStep): Promise<void> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const value = parseUnits(amount, TOKEN_DECIMALS);
  await run(c, 'unstake', onStep, async () => {
    const { request } = await c.pub.simulateContract({
      account: ctx.account,
      address: a.pool,
      abi: earningsPoolAbi,
      functionName: 'unstake',
      args: [value],
    });
    return c.wallet.writeContract(request);
  });
}

/** Claims the pending rewards now (below the 2-token auto-payment). */
export async function claimRewards(ctx: ChainContext, onStep: OnStep): Promise<void> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  await run(c, 'claim', onStep, async () => {
    const { request } = await c.pub.simulateContract({
      account: ctx.account,
      address: a.pool,
      abi: earningsPoolAbi,
      functionName: 'claim',
    });
    return c.wallet.writeContract(request);
  });
}

/** The tokens staked by the connected account, display string. */
export async function stakedOf(ctx: ChainContext): Promise<string> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const v = await c.pub.readContract({
    address: a.pool,
    abi: earningsPoolAbi,
    functionName: 'stakedOf',
    args: [ctx.account],
  });
  return formatUnits(v, TOKEN_DECIMALS);
}

/**
 * A plan payment: approve the plan's price in tokens (read from the contract, so the exact amount),
 * wait, `payPlan(plan, ref)`, wait. `ref` is the server's payment reference of this user.
 */
export async function payPlan(
  ctx: ChainContext,
  plan: number,
  ref: `0x${string}`,
  onStep: OnStep,
): Promise<{ hash: Hash; tokens: string }> {
  const c = clients(ctx);
  const a = ctx.info.addresses;
  const price = await c.pub.readContract({
    address: a.plans,
    abi: planPaymentsAbi,
    functionName: 'priceInTokens',
    args: [plan],
  });
  await approveStep(c, onStep, a.token, a.plans, price);
  const hash = await run(c, 'pay', onStep, async () => {
    const { request } = await c.pub.simulateContract({
      account: ctx.account,
      address: a.plans,
      abi: planPaymentsAbi,
      functionName: 'payPlan',
      args: [plan, ref],
    });
    return c.wallet.writeContract(request);
  });
  return { hash, tokens: formatUnits(price, TOKEN_DECIMALS) };
}
