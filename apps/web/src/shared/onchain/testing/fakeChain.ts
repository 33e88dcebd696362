/**
 * Test-only: a browser wallet (EIP-1193) over a tiny in-memory ledger of the platform's contracts, so
 * component tests drive the real viem calls (encoding, simulate, send, receipts) without a node.
 */
import {
  bytxTokenAbi,
  earningsPoolAbi,
  planPaymentsAbi,
  planPriceInTokens,
  PLAN_USD_CENTS,
  testStablecoinAbi,
  tokenSaleAbi,
  tokensForStable,
} from '@bytx/chain';
import { decodeFunctionData, encodeErrorResult, encodeFunctionResult, type Abi, type Hex } from 'viem';
import type { ChainAddresses, Eip1193Provider } from '../types';

export const FAKE_ADDRESSES: ChainAddresses = {
  token: '0x00000000000000000000000000000000000000a1',
  sale: '0x00000000000000000000000000000000000000a2',
  pool: '0x00000000000000000000000000000000000000a3',
  plans: '0x00000000000000000000000000000000000000a4',
  usdt: '0x00000000000000000000000000000000000000a5',
  usdc: '0x00000000000000000000000000000000000000a6',
};

export interface FakeChainOptions {
  account: Hex;
  /** The wallet's current chain. */
  chainId?: number;
  /** Chains the wallet knows (others answer 4902 to a switch). */
  knownChains?: number[];
  token?: bigint;
  usdt?: bigint;
  usdc?: bigint;
  staked?: bigint;
  saleUsdt?: bigint;
  /** Function name → the contract's custom error it reverts with (on simulate and on send). */
  revert?: Record<string, string>;
  /** The user rejects every transaction in the wallet. */
  rejectSends?: boolean;
}

export interface SentTx {
  to: Hex;
  contract: keyof ChainAddresses;
  functionName: string;
  args: readonly unknown[];
  hash: Hex;
}

const ABIS: Record<keyof ChainAddresses, Abi> = {
  token: bytxTokenAbi,
  sale: tokenSaleAbi,
  pool: earningsPoolAbi,
  plans: planPaymentsAbi,
  usdt: testStablecoinAbi,
  usdc: testStablecoinAbi,
};

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Hex,
  ) {
    super(message);
  }
}

export function fakeChain(opts: FakeChainOptions) {
  const a = FAKE_ADDRESSES;
  const state = {
    chainId: opts.chainId ?? 42161,
    known: new Set(opts.knownChains ?? [42161]),
    token: opts.token ?? 0n,
    usdt: opts.usdt ?? 0n,
    usdc: opts.usdc ?? 0n,
    staked: opts.staked ?? 0n,
    saleUsdt: opts.saleUsdt ?? 0n,
    block: 100n,
  };
  const sent: SentTx[] = [];
  const methods: string[] = [];
  const receipts = new Map<Hex, { block: bigint; to: Hex }>();
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const emit = (event: string, ...args: unknown[]) => listeners.get(event)?.forEach((l) => l(...args));

  const contractOf = (to: string): keyof ChainAddresses => {
    const hit = (Object.keys(a) as (keyof ChainAddresses)[]).find(
      (k) => a[k].toLowerCase() === to.toLowerCase(),
    );
    if (!hit) throw new RpcError(-32000, `no contract at ${to}`);
    return hit;
  };

  const decode = (to: Hex, data: Hex) => {
    const contract = contractOf(to);
    const { functionName, args } = decodeFunctionData({ abi: ABIS[contract], data });
    return { contract, functionName, args: args ?? [] };
  };

  const maybeRevert = (contract: keyof ChainAddresses, functionName: string) => {
    const name = opts.revert?.[functionName];
    if (!name) return;
    const data = encodeErrorResult({ abi: ABIS[contract], errorName: name });
    throw new RpcError(3, 'execution reverted', data);
  };

  const balanceOf = (contract: keyof ChainAddresses, who: string): bigint => {
    const mine = who.toLowerCase() === opts.account.toLowerCase();
    if (contract === 'usdt' && who.toLowerCase() === a.sale.toLowerCase()) return state.saleUsdt;
    if (!mine) return 0n;
    return contract === 'token' ? state.token : contract === 'usdt' ? state.usdt : state.usdc;
  };

  const call = (to: Hex, data: Hex): Hex => {
    const { contract, functionName, args } = decode(to, data);
    maybeRevert(contract, functionName);
    const abi = ABIS[contract];
    const result = (): unknown => {
      switch (functionName) {
        case 'balanceOf':
          return balanceOf(contract, args[0] as string);
        case 'tokensFor':
          return tokensForStable(args[0] as bigint);
        case 'stakedOf':
          return state.staked;
        case 'priceInTokens': {
          const plan = Number(args[0]);
          const cents =
            plan === 1
              ? PLAN_USD_CENTS.basic
              : plan === 2
                ? PLAN_USD_CENTS.advanced
                : PLAN_USD_CENTS.professional;
          return planPriceInTokens(cents);
        }
        case 'approve':
        case 'transfer':
          return true;
        default:
          return undefined;
      }
    };
    const value = result();
    return value === undefined ? '0x' : encodeFunctionResult({ abi, functionName, result: value });
  };

  const send = (tx: { to: Hex; data: Hex }): Hex => {
    if (opts.rejectSends) throw new RpcError(4001, 'User rejected the request.');
    const { contract, functionName, args } = decode(tx.to, tx.data);
    maybeRevert(contract, functionName);
    const v = (i: number) => args[i] as bigint;
    switch (functionName) {
      case 'buyTokensWith': {
        const coin = contractOf(args[0] as string);
        if (coin === 'usdt') {
          state.usdt -= v(1);
          state.saleUsdt += v(1);
        } else state.usdc -= v(1);
        state.token += tokensForStable(v(1));
        break;
      }
      case 'stake':
        state.token -= v(0);
        state.staked += v(0);
        break;
      case 'unstake':
        state.token += v(0);
        state.staked -= v(0);
        break;
      case 'withdrawUSDT':
        state.usdt += v(1);
        state.saleUsdt -= v(1);
        break;
      case 'payPlan': {
        const plan = Number(args[0]);
        const cents =
          plan === 1
            ? PLAN_USD_CENTS.basic
            : plan === 2
              ? PLAN_USD_CENTS.advanced
              : PLAN_USD_CENTS.professional;
        state.token -= planPriceInTokens(cents);
        break;
      }
      default:
        break;
    }
    state.block += 1n;
    const hash: Hex = `0x${(sent.length + 1).toString(16).padStart(64, 'f')}`;
    receipts.set(hash, { block: state.block, to: tx.to });
    // Addresses lower-cased (viem decodes them checksummed), so tests compare them plainly.
    const plain = args.map((x) => (typeof x === 'string' && x.startsWith('0x') ? x.toLowerCase() : x));
    sent.push({ to: tx.to, contract, functionName, args: plain, hash });
    return hash;
  };

  const hex = (n: bigint | number) => `0x${n.toString(16)}`;

  const provider: Eip1193Provider = {
    request: async ({ method, params }) => {
      methods.push(method);
      const p = (Array.isArray(params) ? params : []) as Record<string, unknown>[];
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return [opts.account];
        case 'eth_chainId':
          return hex(state.chainId);
        case 'net_version':
          return String(state.chainId);
        case 'wallet_switchEthereumChain': {
          const id = parseInt(String(p[0]?.chainId), 16);
          if (!state.known.has(id)) throw new RpcError(4902, 'Unrecognized chain ID');
          state.chainId = id;
          emit('chainChanged', hex(id));
          return null;
        }
        case 'wallet_addEthereumChain':
          state.known.add(parseInt(String(p[0]?.chainId), 16));
          return null;
        case 'eth_blockNumber':
          return hex(state.block);
        case 'eth_call':
          return call(p[0]?.to as Hex, p[0]?.data as Hex);
        case 'eth_estimateGas':
          return hex(100_000);
        case 'eth_sendTransaction':
          return send({ to: p[0]?.to as Hex, data: p[0]?.data as Hex });
        case 'eth_getTransactionReceipt': {
          const hash = (params as unknown[])[0] as Hex;
          const r = receipts.get(hash);
          if (!r) return null;
          return {
            transactionHash: hash,
            transactionIndex: '0x0',
            blockHash: `0x${'b'.repeat(64)}`,
            blockNumber: hex(r.block),
            from: opts.account,
            to: r.to,
            cumulativeGasUsed: '0x5208',
            gasUsed: '0x5208',
            effectiveGasPrice: '0x1',
            contractAddress: null,
            logs: [],
            logsBloom: `0x${'0'.repeat(512)}`,
            status: '0x1',
            type: '0x2',
          };
        }
        case 'eth_getTransactionByHash':
          return null;
        default:
          throw new RpcError(4200, `fake wallet: ${method} is not supported`);
      }
    },
    on: (event, listener) => {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
    removeListener: (event, listener) => {
      listeners.get(event)?.delete(listener);
    },
  };

  return { provider, state, sent, methods, emit };
}
