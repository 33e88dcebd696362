/**
 * Test fixture: one anvil per test file (automine unless a block time is given), the contracts deployed
 * by `deployAll`, viem clients for the ten anvil accounts, snapshots and revert decoding.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  http,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  bytxTokenAbi,
  earningsPoolAbi,
  planPaymentsAbi,
  testStablecoinAbi,
  tokenSaleAbi,
  type ChainAddresses,
} from '../src/index';
import { ANVIL_ACCOUNTS, chainFor, deployAll, paddedHttp, startAnvil, type AnvilHandle } from '../src/node';

export const CHAIN_ID = 31337;
/** One whole token / stablecoin unit in base units. */
export const TOKEN = 10n ** 18n;
export const STABLE = 10n ** 6n;
export const YEAR = 365n * 24n * 3600n;

/** Every custom error of the five contracts (and OpenZeppelin's they raise), to name any revert. */
const ALL_ERRORS = [
  ...bytxTokenAbi,
  ...testStablecoinAbi,
  ...tokenSaleAbi,
  ...earningsPoolAbi,
  ...planPaymentsAbi,
].filter((item) => item.type === 'error') as Abi;

/** The custom error name a failed call reverted with (also when another contract raised it). */
export async function revertName(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err === undefined) throw new Error('expected a revert, the call succeeded');
  if (!(err instanceof BaseError)) throw err instanceof Error ? err : new Error(JSON.stringify(err));
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) {
    if (reverted.data?.errorName) return reverted.data.errorName;
    if (reverted.raw) return decodeErrorResult({ abi: ALL_ERRORS, data: reverted.raw }).errorName;
  }
  // A failed deployment surfaces as the RPC error itself, its revert data in `data`.
  const withData = err.walk((e) => typeof (e as { data?: unknown }).data === 'string');
  const data = (withData as { data?: unknown } | null)?.data;
  if (typeof data === 'string' && data.startsWith('0x') && data.length >= 10) {
    return decodeErrorResult({ abi: ALL_ERRORS, data: data as Hex }).errorName;
  }
  throw err;
}

function clients(rpcUrl: string) {
  const chain = chainFor(CHAIN_ID, rpcUrl);
  const transport = http(rpcUrl);
  return {
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    testClient: createTestClient({ chain, transport, mode: 'anvil' }),
    wallets: ANVIL_ACCOUNTS.map(({ privateKey }) =>
      createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport: paddedHttp(rpcUrl) }),
    ),
  };
}

export type Wallet = ReturnType<typeof clients>['wallets'][number];

export interface Fixture {
  anvil: AnvilHandle;
  dir: string;
  addresses: ChainAddresses & { owner: Address };
  publicClient: ReturnType<typeof clients>['publicClient'];
  testClient: ReturnType<typeof clients>['testClient'];
  /** Wallet of anvil account `i` (0 is the deployer and owner). */
  wallet(i: number): Wallet;
  address(i: number): Address;
  /** Waits for a sent transaction and requires success. */
  mined(hash: Promise<Hash> | Hash): Promise<TransactionReceipt>;
  /** Latest block's timestamp (seconds). */
  now(): Promise<bigint>;
  /** Mines one block at exactly `timestamp` (seconds), or makes the next transaction's block use it. */
  setNextTimestamp(timestamp: bigint): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  close(): Promise<void>;
}

export async function startChain(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'bytx-chain-test-'));
  const anvil = await startAnvil({ stateFile: join(dir, 'state.json'), chainId: CHAIN_ID });
  try {
    const addresses = await deployAll({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID });
    const { publicClient, testClient, wallets } = clients(anvil.rpcUrl);
    return {
      anvil,
      dir,
      addresses,
      publicClient,
      testClient,
      wallet: (i) => wallets[i]!,
      address: (i) => ANVIL_ACCOUNTS[i]!.address,
      async mined(hash) {
        const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
        if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`);
        return receipt;
      },
      async now() {
        return (await publicClient.getBlock()).timestamp;
      },
      async setNextTimestamp(timestamp) {
        await testClient.setNextBlockTimestamp({ timestamp });
      },
      snapshot: () => testClient.snapshot(),
      async revert(id) {
        await testClient.revert({ id });
      },
      async close() {
        await anvil.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
