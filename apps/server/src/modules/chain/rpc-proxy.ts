import { RPC_PROXY_LIMITS, RPC_PROXY_METHODS } from '@bytx/contract';

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

/**
 * The embedded chain's JSON-RPC proxy (POST /api/chain/rpc): what a browser wallet on another machine
 * uses to reach the node on our loopback. Reads and `eth_sendRawTransaction` (signed by the user's own
 * wallet) pass; everything else (eth_sendTransaction, which anvil's unlocked accounts would sign,
 * anvil_*, evm_*, personal_*, debug_*, …) gets a JSON-RPC error without reaching the node. Batches hold
 * 1 to 20 calls. Answers are JSON-RPC (HTTP 200), as wallets expect, except a body that is not JSON-RPC
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
  const forward: { index: number; method: string; params: unknown }[] = [];
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
      forward.push({ index, method: c.method, params: c.params ?? [] });
    }
  });
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
