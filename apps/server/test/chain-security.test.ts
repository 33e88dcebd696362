/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import fs from 'node:fs';
import path from 'node:path';
import { bytxTokenAbi, earningsPoolAbi, planPaymentsAbi, tokenSaleAbi } from '@bytx/chain';
import {
  ANVIL_ACCOUNTS,
  ANVIL_DEV_ADDRESSES,
  BLOCK_GAS_LIMIT,
  chainFor,
  deployAll,
  startAnvil,
} from '@bytx/chain/node';
import { EARNINGS_MESSAGES, RPC_PROXY_LIMITS } from '@bytx/contract';
import { createPublicClient, encodeFunctionData, http, parseGwei, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_PROXY_RATE, RPC_PROXY_SESSION_RATE } from '../src/modules/chain/routes';
import { chainOf, mine, proofFor, userWallet } from './chain-helpers';
import { openTestDatabase } from './db-snapshot';
import { apiCaller, createTestUser, makeTestApp, tempDir, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
const PUBLIC_URL = 'https://bytx.example';

/**
 * The security review's chain findings (issue 37, docs/chain.md): the embedded chain is owned by a key of
 * this install (not anvil's public account #0) and the proxy refuses what anvil's dev keys sign; an
 * underpaid PlanPaid does not activate a plan; the proxy caps gas and batches and counts per address and
 * per session; linking an earnings wallet needs its signature; the RPC URL comes from PUBLIC_URL.
 */
describe('chain security on the embedded chain', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const rpc = (payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/chain/rpc',
      payload: payload as object,
      headers,
      ...(remoteAddress ? { remoteAddress } : {}),
    });

  beforeAll(async () => {
    t = await makeTestApp({ CHAIN: 'embedded', PUBLIC_URL });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
  }, 60_000);
  afterAll(async () => t?.close());

  describe('the owner key (point 1)', () => {
    it('deploys with a key of this install, kept sealed; dev account 0 owns and holds nothing', async () => {
      const m = chainOf(t);
      const owner = m.runtime.owner!;
      expect(ANVIL_DEV_ADDRESSES.has(owner.toLowerCase())).toBe(false);
      const { client, addresses } = m.runtime.require();
      for (const [address, abi] of [
        [addresses.sale, tokenSaleAbi],
        [addresses.pool, earningsPoolAbi],
        [addresses.plans, planPaymentsAbi],
      ] as const) {
        expect(
          await client.readContract({ address, abi: abi as typeof tokenSaleAbi, functionName: 'owner' }),
        ).toBe(owner);
      }
      const dev0 = ANVIL_ACCOUNTS[0]!.address;
      expect(
        await client.readContract({
          address: addresses.token,
          abi: bytxTokenAbi,
          functionName: 'balanceOf',
          args: [dev0],
        }),
      ).toBe(0n);
      const row = (await t.ctx.database.sql.query('SELECT address, key_enc FROM chain_owner_keys'))[0]!;
      expect(row.address).toBe(owner);
      // Sealed: the key is not in the row in clear, and it opens to the owner's address.
      const key = t.ctx.secretBox.open(String(row.key_enc), m.runtime.keyContext) as Hex;
      expect(String(row.key_enc)).not.toContain(key.slice(2));
      expect(privateKeyToAccount(key).address).toBe(owner);
      expect((await call(null, 'GET', '/api/chain')).body.owner).toBe(owner);
    });

    it("refuses at the proxy every transaction signed with one of anvil's ten dev keys", async () => {
      const m = chainOf(t);
      const { client, addresses, chainId } = m.runtime.require();
      const before = await client.readContract({
        address: addresses.sale,
        abi: tokenSaleAbi,
        functionName: 'price',
      });
      for (const dev of ANVIL_ACCOUNTS) {
        const account = privateKeyToAccount(dev.privateKey);
        const raw = await account.signTransaction({
          chainId,
          type: 'eip1559',
          to: addresses.sale,
          data: encodeFunctionData({ abi: tokenSaleAbi, functionName: 'setPrice', args: [10n ** 30n] }),
          nonce: await client.getTransactionCount({ address: dev.address }),
          gas: 100_000n,
          maxFeePerGas: parseGwei('10'),
          maxPriorityFeePerGas: 1n,
        });
        const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] });
        expect(res.statusCode).toBe(200);
        expect(res.json(), dev.address).toMatchObject({ id: 1, error: { code: -32003 } });
        expect(res.json().error.message).toContain('development keys');
      }
      expect(
        await client.readContract({ address: addresses.sale, abi: tokenSaleAbi, functionName: 'price' }),
      ).toBe(before);
      // Not a signed transaction at all: a clear JSON-RPC error, nothing forwarded.
      for (const params of [['0x1234'], [42], []]) {
        const bad = await rpc({ jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params });
        expect(bad.json(), JSON.stringify(params)).toMatchObject({ id: 2, error: { code: -32602 } });
      }
      for (const method of [
        'eth_sendTransaction',
        'eth_sign',
        'eth_signTypedData_v4',
        'anvil_setBalance',
        'hardhat_mine',
        'evm_mine',
      ]) {
        expect((await rpc({ jsonrpc: '2.0', id: 3, method, params: [] })).json(), method).toMatchObject({
          error: { code: -32601 },
        });
      }
    });

    it('keeps a PlanPaid below the plan price at its block as refused, with the reason', async () => {
      const m = chainOf(t);
      m.runtime.mineOnDemand = false;
      try {
        const { client, addresses } = m.runtime.require();
        const w = userWallet(t);
        await w.faucetDirect(10);
        const ref = (await call(alice, 'GET', '/api/plans')).body.payment_ref as Hex;
        // The attack: the price moved to 1e30 makes a Professional plan cost 0 tokens (only the
        // owner's key can do that now; the indexer must not activate it either way).
        const owner = m.runtime.ownerWallet();
        const setPrice = async (price: bigint) =>
          client.waitForTransactionReceipt({
            hash: await owner.writeContract({
              address: addresses.sale,
              abi: tokenSaleAbi,
              functionName: 'setPrice',
              args: [price],
              account: owner.account,
              chain: null,
            }),
          });
        await setPrice(10n ** 30n);
        const paid = await w.payPlan(3, ref, 0n);
        await setPrice(2000n);
        await mine(t, 3);
        await m.indexer.tick();
        const view = (await call(alice, 'GET', '/api/plans')).body;
        expect(view.active).toBeNull();
        expect(view.pending).toEqual([]);
        expect(view.refused).toEqual([
          {
            id: 'professional',
            plan: 3,
            tx_hash: paid.transactionHash,
            reason: expect.stringContaining('paid 0 tokens'),
            tokens: 0,
            price_tokens: 0,
            paid_at: expect.any(Number),
          },
        ]);
        const row = (await t.ctx.database.sql.query('SELECT refused, tokens FROM chain_plans'))[0]!;
        expect(row.tokens).toBe('0');
        expect(String(row.refused)).toMatch(/professional plan costs/);

        // A payment of the plan's price at its block activates the plan.
        const price = BigInt((await call(alice, 'GET', '/api/plans')).body.plans[0].price_tokens_wei);
        await w.buy(10);
        const good = await w.payPlan(1, ref, price);
        await mine(t, 3);
        await m.indexer.tick();
        const after = (await call(alice, 'GET', '/api/plans')).body;
        expect(after.active).toMatchObject({ id: 'basic', tx_hash: good.transactionHash });
      } finally {
        m.runtime.mineOnDemand = true;
      }
    });
  });

  describe('the proxy cannot spin the node (point 2)', () => {
    // Init code run by an eth_call without `to`: GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN (gas left).
    const GAS_LEFT = '0x5a60005260206000f3';
    // JUMPDEST PUSH1 0 JUMP: loops until the call's gas runs out.
    const LOOP = '0x5b600056';

    it('caps eth_call and eth_estimateGas gas at 30M, filled in when missing', async () => {
      const gasLeft = async (gas?: string) => {
        const res = await rpc({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ data: GAS_LEFT, ...(gas ? { gas } : {}) }, 'latest'],
        });
        return BigInt(res.json().result as string);
      };
      const cap = BigInt(RPC_PROXY_LIMITS.maxCallGas);
      const asked = await gasLeft('0x3b9aca00'); // 1e9
      expect(asked).toBeLessThanOrEqual(cap);
      expect(asked).toBeGreaterThan(cap - 100_000n);
      expect(await gasLeft()).toBeLessThanOrEqual(cap);
      // Below the cap, the caller's gas stands.
      expect(await gasLeft('0x186a0')).toBeLessThan(100_000n);
      const bad = await rpc({
        jsonrpc: '2.0',
        id: 2,
        method: 'eth_call',
        params: [{ data: GAS_LEFT, gas: 'lots' }],
      });
      expect(bad.json()).toMatchObject({ id: 2, error: { code: -32602 } });
      const notObject = await rpc({ jsonrpc: '2.0', id: 3, method: 'eth_estimateGas', params: ['x'] });
      expect(notObject.json()).toMatchObject({ id: 3, error: { code: -32602 } });

      // A loop with gas 1e9 ends at the cap: out of gas, well inside the proxy's 15 s timeout.
      const started = Date.now();
      const loop = await rpc({
        jsonrpc: '2.0',
        id: 4,
        method: 'eth_call',
        params: [{ data: LOOP, gas: '0x3b9aca00' }, 'latest'],
      });
      expect(loop.json()).toMatchObject({ id: 4, error: expect.anything() });
      expect(Date.now() - started).toBeLessThan(10_000);
      const estimate = await rpc({
        jsonrpc: '2.0',
        id: 5,
        method: 'eth_estimateGas',
        params: [{ data: LOOP, gas: '0x3b9aca00' }],
      });
      expect(estimate.json()).toMatchObject({ id: 5, error: expect.anything() });
      // The node itself runs with a block gas limit.
      const block = await chainOf(t).runtime.require().client.getBlock();
      expect(block.gasLimit).toBe(BigInt(BLOCK_GAS_LIMIT));
    }, 30_000);

    it('refuses a batch above 10 calls with a JSON-RPC error', async () => {
      const batch = (n: number) =>
        rpc(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })));
      const ten = await batch(10);
      expect(ten.statusCode).toBe(200);
      expect(ten.json()).toHaveLength(10);
      for (const n of [11, 21]) {
        const res = await batch(n);
        expect(res.statusCode, String(n)).toBe(400);
        expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
        expect(res.json().error.message).toBe('A batch holds 1 to 10 calls.');
      }
    });

    it('counts requests per client address and per session', async () => {
      // A method the proxy answers itself: the limits count requests, whatever they ask.
      const cheap = { jsonrpc: '2.0', id: 1, method: 'nope' };
      // Per session: from many addresses, one session's requests add up.
      for (let i = 0; i < RPC_PROXY_SESSION_RATE.max; i++) {
        const res = await rpc(cheap, bob.auth, `10.1.${i >> 8}.${i & 255}`);
        expect(res.statusCode, String(i)).toBe(200);
      }
      const overSession = await rpc(cheap, bob.auth, '10.2.0.1');
      expect(overSession.statusCode).toBe(429);
      expect(overSession.json().message).toMatch(/from your session/);
      // The same address without the session still passes; another session too.
      expect((await rpc(cheap, {}, '10.2.0.1')).statusCode).toBe(200);
      expect((await rpc(cheap, alice.auth, '10.2.0.2')).statusCode).toBe(200);
      // Per address, with or without a session.
      for (let i = 0; i < RPC_PROXY_RATE.max - 1; i++) {
        expect((await rpc(cheap, {}, '10.3.0.1')).statusCode, String(i)).toBe(200);
      }
      expect((await rpc(cheap, {}, '10.3.0.1')).statusCode).toBe(200);
      const overAddress = await rpc(cheap, {}, '10.3.0.1');
      expect(overAddress.statusCode).toBe(429);
      expect(overAddress.json().message).toMatch(/from your address/);
    }, 60_000);
  });

  describe('linking an earnings wallet needs its signature (point 11)', () => {
    it('hands out an EIP-4361 message naming PUBLIC_URL, the address, the chain and a nonce', async () => {
      const w = userWallet(t);
      const res = await call(alice, 'POST', '/api/earnings/nonce', { address: w.address.toLowerCase() });
      expect(res.status).toBe(200);
      const { message, nonce, expires_at: expiresAt, address } = res.body;
      expect(address).toBe(w.address);
      expect(nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(message).toMatch(/^bytx\.example wants you to sign in with your Ethereum account:\n0x/);
      expect(message).toContain(w.address);
      expect(message).toContain(`URI: ${PUBLIC_URL}`);
      expect(message).toContain('Chain ID: 42161');
      expect(message).toContain(`Nonce: ${nonce}`);
      expect(expiresAt - Date.now()).toBeGreaterThan(590_000);
      expect(expiresAt - Date.now()).toBeLessThanOrEqual(600_000);
      expect((await call(null, 'POST', '/api/earnings/nonce', { address: w.address })).status).toBe(401);
      const bad = await call(alice, 'POST', '/api/earnings/nonce', { address: '0x1234' });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe(EARNINGS_MESSAGES.invalidAddress);
    });

    it('refuses a link without a signature, with a wrong one, a reused, foreign or expired nonce', async () => {
      const carol = await createTestUser(t);
      const dave = await createTestUser(t);
      const w = userWallet(t);
      const linked = async () => (await call(carol, 'GET', '/api/earnings/wallet')).body.address;
      const link = (body: object, u: User = carol) =>
        call(u, 'POST', '/api/earnings', { address: w.address, ...body });

      const none = await link({});
      expect(none.status).toBe(403);
      expect(none.body).toMatchObject({
        message: EARNINGS_MESSAGES.signatureRequired,
        code: 'signature_required',
      });
      const invalid = { message: EARNINGS_MESSAGES.signatureInvalid, code: 'signature_invalid' };

      // Signed by another key (the squatter does not hold the address).
      const { nonce, message } = (await call(carol, 'POST', '/api/earnings/nonce', { address: w.address }))
        .body;
      const other = privateKeyToAccount(generatePrivateKey());
      const forged = await link({ nonce, signature: await other.signMessage({ message }) });
      expect(forged.status).toBe(403);
      expect(forged.body).toMatchObject(invalid);
      // The nonce went with that try.
      const replay = await link({ nonce, signature: await w.account.signMessage({ message }) });
      expect(replay.body).toMatchObject(invalid);
      // Another user's nonce.
      const daves = await proofFor(t, dave, w.account);
      expect((await link(daves)).body).toMatchObject(invalid);
      // Expired.
      const late = await proofFor(t, carol, w.account);
      await t.ctx.database.sql.query(
        `UPDATE chain_wallet_nonces SET expires_at = now() - interval '1 second' WHERE nonce = $1`,
        [late.nonce],
      );
      expect((await link(late)).body).toMatchObject(invalid);
      expect((await link({ nonce: 'x', signature: '0x12' })).body).toMatchObject(invalid);
      expect(await linked()).toBeNull();

      // The holder's signature links it, once; the linked address is then consulted without one.
      const proof = await proofFor(t, carol, w.account);
      const ok = await link(proof);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(await linked()).toBe(w.address);
      expect((await link({})).status).toBe(200);
      expect((await link(proof)).status).toBe(200);
      // Dave cannot take it even with a signature of his own making.
      expect((await link(await proofFor(t, dave, w.account), dave)).body.code).toBe('wallet_taken');
    });
  });

  describe('URLs shown to users come from PUBLIC_URL (point 13)', () => {
    it('gives the proxy URL of PUBLIC_URL whatever Host or X-Forwarded-Host says', async () => {
      for (const headers of [
        { host: 'evil.example' },
        { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
      ]) {
        const res = await t.app.inject({ method: 'GET', url: '/api/chain', headers });
        expect(res.json().rpcUrl).toBe(`${PUBLIC_URL}/api/chain/rpc`);
      }
    });
  });
});

/**
 * An install deployed before owner keys (its contracts owned by anvil's dev account 0): the next start
 * moves the ownership and the deployer's tokens to the install's own key; users' balances stay.
 */
describe('an install owned by the public dev account', () => {
  it('moves ownership to the install key on start', async () => {
    const dataDir = tempDir();
    const stateFile = path.join(dataDir, 'chain', 'state.json');
    const anvil = await startAnvil({ stateFile, chainId: 42161 });
    let legacy;
    try {
      legacy = await deployAll({ rpcUrl: anvil.rpcUrl, chainId: 42161 });
    } finally {
      await anvil.stop();
    }
    expect(legacy.owner).toBe(ANVIL_ACCOUNTS[0]!.address);
    expect(fs.existsSync(stateFile)).toBe(true);
    const database = await openTestDatabase();
    const { owner, ...addresses } = legacy;
    await database.sql.query(
      `INSERT INTO chain_deployments (chain_id, token, sale, pool, plans, usdt, usdc, owner)
       VALUES (42161, $1, $2, $3, $4, $5, $6, $7)`,
      [
        addresses.token,
        addresses.sale,
        addresses.pool,
        addresses.plans,
        addresses.usdt,
        addresses.usdc,
        owner,
      ],
    );
    const t = await makeTestApp({ CHAIN: 'embedded', DATA_DIR: dataDir }, { database });
    try {
      const m = chainOf(t);
      expect(m.runtime.ready).toBe(true);
      const newOwner = m.runtime.owner!;
      expect(ANVIL_DEV_ADDRESSES.has(newOwner.toLowerCase())).toBe(false);
      const { client } = m.runtime.require();
      expect(m.runtime.require().addresses.sale).toBe(addresses.sale);
      for (const [address, abi] of [
        [addresses.sale, tokenSaleAbi],
        [addresses.pool, earningsPoolAbi],
        [addresses.plans, planPaymentsAbi],
      ] as const) {
        expect(
          await client.readContract({ address, abi: abi as typeof tokenSaleAbi, functionName: 'owner' }),
        ).toBe(newOwner);
      }
      const balance = (a: Address) =>
        client.readContract({
          address: addresses.token,
          abi: bytxTokenAbi,
          functionName: 'balanceOf',
          args: [a],
        });
      expect(await balance(ANVIL_ACCOUNTS[0]!.address)).toBe(0n);
      expect(await balance(newOwner)).toBe(10_000_000n * 10n ** 18n);
      expect(await client.getBalance({ address: newOwner })).toBeGreaterThan(0n);
      const row = (await database.sql.query('SELECT owner FROM chain_deployments'))[0]!;
      expect(row.owner).toBe(newOwner);
      // The new owner signs: the faucet works.
      const u = await createTestUser(t);
      const res = await apiCaller(() => t.app)(u, 'POST', '/api/chain/faucet', {
        address: privateKeyToAccount(generatePrivateKey()).address,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // A client of the node itself still reads the same chain.
      const direct = createPublicClient({
        chain: chainFor(42161, m.runtime.require().rpcUrl),
        transport: http(m.runtime.require().rpcUrl),
      });
      expect(await direct.getCode({ address: addresses.plans })).not.toBe('0x');
    } finally {
      await t.close();
      await database.close();
    }
  }, 90_000);
});
