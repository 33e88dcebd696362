import { describe, expect, it } from 'vitest';
import { CcxtVenue } from '../../src/live';

/**
 * OKX positions replayed at ccxt's fetch boundary: GET /api/v5/public/instruments?instType=SWAP and
 * GET /api/v5/account/positions, fields as in OKX's documentation examples
 * (https://www.okx.com/docs-v5/en/#trading-account-rest-api-get-positions), on BTC-USDT-SWAP, whose
 * contract is 0.01 BTC (ctVal).
 */

const INSTRUMENT = {
  alias: '',
  baseCcy: '',
  category: '1',
  ctMult: '1',
  ctType: 'linear',
  ctVal: '0.01',
  ctValCcy: 'BTC',
  expTime: '',
  instFamily: 'BTC-USDT',
  instId: 'BTC-USDT-SWAP',
  instType: 'SWAP',
  lever: '100',
  listTime: '1611916828000',
  lotSz: '0.01',
  maxIcebergSz: '100000000',
  maxLmtAmt: '20000000',
  maxLmtSz: '100000000',
  maxMktAmt: '',
  maxMktSz: '12000',
  maxStopSz: '12000',
  maxTriggerSz: '100000000',
  maxTwapSz: '100000000',
  minSz: '0.01',
  optType: '',
  quoteCcy: '',
  settleCcy: 'USDT',
  state: 'live',
  stk: '',
  tickSz: '0.1',
  uly: 'BTC-USDT',
};

/** 5 contracts (0.05 BTC) long at 95,000, 10x. */
function position(over: Record<string, unknown>): Record<string, unknown> {
  return {
    adl: '1',
    availPos: '5',
    avgPx: '95000',
    cTime: '1736900000000',
    ccy: 'USDT',
    deltaBS: '',
    deltaPA: '',
    gammaBS: '',
    gammaPA: '',
    idxPx: '95010',
    usdPx: '',
    bePx: '95047.5',
    instId: 'BTC-USDT-SWAP',
    instType: 'SWAP',
    interest: '',
    last: '95000',
    lever: '10',
    liab: '',
    liabCcy: '',
    markPx: '95000',
    mgnRatio: '',
    mmr: '1.9',
    notionalUsd: '4750',
    optVal: '',
    pTime: '1736942400000',
    pos: '5',
    posCcy: '',
    posId: '307173036051017730',
    posSide: 'net',
    spotInUseAmt: '',
    spotInUseCcy: '',
    thetaBS: '',
    thetaPA: '',
    tradeId: '109844',
    uTime: '1736942400000',
    upl: '0',
    uplLastPx: '0',
    uplRatio: '0',
    uplRatioLastPx: '0',
    vegaBS: '',
    vegaPA: '',
    realizedPnl: '0',
    pnl: '0',
    fee: '-2.375',
    fundingFee: '0',
    liqPenalty: '0',
    closeOrderAlgo: [],
    ...over,
  };
}

function okx(positions: unknown[]) {
  const fetchImplementation = (u: string): Promise<Response> => {
    const url = new URL(u);
    const p = url.pathname;
    let body: unknown;
    if (p === '/api/v5/public/instruments')
      body = { code: '0', msg: '', data: url.searchParams.get('instType') === 'SWAP' ? [INSTRUMENT] : [] };
    else if (p === '/api/v5/asset/currencies') body = { code: '0', msg: '', data: [] };
    else if (p === '/api/v5/account/positions') body = { code: '0', msg: '', data: positions };
    if (body === undefined)
      return Promise.resolve(
        new Response(JSON.stringify({ code: '50000', msg: `no stub ${p}`, data: [] }), { status: 404 }),
      );
    return Promise.resolve(
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }),
    );
  };
  return new CcxtVenue({
    exchange: 'okx',
    apiKey: 'k',
    secret: 's',
    password: 'p',
    fetchImplementation,
    ccxtOptions: { enableRateLimit: false },
  });
}

describe('OKX positions as reported (mgnMode, ctVal)', () => {
  it('isolated: its margin; cross: its initial margin (imr); contracts of 0.01 BTC → 0.05 BTC', async () => {
    const isolated = okx([position({ mgnMode: 'isolated', margin: '475', imr: '', liqPx: '86000.5' })]);
    const [a] = await isolated.fetchPositions(['BTC/USDT:USDT']);
    expect(a).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      side: 'long',
      marginMode: 'isolated',
      contracts: 5,
      contractSize: 0.01,
      amount: 0.05,
      collateral: 475,
      leverage: 10,
      liquidationPrice: 86000.5,
      settle: 'USDT',
    });
    await isolated.close();
    const cross = okx([position({ mgnMode: 'cross', margin: '', imr: '475', liqPx: '' })]);
    const [b] = await cross.fetchPositions(['BTC/USDT:USDT']);
    expect(b).toMatchObject({ marginMode: 'cross', collateral: 475, amount: 0.05, liquidationPrice: null });
    await cross.close();
  });
});
