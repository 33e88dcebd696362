/** startAnvil / deployAll / hasCode: ports, block time, the state file across SIGTERM and SIGKILL. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, type Address } from 'viem';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bytxTokenAbi, earningsPoolAbi, type ChainAddresses } from '../src/index';
import { ANVIL_ACCOUNTS, chainFor, deployAll, hasCode, startAnvil, type AnvilHandle } from '../src/node';
import { CHAIN_ID, TOKEN } from './fixture';

const dir = mkdtempSync(join(tmpdir(), 'bytx-anvil-test-'));
const running = new Set<AnvilHandle>();

async function start(name: string, extra: { blockTime?: number; port?: number; chainId?: number } = {}) {
  const anvil = await startAnvil({ stateFile: join(dir, name, 'state.json'), chainId: CHAIN_ID, ...extra });
  running.add(anvil);
  return anvil;
}
async function stop(anvil: AnvilHandle) {
  await anvil.stop();
  running.delete(anvil);
}
afterEach(async () => {
  for (const anvil of running) await stop(anvil);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const client = (rpcUrl: string) =>
  createPublicClient({ chain: chainFor(CHAIN_ID, rpcUrl), transport: http(rpcUrl), pollingInterval: 50 });
const balance = (rpcUrl: string, token: Address, who: Address) =>
  client(rpcUrl).readContract({ address: token, abi: bytxTokenAbi, functionName: 'balanceOf', args: [who] });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A recognisable state change: the deployer sends 1,234 tokens to account 5. */
async function marker(rpcUrl: string, addresses: ChainAddresses): Promise<void> {
  const { createWalletClient } = await import('viem');
  const { privateKeyToAccount } = await import('viem/accounts');
  const wallet = createWalletClient({
    account: privateKeyToAccount(ANVIL_ACCOUNTS[0]!.privateKey),
    chain: chainFor(CHAIN_ID, rpcUrl),
    transport: http(rpcUrl),
  });
  const hash = await wallet.writeContract({
    address: addresses.token,
    abi: bytxTokenAbi,
    functionName: 'transfer',
    args: [ANVIL_ACCOUNTS[5]!.address, 1_234n * TOKEN],
  });
  await client(rpcUrl).waitForTransactionReceipt({ hash });
}

describe('startAnvil + deployAll', () => {
  it('runs on a free port, mines every second with blockTime, deploys the five contracts as documented', async () => {
    const anvil = await start('block-time', { blockTime: 1 });
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    expect(alive(anvil.pid)).toBe(true);
    expect(anvil.recovered).toBe('none');
    const started = Date.now();
    const addresses = await deployAll({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID });
    expect(Date.now() - started).toBeLessThan(15_000); // a few blocks, not one wait per transaction
    expect(addresses.owner).toBe(ANVIL_ACCOUNTS[0]!.address);
    for (const name of ['token', 'sale', 'pool', 'plans', 'usdt', 'usdc'] as const) {
      expect(await hasCode(anvil.rpcUrl, addresses[name])).toBe(true);
    }
    expect(await hasCode(anvil.rpcUrl, ANVIL_ACCOUNTS[3]!.address)).toBe(false);
    expect(
      await client(anvil.rpcUrl).readContract({
        address: addresses.pool,
        abi: earningsPoolAbi,
        functionName: 'poolAvailable',
      }),
    ).toBe(50_000_000n * TOKEN);
    expect(await balance(anvil.rpcUrl, addresses.token, addresses.sale)).toBe(40_000_000n * TOKEN);
    expect(await balance(anvil.rpcUrl, addresses.token, addresses.owner)).toBe(10_000_000n * TOKEN);
    // Blocks come without transactions (what gives confirmations on the embedded chain).
    const before = await client(anvil.rpcUrl).getBlockNumber();
    await sleep(2_200);
    expect(await client(anvil.rpcUrl).getBlockNumber()).toBeGreaterThanOrEqual(before + 2n);
    await stop(anvil);
    expect(alive(anvil.pid)).toBe(false);
  }, 30_000);

  it('deployAll refuses an RPC that answers another chain id', async () => {
    const anvil = await start('other-chain');
    await expect(deployAll({ rpcUrl: anvil.rpcUrl, chainId: 42161 })).rejects.toThrow(
      /chain 31337, expected 42161/,
    );
    expect(await client(anvil.rpcUrl).getTransactionCount({ address: ANVIL_ACCOUNTS[0]!.address })).toBe(0);
  });

  it('fails clearly when the port asked for is taken', async () => {
    const first = await start('port-a');
    await expect(start('port-b', { port: first.port })).rejects.toThrow(/anvil exited/);
  });
});

describe('the state file', () => {
  it('survives a SIGKILL: the state written every second is reloaded', async () => {
    const first = await start('sigkill');
    const addresses = await deployAll({ rpcUrl: first.rpcUrl, chainId: CHAIN_ID });
    await marker(first.rpcUrl, addresses);
    const height = await client(first.rpcUrl).getBlockNumber();
    await sleep(2_500); // at least one dump after the last transaction (--state-interval 1)
    const exited = new Promise((r) => first.child.once('exit', r));
    process.kill(first.pid, 'SIGKILL');
    await exited;
    running.delete(first);

    const second = await start('sigkill');
    expect(second.recovered).toBe('none');
    expect(await hasCode(second.rpcUrl, addresses.plans)).toBe(true);
    expect(await balance(second.rpcUrl, addresses.token, ANVIL_ACCOUNTS[5]!.address)).toBe(1_234n * TOKEN);
    expect(await client(second.rpcUrl).getBlockNumber()).toBe(height);
    // The chain goes on from there.
    await marker(second.rpcUrl, addresses);
    expect(await balance(second.rpcUrl, addresses.token, ANVIL_ACCOUNTS[5]!.address)).toBe(2_468n * TOKEN);
  }, 30_000);

  it('SIGTERM (stop) writes the state at once', async () => {
    const first = await start('sigterm');
    const addresses = await deployAll({ rpcUrl: first.rpcUrl, chainId: CHAIN_ID });
    await marker(first.rpcUrl, addresses);
    await stop(first);
    const second = await start('sigterm');
    expect(await balance(second.rpcUrl, addresses.token, ANVIL_ACCOUNTS[5]!.address)).toBe(1_234n * TOKEN);
  });

  it('a state file cut short mid-dump is replaced by the last complete copy, else a new chain starts', async () => {
    const stateFile = join(dir, 'cut', 'state.json');
    const first = await start('cut');
    const addresses = await deployAll({ rpcUrl: first.rpcUrl, chainId: CHAIN_ID });
    await stop(first); // the complete SIGTERM dump is copied to .good
    expect(existsSync(`${stateFile}.good`)).toBe(true);
    truncateSync(stateFile, Math.floor(statSync(stateFile).size / 2));

    const second = await start('cut');
    expect(second.recovered).toBe('backup');
    expect(await hasCode(second.rpcUrl, addresses.token)).toBe(true);
    expect(readFileSync(`${stateFile}.broken`, 'utf8').length).toBeGreaterThan(0);
    await stop(second);

    truncateSync(stateFile, 10);
    rmSync(`${stateFile}.good`);
    const third = await start('cut');
    expect(third.recovered).toBe('fresh');
    expect(await hasCode(third.rpcUrl, addresses.token)).toBe(false);
  }, 30_000);

  it('a removed state file starts a new chain and drops the old copy', async () => {
    const stateFile = join(dir, 'reset', 'state.json');
    const first = await start('reset');
    const addresses = await deployAll({ rpcUrl: first.rpcUrl, chainId: CHAIN_ID });
    await stop(first);
    rmSync(stateFile);
    const second = await start('reset');
    expect(second.recovered).toBe('none');
    expect(existsSync(`${stateFile}.good`)).toBe(false);
    expect(await hasCode(second.rpcUrl, addresses.token)).toBe(false);
  });
});
