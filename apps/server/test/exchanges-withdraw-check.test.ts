import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawPermissionRule } from '@bytx/venues';
import {
  defaultVenueFactory,
  WITHDRAW_KEY_MESSAGE,
  withdrawUncheckedNotice,
} from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

/**
 * Issue 37 point 12: a key that can withdraw is refused on every exchange that shows a key's rights, each
 * with the payload its API documentation gives (the sources are in packages/venues/src/withdraw-permission.ts);
 * an exchange that does not show them connects with a notice. ccxt runs for real; only its fetch is replaced.
 */

type Json = Record<string, unknown>;
const json = (b: unknown, status = 200) =>
  new Response(JSON.stringify(b), { status, headers: { 'content-type': 'application/json' } });

const TRADE_KEY = 'tradeOnlyKey8Hn2Lq5Vz';
const WITHDRAW_KEY = 'withdrawKey4Jm7Rt1Xc';
const canWithdraw = (key: string) => key === WITHDRAW_KEY;

// https://bybit-exchange.github.io/docs/v5/user/apikey-info (response example; Wallet gains "Withdraw").
const bybitQueryApi = (key: string) => ({
  retCode: 0,
  retMsg: '',
  result: {
    id: '13770661',
    note: 'bot',
    apiKey: key,
    readOnly: 0,
    secret: '',
    permissions: {
      ContractTrade: ['Order', 'Position'],
      Spot: ['SpotTrade'],
      Wallet: canWithdraw(key) ? ['AccountTransfer', 'SubMemberTransfer', 'Withdraw'] : ['AccountTransfer'],
      Options: [],
      Derivatives: [],
      CopyTrading: [],
      BlockTrade: [],
      Exchange: [],
      NFT: [],
      Affiliate: [],
    },
    ips: ['*'],
    type: 1,
    deadlineDay: 66,
    expiredAt: '2023-12-22T07:20:51Z',
    createdAt: '2022-10-16T02:24:40Z',
    unified: 0,
    uta: 1,
    userID: 24617703,
    inviterID: 0,
    vipLevel: 'No VIP',
    mktMakerLevel: '0',
    affiliateID: 0,
    rsaPublicKey: '',
    isMaster: true,
    parentUid: '0',
    kycLevel: 'LEVEL_DEFAULT',
    kycRegion: '',
  },
  retExtInfo: {},
  time: 1697525990798,
});

// https://www.okx.com/docs-v5/en/#trading-account-rest-api-get-account-configuration (response example).
const okxConfig = (key: string) => ({
  code: '0',
  msg: '',
  data: [
    {
      acctLv: '2',
      autoLoan: false,
      ctIsoMode: 'automatic',
      greeksType: 'PA',
      level: 'Lv1',
      levelTmp: '',
      mgnIsoMode: 'automatic',
      posMode: 'long_short_mode',
      spotOffsetType: '',
      uid: '44705892343619584',
      label: 'V5 Test',
      roleType: '0',
      traderInsts: [],
      spotRoleType: '0',
      spotTraderInsts: [],
      opAuth: '0',
      kycLv: '3',
      ip: '120.255.24.182,49.245.196.13',
      perm: canWithdraw(key) ? 'read_only,withdraw,trade' : 'read_only,trade',
      mainUid: '444810535339712570',
    },
  ],
});

// https://docs.bitfinex.com/reference/key-permissions: [scope, read, write].
const bitfinexPermissions = (key: string) => [
  ['account', 0, 0],
  ['history', 1, 0],
  ['orders', 1, 1],
  ['positions', 0, 0],
  ['funding', 0, 0],
  ['settings', 0, 0],
  ['wallets', 1, 0],
  ['withdraw', 0, canWithdraw(key) ? 1 : 0],
];

// KuCoin's Get API Key Info example (GET /api/v1/user/api-key); the withdrawal right is "Withdrawal".
const kucoinApiKey = (key: string) => ({
  code: '200000',
  data: {
    remark: 'trading-bot',
    apiKey: key,
    apiVersion: 3,
    permission: canWithdraw(key) ? 'General,Spot,Withdrawal' : 'General,Spot',
    ipWhitelist: '198.51.100.42',
    createdAt: 1728905969000,
    uid: 123456789,
    isMaster: true,
  },
});

// BingX Query API Key Permissions: 1 spot trading, 2 read, 3 perpetual trading, 4 transfer, 5 withdraw.
const bingxPermissions = (key: string) => ({
  code: 0,
  msg: '',
  debugMsg: '',
  data: { permissions: canWithdraw(key) ? [1, 2, 3, 5] : [1, 2, 3] },
});

/** The key a signed request carries, whatever the exchange calls its header. */
function keyOf(init: Record<string, unknown>): string {
  const headers = Object.fromEntries(
    Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return (
    headers['x-bapi-api-key'] ??
    headers['ok-access-key'] ??
    headers['bfx-apikey'] ??
    headers['kc-api-key'] ??
    headers['x-bx-apikey'] ??
    ''
  );
}

/**
 * Each exchange's REST API behind ccxt's fetch: the permission endpoint answers its documented payload,
 * the balance answers 100 USDT, the market lists answer empty (the key check needs no market).
 */
function fakeExchanges() {
  const calls: string[] = [];
  const fetchImplementation = async (url: string, init: Record<string, unknown>): Promise<Response> => {
    await Promise.resolve();
    const u = new URL(url);
    calls.push(`${u.host}${u.pathname}`);
    const key = keyOf(init);
    if (u.host === 'api.bybit.com') {
      if (u.pathname === '/v5/user/query-api') return json(bybitQueryApi(key));
      if (u.pathname === '/v5/account/wallet-balance') {
        return json({
          retCode: 0,
          retMsg: 'OK',
          result: {
            list: [{ accountType: 'UNIFIED', coin: [{ coin: 'USDT', walletBalance: '100', locked: '0' }] }],
          },
          time: 1,
        });
      }
      return json({ retCode: 0, retMsg: 'OK', result: { list: [] }, time: 1 });
    }
    if (u.host === 'www.okx.com') {
      if (u.pathname === '/api/v5/account/config') return json(okxConfig(key));
      if (u.pathname === '/api/v5/account/balance') {
        return json({
          code: '0',
          msg: '',
          data: [{ details: [{ ccy: 'USDT', availBal: '100', eq: '100', frozenBal: '0' }] }],
        });
      }
      return json({ code: '0', msg: '', data: [] });
    }
    if (u.host === 'api.bitfinex.com') {
      if (u.pathname === '/v2/auth/r/permissions') return json(bitfinexPermissions(key));
      if (u.pathname === '/v2/auth/r/wallets') return json([['exchange', 'UST', 100, 0, 100, null, null]]);
    }
    if (u.host === 'api-pub.bitfinex.com') return json([[]]);
    if (u.host === 'api.kucoin.com' || u.host === 'api-futures.kucoin.com') {
      if (u.pathname === '/api/v1/user/api-key') return json(kucoinApiKey(key));
      if (u.pathname === '/api/v1/accounts') {
        return json({
          code: '200000',
          data: [{ id: '1', currency: 'USDT', type: 'trade', balance: '100', available: '100', holds: '0' }],
        });
      }
      return json({ code: '200000', data: [] });
    }
    if (u.host === 'open-api.bingx.com') {
      if (u.pathname === '/openApi/v1/account/apiPermissions') return json(bingxPermissions(key));
      if (u.pathname === '/openApi/spot/v1/account/balance') {
        return json({ code: 0, msg: '', data: { balances: [{ asset: 'USDT', free: '100', locked: '0' }] } });
      }
      return json({ code: 0, msg: '', data: [] });
    }
    if (u.host === 'api.kraken.com') {
      if (u.pathname === '/0/private/BalanceEx')
        return json({ error: [], result: { USDT: { balance: '100', hold_trade: '0' } } });
      return json({ error: [], result: {} });
    }
    return json({ error: `not recorded: ${url}` }, 404);
  };
  return { fetchImplementation, calls };
}

describe('withdrawal check on every exchange that shows a key’s rights', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  const fake = fakeExchanges();

  beforeAll(async () => {
    t = await makeTestApp();
    (t.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(t.ctx, {
      fetchImplementation: fake.fetchImplementation,
    });
    user = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  const connect = (payload: Json) =>
    t.app.inject({ method: 'POST', url: '/api/conectar_exchange', payload, headers: user.auth });
  const stored = async (exchange: string) =>
    (
      await t.ctx.database.sql.query(
        `SELECT 1 FROM exchange_connections WHERE user_id = $1 AND exchange = $2`,
        [user.id, exchange],
      )
    ).length;

  const cases = [
    { exchange: 'bybit', endpoint: 'api.bybit.com/v5/user/query-api' },
    { exchange: 'okx', endpoint: 'www.okx.com/api/v5/account/config', password: 'passphrase-1' },
    { exchange: 'bitfinex', endpoint: 'api.bitfinex.com/v2/auth/r/permissions' },
    { exchange: 'kucoin', endpoint: 'api.kucoin.com/api/v1/user/api-key', password: 'passphrase-2' },
    { exchange: 'bingx', endpoint: 'open-api.bingx.com/openApi/v1/account/apiPermissions' },
  ];

  for (const c of cases) {
    it(`${c.exchange}: refuses a key that can withdraw, storing nothing`, async () => {
      fake.calls.length = 0;
      const res = await connect({
        exchange: c.exchange,
        apiKey: WITHDRAW_KEY,
        apiSecret: 'c2VjcmV0LXdpdGhkcmF3',
        ...(c.password ? { password: c.password } : {}),
      });
      expect(res.json<Json>()).toMatchObject({ success: false, error: WITHDRAW_KEY_MESSAGE });
      expect(res.statusCode).toBe(400);
      expect(fake.calls).toContain(c.endpoint);
      expect(await stored(c.exchange)).toBe(0);
    });

    it(`${c.exchange}: accepts a trade-only key and says it was checked`, async () => {
      const res = await connect({
        exchange: c.exchange,
        apiKey: TRADE_KEY,
        apiSecret: 'c2VjcmV0LXRyYWRl',
        ...(c.password ? { password: c.password } : {}),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json<Json>()).toMatchObject({ success: true, mode: 'live', withdraw_check: 'checked' });
      expect(res.json<Json>().notice).toBeUndefined();
      expect(await stored(c.exchange)).toBe(1);
    });
  }

  it('an exchange that does not show a key’s rights connects with a notice saying so', async () => {
    expect(withdrawPermissionRule('kraken', false)).toBeUndefined();
    const res = await connect({ exchange: 'kraken', apiKey: TRADE_KEY, apiSecret: 'c2VjcmV0LWtyYWtlbg==' });
    expect(res.statusCode).toBe(200);
    expect(res.json<Json>()).toMatchObject({
      success: true,
      withdraw_check: 'unchecked',
      notice: withdrawUncheckedNotice('Kraken'),
    });
  });

  it('an answer that does not say is not taken as a yes or a no', () => {
    const rule = withdrawPermissionRule('okx', false);
    expect(rule?.canWithdraw({ code: '0', data: [] })).toBeNull();
    expect(withdrawPermissionRule('bybit', false)?.canWithdraw({ result: {} })).toBeNull();
    expect(withdrawPermissionRule('bitfinex', false)?.canWithdraw({})).toBeNull();
    expect(withdrawPermissionRule('kucoin', false)?.canWithdraw({ code: '200000', data: [] })).toBeNull();
    expect(withdrawPermissionRule('bingx', false)?.canWithdraw({ code: 0, data: {} })).toBeNull();
    expect(
      withdrawPermissionRule('bingx', false)?.canWithdraw({ code: 0, data: { permissions: ['5'] } }),
    ).toBe(true);
    // Binance's spot testnet has no sapi: not checked there.
    expect(withdrawPermissionRule('binance', true)).toBeUndefined();
    expect(withdrawPermissionRule('bybit', true)).toBeDefined();
  });
});
