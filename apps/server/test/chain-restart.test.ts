import fs from 'node:fs';
import path from 'node:path';
import { bytxTokenAbi, earningsPoolAbi, testStablecoinAbi, tokenSaleAbi } from '@bytx/chain';
import { chainFor } from '@bytx/chain/node';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { loginViaApi, registerViaApi } from '../../../e2e/helpers/accounts';
import { startServer, type RunningServer } from '../../../e2e/harness';
import { watchdogOf } from './chain-procs';

const ENV = { CHAIN: 'embedded', LOG_LEVEL: 'warn' };

async function api(
  s: RunningServer,
  method: string,
  url: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${s.baseUrl}${url}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

async function until(what: string, ok: () => boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The anvil pid recorded in DATA_DIR/chain/anvil.pid (`{anvil, server}`). */
const anvilPid = (file: string): number =>
  (JSON.parse(fs.readFileSync(file, 'utf8')) as { anvil: number }).anvil;

function kill9(s: RunningServer): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => s.child.once('exit', () => r()));
  s.child.kill('SIGKILL');
  return exited;
}

/**
 * The real server with the embedded chain, killed with SIGKILL: its anvil does not outlive it (the
 * watchdog; else the pid file on the next start), the chain's state and the user's wallet link survive,
 * and the next start reuses the deployed contracts.
 */
describe('embedded chain across SIGKILL restarts', () => {
  it('keeps balances and the wallet link, never leaves anvil running', async () => {
    let server = await startServer(ENV);
    const dataDir = server.dataDir;
    const pidFile = path.join(dataDir, 'chain', 'anvil.pid');
    try {
      const email = 'chain-restart@example.com';
      const password = 'Chain-Restart-Passw0rd!';
      await registerViaApi(server.baseUrl, server.outboxDir, email, password);
      const token = await loginViaApi(server.baseUrl, email, password);
      const info = (await api(server, 'GET', '/api/chain')).body as {
        rpcUrl: string;
        chainId: number;
        addresses: Record<'token' | 'sale' | 'pool' | 'usdt', Address>;
      };
      expect(info.rpcUrl).toBe(`${server.baseUrl}/api/chain/rpc`);

      // A user's wallet through the server's RPC proxy over HTTP, as a browser wallet would.
      const account = privateKeyToAccount(generatePrivateKey());
      const chain = chainFor(info.chainId, info.rpcUrl);
      const client = createPublicClient({ chain, transport: http(info.rpcUrl) });
      const wallet = createWalletClient({ account, chain, transport: http(info.rpcUrl) });
      const wait = async (hash: Hash) => {
        const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 250 });
        expect(r.status).toBe('success');
      };
      const faucet = await api(server, 'POST', '/api/chain/faucet', token, { address: account.address });
      expect(faucet.status).toBe(200);
      const a = info.addresses;
      const usdt = parseUnits('10', 6);
      await wait(
        await wallet.writeContract({
          address: a.usdt,
          abi: testStablecoinAbi,
          functionName: 'approve',
          args: [a.sale, usdt],
        }),
      );
      await wait(
        await wallet.writeContract({
          address: a.sale,
          abi: tokenSaleAbi,
          functionName: 'buyTokens',
          args: [usdt],
        }),
      );
      const stake = parseUnits('3000', 18);
      await wait(
        await wallet.writeContract({
          address: a.token,
          abi: bytxTokenAbi,
          functionName: 'approve',
          args: [a.pool, stake],
        }),
      );
      await wait(
        await wallet.writeContract({
          address: a.pool,
          abi: earningsPoolAbi,
          functionName: 'stake',
          args: [stake],
        }),
      );
      // Linking the address needs its signature (issue 37): the server's message, signed here.
      const link = (await api(server, 'POST', '/api/earnings/nonce', token, { address: account.address }))
        .body as { nonce: string; message: string };
      const linked = await api(server, 'POST', '/api/earnings', token, {
        address: account.address,
        nonce: link.nonce,
        signature: await account.signMessage({ message: link.message }),
      });
      expect(linked.status).toBe(200);
      expect(linked.body).toMatchObject({ balance: 3_000, wallet_tokens: 2_000 });
      // anvil writes its state every second.
      await new Promise((r) => setTimeout(r, 2_500));

      // 1. SIGKILL the server: the watchdog stops its anvil.
      const anvil1 = anvilPid(pidFile);
      expect(alive(anvil1)).toBe(true);
      expect(watchdogOf(anvil1)).not.toBeNull();
      await kill9(server);
      await until('the watchdog to stop anvil', () => !alive(anvil1));

      server = await startServer(ENV, dataDir);
      const again = (await api(server, 'GET', '/api/chain')).body as { addresses: unknown };
      expect(again.addresses).toEqual(info.addresses);
      const after = await api(server, 'POST', '/api/earnings', token, { address: account.address });
      expect(after.status, JSON.stringify(after.body)).toBe(200);
      expect(after.body).toMatchObject({ balance: 3_000, wallet_tokens: 2_000, address: account.address });
      expect((await api(server, 'GET', '/api/earnings/wallet', token)).body.address).toBe(account.address);

      // 2. The watchdog killed too (a SIGKILL of the whole group but anvil, say): the next start stops the
      //    anvil the pid file names before it starts its own.
      const anvil2 = anvilPid(pidFile);
      expect(anvil2).not.toBe(anvil1);
      const dog = watchdogOf(anvil2);
      expect(dog).not.toBeNull();
      process.kill(dog!, 'SIGKILL');
      await until('the watchdog to end', () => !alive(dog!));
      await kill9(server);
      await new Promise((r) => setTimeout(r, 300));
      expect(alive(anvil2)).toBe(true);
      server = await startServer(ENV, dataDir);
      expect(alive(anvil2)).toBe(false);
      const third = await api(server, 'POST', '/api/earnings', token, { address: account.address });
      expect(third.body).toMatchObject({ balance: 3_000 });

      // 3. A clean stop takes anvil with it and removes the pid file.
      const anvil3 = anvilPid(pidFile);
      await server.stop();
      expect(alive(anvil3)).toBe(false);
      expect(fs.existsSync(pidFile)).toBe(false);
    } finally {
      await kill9(server);
      // Whatever failed above: no anvil of this test outlives it.
      try {
        const pid = anvilPid(pidFile);
        if (alive(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir))
          process.kill(pid, 'SIGTERM');
      } catch {
        // no pid file
      }
    }
  }, 240_000);
});
