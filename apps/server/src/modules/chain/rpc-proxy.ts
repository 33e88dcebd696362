import { ANVIL_DEV_ADDRESSES } from '@bytx/chain/node';
import { RPC_PROXY_LIMITS, RPC_PROXY_METHODS } from '@bytx/contract';
import { recoverTransactionAddress, toHex, type Hex, type TransactionSerialized } from 'viem';

const ALLOWED: ReadonlySet<string> = new Set(RPC_PROXY_METHODS);

type Id = string | number | null;
interface RpcAnswer {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const rpcError = (id: Id, code: number, message: string): RpcAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

const idOf = (call: unknown): Id => {
  const id = call && typeof call === 'object' ? (call as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/** Methods whose first param is a call object with a `gas` field the proxy caps. */
const GAS_CAPPED: ReadonlySet<string> = new Set(['eth_call', 'eth_estimateGas']);

/**
 * A call's `gas` after the cap: absent or above {@link RPC_PROXY_LIMITS.maxCallGas} becomes the cap (an
 * `eth_call` of a loop with gas 1e9 held the node for the proxy's whole timeout); null when `gas` is
 * not a hex quantity.
 */
function cappedGas(gas: unknown): Hex | null {
  const cap = BigInt(RPC_PROXY_LIMITS.maxCallGas);
  if (gas === undefined || gas === null) return toHex(cap);
  if (typeof gas !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(gas)) return null;
  const asked = BigInt(gas);
  return toHex(asked > cap ? cap : asked);
}

/**
 * Checks one call before it is forwarded; returns the params to forward, or an error answer.
 * - `eth_call` / `eth_estimateGas`: `gas` capped (filled in when missing).
 * - `eth_sendRawTransaction`: the sender is recovered from the signature; anvil's ten dev accounts
 *   (public keys, each with 10,000 ETH on the embedded node) are refused, as is a transaction whose
 *   signature does not recover.
 */
async function screen(id: Id, method: string, params: unknown[]): Promise<unknown[] | RpcAnswer> {
  if (GAS_CAPPED.has(method)) {
    const call = params[0];
    if (!call || typeof call !== 'object' || Array.isArray(call)) {
      return rpcError(id, -32602, 'Invalid params: the first param must be a call object.');
    }
    const gas = cappedGas((call as { gas?: unknown }).gas);
    if (gas === null) return rpcError(id, -32602, 'Invalid params: gas must be a hex quantity.');
    return [{ ...call, gas }, ...params.slice(1)];
  }
  if (method === 'eth_sendRawTransaction') {
    const raw = params[0];
    if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]+$/.test(raw) || raw.length > 2 + 2 * 64 * 1024) {
      return rpcError(id, -32602, 'Invalid params: a signed transaction as hex.');
    }
    let sender: string;
    try {
      sender = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
    } catch {
      return rpcError(id, -32602, 'Invalid params: the transaction is not signed or cannot be read.');
    }
    if (ANVIL_DEV_ADDRESSES.has(sender.toLowerCase())) {
      return rpcError(
        id,
        -32003,
        `Transactions signed with anvil's public development keys (${sender}) are refused by this node's proxy: use a wallet of your own.`,
      );
    }
  }
  return params;
}

/**
 * The embedded chain's JSON-RPC proxy (POST /api/chain/rpc): what a browser wallet on another machine
 * uses to reach the node on our loopback. Reads and `eth_sendRawTransaction` (signed by the user's own
 * wallet) pass; everything else (eth_sendTransaction, which anvil's unlocked accounts would sign,
 * anvil_*, evm_*, personal_*, debug_*, …) gets a JSON-RPC error without reaching the node, and so does
 * what {@link screen} refuses (anvil's dev keys); call gas is capped. Batches hold 1 to
 * RPC_PROXY_LIMITS.maxBatch calls. Answers are JSON-RPC (HTTP 200), as wallets expect, except a body that is not JSON-RPC
 * at all (400).
 */
export async function proxyRpc(
  target: string,
  body: unknown,
): Promise<{ status: number; payload: RpcAnswer | RpcAnswer[] }> {
  const single = !Array.isArray(body);
  const calls: unknown[] = single ? [body] : (body as unknown[]);
  if (!single && (calls.length === 0 || calls.length > RPC_PROXY_LIMITS.maxBatch)) {
    return {
      status: 400,
      payload: rpcError(null, -32600, `A batch holds 1 to ${RPC_PROXY_LIMITS.maxBatch} calls.`),
    };
  }
  const answers: (RpcAnswer | undefined)[] = new Array<RpcAnswer | undefined>(calls.length);
  const forward: { index: number; method: string; params: unknown[] }[] = [];
  const screening: Promise<void>[] = [];
  calls.forEach((call, index) => {
    const c = call as { jsonrpc?: unknown; method?: unknown; params?: unknown } | null;
    if (
      !c ||
      typeof c !== 'object' ||
      Array.isArray(c) ||
      c.jsonrpc !== '2.0' ||
      typeof c.method !== 'string'
    ) {
      answers[index] = rpcError(
        idOf(call),
        -32600,
        'Invalid request: a JSON-RPC 2.0 call needs jsonrpc "2.0" and a method.',
      );
    } else if (!ALLOWED.has(c.method)) {
      answers[index] = rpcError(
        idOf(call),
        -32601,
        `The method ${c.method.slice(0, 64)} is not available through this node's proxy.`,
      );
    } else if (c.params !== undefined && !Array.isArray(c.params)) {
      answers[index] = rpcError(idOf(call), -32602, 'Invalid params: params must be an array.');
    } else {
      const method = c.method;
      screening.push(
        screen(idOf(call), method, (c.params as unknown[] | undefined) ?? []).then((checked) => {
          if (Array.isArray(checked)) forward.push({ index, method, params: checked });
          else answers[index] = checked;
        }),
      );
    }
  });
  await Promise.all(screening);
  forward.sort((a, b) => a.index - b.index);
  if (forward.length > 0) {
    let results: RpcAnswer[] | null = null;
    try {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          forward.map((f) => ({ jsonrpc: '2.0', id: f.index, method: f.method, params: f.params })),
        ),
        signal: AbortSignal.timeout(15_000),
      });
      const parsed: unknown = await res.json();
      results = Array.isArray(parsed) ? (parsed as RpcAnswer[]) : [parsed as RpcAnswer];
    } catch {
      results = null;
    }
    const byIndex = new Map<number, RpcAnswer>();
    for (const r of results ?? []) if (r && typeof r.id === 'number') byIndex.set(r.id, r);
    for (const f of forward) {
      const id = idOf(calls[f.index]);
      const r = byIndex.get(f.index);
      answers[f.index] = r
        ? { jsonrpc: '2.0', id, ...(r.error ? { error: r.error } : { result: r.result ?? null }) }
        : rpcError(id, -32603, 'The chain did not answer.');
    }
  }
  const out = answers.map((a, i) => a ?? rpcError(idOf(calls[i]), -32603, 'No answer.'));
  return { status: 200, payload: single ? out[0]! : out };
}
