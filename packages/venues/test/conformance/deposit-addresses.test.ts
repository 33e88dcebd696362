import { describe, expect, it } from 'vitest';
import { CcxtVenue } from '../../src/live';

/**
 * Deposit addresses with their network, replayed at ccxt's fetch boundary with MEXC spot v3 payloads
 * (the shapes of MEXC's documentation: GET /api/v3/capital/config/getall, "Query the currency
 * information", and GET /api/v3/capital/deposit/address, "Deposit Address (supporting network)",
 * https://mexcdevelop.github.io/apidocs/spot_v3_en/#wallet-endpoints). Nothing touches the internet.
 * Not ccxt's recorded deposit-address reply (ts/src/test/static/response/mexc.json @ 17e0370, "fetch USDT
 * address"): it predates the `netWork` field that ccxt 4.5.84's parseDepositAddress reads, so replayed
 * through ccxt 4.5.84 no address is found for any network (tried: InvalidAddress).
 */

const network = (over: Record<string, unknown>) => ({
  coin: 'USDT',
  depositDesc: null,
  depositEnable: true,
  minConfirm: 0,
  withdrawEnable: true,
  withdrawFee: '1.000000000000000000',
  withdrawIntegerMultiple: null,
  withdrawMax: '10000000.000000000000000000',
  withdrawMin: '10.000000000000000000',
  sameAddress: false,
  withdrawTips: null,
  depositTips: null,
  ...over,
});

/** USDT on Tron (TRC20) and Ethereum (ERC20), both open for deposits. */
const CONFIG_GETALL = [
  {
    coin: 'USDT',
    name: 'Tether',
    networkList: [
      network({
        name: 'Tron(TRC20)',
        network: 'Tron(TRC20)',
        netWork: 'TRX',
        contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      }),
      network({
        name: 'Ethereum(ERC20)',
        network: 'Ethereum(ERC20)',
        netWork: 'ETH',
        contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      }),
    ],
  },
];

const TRON_ADDRESS = 'TXzwGBAqBjs9m1BJEa2cvkYHfHUXTNmK8Y';

function fakeMexc() {
  const calls: URL[] = [];
  const fetchImplementation = (u: string): Promise<Response> => {
    const url = new URL(u);
    calls.push(url);
    const p = url.pathname;
    let body: unknown;
    if (p === '/api/v3/exchangeInfo')
      body = { timezone: 'CST', serverTime: 1736942400000, rateLimits: [], exchangeFilters: [], symbols: [] };
    else if (p === '/api/v3/capital/config/getall') body = CONFIG_GETALL;
    else if (p === '/api/v3/capital/deposit/address') {
      // Documented answer: one entry per network asked for (network required to get one address).
      const net = url.searchParams.get('network');
      body =
        net === 'Tron(TRC20)'
          ? [{ coin: 'USDT', network: 'Tron(TRC20)', netWork: 'TRX', address: TRON_ADDRESS, memo: null }]
          : [];
    } else if (url.hostname.startsWith('contract.') || p.startsWith('/api/v1/contract'))
      body = { success: true, code: 0, data: [] };
    if (body === undefined)
      return Promise.resolve(
        new Response(JSON.stringify({ code: 404, msg: `no stub ${p}` }), { status: 404 }),
      );
    return Promise.resolve(
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }),
    );
  };
  // No rate limiter: its cost-based wait (seconds for MEXC's contract list) is not under test here.
  const venue = new CcxtVenue({
    exchange: 'mexc',
    apiKey: 'k',
    secret: 's',
    fetchImplementation,
    ccxtOptions: { enableRateLimit: false },
  });
  return { venue, calls };
}

describe('deposit addresses with their network', () => {
  it('MEXC: the address is asked for on a network (the first taking deposits) and returned with it', async () => {
    const { venue, calls } = fakeMexc();
    const a = await venue.fetchDepositAddress('USDT');
    // Expected meaning: a Tron (TRC20) USDT address; sending ERC20 USDT to it would be lost.
    expect(a).toEqual({ currency: 'USDT', address: TRON_ADDRESS, tag: null, network: 'TRC20' });
    const asked = calls.find((u) => u.pathname === '/api/v3/capital/deposit/address');
    expect(asked?.searchParams.get('network')).toBe('Tron(TRC20)');
    // Currencies loaded once: a second address costs one call, not another currency list.
    await venue.fetchDepositAddress('USDT', 'TRC20');
    expect(calls.filter((u) => u.pathname === '/api/v3/capital/config/getall')).toHaveLength(1);
    await venue.close();
  });
});
