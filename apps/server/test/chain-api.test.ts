/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import { ANVIL_ACCOUNTS, ANVIL_DEV_ADDRESSES } from '@bytx/chain/node';
import { CHAIN_MESSAGES, EARNINGS_MESSAGES, fillMessage } from '@bytx/contract';
import { parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainOf, isAddr, mine, proofFor, timeTravel, userWallet } from './chain-helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;

/**
 * The token's calls against a real embedded chain (anvil in the test's DATA_DIR): where the chain is,
 * the RPC proxy's allow-list, the faucet, the earnings pool's wallet rules and figures with addresses
 * held by two users, the shared reads, the keeper, the chart's history and the transaction view.
 */
describe('chain API on the embedded chain', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);

  beforeAll(async () => {
    t = await makeTestApp({ CHAIN: 'embedded', PUBLIC_URL: 'https://bytx.example' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
  }, 60_000);
  afterAll(async () => t?.close());

  it('tells where the chain is: mode, chain id, the proxy as RPC URL, contracts, owner, faucet', async () => {
    // A forged Host header does not move the RPC URL: it comes from PUBLIC_URL (issue 37).
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/chain',
      headers: { host: 'evil.example:8080' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      mode: 'embedded',
      chainId: 42161,
      rpcUrl: 'https://bytx.example/api/chain/rpc',
      explorerUrl: null,
      owner: chainOf(t).runtime.owner,
      faucet: true,
      confirmations: 2,
      ready: true,
    });
    // The install's own key owns the contracts, never one of anvil's public dev accounts.
    expect(isAddr(body.owner)).toBe(true);
    expect(ANVIL_DEV_ADDRESSES.has(body.owner.toLowerCase())).toBe(false);
    for (const k of ['token', 'sale', 'pool', 'plans', 'usdt', 'usdc'])
      expect(isAddr(body.addresses[k])).toBe(true);
    // Recorded, so the next start reuses them.
    const [row] = await t.ctx.database.sql.query('SELECT * FROM chain_deployments');
    expect(row).toMatchObject({ chain_id: 42161, token: body.addresses.token, owner: body.owner });
  });

  it('proxies reads and raw transactions only; refuses the rest with JSON-RPC errors', async () => {
    const rpc = (payload: unknown) =>
      t.app.inject({ method: 'POST', url: '/api/chain/rpc', payload: payload as object });
    const ok = await rpc({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0xa4b1' });
    for (const method of [
      'eth_sendTransaction',
      'anvil_setBalance',
      'evm_mine',
      'personal_sign',
      'debug_traceCall',
      'eth_accounts',
    ]) {
      const r = await rpc({ jsonrpc: '2.0', id: 'x', method, params: [] });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ id: 'x', error: { code: -32601 } });
      expect(r.json().error.message).toContain(method);
    }
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'evm_increaseTime', params: [1000] },
      { jsonrpc: '2.0', id: 3, method: 'net_version' },
      { nope: true },
    ]);
    const answers = batch.json();
    expect(answers).toHaveLength(4);
    expect(answers[0]).toMatchObject({ id: 1, result: expect.stringMatching(/^0x/) });
    expect(answers[1]).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(answers[2]).toMatchObject({ id: 3, result: '42161' });
    expect(answers[3]).toMatchObject({ id: null, error: { code: -32600 } });
    const tooMany = await rpc(
      Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })),
    );
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toMatch(/1 to 10/);
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/chain/rpc',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: ['x'.repeat(200_000)] }),
    });
    expect(big.statusCode).toBe(413);
  });

  it('faucet: test USDT, USDC and ETH once per user per 10 minutes', async () => {
    const w = userWallet(t);
    for (const address of ['0x1234', `0x${'0'.repeat(40)}`]) {
      const bad = await call(alice, 'POST', '/api/chain/faucet', { address });
      expect(bad.status, address).toBe(400);
      expect(bad.body.message).toBe(EARNINGS_MESSAGES.invalidAddress);
    }
    const res = await call(alice, 'POST', '/api/chain/faucet', { address: w.address });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, address: w.address, message: CHAIN_MESSAGES.faucetDone });
    const a = chainOf(t).runtime.require().addresses;
    const { testStablecoinAbi } = await import('@bytx/chain');
    for (const coin of [a.usdt, a.usdc]) {
      expect(
        await w.client.readContract({
          address: coin,
          abi: testStablecoinAbi,
          functionName: 'balanceOf',
          args: [w.address],
        }),
      ).toBe(1_000_000_000n);
    }
    expect(await w.client.getBalance({ address: w.address })).toBe(10n ** 18n);
    const again = await call(alice, 'POST', '/api/chain/faucet', { address: w.address });
    expect(again.status).toBe(429);
    expect(again.body.message).toBe(fillMessage(CHAIN_MESSAGES.faucetWait, { minutes: 10 }));
    // Another user has their own turn.
    expect((await call(bob, 'POST', '/api/chain/faucet', { address: w.address })).status).toBe(200);
    expect((await call(null, 'POST', '/api/chain/faucet', { address: w.address })).status).toBe(401);
  });

  describe('earnings pool with addresses held by two users', () => {
    let wa: ReturnType<typeof userWallet>;
    let wb: ReturnType<typeof userWallet>;
    let purchaseTx: string;

    beforeAll(async () => {
      wa = userWallet(t);
      wb = userWallet(t);
      await wa.faucetDirect(100);
      await wb.faucetDirect(100);
      // 10 USDT buys 5,000 tokens at 0.002; stake 4,000 of them.
      purchaseTx = (await wa.buy(10)).transactionHash;
      await wa.stake(4_000);
      await wb.buy(2, 'usdt');
    }, 60_000);

    it('checks the address as the spec does: exactly 42 characters, hex, a valid checksum', async () => {
      const valid = wa.address;
      for (const address of [
        valid.slice(0, 41),
        `${valid}0`,
        `0x${'g'.repeat(40)}`,
        `0x${'0'.repeat(40)}`,
        // A checksummed address with one letter's case flipped: a typo.
        valid.replace(/[a-f]/, (c) => c.toUpperCase()),
        12345,
        null,
        '',
      ]) {
        const res = await call(alice, 'POST', '/api/earnings', { address });
        expect(res.status, String(address)).toBe(400);
        expect(res.body).toMatchObject({
          success: false,
          message: EARNINGS_MESSAGES.invalidAddress,
          code: 'invalid_address',
        });
      }
      expect((await call(alice, 'GET', '/api/earnings/wallet')).body.address).toBeNull();
    });

    it('connects a wallet and reads its stake, APY and rewards from the pool', async () => {
      const res = await call(alice, 'POST', '/api/earnings', {
        address: wa.address.toLowerCase(),
        force: false,
        ...(await proofFor(t, alice, wa.account)),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        success: true,
        balance: 4_000,
        apy: 120,
        message: EARNINGS_MESSAGES.connected,
        address: wa.address,
        balance_wei: parseUnits('4000', 18).toString(),
        wallet_tokens: 1_000,
      });
      // 4,000 tokens at 120 % a year: 4000 * 1.2 / 31,536,000 tokens a second.
      expect(res.body.reward_per_second).toBeCloseTo((4_000 * 1.2) / 31_536_000, 12);
      expect(res.body.available_rewards).toBeGreaterThanOrEqual(0);
      expect(res.body.available_rewards).toBeLessThan(0.01);
      expect(res.body.total_profit).toBeGreaterThanOrEqual(res.body.available_rewards);
      expect(res.body.today_profit).toBeLessThanOrEqual(res.body.total_profit + 1e-12);
      expect(res.body.pool_available).toBe(50_000_000);
      expect((await call(alice, 'GET', '/api/earnings/wallet')).body.address).toBe(wa.address);
    });

    it('keeps one wallet per user and one user per wallet', async () => {
      const taken = await call(bob, 'POST', '/api/earnings', { address: wa.address });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ message: EARNINGS_MESSAGES.walletTaken, code: 'wallet_taken' });
      const takenForced = await call(bob, 'POST', '/api/earnings', { address: wa.address, force: true });
      expect(takenForced.body.message).toBe(EARNINGS_MESSAGES.walletTaken);

      const other = await call(alice, 'POST', '/api/earnings', { address: wb.address });
      expect(other.status).toBe(409);
      expect(other.body).toMatchObject({
        message: EARNINGS_MESSAGES.differentWallet,
        code: 'wallet_different',
      });
      expect((await call(alice, 'GET', '/api/earnings/wallet')).body.address).toBe(wa.address);

      const switched = await call(alice, 'POST', '/api/earnings', {
        address: wb.address,
        force: true,
        ...(await proofFor(t, alice, wb.account)),
      });
      expect(switched.status).toBe(200);
      expect(switched.body).toMatchObject({ address: wb.address, balance: 0, wallet_tokens: 1_000 });
      // Now wa is free for bob.
      const bobs = await call(bob, 'POST', '/api/earnings', {
        address: wa.address,
        ...(await proofFor(t, bob, wa.account)),
      });
      expect(bobs.status).toBe(200);
      expect(bobs.body.balance).toBe(4_000);
      const back = await call(alice, 'POST', '/api/earnings', { address: wa.address, force: true });
      expect(back.body.message).toBe(EARNINGS_MESSAGES.walletTaken);

      expect((await call(bob, 'POST', '/api/delete_wallet')).body).toEqual({
        success: true,
        message: EARNINGS_MESSAGES.walletDeleted,
      });
      expect((await call(bob, 'POST', '/api/delete_wallet', {})).body.message).toBe(
        EARNINGS_MESSAGES.noWallet,
      );
      const relinked = await call(alice, 'POST', '/api/earnings', {
        address: wa.address,
        force: true,
        ...(await proofFor(t, alice, wa.account)),
      });
      expect(relinked.status).toBe(200);
      expect((await call(null, 'POST', '/api/earnings', { address: wa.address })).status).toBe(401);
    });

    it('gives a wallet to one of two users who ask for it at once', async () => {
      const carol = await createTestUser(t);
      const dave = await createTestUser(t);
      const freshWallet = userWallet(t);
      const fresh = freshWallet.address;
      const [pc, pd] = [
        await proofFor(t, carol, freshWallet.account),
        await proofFor(t, dave, freshWallet.account),
      ];
      const [c, d] = await Promise.all([
        call(carol, 'POST', '/api/earnings', { address: fresh, ...pc }),
        call(dave, 'POST', '/api/earnings', { address: fresh, ...pd }),
      ]);
      expect([c.status, d.status].sort()).toEqual([200, 409]);
      expect([c, d].find((x) => x.status === 409)!.body.message).toBe(EARNINGS_MESSAGES.walletTaken);
      const rows = await t.ctx.database.sql.query('SELECT user_id FROM chain_wallets WHERE address = $1', [
        fresh,
      ]);
      expect(rows).toHaveLength(1);
    });

    it('reads the chain once per address per 10 s, whatever the number of requests', async () => {
      const m = chainOf(t);
      m.reader.clear();
      const before = m.reader.accounts.reads;
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => call(alice, 'POST', '/api/earnings', { address: wa.address })),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(new Set(answers.map((a) => a.body.read_at)).size).toBe(1);
      expect(m.reader.accounts.reads - before).toBe(1);
      const poolBefore = m.reader.pool60.reads;
      for (let i = 0; i < 5; i++) {
        const p = await call(null, 'GET', '/api/pool_state');
        expect(p.status).toBe(200);
        expect(p.body).toMatchObject({
          success: true,
          pool_available: 50_000_000,
          apy: 120,
          total_staked: 4_000,
        });
      }
      expect(m.reader.pool60.reads - poolBefore).toBe(1);
    });

    it('rewards grow with time; pending shows capped at 2; the keeper pays at 2 tokens', async () => {
      // 4,000 tokens at 120 %: 13.15 tokens a day. After 2 hours: ~1.096 pending.
      await timeTravel(t, 7_200);
      const r1 = (await call(alice, 'POST', '/api/earnings', { address: wa.address })).body;
      expect(r1.pending_rewards).toBeGreaterThan(1.09);
      expect(r1.pending_rewards).toBeLessThan(1.11);
      expect(r1.available_rewards).toBeCloseTo(r1.pending_rewards, 9);
      // Nothing to pay yet.
      expect(
        await chainOf(t)
          .indexer.tick()
          .then(() => chainOf(t).indexer.keep()),
      ).toEqual([]);
      await timeTravel(t, 7_200);
      const r2 = (await call(alice, 'POST', '/api/earnings', { address: wa.address })).body;
      expect(r2.pending_rewards).toBeGreaterThan(2);
      expect(r2.available_rewards).toBe(2);
      expect(r2.total_profit).toBeCloseTo(r2.pending_rewards, 9);
      const paid = await chainOf(t).indexer.keep();
      expect(paid).toEqual([wa.address]);
      chainOf(t).reader.clear();
      const r3 = (await call(alice, 'POST', '/api/earnings', { address: wa.address })).body;
      expect(r3.pending_rewards).toBeLessThan(0.01);
      expect(r3.wallet_tokens).toBeGreaterThan(1_002);
      expect(r3.total_profit).toBeGreaterThan(2.19);
      expect(r3.total_profit).toBeLessThan(2.21);
      expect(r3.today_profit).toBeLessThanOrEqual(r3.total_profit + 1e-9);
      expect(r3.today_profit).toBeGreaterThanOrEqual(0);
    });

    it('records purchases, stakes and rewards from the events, and draws the chart from them', async () => {
      await mine(t, 3);
      await chainOf(t).indexer.tick();
      const events = await t.ctx.database.sql.query(
        `SELECT name, account, confirmed FROM chain_events ORDER BY block_number, log_index`,
      );
      const names = events.map((e) => `${String(e.name)}:${String(e.account)}`);
      expect(names).toEqual(
        expect.arrayContaining([
          `TokensPurchased:${wa.address.toLowerCase()}`,
          `Staked:${wa.address.toLowerCase()}`,
          `RewardPaid:${wa.address.toLowerCase()}`,
          `TokensPurchased:${wb.address.toLowerCase()}`,
        ]),
      );
      expect(events.every((e) => e.confirmed === true)).toBe(true);
      expect(await chainOf(t).indexer.snapshot(true)).toBe(true);
      const h = await call(alice, 'GET', '/api/earnings/history?days=7');
      expect(h.status).toBe(200);
      expect(h.body.address).toBe(wa.address);
      expect(h.body.points.length).toBeGreaterThanOrEqual(2);
      const last = h.body.points.at(-1);
      expect(last.pool_available).toBeGreaterThan(49_999_990);
      expect(last.rewards).toBeGreaterThan(2.19);
      expect((await call(alice, 'GET', '/api/earnings/history?days=0')).status).toBe(400);
      // Bob has no wallet: the pool line alone.
      const hb = await call(bob, 'GET', '/api/earnings/history');
      expect(hb.body.address).toBeNull();
      expect(hb.body.points.at(-1).rewards).toBe(0);

      const view = await call(null, 'GET', `/api/chain/tx/${purchaseTx}`);
      expect(view.status).toBe(200);
      expect(view.body).toMatchObject({
        success: true,
        from: wa.address,
        to_contract: 'sale',
        function: 'buyTokensWith',
        status: 'success',
        value: '0',
      });
      expect(view.body.confirmations).toBeGreaterThan(2);
      const bought = view.body.events.find((e: { name: string }) => e.name === 'TokensPurchased');
      expect(bought).toMatchObject({
        contract: 'sale',
        args: { buyer: wa.address, paid: '10000000', tokens: parseUnits('5000', 18).toString() },
      });
      expect((await call(null, 'GET', `/api/chain/tx/0x${'ab'.repeat(32)}`)).status).toBe(404);
      expect((await call(null, 'GET', '/api/chain/tx/0x1234')).body.message).toBe(
        CHAIN_MESSAGES.invalidTxHash,
      );
    });
  });

  it('mines no empty block: rewards still grow between blocks, and confirmations are mined on demand', async () => {
    const m = chainOf(t);
    // The background round would mine the confirmations at any moment: this test runs it itself.
    m.runtime.mineOnDemand = false;
    const w = userWallet(t);
    await w.faucetDirect(100);
    await w.buy(100); // 50,000 tokens
    await w.stake(10_000);
    const head = await w.client.getBlockNumber({ cacheTime: 0 });
    const read = async () => {
      m.reader.clear();
      return m.reader.account(w.address);
    };
    const first = await read();
    await new Promise((r) => setTimeout(r, 2_100));
    const second = await read();
    // 10,000 staked at 120 % (or 80 %): about 3e-4 a second; no block was mined meanwhile.
    expect(second.pending).toBeGreaterThan(first.pending);
    expect(await w.client.getBlockNumber({ cacheTime: 0 })).toBe(head);
    // The stake's events wait for 2 confirmations: one round of the indexer mines what is missing.
    await m.indexer.tick();
    const [{ n }] = (await t.ctx.database.sql.query(
      'SELECT count(*)::int AS n FROM chain_events WHERE NOT confirmed',
    )) as [{ n: number }];
    expect(n).toBeGreaterThan(0);
    m.runtime.mineOnDemand = true;
    await (m.indexer as unknown as { mineConfirmations(): Promise<void> }).mineConfirmations();
    const [{ left }] = (await t.ctx.database.sql.query(
      'SELECT count(*)::int AS left FROM chain_events WHERE NOT confirmed',
    )) as [{ left: number }];
    expect(left).toBe(0);
    expect(await w.client.getBlockNumber({ cacheTime: 0 })).toBe(head + 1n);
  });
});

describe('chain calls with CHAIN=off', () => {
  let t: TestApp;
  let u: User;
  const call = apiCaller(() => t.app);
  beforeAll(async () => {
    t = await makeTestApp();
    u = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  it('is the tests’ default: no node, and clear 4xx answers', async () => {
    expect(t.ctx.config.chain.mode).toBe('off');
    expect(chainOf(t).runtime.embedded).toBeNull();
    const info = await call(null, 'GET', '/api/chain');
    expect(info.body).toMatchObject({
      mode: 'off',
      rpcUrl: null,
      addresses: null,
      faucet: false,
      ready: false,
    });
    const addr = ANVIL_ACCOUNTS[3]!.address;
    for (const [method, url, body] of [
      ['POST', '/api/earnings', { address: addr }],
      ['POST', '/api/earnings/nonce', { address: addr }],
      ['GET', '/api/pool_state'],
      ['POST', '/api/chain/faucet', { address: addr }],
      ['POST', '/api/chain/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }],
      ['GET', `/api/chain/tx/0x${'ab'.repeat(32)}`],
      ['GET', '/api/earnings/history'],
    ] as const) {
      const res = await call(u, method, url, body);
      expect(res.status, url).toBe(404);
      expect(res.body.message, url).toBe(CHAIN_MESSAGES.chainOff);
    }
    // The spec's check comes first.
    expect((await call(u, 'POST', '/api/earnings', { address: 'x' })).body.message).toBe(
      EARNINGS_MESSAGES.invalidAddress,
    );
    const plans = await call(u, 'GET', '/api/plans');
    expect(plans.status).toBe(200);
    expect(plans.body.plans.map((p: { price_tokens: number }) => p.price_tokens)).toEqual([
      2_500, 7_500, 15_000,
    ]);
    expect((await call(u, 'POST', '/api/delete_wallet')).status).toBe(200);
  });

  it('answers hostile input below 500 on every chain call', async () => {
    const hostile: unknown[] = [
      null,
      [],
      { address: ['0x'] },
      { address: { $gt: '' } },
      { address: '0x' + 'f'.repeat(40), force: 'yes' },
      { address: 1e308 },
      [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }],
      'x'.repeat(1000),
    ];
    const routes: [string, string][] = [
      ['POST', '/api/earnings'],
      ['POST', '/api/delete_wallet'],
      ['POST', '/api/chain/faucet'],
      ['POST', '/api/chain/rpc'],
    ];
    for (const [method, url] of routes) {
      for (const body of hostile) {
        const res = await t.app.inject({
          method: method as 'POST',
          url,
          headers: { ...u.auth, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expect(res.statusCode, `${url} ${JSON.stringify(body).slice(0, 60)}`).toBeLessThan(500);
      }
    }
    for (const url of [
      '/api/chain/tx/%00',
      `/api/chain/tx/${'x'.repeat(300)}`,
      '/api/earnings/history?days=1e400',
      '/api/earnings/history?days=-1',
      '/api/plans?user_id=someone-else',
      '/api/pool_state?x=1',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: u.auth });
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
    }
  });
});
