/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { BOT_PROBLEMS, DCA_MESSAGES, fillMessage } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/modules/bots/routes';
import { until } from './bots.helpers';
import { DASHBOARD_CALLS, apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const BTC = 'BTC/USDT';
const ETH = 'ETH/USDT';

/** Characters that must never make a symbol match another: every C0 and C1 control, DEL, direction marks and overrides, zero-width and other invisible or non-ASCII spaces. */
const INVISIBLE = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)),
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\u3000',
];
/** Whole symbols that look like BTC/USDT or name it another way. */
const LOOKALIKES = [
  'ВТС/USDT',
  'BTC／USDT',
  'btc/usdt',
  'Btc/Usdt',
  'BTCUSDT',
  'BTC-USDT',
  'BTC/USDT:USDT',
  'BTC /USDT',
];

function variants(): string[] {
  const out: string[] = [...LOOKALIKES];
  for (const c of INVISIBLE) {
    // ASCII whitespace around the symbol is trimmed (and so matches): put those inside only.
    const asciiSpace = ' \t\n\r\f\v'.includes(c);
    if (!asciiSpace) out.push(`${c}${BTC}`, `${BTC}${c}`);
    out.push(`BTC/${c}USDT`);
  }
  return out;
}

describe('one broken bot never breaks anything else', () => {
  let t: TestApp;
  let alice: User;

  const call = apiCaller(() => t.app);
  const setPrice = async (symbol: string, price: number) =>
    expect((await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price })).status).toBe(
      200,
    );
  const delist = async (symbol: string, listed: boolean) =>
    expect(
      (await call(null, 'POST', '/api/dev/market/delist', { exchange: EX, symbol, listed })).status,
    ).toBe(200);
  const bots = async () => (await call(alice, 'GET', '/api/bots_activos_dca')).body.bots as Json[];
  const botOf = async (symbol: string) => (await bots()).find((b) => b.symbol === symbol);
  const openOrders = async (symbol: string) =>
    Number(
      (
        await t.ctx.database.sql.query(
          `SELECT count(*)::int AS n FROM paper_orders WHERE status = 'open' AND data->>'symbol' = $1`,
          [symbol],
        )
      )[0]!.n,
    );
  /** Every ordinary call of the user answers 2xx. */
  const allAnswer = async () => {
    for (const [m, u, b] of DASHBOARD_CALLS) expect((await call(alice, m, u, b)).status, u).toBeLessThan(300);
  };
  const start = (symbol: string, over: Json = {}) =>
    call(alice, 'POST', '/api/start_bot_dca', {
      exchange: EX,
      symbol,
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
      ...over,
    });

  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    alice = await createTestUser(t);
    expect(
      (await call(alice, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' })).status,
    ).toBe(200);
    await setPrice(BTC, 50_000);
    await setPrice(ETH, 3_000);
  });
  afterAll(async () => t.close());

  it('takes a symbol only as the exchange lists it: every invisible character and lookalike is refused', async () => {
    const notAvailable = fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: 'Binance' });
    const refused: string[] = [];
    for (const symbol of variants()) {
      const r = await start(symbol);
      if (r.status !== 400) refused.push(`${JSON.stringify(symbol)} → ${r.status}`);
      else if (r.body.error !== notAvailable && !/control character/.test(r.body.error))
        refused.push(`${JSON.stringify(symbol)}: ${r.body.error}`);
    }
    expect(refused).toEqual([]);
    expect(await bots()).toEqual([]);
    // ASCII whitespace around it is trimmed; the venue's own string is what is stored.
    const ok = await start(`  ${BTC}\t`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await bots()).map((b) => b.symbol)).toEqual([BTC]);

    // Every other call that takes a symbol: never acts on the real bot, never a 5xx.
    const acted: string[] = [];
    for (const symbol of variants()) {
      const pair = { exchange: EX, symbol };
      for (const [url, body] of [
        ['/api/stop_bot_dca', { ...pair, mode: 'cancel_only' }],
        ['/api/actualizar_bot_dca', { ...pair, sl: 1000 }],
        ['/api/update_sl', { ...pair, sl: 1000 }],
        ['/api/update_tp_plus', { ...pair, tp_plus: 900_000 }],
        ['/api/dca/ra/toggle', { ...pair, enabled: true }],
        ['/api/dca/relocate', pair],
        ['/api/min_cost', pair],
        ['/api/set_leverage', { ...pair, leverage: 3 }],
        ['/api/pnls_actuales', { bots: [pair] }],
      ] as const) {
        const r = await call(alice, 'POST', url, body);
        const okAnswer =
          (url === '/api/pnls_actuales' && r.status === 200 && r.body.pnls.length === 0) ||
          (r.status >= 400 && r.status < 500);
        if (!okAnswer)
          acted.push(
            `${url} ${JSON.stringify(symbol)} → ${r.status} ${JSON.stringify(r.body).slice(0, 120)}`,
          );
      }
      const q = await call(
        alice,
        'GET',
        `/api/dca/pending_orders?exchange=${EX}&symbol=${encodeURIComponent(symbol)}`,
      );
      if (q.status >= 500 || (q.status === 200 && q.body.total !== 0))
        acted.push(`pending_orders ${JSON.stringify(symbol)} → ${q.status}`);
    }
    expect(acted).toEqual([]);
    const bot = await botOf(BTC);
    expect([bot?.sl, bot?.tp_plus, bot?.ra_enabled, bot?.status]).toEqual([null, null, false, 'active']);
    await allAnswer();
    expect(
      (await call(alice, 'POST', '/api/stop_bot_dca', { exchange: EX, symbol: BTC, mode: 'cancel_only' }))
        .status,
    ).toBe(200);
  });

  it('ends a start whose first order the venue refuses: error with the reason, no pair lock, can start again', async () => {
    // The pair is delisted between the start's checks and its first order (fault injection at the
    // moment the runner takes the user's venue): the entry is refused by the venue.
    const SOL = 'SOL/USDT';
    const venues = t.ctx.services.venues!;
    const forUser = venues.forUser.bind(venues);
    let armed = true;
    venues.forUser = async (userId, exchange) => {
      if (armed) {
        armed = false;
        t.ctx.services.simulator!.setListed(EX, SOL, false);
      }
      return forUser(userId, exchange);
    };
    try {
      const r = await start(SOL);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toMatch(/^Failed to start the Bot: /);
    } finally {
      venues.forUser = forUser;
      t.ctx.services.simulator!.setListed(EX, SOL, true);
    }
    expect(await botOf(SOL)).toBeUndefined();
    const closed = (await call(alice, 'GET', '/api/historial')).body.historial as Json[];
    const failed = closed.find((b) => b.symbol === SOL);
    expect(failed).toBeDefined();
    const events = (await call(alice, 'GET', `/api/bots/${failed!.id}/events`)).body.events as Json[];
    expect(events.map((e) => e.code)).toContain('start_failed');
    expect(await openOrders(SOL)).toBe(0);
    await allAnswer();
    // No lock is left on the pair: the same start works now.
    const again = await start(SOL);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(
      (await call(alice, 'POST', '/api/stop_bot_dca', { exchange: EX, symbol: SOL, mode: 'cancel_only' }))
        .status,
    ).toBe(200);
    expect((await start(ETH)).status).toBe(200);
  });

  it('pauses a bot whose pair is delisted, keeps its lots, lets the others trade, and resumes it on relisting', async () => {
    expect((await start(BTC)).status).toBe(200);
    const runner = runners.get(t.ctx)!;
    await runner.idle();
    const before = (await botOf(BTC))!;
    expect(before.open_lots).toBe(1);
    expect(await openOrders(BTC)).toBe(4); // the take-profit and three ladder buys

    await delist(BTC, false);
    const paused = await until(async () => {
      const b = await botOf(BTC);
      return b?.problem === 'pair_delisted' ? b : null;
    });
    expect(paused.status).toBe('error');
    expect(paused.reason).toEqual(BOT_PROBLEMS.pair_delisted);
    expect(paused.open_lots).toBe(1);
    expect(paused.waiting_buys).toBe(0);
    expect(await openOrders(BTC)).toBe(0);
    const events = (await call(alice, 'GET', `/api/bots/${paused.id}/events`)).body.events as Json[];
    expect(events.map((e) => e.code)).toContain('pair_delisted');
    // Nothing else is affected: every call answers, and the ETH bot still fills a ladder buy.
    await allAnswer();
    const resumed = await call(alice, 'POST', '/api/reanudar_bots_activos', {});
    expect(resumed.body.problems).toEqual([
      expect.objectContaining({ symbol: BTC, problem: 'pair_delisted' }),
    ]);
    await setPrice(ETH, 2_960);
    await until(async () => ((await botOf(ETH))?.open_lots === 2 ? true : null));
    // Selling is impossible on a delisted pair; stopping keeping assets is not.
    const sell = await call(alice, 'POST', '/api/stop_bot_dca', {
      exchange: EX,
      symbol: BTC,
      mode: 'close_market',
    });
    expect(sell.status).toBe(400);
    expect(sell.body.error).toBe(DCA_MESSAGES.delistedStopKeepsAssets);

    await delist(BTC, true);
    const back = await until(async () => {
      const b = await botOf(BTC);
      return b && b.problem === null && b.status === 'active' ? b : null;
    });
    expect(back.open_lots).toBe(1);
    await until(async () => ((await openOrders(BTC)) === 4 ? true : null));

    // Delisted again, it can still be stopped keeping assets, and its history read.
    await delist(BTC, false);
    await until(async () => ((await botOf(BTC))?.problem === 'pair_delisted' ? true : null));
    const stop = await call(alice, 'POST', '/api/stop_bot_dca', {
      exchange: EX,
      symbol: BTC,
      mode: 'cancel_only',
    });
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(await botOf(BTC)).toBeUndefined();
    expect((await call(alice, 'GET', `/api/dca/history?bot_id=${back.id}`)).status).toBe(200);
    expect(await openOrders(BTC)).toBe(0);
    await delist(BTC, true);
  });

  it('lists a bot whose stored state is damaged as error and answers every call for the others', async () => {
    expect((await start(BTC)).status).toBe(200);
    const id = (await botOf(BTC))!.id as string;
    const runner = runners.get(t.ctx)!;
    await runner.idle();
    runner.drop(id);
    await t.ctx.database.sql.query(`UPDATE bots SET state = '{"broken": true}'::jsonb WHERE id = $1`, [id]);
    const r = await call(alice, 'POST', '/api/reanudar_bots_activos', {});
    expect(r.status).toBe(200);
    const listed = await botOf(BTC);
    expect(listed?.status).toBe('error');
    await allAnswer();
    expect((await botOf(ETH))?.status).toBe('active');
  });
});
