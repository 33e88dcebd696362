/**
 * Pending-order actions on the classic DCA bot's position (LOT_ACTIONS, `classicDca.lots`).
 *
 * Config: amount 20 USDT, TP 1 %, sep 1 %, 2 OS, fees 0.1 % in quote, steps 0.0001 / 0.01, min cost 5.
 *
 * ```
 * base (b-1, market at 100)  qty 20 / 100 = 0.2, quote 20, fee 0.02
 * safety levels             b-2 99 (20 / 99 → 0.202), b-3 98.01 (20 / 98.01 → 0.204)
 * first TP (b-4)            20.02 / 0.2 × 1.01 = 101.101 → 101.11 for 0.2
 * safety L1 fills at 99     quote 0.202 × 99 = 19.998, fee 0.019998
 * position                  qty 0.402, quote 39.998, fees 0.039998, cost 40.037998
 *                           dca (fees in) 99.59700995…, entry without fees 39.998 / 0.402 = 99.49751243…
 * moved TP (b-5)            99.59700995… × 1.01 = 100.59298… → 100.6 for 0.402
 * add 30 USDT at 97 (b-6)   qty 30 / 97 → 0.3092, quote 29.9924, fee 0.0299924
 * position                  qty 0.7112, quote 69.9904, fees 0.0699904, cost 70.0603904
 *                           dca 98.51011023…, entry without fees 69.9904 / 0.7112 = 98.41169853…
 * moved TP (b-7)            98.51011023… × 1.01 = 99.49521… → 99.5 for 0.7112
 * sell at market at 98      b-3 and b-7 cancelled first; close b-8: 0.7112 × 98 = 69.6976, fee 0.0696976
 * trade b-c1                pnl_net = 69.6976 − 69.9904 − 0.0699904 − 0.0696976 = −0.432488
 * ```
 */
import { describe, expect, it } from 'vitest';
import {
  AUTO_FUND_MAX_STEPS,
  LOT_ACTIONS,
  classicDca,
  classicLots,
  classicQuietBand,
  stepClassicDca,
  type ClassicDcaState,
  type StrategyCommand,
  type StrategyEvent,
} from '../../src/index';
import { cancels, codes, create, drive, logs, places, stops, trades } from './classic-helpers';

const T0 = 600_000;
const CONFIG = {
  amount: 20,
  sepPct: 1,
  os: 2,
  market: { amountStep: 0.0001, priceStep: 0.01, minAmount: 0, minCost: 5, takerFee: 0.001, makerFee: 0.001 },
};

const act = (name: string, params: Record<string, unknown>, ts = T0 + 10_000): StrategyEvent => ({
  type: 'action',
  name,
  params,
  ts,
});
const cancelled = (id: string, ts = T0 + 10_000): StrategyEvent => ({
  type: 'order_cancelled',
  clientOrderId: id,
  ts,
});
const filled = (id: string, price: number, amount: number, fee: number, ts = T0 + 10_000): StrategyEvent => ({
  type: 'order_filled',
  clientOrderId: id,
  price,
  amount,
  fee,
  ts,
});
const tick = (price: number, ts = T0 + 10_000): StrategyEvent => ({ type: 'tick', price, ts });

/** The base filled at 100: safeties b-2 (99), b-3 (98.01) and the TP b-4 (101.11) resting. */
function base(overrides = {}): ClassicDcaState {
  return drive(create({ ...CONFIG, ...overrides }), [tick(100, T0), filled('b-1', 100, 0.2, 0.02, T0)]).state;
}

/** Safety L1 filled at 99 and the TP moved to b-5 at 100.6 for 0.402 (b-3 still resting). */
function afterSafety(overrides = {}): ClassicDcaState {
  const d = drive(base(overrides), [
    tick(99, T0 + 1000),
    filled('b-2', 99, 0.202, 0.019998, T0 + 1000),
    cancelled('b-4', T0 + 1000),
  ]);
  expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.price, p.amount])).toEqual([
    ['b-5', 'take_profit', 100.6, 0.402],
  ]);
  return d.state;
}

/** 30 USDT added at 97 through the lot action; the TP moved to b-7 at 99.5 for 0.7112. */
function afterAdd(overrides = {}): ClassicDcaState {
  let d = drive(afterSafety(overrides), [
    tick(97, T0 + 2000),
    act(LOT_ACTIONS.addFunds, { lotId: 'b-c1', amount: 30 }, T0 + 2000),
  ]);
  expect(
    places(d.commands).map((p) => [p.clientOrderId, p.role, p.orderType, p.quoteAmount, p.amount]),
  ).toEqual([['b-6', 'add_funds', 'market', 30, 0.3092]]);
  expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([['add_funds', { amount: 30, price: 97 }]]);
  expect(classicLots(d.state)[0]!.busy).toBe('adding');
  d = drive(d.state, [filled('b-6', 97, 0.3092, 0.0299924, T0 + 2000)]);
  expect(cancels(d.commands)).toEqual(['b-5']);
  d = drive(d.state, [cancelled('b-5', T0 + 2000)]);
  expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.price, p.amount, p.lotId])).toEqual([
    ['b-7', 'take_profit', 99.5, 0.7112, 'b-c1'],
  ]);
  return d.state;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/** Steps every event on a deep-frozen input (never mutated) and checks the step is repeatable. */
function driveFrozen(state: ClassicDcaState, events: StrategyEvent[]) {
  const commands: StrategyCommand[] = [];
  for (const e of events) {
    const before = structuredClone(state);
    deepFreeze(state);
    const r = stepClassicDca(state, e);
    expect(state).toEqual(before);
    expect(stepClassicDca(state, e)).toEqual(r);
    const reloaded = JSON.parse(JSON.stringify(state)) as ClassicDcaState;
    expect(stepClassicDca(reloaded, e)).toEqual(JSON.parse(JSON.stringify(r)));
    state = r.state;
    commands.push(...r.commands);
  }
  return { state, commands };
}

describe('lots', () => {
  it('lists nothing without a position, then the position with fee-free entry and cost', () => {
    const fresh = create(CONFIG);
    expect(classicLots(fresh)).toEqual([]);
    const buying = drive(fresh, [tick(100, T0)]).state;
    expect(classicLots(buying)).toEqual([]); // the base is on its way
    expect(classicDca.lots!(base())).toEqual([
      {
        id: 'b-c1',
        openedAt: T0,
        qty: 0.2,
        entryPrice: 100,
        cost: 20,
        firstPrice: 100,
        tpPrice: 101.11,
        autoFund: false,
        autoFundSteps: 0,
        busy: null,
      },
    ]);
    const s = afterAdd();
    // entry 69.9904 / 0.7112 = 98.41169853…, not the dca with fees (98.51011…) the TP is computed from
    expect(classicLots(s)).toEqual([
      {
        id: 'b-c1',
        openedAt: T0,
        qty: 0.7112,
        entryPrice: 98.4116985376828,
        cost: 69.9904,
        firstPrice: 100,
        tpPrice: 99.5,
        autoFund: false,
        autoFundSteps: 0,
        busy: null,
      },
    ]);
  });

  it('shows the TP the position will get while the resting one is being moved', () => {
    const d = drive(afterSafety(), [tick(97, T0 + 2000), act('add_funds', { amount: 30 }, T0 + 2000)]);
    const moving = drive(d.state, [filled('b-6', 97, 0.3092, 0.0299924, T0 + 2000)]).state;
    expect(classicLots(moving)[0]!.tpPrice).toBe(99.5);
  });
});

describe('add funds through the lot action', () => {
  it('is the add_funds action: market buy merged, TP moved to the new average', () => {
    const viaLot = afterAdd();
    const viaOld = drive(afterSafety(), [
      tick(97, T0 + 2000),
      act('add_funds', { amount: 30 }, T0 + 2000),
      filled('b-6', 97, 0.3092, 0.0299924, T0 + 2000),
      cancelled('b-5', T0 + 2000),
    ]).state;
    expect(viaLot).toEqual(viaOld);
    expect(viaLot.position).toEqual({ qty: '0.7112', quote: '69.9904', fee: '0.0699904' });
  });

  it('checks the amount and the market minimum', () => {
    const s = drive(afterSafety(), [tick(97, T0 + 2000)]).state;
    let d = drive(s, [act(LOT_ACTIONS.addFunds, { lotId: 'b-c1', amount: -3 })]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([['invalid_value', { field: 'amount' }]]);
    d = drive(s, [act(LOT_ACTIONS.addFunds, { lotId: 'b-c1', amount: 3 })]);
    expect(codes(d.commands)).toEqual(['below_min_cost']);
    expect(places(d.commands)).toEqual([]);
  });
});

describe('sell at market', () => {
  it('cancels the TP and the safety buys, sells, records the cycle; r off stops cycle_done', () => {
    let d = driveFrozen(afterAdd(), [
      tick(98, T0 + 3000),
      act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 3000),
    ]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['lot_selling', { lot_id: 'b-c1', qty: 0.7112, price: 98 }],
    ]);
    expect(cancels(d.commands)).toEqual(['b-3', 'b-7']);
    expect(places(d.commands)).toEqual([]);
    expect(classicLots(d.state)[0]!.busy).toBe('selling');
    // Ticks while the cancels are on their way place nothing (no TP, no safety, no auto-fund).
    d = driveFrozen(d.state, [tick(97.5, T0 + 3500), cancelled('b-3', T0 + 4000)]);
    expect(d.commands.filter((c) => c.type !== 'log')).toEqual([]);
    d = driveFrozen(d.state, [tick(98, T0 + 4000), cancelled('b-7', T0 + 4000)]);
    expect(places(d.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-8',
        side: 'sell',
        orderType: 'market',
        amount: 0.7112,
        role: 'close',
        lotId: 'b-c1',
      },
    ]);
    d = driveFrozen(d.state, [filled('b-8', 98, 0.7112, 0.0696976, T0 + 5000)]);
    expect(trades(d.commands)).toEqual([
      {
        lotId: 'b-c1',
        qty: 0.7112,
        buyPrice: 98.4116985376828,
        sellPrice: 98,
        buyTime: T0,
        sellTime: T0 + 5000,
        buyFee: 0.0699904,
        sellFee: 0.0696976,
        pnlNet: -0.432488,
      },
    ]);
    expect(stops(d.commands)).toEqual(['cycle_done']);
    expect(classicDca.realizedPnl(d.state)).toBe('-0.432488');
    expect(d.state.cycles).toBe(1);
    expect(classicLots(d.state)).toEqual([]);
  });

  it('r on: a new cycle starts after the sale as after a take profit', () => {
    let d = drive(afterAdd({ r: true }), [
      tick(98, T0 + 3000),
      act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: true }, T0 + 3000),
      act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 3000),
      cancelled('b-3', T0 + 3000),
      cancelled('b-7', T0 + 3000),
    ]);
    expect(d.state.autoFund).toBe(true);
    d = drive(d.state, [filled('b-8', 98, 0.7112, 0.0696976, T0 + 3000)]);
    expect(trades(d.commands).map((t) => [t.lotId, t.pnlNet])).toEqual([['b-c1', -0.432488]]);
    expect(stops(d.commands)).toEqual([]);
    // base of cycle 2 at the last price: 20 / 98 → 0.204
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.amount])).toEqual([
      ['b-9', 'base', 0.204],
    ]);
    expect(codes(d.commands)).toEqual(['cycle_closed', 'cycle_started']);
    expect(d.state).toMatchObject({ cycle: 2, cycles: 1, lotBusy: null, autoFund: false, autoFundSteps: 0 });
    d = drive(d.state, [filled('b-9', 98, 0.204, 0.019992, T0 + 3000)]);
    expect(classicLots(d.state).map((l) => [l.id, l.qty, l.firstPrice, l.autoFund])).toEqual([
      ['b-c2', 0.204, 98, false],
    ]);
  });

  it('a TP part sold before the cancel goes into the same trade', () => {
    let d = drive(afterSafety(), [
      tick(100.6, T0 + 3000),
      act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 3000),
    ]);
    expect(cancels(d.commands)).toEqual(['b-3', 'b-5']);
    d = drive(d.state, [
      cancelled('b-3', T0 + 3000),
      // 0.2 of the TP sold at 100.6 (fee 0.02012) before the cancel
      {
        type: 'order_cancelled',
        clientOrderId: 'b-5',
        filled: 0.2,
        price: 100.6,
        fee: 0.02012,
        ts: T0 + 3000,
      },
    ]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.amount])).toEqual([
      ['b-6', 'close', 0.202],
    ]);
    d = drive(d.state, [filled('b-6', 100.5, 0.202, 0.020301, T0 + 3000)]);
    // sold 0.2 × 100.6 + 0.202 × 100.5 = 20.12 + 20.301 = 40.421, fees 0.02012 + 0.020301 = 0.040421
    // pnl = 40.421 − 39.998 − 0.039998 − 0.040421 = 0.342581
    expect(trades(d.commands).map((t) => [t.lotId, t.qty, t.sellPrice, t.pnlNet])).toEqual([
      ['b-c1', 0.402, 100.54975124378109, 0.342581],
    ]);
    expect(stops(d.commands)).toEqual(['cycle_done']);
  });

  it('a TP that fills instead of being cancelled closes the cycle; no sale is sent', () => {
    let d = drive(afterSafety(), [
      tick(100.6, T0 + 3000),
      act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 3000),
    ]);
    d = drive(d.state, [filled('b-5', 100.6, 0.402, 0.0404412, T0 + 3000), cancelled('b-3', T0 + 3000)]);
    expect(places(d.commands)).toEqual([]);
    expect(trades(d.commands).map((t) => t.lotId)).toEqual(['b-c1']);
    expect(stops(d.commands)).toEqual(['cycle_done']);
  });

  it('a refused sale logs close_failed and puts the TP and the safety buy back', () => {
    let d = drive(afterAdd(), [
      tick(98, T0 + 3000),
      act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 3000),
      cancelled('b-3', T0 + 3000),
      cancelled('b-7', T0 + 3000),
    ]);
    d = drive(d.state, [
      {
        type: 'order_rejected',
        clientOrderId: 'b-8',
        reason: 'exchange_error',
        message: 'down',
        ts: T0 + 3000,
      },
    ]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['close_failed', { role: 'close', reason: 'exchange_error', message: 'down', lot_id: 'b-c1' }],
    ]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role, p.price, p.amount])).toEqual([
      ['b-9', 'safety', 98.01, 0.204],
      ['b-10', 'take_profit', 99.5, 0.7112],
    ]);
    expect(trades(d.commands)).toEqual([]);
    expect(d.state.position.qty).toBe('0.7112');
    expect(classicLots(d.state)[0]!.busy).toBeNull();
    expect(d.state.closeAttempts).toBe(0);
  });

  it('a sale cancelled by the venue also fails and keeps the position', () => {
    let d = drive(base(), [
      tick(100, T0 + 3000),
      act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 3000),
      cancelled('b-2', T0 + 3000),
      cancelled('b-3', T0 + 3000),
      cancelled('b-4', T0 + 3000),
    ]);
    expect(places(d.commands).map((p) => p.clientOrderId)).toEqual(['b-5']);
    d = drive(d.state, [cancelled('b-5', T0 + 3000)]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['close_failed', { lot_id: 'b-c1', reason: 'cancelled' }],
    ]);
    expect(places(d.commands).map((p) => p.role)).toEqual(['safety', 'safety', 'take_profit']);
  });

  it('a position below the market minimum is refused at once', () => {
    const s = base({ market: { ...CONFIG.market, minCost: 19.99 } });
    const d = drive(s, [tick(99.9, T0 + 1000), act(LOT_ACTIONS.sell, { lotId: 'b-c1' }, T0 + 1000)]);
    // 0.2 × 99.9 = 19.98 < 19.99
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['lot_action_refused', { lot_id: 'b-c1', action: 'lot_sell', reason: 'min_cost' }],
    ]);
    expect(cancels(d.commands)).toEqual([]);
  });
});

describe('forget', () => {
  it('cancels the TP and safety buys, drops the position without a trade, next cycle (r on)', () => {
    let d = driveFrozen(afterSafety({ r: true }), [
      tick(99.5, T0 + 3000),
      act(LOT_ACTIONS.forget, { lotId: 'b-c1' }, T0 + 3000),
    ]);
    expect(cancels(d.commands)).toEqual(['b-3', 'b-5']);
    expect(classicLots(d.state)[0]!.busy).toBe('deleting');
    d = driveFrozen(d.state, [cancelled('b-3', T0 + 3000), cancelled('b-5', T0 + 3000)]);
    expect(trades(d.commands)).toEqual([]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['lot_forgotten', { lot_id: 'b-c1', qty: 0.402, price: 99.49751243781094 }],
      ['cycle_started', { cycle: 2, price: 99.5, amount: 20 }],
    ]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.role])).toEqual([['b-6', 'base']]);
    expect(d.state).toMatchObject({
      cycle: 2,
      cycles: 1,
      realizedPnl: '0',
      position: { qty: '0', quote: '0', fee: '0' },
    });
  });

  it('r off: stops with cycle_done; a TP part sold before the cancel is recorded', () => {
    let d = drive(afterSafety(), [
      tick(100.6, T0 + 3000),
      act(LOT_ACTIONS.forget, { lotId: 'b-c1' }, T0 + 3000),
    ]);
    d = drive(d.state, [
      {
        type: 'order_cancelled',
        clientOrderId: 'b-5',
        filled: 0.2,
        price: 100.6,
        fee: 0.02012,
        ts: T0 + 3000,
      },
      cancelled('b-3', T0 + 3000),
    ]);
    // sold 0.2 at 100.6: buy quote 39.998 × 0.2 / 0.402 = 19.89950248…, buy fee 0.01989950…
    // pnl = 20.12 − 19.899502487562189054 − 0.019899502487562189 − 0.02012 = 0.18047800995… → 0.18047801
    expect(trades(d.commands).map((t) => [t.lotId, t.qty, t.sellPrice, t.pnlNet])).toEqual([
      ['b-c1', 0.2, 100.6, 0.18047801],
    ]);
    expect(logs(d.commands).find((l) => l.code === 'lot_forgotten')!.params).toEqual({
      lot_id: 'b-c1',
      qty: 0.202,
      price: 99.49751243781094,
    });
    expect(stops(d.commands)).toEqual(['cycle_done']);
    expect(d.state.residual).toBeNull();
  });

  it('a stop while the forget waits for its cancels still forgets (no residual, no close)', () => {
    let d = drive(afterSafety(), [
      tick(99.5, T0 + 3000),
      act(LOT_ACTIONS.forget, { lotId: 'b-c1' }, T0 + 3000),
      { type: 'stop', mode: 'close_market', ts: T0 + 3000 },
    ]);
    d = drive(d.state, [cancelled('b-3', T0 + 3000), cancelled('b-5', T0 + 3000)]);
    expect(codes(d.commands)).toEqual(['lot_forgotten']);
    expect(places(d.commands)).toEqual([]);
    expect(stops(d.commands)).toEqual(['user_close_market']);
    expect(d.state.residual).toBeNull();
  });
});

describe('refusals', () => {
  const refusal = (d: { commands: StrategyCommand[] }) => logs(d.commands).map((l) => [l.code, l.params]);

  it('an unknown lot id changes nothing', () => {
    const s = afterSafety();
    for (const name of Object.values(LOT_ACTIONS)) {
      const d = drive(s, [act(name, { lotId: 'b-c2', amount: 30, enabled: true })]);
      expect(refusal(d)).toEqual([
        ['lot_action_refused', { lot_id: 'b-c2', action: name, reason: 'unknown_lot' }],
      ]);
      expect(d.state).toEqual(s);
      expect(classicDca.samePersisted(s, d.state)).toBe(true);
    }
    const d = drive(s, [act(LOT_ACTIONS.sell, { lotId: 7 })]);
    expect(refusal(d)).toEqual([['invalid_value', { field: 'lotId' }]]);
    const bad = drive(s, [act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: 'yes' })]);
    expect(refusal(bad)).toEqual([['invalid_value', { field: 'enabled' }]]);
  });

  it('busy: while funds are being added, a sale runs or a forget waits', () => {
    const adding = drive(afterSafety(), [
      tick(97, T0 + 2000),
      act(LOT_ACTIONS.addFunds, { lotId: 'b-c1', amount: 30 }, T0 + 2000),
    ]).state;
    const selling = drive(afterSafety(), [act(LOT_ACTIONS.sell, { lotId: 'b-c1' })]).state;
    const deleting = drive(afterSafety(), [act(LOT_ACTIONS.forget, { lotId: 'b-c1' })]).state;
    for (const s of [adding, selling, deleting]) {
      for (const name of Object.values(LOT_ACTIONS)) {
        const d = drive(s, [act(name, { lotId: 'b-c1', amount: 30, enabled: true })]);
        expect(refusal(d)).toEqual([
          ['lot_action_refused', { lot_id: 'b-c1', action: name, reason: 'busy' }],
        ]);
        expect(d.state).toEqual(s);
      }
    }
    // The old add_funds action does not buy into a position being sold or forgotten either.
    const d = drive(selling, [act('add_funds', { amount: 30 })]);
    expect(refusal(d)).toEqual([['invalid_value', { field: 'amount' }]]);
  });

  it('not in position, not running', () => {
    const waiting = drive(create(CONFIG), [tick(100, T0)]).state; // base on its way
    let d = drive(waiting, [act(LOT_ACTIONS.sell, { lotId: 'b-c1' })]);
    expect(refusal(d)).toEqual([
      ['lot_action_refused', { lot_id: 'b-c1', action: 'lot_sell', reason: 'not_in_position' }],
    ]);
    const stopping = drive(base(), [{ type: 'stop', mode: 'cancel_only', ts: T0 + 1 }]).state;
    d = drive(stopping, [act(LOT_ACTIONS.forget, { lotId: 'b-c1' })]);
    expect(refusal(d)).toEqual([
      ['lot_action_refused', { lot_id: 'b-c1', action: 'lot_forget', reason: 'not_running' }],
    ]);
    expect(d.state).toEqual(stopping);
  });
});

describe('auto-fund', () => {
  /** The buy of step k at `price` fills (qty = 20 / price rounded down); its TP move is answered. */
  function fillStep(s: ClassicDcaState, id: string, price: number, qty: number, ts: number): ClassicDcaState {
    const d = drive(s, [filled(id, price, qty, 0, ts)]);
    const moved = cancels(d.commands);
    return drive(
      d.state,
      moved.map((m) => cancelled(m, ts)),
    ).state;
  }
  const autoLogs = (cmds: StrategyCommand[]) =>
    logs(cmds)
      .filter((l) => l.code.startsWith('auto_fund'))
      .map((l) => [l.code, l.params]);

  it('buys amount at −10, −20, −30, −40 % of the base price, one step per tick, never a 5th', () => {
    // os 1 (one safety at 99) keeps the commands short.
    let d = driveFrozen(base({ os: 1 }), [act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: true }, T0)]);
    expect(logs(d.commands).map((l) => [l.code, l.params])).toEqual([
      ['auto_fund_set', { lot_id: 'b-c1', enabled: 1 }],
    ]);
    expect(classicLots(d.state)[0]!.autoFund).toBe(true);
    let s = d.state;
    // 90.01 is above 100 × 0.9: nothing; the band never holds the trigger 90
    d = driveFrozen(s, [tick(90.01, T0 + 1000)]);
    expect(autoLogs(d.commands)).toEqual([]);
    s = d.state;
    expect(classicQuietBand(s)?.low ?? Infinity).toBeGreaterThanOrEqual(90);
    d = driveFrozen(s, [tick(90, T0 + 2000)]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund', { lot_id: 'b-c1', step: 1, drawdown_pct: -10, amount: 20 }],
    ]);
    // 20 / 90 → 0.2222
    expect(
      places(d.commands).map((p) => [p.clientOrderId, p.role, p.orderType, p.quoteAmount, p.amount]),
    ).toEqual([['b-4', 'add_funds', 'market', 20, 0.2222]]);
    expect(classicLots(d.state)[0]).toMatchObject({ autoFundSteps: 1, busy: 'adding' });
    // A further drop while the buy is in flight waits (one step at a time).
    d = driveFrozen(d.state, [tick(79, T0 + 2500)]);
    expect(autoLogs(d.commands)).toEqual([]);
    s = fillStep(d.state, 'b-4', 90, 0.2222, T0 + 2500);
    // 79 ≤ 80: step 2 at the next tick; the tick after it waits for that buy
    d = driveFrozen(s, [tick(79, T0 + 3000), tick(79, T0 + 3001)]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund', { lot_id: 'b-c1', step: 2, drawdown_pct: -21, amount: 20 }],
    ]);
    const step2 = places(d.commands).find((p) => p.role === 'add_funds')!;
    s = fillStep(d.state, step2.clientOrderId, 79, step2.amount!, T0 + 3001);
    // A gap straight to 55: step 3 on this tick, step 4 on the next (after the fill), never a 5th.
    d = driveFrozen(s, [tick(55, T0 + 4000)]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund', { lot_id: 'b-c1', step: 3, drawdown_pct: -45, amount: 20 }],
    ]);
    const step3 = places(d.commands).find((p) => p.role === 'add_funds')!;
    s = fillStep(d.state, step3.clientOrderId, 55, step3.amount!, T0 + 4000);
    d = driveFrozen(s, [tick(55, T0 + 5000)]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund', { lot_id: 'b-c1', step: 4, drawdown_pct: -45, amount: 20 }],
    ]);
    const step4 = places(d.commands).find((p) => p.role === 'add_funds')!;
    s = fillStep(d.state, step4.clientOrderId, 55, step4.amount!, T0 + 5000);
    expect(s.autoFundSteps).toBe(AUTO_FUND_MAX_STEPS);
    d = driveFrozen(s, [tick(30, T0 + 6000), tick(20, T0 + 7000)]);
    expect(autoLogs(d.commands)).toEqual([]);
    expect(places(d.commands).filter((p) => p.role === 'add_funds')).toEqual([]);
    expect(classicLots(d.state)[0]!.autoFundSteps).toBe(4);
  });

  it('below the minimum: the step is skipped and logged; insufficient funds too (buys pause)', () => {
    // min cost 20: 20 / 90 → 0.2222 × 90 = 19.998 < 20
    const s = drive(base({ os: 1, market: { ...CONFIG.market, minCost: 20 } }), [
      act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: true }, T0),
    ]).state;
    let d = drive(s, [tick(90, T0 + 1000), tick(89, T0 + 2000)]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund_skipped', { lot_id: 'b-c1', step: 1, reason: 'min_cost' }],
    ]);
    expect(d.state.autoFundSteps).toBe(1);
    // Step 2 at 80: 20 / 80 = 0.25 → cost 20; refused by the venue for funds.
    d = drive(d.state, [tick(80, T0 + 3000)]);
    const buy = places(d.commands).find((p) => p.role === 'add_funds')!;
    expect(buy.amount).toBe(0.25);
    d = drive(d.state, [
      {
        type: 'order_rejected',
        clientOrderId: buy.clientOrderId,
        reason: 'insufficient_funds',
        ts: T0 + 3000,
      },
    ]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund_skipped', { lot_id: 'b-c1', step: 2, reason: 'insufficient_funds' }],
    ]);
    expect(d.state.buyRetryAt).toBe(T0 + 13_000);
    // Step 3 (at or below 70) waits for the pause to end, then buys: 20 / 62.5 = 0.32, cost 20.
    d = drive(d.state, [tick(62.5, T0 + 5000)]);
    expect(autoLogs(d.commands)).toEqual([]);
    d = drive(d.state, [tick(62.5, T0 + 13_000)]);
    expect(autoLogs(d.commands)).toEqual([
      ['auto_fund', { lot_id: 'b-c1', step: 3, drawdown_pct: -37.5, amount: 20 }],
    ]);
    expect(places(d.commands).map((p) => [p.role, p.amount])).toEqual([['add_funds', 0.32]]);
  });

  it('turning it off stops the steps', () => {
    const on = drive(base({ os: 1 }), [
      act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: true }, T0),
    ]).state;
    const off = drive(on, [act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: false }, T0)]);
    expect(logs(off.commands).map((l) => l.params)).toEqual([{ lot_id: 'b-c1', enabled: 0 }]);
    const d = drive(off.state, [tick(85, T0 + 1000)]);
    expect(autoLogs(d.commands)).toEqual([]);
  });
});

describe('old persisted states', () => {
  it('a state without the new fields lists its lot, takes the actions and keeps its shape on a TP', () => {
    const old = structuredClone(afterSafety()) as Partial<ClassicDcaState>;
    delete old.autoFund;
    delete old.autoFundSteps;
    delete old.lotBusy;
    const s = old as ClassicDcaState;
    expect(classicLots(s)[0]).toMatchObject({ autoFund: false, autoFundSteps: 0, busy: null });
    // A quiet tick and a TP close leave no new keys behind.
    const t = drive(s, [tick(100, T0 + 1500)]);
    expect(classicDca.samePersisted(s, t.state)).toBe(true);
    const closed = drive(s, [tick(100.6, T0 + 2000), filled('b-5', 100.6, 0.402, 0.0404412, T0 + 2000)]);
    expect(trades(closed.commands).map((x) => x.lotId)).toEqual(['b-c1']);
    expect('autoFund' in closed.state).toBe(false);
    // The actions work on it.
    let d = drive(s, [act(LOT_ACTIONS.autoFund, { lotId: 'b-c1', enabled: true }, T0 + 2000)]);
    expect(d.state.autoFund).toBe(true);
    d = drive(d.state, [tick(90, T0 + 3000)]);
    expect(d.state.autoFundSteps).toBe(1);
    d = drive(s, [act(LOT_ACTIONS.sell, { lotId: 'b-c1' })]);
    expect(cancels(d.commands)).toEqual(['b-3', 'b-5']);
  });

  it('samePersisted notices the new fields', () => {
    const s = afterSafety();
    expect(classicDca.samePersisted(s, { ...s, autoFund: true })).toBe(false);
    expect(classicDca.samePersisted(s, { ...s, autoFundSteps: 1 })).toBe(false);
    expect(classicDca.samePersisted(s, { ...s, lotBusy: 'selling' })).toBe(false);
  });
});
