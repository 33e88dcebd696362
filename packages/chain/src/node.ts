/**
 * Server-side helpers (node only): run an embedded anvil chain and deploy the platform contracts on it.
 * The keys below are anvil's PUBLIC test keys (the default mnemonic): fine for the embedded chain,
 * never for a real one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import {
  custom,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  toHex,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type HttpTransportConfig,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytxTokenAbi, earningsPoolAbi, planPaymentsAbi, testStablecoinAbi, tokenSaleAbi } from './abi';
import {
  bytxTokenBytecode,
  earningsPoolBytecode,
  planPaymentsBytecode,
  testStablecoinBytecode,
  tokenSaleBytecode,
} from './bytecode';
import { SALE_PRICE, type ChainAddresses } from './index';

/**
 * An http transport whose gas estimates carry a 25 % margin, as browser wallets add one. The pool's gas
 * depends on the block's time (a checkpoint rewritten in the same second costs about 2,800 gas less
 * than one moved to a new second), so an exact estimate made in one second can fall short in the
 * block of the next one and the transaction reverts out of gas.
 */
export function paddedHttp(url: string, config?: HttpTransportConfig) {
  const base = http(url, config)({ retryCount: config?.retryCount ?? 0 });
  return custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      const result: unknown = await base.request({ method, params } as never);
      if (method === 'eth_estimateGas' && typeof result === 'string') {
        return toHex((BigInt(result) * 5n) / 4n);
      }
      return result;
    },
  });
}

/** The first 10 accounts of anvil's default mnemonic ("test test … junk"); each starts with 10,000 ETH. */
export const ANVIL_ACCOUNTS: readonly { address: Address; privateKey: Hex }[] = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
  {
    address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  },
  {
    address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
    privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  },
  {
    address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
    privateKey: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  },
  {
    address: '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
    privateKey: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  },
  {
    address: '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
    privateKey: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  },
  {
    address: '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
    privateKey: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  },
  {
    address: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
    privateKey: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
  },
];

/** anvil's dev accounts, lowercased: their keys are public, so nothing they sign may be trusted. */
export const ANVIL_DEV_ADDRESSES: ReadonlySet<string> = new Set(
  ANVIL_ACCOUNTS.map((a) => a.address.toLowerCase()),
);

/** Wei the dev account gives a new owner for gas, once (at deploy or at the move of ownership): 100 ETH. */
export const OWNER_GAS_FUNDS = 100n * 10n ** 18n;

/** Deployment split of the 100,000,000-token supply (token base units). */
export const POOL_LIQUIDITY = 50_000_000n * 10n ** 18n;
export const SALE_STOCK = 40_000_000n * 10n ** 18n;

const require = createRequire(import.meta.url);

/** Path of the anvil binary from the platform package of @foundry-rs/anvil (never the npm wrapper). */
export function anvilBinary(): string {
  const os = platform() === 'win32' ? 'win32' : platform();
  const cpu = arch() === 'x64' ? 'amd64' : arch();
  const pkg = `@foundry-rs/anvil-${os}-${cpu}`;
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', os === 'win32' ? 'anvil.exe' : 'anvil');
}

export interface StartAnvilOptions {
  /** JSON state file: loaded when it exists, written every second and on SIGTERM. */
  stateFile: string;
  /** Default 127.0.0.1 (loopback only: anvil's accounts are unlocked). */
  host?: string;
  /** Default: a free port (anvil binds port 0). */
  port?: number;
  chainId: number;
  /** Seconds between blocks (interval mining); default: a block per transaction (automine). */
  blockTime?: number;
  /** Milliseconds to wait for the RPC to answer; default 30,000. */
  readyTimeoutMs?: number;
  /** Milliseconds between copies of the last complete state to `<stateFile>.good`; default 5,000. */
  backupIntervalMs?: number;
  /**
   * The block gas limit (`--gas-limit`), default {@link BLOCK_GAS_LIMIT}: also the most a transaction can
   * burn, so no single call can hold the node for long.
   */
  gasLimit?: number;
  /**
   * Called with anvil's pid as soon as it is spawned, before it answers (a caller records the process
   * at once: a server killed while anvil starts must not leave it running unrecorded).
   */
  onSpawn?: (pid: number) => void;
}

/** The embedded node's block gas limit: 30,000,000 gas (Ethereum mainnet's; our heaviest call uses ~0.5M). */
export const BLOCK_GAS_LIMIT = 30_000_000;

/**
 * What startAnvil found in the state file: `none` (absent, or complete and loaded), `backup` (cut short,
 * replaced by the last complete copy), `fresh` (cut short and no copy: a new chain).
 */
export type StateRecovery = 'none' | 'backup' | 'fresh';

export interface AnvilHandle {
  rpcUrl: string;
  port: number;
  pid: number;
  child: ChildProcess;
  recovered: StateRecovery;
  /** SIGTERM (anvil writes its state), SIGKILL after 10 s; resolves when the process has exited. */
  stop(): Promise<void>;
}

async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when `file` holds complete JSON (anvil's dump is a single JSON document). */
function completeJson(file: string): boolean {
  try {
    JSON.parse(readFileSync(file, 'utf8'));
    return true;
  } catch {
    return false;
  }
}

/** Copies `from` to `to` through a temporary file and a rename, so `to` is never half-written. */
function atomicCopy(from: string, to: string): void {
  copyFileSync(from, `${to}.tmp`);
  renameSync(`${to}.tmp`, to);
}

/**
 * anvil rewrites its state file in place (observed: sizes 0 and partial while it dumps), so a SIGKILL or
 * a power cut during a dump leaves a truncated file that anvil cannot load. Keep `<stateFile>.good`, the
 * last complete copy, and restore it when the file is cut short (the cut file is kept as `.broken`).
 */
function prepareState(stateFile: string): StateRecovery {
  const good = `${stateFile}.good`;
  if (!existsSync(stateFile)) {
    // A removed state file means a new chain: an older copy must not come back later.
    rmSync(good, { force: true });
    return 'none';
  }
  if (completeJson(stateFile)) {
    atomicCopy(stateFile, good);
    return 'none';
  }
  renameSync(stateFile, `${stateFile}.broken`);
  if (existsSync(good) && completeJson(good)) {
    copyFileSync(good, stateFile);
    return 'backup';
  }
  return 'fresh';
}

/**
 * Starts anvil and resolves once it listens and answers `eth_chainId` with `chainId`. Without a port,
 * anvil binds port 0 (a free port chosen by the kernel, no race) and the port is read from its
 * "Listening on host:port" line; a port that is taken makes anvil exit, and this rejects.
 */
export async function startAnvil(options: StartAnvilOptions): Promise<AnvilHandle> {
  const host = options.host ?? '127.0.0.1';
  mkdirSync(dirname(options.stateFile), { recursive: true });
  const recovered = prepareState(options.stateFile);
  const args = [
    '--host',
    host,
    '--port',
    String(options.port ?? 0),
    '--chain-id',
    String(options.chainId),
    '--state',
    options.stateFile,
    '--state-interval',
    '1',
    '--gas-limit',
    String(options.gasLimit ?? BLOCK_GAS_LIMIT),
  ];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  // Keep draining the pipes (a full pipe would block anvil: it logs each RPC method); the tail explains
  // a failed start.
  let output = '';
  let port: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    port ??= Number(/Listening on \S+:(\d+)/.exec(output)?.[1] ?? '') || undefined;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      resolveExit();
    });
    child.once('error', (err) => {
      output += String(err);
      exitCode = -1;
      resolveExit();
    });
  });

  // Copy each new complete dump to `.good` (a dump caught half-written fails to parse and waits a turn).
  let backedUp = 0;
  const backup = () => {
    try {
      const mtime = statSync(options.stateFile).mtimeMs;
      if (mtime !== backedUp && completeJson(options.stateFile)) {
        atomicCopy(options.stateFile, `${options.stateFile}.good`);
        backedUp = mtime;
      }
    } catch {
      // No dump yet, or it vanished: next turn.
    }
  };
  const backups = setInterval(backup, options.backupIntervalMs ?? 5_000);
  backups.unref();
  void exited.then(() => clearInterval(backups));
  const stop = async (): Promise<void> => {
    if (exitCode !== undefined) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    backup(); // the dump written on SIGTERM is complete
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  const fail = async (message: string): Promise<never> => {
    await stop();
    throw new Error(`${message}: ${output.trim().slice(-1000)}`);
  };
  for (;;) {
    if (exitCode !== undefined) return fail(`anvil exited (${exitCode}) while starting`);
    if (Date.now() > deadline) return fail('anvil did not start in time');
    if (port !== undefined) {
      const rpcUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      const id = await rpc<Hex>(rpcUrl, 'eth_chainId').catch(() => undefined);
      if (id !== undefined) {
        if (Number(id) !== options.chainId)
          return fail(`anvil answers chain id ${Number(id)}, not ${options.chainId}`);
        if (child.pid === undefined) return fail('anvil has no pid');
        return { rpcUrl, port, pid: child.pid, child, recovered, stop };
      }
    }
    await sleep(50);
  }
}

/** A viem chain for an RPC endpoint (the embedded chain or any other). */
export function chainFor(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `BYTX chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** True when `address` holds contract code on the chain at `rpcUrl`. */
export async function hasCode(rpcUrl: string, address: Address): Promise<boolean> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const code = await client.getCode({ address });
  return code !== undefined && code !== '0x';
}

/**
 * Deploys the five contracts on the embedded chain: USDT and USDC (test stablecoins), the token (whole
 * supply to the deployer), the sale (price 2000), the pool, the plan payments; then 50,000,000 tokens to
 * the pool through `fund` (initial liquidity) and 40,000,000 to the sale. The remaining 10,000,000 stay
 * with the deployer, who owns the sale, the pool and the plans.
 *
 * The deployer is `ownerKey`, a key generated for this install (the server keeps it sealed), funded
 * once with {@link OWNER_GAS_FUNDS} by anvil's dev account 0. Without `ownerKey` (the package's own
 * tests) the deployer is dev account 0 itself, whose key is public: never for a server.
 */
export async function deployAll({
  rpcUrl,
  chainId,
  ownerKey,
}: {
  rpcUrl: string;
  chainId: number;
  ownerKey?: Hex;
}): Promise<ChainAddresses & { owner: Address }> {
  const chain = chainFor(chainId, rpcUrl);
  const account = privateKeyToAccount(ownerKey ?? ANVIL_ACCOUNTS[0]!.privateKey);
  const owner = account.address;
  // Poll receipts every 200 ms (viem's default is 4 s, which made a deployment take ~17 s at 1 s blocks).
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 200 });
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const reported = await publicClient.getChainId();
  if (reported !== chainId) throw new Error(`deployAll: the RPC is chain ${reported}, expected ${chainId}`);

  const confirm = async (hashes: Hash[]) => {
    const receipts = await Promise.all(
      hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })),
    );
    for (const r of receipts)
      if (r.status !== 'success') throw new Error(`deployAll: ${r.transactionHash} reverted`);
    return receipts;
  };
  if (ownerKey) await fundFromDevAccount(rpcUrl, chainId, owner);
  const addressOf = (receipt: { contractAddress?: Address | null }): Address => {
    if (!receipt.contractAddress) throw new Error('deployAll: a deployment has no contract address');
    return getAddress(receipt.contractAddress);
  };

  // Phase 1: the six deployments, sent back to back with explicit nonces (one or two blocks with
  // --block-time). Constructors read no other contract, so estimating each one's gas needs nothing mined.
  let nonce = await publicClient.getTransactionCount({ address: owner, blockTag: 'pending' });
  const usdtHash = await wallet.deployContract({
    abi: testStablecoinAbi,
    bytecode: testStablecoinBytecode,
    args: ['Test Tether USD', 'USDT'],
    nonce: nonce++,
  });
  const usdcHash = await wallet.deployContract({
    abi: testStablecoinAbi,
    bytecode: testStablecoinBytecode,
    args: ['Test USD Coin', 'USDC'],
    nonce: nonce++,
  });
  const tokenHash = await wallet.deployContract({
    abi: bytxTokenAbi,
    bytecode: bytxTokenBytecode,
    args: [owner],
    nonce: nonce++,
  });
  const [usdtReceipt, usdcReceipt, tokenReceipt] = await confirm([usdtHash, usdcHash, tokenHash]);
  const usdt = addressOf(usdtReceipt!);
  const usdc = addressOf(usdcReceipt!);
  const token = addressOf(tokenReceipt!);

  const saleHash = await wallet.deployContract({
    abi: tokenSaleAbi,
    bytecode: tokenSaleBytecode,
    args: [token, usdt, usdc, SALE_PRICE],
    nonce: nonce++,
  });
  const poolHash = await wallet.deployContract({
    abi: earningsPoolAbi,
    bytecode: earningsPoolBytecode,
    args: [token],
    nonce: nonce++,
  });
  const [saleReceipt, poolReceipt] = await confirm([saleHash, poolHash]);
  const sale = addressOf(saleReceipt!);
  const pool = addressOf(poolReceipt!);

  // Phase 2: the plans contract, the pool's allowance and the sale's stock.
  const plansHash = await wallet.deployContract({
    abi: planPaymentsAbi,
    bytecode: planPaymentsBytecode,
    args: [token, sale, pool],
    nonce: nonce++,
  });
  const approveHash = await wallet.writeContract({
    address: token,
    abi: bytxTokenAbi,
    functionName: 'approve',
    args: [pool, POOL_LIQUIDITY],
    nonce: nonce++,
  });
  const stockHash = await wallet.writeContract({
    address: token,
    abi: bytxTokenAbi,
    functionName: 'transfer',
    args: [sale, SALE_STOCK],
    nonce: nonce++,
  });
  const [plansReceipt] = await confirm([plansHash, approveHash, stockHash]);
  const plans = addressOf(plansReceipt!);

  // Phase 3: the pool's initial liquidity (needs the allowance mined for the gas estimate).
  await confirm([
    await wallet.writeContract({
      address: pool,
      abi: earningsPoolAbi,
      functionName: 'fund',
      args: [POOL_LIQUIDITY],
      nonce: nonce++,
    }),
  ]);
  return { token, sale, pool, plans, usdt, usdc, owner };
}

/** Sends {@link OWNER_GAS_FUNDS} from anvil's dev account 0 to `to` and waits for it (embedded only). */
async function fundFromDevAccount(rpcUrl: string, chainId: number, to: Address): Promise<void> {
  const chain = chainFor(chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 200 });
  const dev = createWalletClient({
    account: privateKeyToAccount(ANVIL_ACCOUNTS[0]!.privateKey),
    chain,
    transport: http(rpcUrl),
  });
  const hash = await dev.sendTransaction({ to, value: OWNER_GAS_FUNDS });
  const r = await publicClient.waitForTransactionReceipt({ hash });
  if (r.status !== 'success') throw new Error(`funding the owner reverted: ${hash}`);
}

/**
 * An install deployed before owner keys existed (sale, pool and plans owned by anvil's dev account 0,
 * whose key is public): hands the three Ownable contracts and the deployer's remaining tokens to
 * `ownerKey`'s address and funds it for gas once. Signed with dev account 0's own key, straight to the
 * node (the proxy refuses that key). Idempotent: a contract already owned by the new owner is skipped.
 */
export async function moveOwnership({
  rpcUrl,
  chainId,
  addresses,
  ownerKey,
}: {
  rpcUrl: string;
  chainId: number;
  addresses: ChainAddresses;
  ownerKey: Hex;
}): Promise<Address> {
  const chain = chainFor(chainId, rpcUrl);
  const to = privateKeyToAccount(ownerKey).address;
  const devAccount = privateKeyToAccount(ANVIL_ACCOUNTS[0]!.privateKey);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 200 });
  const dev = createWalletClient({ account: devAccount, chain, transport: http(rpcUrl) });
  const wait = async (hash: Hash) => {
    const r = await publicClient.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`moveOwnership: ${hash} reverted`);
  };
  const owned = [
    { address: addresses.sale, abi: tokenSaleAbi },
    { address: addresses.pool, abi: earningsPoolAbi },
    { address: addresses.plans, abi: planPaymentsAbi },
  ] as const;
  for (const c of owned) {
    const current: Address = await publicClient.readContract({
      address: c.address,
      abi: c.abi as typeof tokenSaleAbi,
      functionName: 'owner',
    });
    if (current.toLowerCase() === to.toLowerCase()) continue;
    if (current.toLowerCase() !== devAccount.address.toLowerCase()) {
      throw new Error(`moveOwnership: ${c.address} is owned by ${current}, not by the dev account`);
    }
    await wait(
      await dev.writeContract({
        address: c.address,
        abi: c.abi as typeof tokenSaleAbi,
        functionName: 'transferOwnership',
        args: [to],
      }),
    );
  }
  const left = await publicClient.readContract({
    address: addresses.token,
    abi: bytxTokenAbi,
    functionName: 'balanceOf',
    args: [devAccount.address],
  });
  if (left > 0n) {
    await wait(
      await dev.writeContract({
        address: addresses.token,
        abi: bytxTokenAbi,
        functionName: 'transfer',
        args: [to, left],
      }),
    );
  }
  if ((await publicClient.getBalance({ address: to })) < OWNER_GAS_FUNDS / 10n) {
    await fundFromDevAccount(rpcUrl, chainId, to);
  }
  return to;
}
