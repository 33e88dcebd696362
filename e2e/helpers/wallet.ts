/**
 * A test browser wallet for the end-to-end tests: `window.ethereum` (EIP-1193, MetaMask-like) injected
 * with `page.addInitScript`, whose requests go to Node through `page.exposeFunction`. Node signs with
 * an anvil test key (public keys of the default mnemonic, never for a real chain) and sends the raw
 * transaction through the server's RPC proxy, as a real wallet would through its RPC URL; reads are
 * forwarded to the same proxy.
 *
 * The wallet starts on another chain (Ethereum, 1) that it alone knows, so the page's "switch to the
 * platform's network" path runs: `wallet_switchEthereumChain` answers 4902, the page adds the chain
 * (`wallet_addEthereumChain` with the proxy URL), then switches.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { paddedHttp } from '@bytx/chain/node';
import { createWalletClient, defineChain, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

export interface TestWalletOptions {
  /** The anvil test key the wallet signs with. */
  privateKey: Hex;
  /** The chain the wallet starts on (default 1: not the platform's). */
  startChainId?: number;
  /** An RPC URL the wallet knows from the start for `knownChainId` (skips the add step). */
  known?: { chainId: number; rpcUrl: string };
}

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface TestWallet {
  readonly address: Hex;
  /** Every method the page asked for, in order. */
  readonly methods: string[];
  /** Hashes of the transactions the wallet signed and sent. */
  readonly sent: Hex[];
  /** The RPC URLs the page gave with wallet_addEthereumChain. */
  readonly added: { chainId: number; rpcUrls: string[] }[];
  chainId: () => number;
  /** Switches the wallet's account (the page gets `accountsChanged`). */
  useAccount: (privateKey: Hex, page?: Page) => Promise<void>;
}

const toHex = (n: number) => `0x${n.toString(16)}`;

/**
 * The page side, as plain JavaScript (a string, so no transpiler helper such as esbuild's `__name`
 * leaks into the page): `window.ethereum` forwarding every request to Node, with the events a wallet
 * emits (`chainChanged` after a switch; `accountsChanged` through `__emit`).
 */
const INIT_SCRIPT = `(() => {
  const listeners = new Map();
  const emit = (event, ...args) => listeners.get(event)?.forEach((l) => l(...args));
  const ethereum = {
    isMetaMask: true,
    isBytxTestWallet: true,
    async request({ method, params }) {
      const answer = JSON.parse(await window.__bytxTestWallet(method, JSON.stringify(params ?? [])));
      if (answer.error) {
        const err = new Error(answer.error.message);
        err.code = answer.error.code;
        err.data = answer.error.data;
        throw err;
      }
      if (method === 'wallet_switchEthereumChain') emit('chainChanged', params[0].chainId);
      return answer.result;
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    __emit: emit,
  };
  window.ethereum = ethereum;
})();`;

/** Installs the wallet in every page of `context` (call before the pages load). */
export async function installTestWallet(
  context: BrowserContext,
  opts: TestWalletOptions,
): Promise<TestWallet> {
  let account: PrivateKeyAccount = privateKeyToAccount(opts.privateKey);
  let current = opts.startChainId ?? 1;
  const rpcUrls = new Map<number, string>();
  if (opts.known) rpcUrls.set(opts.known.chainId, opts.known.rpcUrl);
  const methods: string[] = [];
  const sent: Hex[] = [];
  const added: { chainId: number; rpcUrls: string[] }[] = [];
  let rpcId = 0;

  const forward = async (method: string, params: unknown[]): Promise<RpcAnswer> => {
    const url = rpcUrls.get(current);
    if (!url) return { error: { code: 4901, message: `The wallet has no RPC URL for chain ${current}.` } };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    });
    const body = (await res.json()) as RpcAnswer;
    return body.error ? { error: body.error } : { result: body.result ?? null };
  };

  const send = async (tx: Record<string, string | undefined>): Promise<RpcAnswer> => {
    const url = rpcUrls.get(current);
    if (!url) return { error: { code: 4901, message: `The wallet has no RPC URL for chain ${current}.` } };
    if (tx.from && tx.from.toLowerCase() !== account.address.toLowerCase()) {
      return { error: { code: 4100, message: `The wallet does not hold ${tx.from}.` } };
    }
    const chain = defineChain({
      id: current,
      name: `chain ${current}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    // Gas estimates with a margin, as a browser wallet adds one (paddedHttp).
    const client = createWalletClient({ account, chain, transport: paddedHttp(url, { retryCount: 0 }) });
    try {
      // viem fills nonce, gas and fees through the proxy, signs here and sends eth_sendRawTransaction.
      const hash = await client.sendTransaction({
        to: tx.to as Hex | undefined,
        data: tx.data as Hex | undefined,
        value: tx.value ? BigInt(tx.value) : undefined,
        ...(tx.gas ? { gas: BigInt(tx.gas) } : {}),
      });
      sent.push(hash);
      return { result: hash };
    } catch (err) {
      const e = err as { shortMessage?: string; message?: string; details?: string };
      const inner = (err as { walk?: (f: (x: unknown) => boolean) => unknown }).walk?.(
        (x) => typeof (x as { data?: unknown }).data === 'string',
      ) as { data?: string } | undefined;
      return {
        error: {
          code: -32603,
          message: e.details || e.shortMessage || e.message || String(err),
          data: inner?.data,
        },
      };
    }
  };

  const handle = async (method: string, params: unknown[]): Promise<RpcAnswer> => {
    methods.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [account.address] };
      case 'eth_chainId':
        return { result: toHex(current) };
      case 'net_version':
        return { result: String(current) };
      case 'wallet_switchEthereumChain': {
        const id = parseInt(String((params[0] as { chainId?: string })?.chainId), 16);
        if (id !== 1 && !rpcUrls.has(id))
          return { error: { code: 4902, message: `Unrecognized chain ID ${id}.` } };
        current = id;
        return { result: null };
      }
      case 'wallet_addEthereumChain': {
        const p = params[0] as { chainId: string; rpcUrls?: string[] };
        const id = parseInt(p.chainId, 16);
        added.push({ chainId: id, rpcUrls: p.rpcUrls ?? [] });
        if (!p.rpcUrls?.[0]) return { error: { code: -32602, message: 'rpcUrls is required.' } };
        rpcUrls.set(id, p.rpcUrls[0]);
        return { result: null };
      }
      case 'eth_sendTransaction':
        return send(params[0] as Record<string, string | undefined>);
      case 'personal_sign':
        return { result: await account.signMessage({ message: { raw: params[0] as Hex } }) };
      default:
        return forward(method, params);
    }
  };

  await context.exposeFunction('__bytxTestWallet', async (method: string, paramsJson: string) => {
    const answer = await handle(method, JSON.parse(paramsJson) as unknown[]).catch(
      (err: unknown): RpcAnswer => ({ error: { code: -32603, message: String(err) } }),
    );
    return JSON.stringify(answer);
  });

  await context.addInitScript({ content: INIT_SCRIPT });

  return {
    get address() {
      return account.address;
    },
    methods,
    sent,
    added,
    chainId: () => current,
    useAccount: async (privateKey: Hex, page?: Page) => {
      account = privateKeyToAccount(privateKey);
      if (page) {
        await page.evaluate(
          `window.ethereum.__emit('accountsChanged', [${JSON.stringify(account.address)}])`,
        );
      }
    },
  };
}

/** GET /api/chain until the embedded chain runs and its contracts are deployed. */
export async function waitForChain(baseUrl: string, timeoutMs = 60_000): Promise<ChainInfoLike> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/api/chain`);
      const info = (await res.json()) as ChainInfoLike;
      if (res.ok && info.ready && info.addresses && info.rpcUrl) return info;
    } catch {
      // not answering yet
    }
    if (Date.now() > deadline) throw new Error(`the chain of ${baseUrl} was not ready in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface ChainInfoLike {
  mode: string;
  chainId: number;
  rpcUrl: string | null;
  ready: boolean;
  owner: Hex | null;
  addresses: { token: Hex; sale: Hex; pool: Hex; plans: Hex; usdt: Hex; usdc: Hex } | null;
}

/**
 * The embedded node's own URL, from the server's log line 'embedded chain started' (tests only: time
 * travel needs anvil's evm_* methods, which the proxy refuses).
 */
export function anvilUrlFromLogs(logs: string): string {
  for (const line of logs.split('\n')) {
    if (!line.includes('embedded chain started')) continue;
    const m = /"rpcUrl":"(http:\/\/[^"]+)"/.exec(line);
    if (m?.[1]) return m[1];
  }
  throw new Error('no "embedded chain started" line with an rpcUrl in the server log');
}

/** One JSON-RPC call (anvil's own methods on its own URL). */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as RpcAnswer;
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
