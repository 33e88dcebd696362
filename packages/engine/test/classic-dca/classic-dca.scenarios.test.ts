/**
 * Classic DCA scenarios (default config of classic-helpers: 100 USDT, TP 1%, sep 2%, 3 OS, step 0.0001 /
 * 0.01, min cost 5). Base at 100: b-1 (1 BTC, fee 0.1); safeties b-2 98, b-3 96.04, b-4 94.11; TP b-5 at
 * 100.1 × 1.01 = 101.101 → 101.11.
 */
import { describe, expect, it } from 'vitest';
import {
  ClassicDcaConfigError,
  classicDca,
  createClassicDca,
  summarizeClassicDca,
  type ClassicDcaState,
  type StrategyEvent,
} from '../../src/index';
import {
  cancels,
  candles,
  classicConfig,
  codes,
  create,
  drive,
  logs,
  places,
  stops,
  trades,
} from './classic-helpers';

const T0 = 600_000; // minute 10

/** A bot holding the base (1 BTC at 100, fee 0.1) with its safeties and TP resting. */
function inPosition(overrides = {}): ClassicDcaState {
  return drive(create(overrides), [
    { type: 'tick', price: 100, ts: T0 },
    { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 1, fee: 0.1, ts: T0 },
  ]).state;
}

describe('trend filter', () => {
  const end = 60_000 * 100;
  it('waits while the last close is below the MA (logged once), starts above it', () => {
    // closes 100, 99, 98, 97, 96: MA(5) = 98 > 96.
    const s0 = create(
      { trendFilter: true, maPeriod: 5 },
      candles(5, (i) => 100 - i, end),
    );
    let d = drive(s0, [
      { type: 'tick', price: 96, ts: end + 1000 },
      { type: 'tick', price: 97, ts: end + 2000 },
      { type: 'tick', price: 95, ts: end + 3000 },
    ]);
    expect(places(d.commands)).toEqual([]);
    expect(logs(d.commands).filter((l) => l.code === 'trend_wait')).toEqual([
      { type: 'log', level: 'info', code: 'trend_wait', params: { close: 96, ma: 98 } },
    ]);
    expect(summarizeClassicDca(d.state, 95).waitingFor).toBe('trend');
    // The minute closes at 120: closes 99, 98, 97, 96, 120 → MA 102 < 120: the base goes.
    d = drive(d.state, [{ type: 'tick', price: 120, ts: end + 30_000 }]);
    expect(places(d.commands)).toEqual([]);
    d = drive(d.state, [{ type: 'tick', price: 121, ts: end + 60_000 }]);
    expect(codes(d.commands)).toEqual(['trend_ok', 'cycle_started']);
    expect(logs(d.commands)[0]!.params).toEqual({ close: 120, ma: 102 });
    expect(places(d.commands).map((p) => [p.role, p.orderType, p.quoteAmount, p.amount])).toEqual([
      ['base', 'market', 100, 0.8264],
    ]);
  });

  it('warms up with too few candles (logged once), then decides', () => {
    const s0 = create(
      { trendFilter: true, maPeriod: 3 },
      candles(1, () => 100, end),
    );
    let d = drive(s0, [
      { type: 'tick', price: 100, ts: end + 1000 },
      { type: 'tick', price: 101, ts: end + 61_000 }, // closes the candle: 2 of 3
    ]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['trend_warming', { have: 1, need: 3 }],
    ]);
    expect(summarizeClassicDca(d.state, 101).waitingFor).toBe('candles');
    d = drive(d.state, [{ type: 'tick', price: 102, ts: end + 121_000 }]); // 3 closes: 100, 101, 101 → ok
    expect(codes(d.commands)).toEqual(['trend_ok', 'cycle_started']);
    expect(places(d.commands)).toHaveLength(1);
  });

  it('goes at the first tick with the filter off', () => {
    const d = drive(create(), [{ type: 'tick', price: 100, ts: 1 }]);
    expect(codes(d.commands)).toEqual(['cycle_started']);
    expect(places(d.commands)[0]!.role).toBe('base');
  });

  it('builds one-minute candles from ticks and keeps maPeriod + 2 closed ones', () => {
    let s = create({ maPeriod: 2 });
    s = drive(s, [
      { type: 'tick', price: 100, ts: 60_000 },
      { type: 'tick', price: 103, ts: 70_000 },
      { type: 'tick', price: 99, ts: 110_000 },
    ]).state;
    expect(s.forming).toEqual({ t: 60_000, o: 100, h: 103, l: 99, c: 99 });
    for (let m = 2; m <= 8; m++) s = drive(s, [{ type: 'tick', price: 100 + m, ts: m * 60_000 }]).state;
    expect(s.candles.map((c) => c.t)).toEqual([240_000, 300_000, 360_000, 420_000]);
    expect(s.candles[0]).toEqual({ t: 240_000, o: 104, h: 104, l: 104, c: 104 });
  });
});

describe('smart averaging', () => {
  const ticks: StrategyEvent[] = [
    { type: 'tick', price: 97, ts: T0 + 60_000 }, // closes minute 10 (c 100)
    { type: 'tick', price: 95.5, ts: T0 + 120_000 }, // closes minute 11 (c 97)
    { type: 'tick', price: 95, ts: T0 + 150_000 },
    { type: 'tick', price: 96, ts: T0 + 180_000 }, // closes minute 12 (c 95, h 95.5): 95 < 97 h — no
  ];
  it('buys smartAmount at market on a confirmed reversal candle below the average', () => {
    const s = inPosition({ smartAveraging: true });
    let d = drive(s, ticks);
    expect(places(d.commands)).toEqual([]);
    // closes minute 13 (c 96 > previous high 95.5, previous close 95 < 97, 96 < average 100.1)
    d = drive(d.state, [{ type: 'tick', price: 96, ts: T0 + 240_000 }]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['smart_buy', { close: 96, high: 95.5 }],
    ]);
    expect(places(d.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-6',
        side: 'buy',
        orderType: 'market',
        amount: 0.1041,
        quoteAmount: 10,
        role: 'smart_buy',
      },
    ]);
    // Its fill moves the TP: (100.1 + 9.9936 + 0.0099936) / 1.1041 × 1.01 = 99.7224… × 1.01 = 100.7196… → 100.72
    d = drive(d.state, [
      {
        type: 'order_filled',
        clientOrderId: 'b-6',
        price: 96,
        amount: 0.1041,
        fee: 0.0099936,
        ts: T0 + 240_000,
      },
    ]);
    expect(cancels(d.commands)).toEqual(['b-5']);
    d = drive(d.state, [{ type: 'order_cancelled', clientOrderId: 'b-5', ts: T0 + 240_000 }]);
    expect(places(d.commands).map((p) => [p.role, p.price, p.amount])).toEqual([
      ['take_profit', 100.72, 1.1041],
    ]);
  });

  it('skips a smart buy below the minimum cost', () => {
    const s = inPosition({ smartAveraging: true, smartAmount: 3 });
    const d = drive(s, [...ticks, { type: 'tick', price: 96, ts: T0 + 240_000 }]);
    expect(places(d.commands)).toEqual([]);
    expect(logs(d.commands).map((l) => [l.code, l.params.reason])).toEqual([
      ['smart_buy_skipped', 'min_cost'],
    ]);
  });

  it('does nothing with smart averaging off', () => {
    const d = drive(inPosition(), [...ticks, { type: 'tick', price: 96, ts: T0 + 240_000 }]);
    expect(d.commands).toEqual([]);
  });
});

/** Safety L1 (b-2) fills at 98; the TP b-5 is moved to b-6 at 100.08. */
function afterSafety(overrides = {}): ClassicDcaState {
  return drive(inPosition(overrides), [
    { type: 'tick', price: 98, ts: T0 + 1000 },
    { type: 'order_filled', clientOrderId: 'b-2', price: 98, amount: 1.0204, fee: 0.0999992, ts: T0 + 1000 },
    { type: 'order_cancelled', clientOrderId: 'b-5', ts: T0 + 1000 },
  ]).state;
}

describe('safety orders', () => {
  it('rOs on re-arms a filled level once the price is above it', () => {
    const s = afterSafety({ rOs: true });
    expect(s.orders.map((o) => o.clientOrderId)).toEqual(['b-3', 'b-4', 'b-6']);
    let d = drive(s, [{ type: 'tick', price: 98, ts: T0 + 2000 }]);
    expect(places(d.commands)).toEqual([]);
    d = drive(d.state, [{ type: 'tick', price: 98.01, ts: T0 + 3000 }]);
    expect(codes(d.commands)).toEqual(['safety_rearmed']);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.price, p.amount, p.level])).toEqual([
      ['b-7', 'safety', 98, 1.0204, 1],
    ]);
  });

  it('rOs off buys each level once per cycle', () => {
    const d = drive(afterSafety(), [{ type: 'tick', price: 99.5, ts: T0 + 3000 }]);
    expect(d.commands).toEqual([]);
    expect(summarizeClassicDca(d.state, 99.5)).toMatchObject({ safetyFilled: 1, safetyResting: 2 });
  });

  it('a partial safety fill moves the TP for the new average', () => {
    let d = drive(inPosition(), [
      {
        type: 'order_partially_filled',
        clientOrderId: 'b-2',
        filled: 0.5,
        price: 98,
        fee: 0.049,
        ts: T0 + 1000,
      },
    ]);
    expect(cancels(d.commands)).toEqual(['b-5']);
    d = drive(d.state, [{ type: 'order_cancelled', clientOrderId: 'b-5', ts: T0 + 1000 }]);
    // (100.1 + 49 + 0.049) / 1.5 × 1.01 = 99.4326… × 1.01 = 100.4270… → 100.43
    expect(places(d.commands).map((p) => [p.price, p.amount])).toEqual([[100.43, 1.5]]);
  });

  it('a level below the minimum cost is skipped with one log', () => {
    const f = drive(createClassicDca('b', classicConfig({ amount: 5.001, sepPct: 5 })), [
      { type: 'tick', price: 100, ts: T0 },
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.05, fee: 0, ts: T0 },
      { type: 'tick', price: 100, ts: T0 + 1 },
    ]);
    // L1 = 95: 5.001 / 95 = 0.052642 → 0.0526 × 95 = 4.997 < 5; L2 = 90.25 → 0.0554 × 90.25 = 4.99985;
    // L3 = 85.7375 → 85.73 → 0.0583 × 85.73 = 4.998: each skipped, logged once (not again at the next tick).
    expect(
      logs(f.commands)
        .filter((l) => l.code === 'below_min_cost')
        .map((l) => [l.params.role, l.params.level]),
    ).toEqual([
      ['safety', 1],
      ['safety', 2],
      ['safety', 3],
    ]);
  });
});

describe('cycles', () => {
  it('r on starts a new cycle after the TP and the cancels', () => {
    let d = drive(afterSafety({ r: true }), [
      { type: 'tick', price: 100.08, ts: T0 + 5000 },
      {
        type: 'order_filled',
        clientOrderId: 'b-6',
        price: 100.08,
        amount: 2.0204,
        fee: 0.202201632,
        ts: T0 + 5000,
      },
    ]);
    expect(trades(d.commands).map((t) => t.lotId)).toEqual(['b-c1']);
    expect(cancels(d.commands)).toEqual(['b-3', 'b-4']);
    expect(places(d.commands)).toEqual([]);
    d = drive(d.state, [
      { type: 'order_cancelled', clientOrderId: 'b-3', ts: T0 + 5000 },
      { type: 'order_cancelled', clientOrderId: 'b-4', ts: T0 + 5000 },
    ]);
    expect(stops(d.commands)).toEqual([]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.amount])).toEqual([
      ['b-7', 'base', 0.9992],
    ]);
    expect(d.state.cycle).toBe(2);
    expect(summarizeClassicDca(d.state, 100.08)).toMatchObject({
      cycles: 1,
      phase: 'in_position',
      realizedPnl: 1.800231168,
    });
  });

  it('r off stops with cycle_done once the cancels are answered', () => {
    let d = drive(inPosition(), [
      { type: 'tick', price: 101.11, ts: T0 + 5000 },
      { type: 'order_filled', clientOrderId: 'b-5', price: 101.11, amount: 1, fee: 0.10111, ts: T0 + 5000 },
    ]);
    // pnl = 101.11 − 100 − 0.1 − 0.10111 = 0.90889
    expect(trades(d.commands)).toEqual([
      {
        lotId: 'b-c1',
        qty: 1,
        buyPrice: 100,
        sellPrice: 101.11,
        buyTime: T0,
        sellTime: T0 + 5000,
        buyFee: 0.1,
        sellFee: 0.10111,
        pnlNet: 0.90889,
      },
    ]);
    d = drive(
      d.state,
      ['b-2', 'b-3', 'b-4'].map(
        (id) => ({ type: 'order_cancelled', clientOrderId: id, ts: T0 + 5000 }) as const,
      ),
    );
    expect(stops(d.commands)).toEqual(['cycle_done']);
    expect(classicDca.realizedPnl(d.state)).toBe('0.90889');
  });
});

describe('SL / TP+ and stops', () => {
  it('SL sells the position at market after the cancels and stops sl_hit', () => {
    let d = drive(inPosition(), [
      { type: 'set_sl', sl: 90, ts: T0 },
      { type: 'tick', price: 90, ts: T0 + 1000 },
    ]);
    expect(codes(d.commands)).toEqual(['sl_set', 'sl_hit', 'stopping']);
    expect(cancels(d.commands)).toEqual(['b-2', 'b-3', 'b-4', 'b-5']);
    expect(places(d.commands)).toEqual([]);
    d = drive(
      d.state,
      ['b-2', 'b-3', 'b-4', 'b-5'].map(
        (id) => ({ type: 'order_cancelled', clientOrderId: id, ts: T0 + 1000 }) as const,
      ),
    );
    expect(places(d.commands).map((p) => [p.side, p.orderType, p.amount, p.role])).toEqual([
      ['sell', 'market', 1, 'close'],
    ]);
    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'b-6', price: 90, amount: 1, fee: 0.09, ts: T0 + 1000 },
    ]);
    // pnl = 90 − 100 − 0.1 − 0.09 = −10.19
    expect(trades(d.commands).map((t) => t.pnlNet)).toEqual([-10.19]);
    expect(stops(d.commands)).toEqual(['sl_hit']);
  });

  it('TP+ with no position just stops', () => {
    const d = drive(create({ trendFilter: true, maPeriod: 5 }), [
      { type: 'set_tp_plus', tpPlus: 110, ts: 0 },
      { type: 'tick', price: 100, ts: 1000 },
      { type: 'tick', price: 110, ts: 2000 },
    ]);
    expect(codes(d.commands)).toEqual(['tp_plus_set', 'trend_warming', 'tp_plus_hit', 'stopping']);
    expect(stops(d.commands)).toEqual(['tp_plus_hit']);
  });

  it('cancel_only keeps the position in residual', () => {
    let d = drive(afterSafety(), [{ type: 'stop', mode: 'cancel_only', ts: T0 + 9000 }]);
    expect(cancels(d.commands)).toEqual(['b-3', 'b-4', 'b-6']);
    d = drive(
      d.state,
      ['b-3', 'b-4', 'b-6'].map(
        (id) => ({ type: 'order_cancelled', clientOrderId: id, ts: T0 + 9000 }) as const,
      ),
    );
    expect(stops(d.commands)).toEqual(['user_cancel_only']);
    expect(trades(d.commands)).toEqual([]);
    expect(d.state.residual).toEqual({ qty: 2.0204, cost: '200.1991992', buyTime: T0 });
  });

  it('close_market sells at market, records the cycle and stops', () => {
    let d = drive(afterSafety(), [
      { type: 'tick', price: 99, ts: T0 + 9000 },
      { type: 'stop', mode: 'close_market', ts: T0 + 9000 },
    ]);
    d = drive(
      d.state,
      ['b-3', 'b-4', 'b-6'].map(
        (id) => ({ type: 'order_cancelled', clientOrderId: id, ts: T0 + 9000 }) as const,
      ),
    );
    expect(places(d.commands).map((p) => [p.clientOrderId, p.orderType, p.amount, p.lotId])).toEqual([
      ['b-7', 'market', 2.0204, 'b-c1'],
    ]);
    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'b-7', price: 99, amount: 2.0204, fee: 0.1999, ts: T0 + 9000 },
    ]);
    // pnl = 2.0204 × 99 − 199.9992 − 0.1999992 − 0.1999 = 200.0196 − 200.3990992 = −0.3794992
    expect(trades(d.commands).map((t) => [t.qty, t.sellPrice, t.pnlNet])).toEqual([[2.0204, 99, -0.3794992]]);
    expect(stops(d.commands)).toEqual(['user_close_market']);
    expect(d.state.residual).toBeNull();
  });
});

describe('user actions', () => {
  it('add_funds buys at market and moves the TP', () => {
    let d = drive(inPosition(), [
      { type: 'tick', price: 99, ts: T0 + 1000 },
      { type: 'action', name: 'add_funds', params: { amount: 50 }, ts: T0 + 1000 },
    ]);
    expect(places(d.commands).map((p) => [p.role, p.orderType, p.quoteAmount, p.amount])).toEqual([
      ['add_funds', 'market', 50, 0.505],
    ]);
    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'b-6', price: 99, amount: 0.505, fee: 0.049995, ts: T0 + 1000 },
    ]);
    expect(cancels(d.commands)).toEqual(['b-5']);
    d = drive(d.state, [{ type: 'order_cancelled', clientOrderId: 'b-5', ts: T0 + 1000 }]);
    // (100.1 + 49.995 + 0.049995) / 1.505 × 1.01 = 100.7624… → 100.77
    expect(places(d.commands).map((p) => [p.role, p.price, p.amount])).toEqual([
      ['take_profit', 100.77, 1.505],
    ]);
  });

  it('refuses bad values and add_funds without a position', () => {
    const s = drive(create({ trendFilter: true }), [{ type: 'tick', price: 100, ts: 1 }]).state;
    for (const [name, params] of [
      ['add_funds', { amount: 10 }],
      ['set_r', { enabled: 'yes' }],
      ['set_r_os', {}],
      ['set_tp_vnc', { pct: 0.3 }],
      ['nope', {}],
    ] as const) {
      const d = drive(s, [{ type: 'action', name, params, ts: 2 }]);
      expect(codes(d.commands)).toEqual(['invalid_value']);
      expect(d.state).toEqual(s);
    }
    const p = inPosition();
    const bad = drive(p, [{ type: 'action', name: 'add_funds', params: { amount: -5 }, ts: T0 }]);
    expect(logs(bad.commands).map((l) => l.params)).toEqual([{ field: 'amount' }]);
  });

  it('set_r, set_r_os and set_tp_vnc change the config', () => {
    const d = drive(inPosition(), [
      { type: 'action', name: 'set_r', params: { enabled: true }, ts: T0 },
      { type: 'action', name: 'set_r_os', params: { enabled: true }, ts: T0 },
      { type: 'action', name: 'set_tp_vnc', params: { pct: 2 }, ts: T0 },
    ]);
    expect(codes(d.commands)).toEqual(['r_set', 'r_os_set', 'tp_vnc_set']);
    expect(d.state.config).toMatchObject({ r: true, rOs: true, tpVncPct: 2 });
  });
});

describe('rejections', () => {
  it('insufficient funds on a safety backs off, then retries', () => {
    let d = drive(inPosition(), [
      { type: 'order_rejected', clientOrderId: 'b-3', reason: 'insufficient_funds', ts: T0 + 1000 },
      { type: 'tick', price: 100, ts: T0 + 5000 },
    ]);
    expect(logs(d.commands)[0]).toMatchObject({
      code: 'insufficient_funds',
      params: { role: 'safety', level: 2, retry_in_s: 10 },
    });
    expect(places(d.commands)).toEqual([]);
    d = drive(d.state, [{ type: 'tick', price: 100, ts: T0 + 11_000 }]);
    expect(places(d.commands).map((p) => [p.role, p.level])).toEqual([['safety', 2]]);
  });

  it('min_cost / precision on a safety skips the level for the cycle', () => {
    const d = drive(inPosition(), [
      { type: 'order_rejected', clientOrderId: 'b-3', reason: 'precision', ts: T0 + 1000 },
      { type: 'tick', price: 100, ts: T0 + 500_000 },
    ]);
    expect(places(d.commands)).toEqual([]);
    expect(d.state.skippedLevels).toEqual([2]);
  });

  it('a refused TP is placed again after 60 s', () => {
    let d = drive(inPosition(), [
      { type: 'order_rejected', clientOrderId: 'b-5', reason: 'exchange_error', ts: T0 + 1000 },
      { type: 'tick', price: 100, ts: T0 + 30_000 },
    ]);
    expect(places(d.commands)).toEqual([]);
    d = drive(d.state, [{ type: 'tick', price: 100, ts: T0 + 61_000 }]);
    expect(places(d.commands).map((p) => [p.role, p.price, p.amount])).toEqual([['take_profit', 101.11, 1]]);
  });

  it('a base refused for funds is retried after the back-off; for min_cost the bot stops', () => {
    let d = drive(create(), [
      { type: 'tick', price: 100, ts: 1000 },
      { type: 'order_rejected', clientOrderId: 'b-1', reason: 'insufficient_funds', ts: 1000 },
      { type: 'tick', price: 100, ts: 5000 },
    ]);
    expect(places(d.commands).map((p) => p.clientOrderId)).toEqual(['b-1']);
    d = drive(d.state, [{ type: 'tick', price: 100, ts: 11_000 }]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role])).toEqual([['b-2', 'base']]);
    d = drive(d.state, [{ type: 'order_rejected', clientOrderId: 'b-2', reason: 'min_cost', ts: 11_000 }]);
    expect(stops(d.commands)).toEqual(['entry_failed']);
  });
});

describe('idempotence and persistence', () => {
  it('re-delivered and unknown events change nothing', () => {
    const s = afterSafety();
    for (const e of [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 1, fee: 0.1, ts: T0 },
      { type: 'order_filled', clientOrderId: 'b-2', price: 98, amount: 1.0204, fee: 0.0999992, ts: T0 },
      { type: 'order_cancelled', clientOrderId: 'b-5', ts: T0 },
      { type: 'order_rejected', clientOrderId: 'x-1', reason: 'unknown', ts: T0 },
      { type: 'order_partially_filled', clientOrderId: 'b-9', filled: 1, price: 1, fee: 0, ts: T0 },
    ] as StrategyEvent[]) {
      const d = drive(s, [e]);
      expect(d.commands).toEqual([]);
      expect(d.state).toEqual(s);
      expect(classicDca.samePersisted(s, d.state)).toBe(true);
    }
  });

  it('samePersisted is false after an order event, true after a plain tick', () => {
    const s = afterSafety();
    const tick = drive(s, [{ type: 'tick', price: 99.3, ts: T0 + 2000 }]).state;
    expect(classicDca.samePersisted(s, tick)).toBe(true);
    const fill = drive(s, [
      { type: 'order_filled', clientOrderId: 'b-3', price: 96.04, amount: 1.0412, fee: 0.1, ts: T0 },
    ]).state;
    expect(classicDca.samePersisted(s, fill)).toBe(false);
  });
});

describe('config', () => {
  it('rejects bad configs with a clear error', () => {
    const bad: [Partial<Parameters<typeof classicConfig>[0]>, string][] = [
      [{ amount: 0 }, 'invalid_amount'],
      [{ tpPct: 0.4 }, 'invalid_tp'],
      [{ sepPct: 0.2 }, 'invalid_sep'],
      [{ sepPct: 80 }, 'invalid_sep'],
      [{ os: 0 }, 'invalid_os'],
      [{ os: 2.5 }, 'invalid_os'],
      [{ os: 101 }, 'invalid_os'],
      [{ tpVncPct: 0.3 }, 'invalid_tp_vnc'],
    ];
    for (const [o, code] of bad) {
      expect(() => createClassicDca('b', classicConfig(o))).toThrow(ClassicDcaConfigError);
      try {
        createClassicDca('b', classicConfig(o));
      } catch (e) {
        expect((e as ClassicDcaConfigError).code).toBe(code);
      }
    }
  });

  it('seeds at most maPeriod + 2 candles and reopens the current one', () => {
    const s = create(
      { maPeriod: 3 },
      candles(10, (i) => 100 + i, 600_000),
    );
    expect(s.candles.map((c) => c.c)).toEqual([105, 106, 107, 108, 109]);
    const d = drive(s, [{ type: 'tick', price: 120, ts: 540_000 + 5000 }]);
    expect(d.state.candles).toHaveLength(4);
    expect(d.state.forming).toEqual({ t: 540_000, o: 109, h: 120, l: 109, c: 120 });
  });
});
