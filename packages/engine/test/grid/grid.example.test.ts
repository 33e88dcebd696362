/**
 * The Grid bot with worked numbers. Market: 0.0001 base and 0.01 quote steps, 5 USDT minimum cost, fees
 * 0.1 %. Grid: low 100, high 150, step 10 %, 100 USDT per level:
 *   levels 100 × 1.1^i ≤ 150 → 100, 110, 121, 133.1, 146.41 (146.41 × 1.1 = 161.05 > 150);
 *   slot i trades 100 / L_i base: 1, 0.909 (0.90909… rounded down), 0.8264, 0.7513.
 * Started at 120, the nearest level 121 (index 2) is left empty: buys at 100 and 110, sells at 133.1 and
 * 146.41.
 */
import { describe, expect, it } from 'vitest';
import {
  GridConfigError,
  createGridBot,
  gridLevels,
  gridSummary,
  stepGrid,
  type GridConfig,
  type GridState,
  type StrategyEvent,
} from '../../src/index';
import { codes, driveWith, logs, places, stops, testMarket, trades } from '../shared/shared-helpers';

function gridConfig(overrides: Partial<GridConfig> = {}): GridConfig {
  return {
    symbol: 'BTC/USDT',
    low: 100,
    high: 150,
    stepPct: 10,
    amountPerLevel: 100,
    position: 'long',
    profitCurrency: 'quote',
    derivatives: false,
    market: testMarket(),
    ...overrides,
  };
}

const drive = (state: GridState, events: StrategyEvent[]) => driveWith(stepGrid, state, events);
const tick = (price: number, ts: number): StrategyEvent => ({ type: 'tick', price, ts });
const fill = (id: string, price: number, amount: number, fee: number, ts: number): StrategyEvent => ({
  type: 'order_filled',
  clientOrderId: id,
  price,
  amount,
  fee,
  ts,
});
const brief = (cmds: ReturnType<typeof places>) =>
  cmds.map((p) => [
    p.clientOrderId,
    p.side,
    p.orderType,
    p.price ?? null,
    p.amount,
    p.role,
    p.reduceOnly ?? false,
  ]);

describe('gridLevels', () => {
  it('lays geometric levels from low to high and leaves the one nearest the price empty', () => {
    expect(gridLevels(120, 100, 150, 10, { priceStep: 0.01 })).toEqual({
      levels: [100, 110, 121, 133.1, 146.41],
      buyLevels: [100, 110],
      sellLevels: [133.1, 146.41],
      emptyIndex: 2,
    });
    // 104 is nearest to 100 (index 0): no buys. Above the range every level is a buy but the top one.
    expect(gridLevels(104, 100, 150, 10, { priceStep: 0.01 }).buyLevels).toEqual([]);
    expect(gridLevels(200, 100, 150, 10, { priceStep: 0.01 }).buyLevels).toEqual([100, 110, 121, 133.1]);
    // Step 0.5 % from 95 to 105: 95 × 1.005^20 = 104.97 is the last of 21 levels.
    const g = gridLevels(100, 95, 105, 0.5, { priceStep: 0.01 });
    expect(g.levels.length).toBe(21);
    expect(g.levels[20]).toBe(104.97);
  });
});

describe('Grid bot, long on spot', () => {
  it('buys the base of the sell levels at market, then rests one order per slot', () => {
    const r = drive(createGridBot('g', gridConfig()), [tick(120, 1000)]);
    // The start buy: 0.8264 + 0.7513 = 1.5777 base, ≈ 1.5777 × 120 = 189.324 USDT.
    expect(brief(places(r.commands))).toEqual([['g-1', 'buy', 'market', null, 1.5777, 'grid_init', false]]);
    expect(places(r.commands)[0]!.quoteAmount).toBe(189.324);
    expect(r.state.status).toBe('starting');
    // Filled at 120 with 0.1 % fee = 0.189324, shared 0.099168 / 0.090156 by the two sell slots.
    const s = drive(r.state, [fill('g-1', 120, 1.5777, 0.189324, 1001)]);
    expect(s.state.status).toBe('running');
    expect(brief(places(s.commands))).toEqual([
      ['g-2', 'buy', 'limit', 100, 1, 'grid_buy', false],
      ['g-3', 'buy', 'limit', 110, 0.909, 'grid_buy', false],
      ['g-4', 'sell', 'limit', 133.1, 0.8264, 'grid_sell', false],
      ['g-5', 'sell', 'limit', 146.41, 0.7513, 'grid_sell', false],
    ]);
    expect(s.state.slots.map((x) => x.open?.fee ?? null)).toEqual([null, null, 0.099168, 0.090156]);
    expect(gridSummary(s.state)).toMatchObject({
      openBuys: 2,
      openSells: 2,
      baseHeld: 1.5777,
      pnlQuote: '0',
    });
  });

  it('re-arms the opposite order one level away and records each completed round', () => {
    const started = drive(createGridBot('g', gridConfig()), [
      tick(120, 1000),
      fill('g-1', 120, 1.5777, 0.189324, 1001),
    ]);
    // Down to 110: the buy of slot 1 fills (0.909 × 110 = 99.99, fee 0.09999) → a sell at 121.
    const down = drive(started.state, [tick(110, 2000), fill('g-3', 110, 0.909, 0.09999, 2000)]);
    expect(brief(places(down.commands))).toEqual([['g-6', 'sell', 'limit', 121, 0.909, 'grid_sell', false]]);
    expect(places(down.commands)[0]!.level).toBe(2);
    // Up to 121: that sell fills (0.909 × 121 = 109.989, fee 0.109989): a round of
    // 0.909 × (121 − 110) − 0.09999 − 0.109989 = 9.999 − 0.209979 = 9.789021 USDT
    // (≈ 100 × (10 % − 2 × 0.1 %) = 9.8 less the rounding of the amount and the fee on the higher sell).
    const up = drive(down.state, [tick(121, 3000), fill('g-6', 121, 0.909, 0.109989, 3000)]);
    expect(trades(up.commands)).toEqual([
      {
        lotId: 'g-3',
        qty: 0.909,
        buyPrice: 110,
        sellPrice: 121,
        buyTime: 2000,
        sellTime: 3000,
        buyFee: 0.09999,
        sellFee: 0.109989,
        pnlNet: 9.789021,
      },
    ]);
    expect(brief(places(up.commands))).toEqual([['g-7', 'buy', 'limit', 110, 0.909, 'grid_buy', false]]);
    expect(up.state.realizedPnl).toBe('9.789021');
    expect(up.state.rounds).toBe(1);
    // A slot filled by the start buy: its sell at 133.1 closes 0.8264 bought at 120:
    // 0.8264 × 13.1 − 0.099168 − 0.10999384 = 10.82584 − 0.20916184 = 10.61667816; its buy goes to 121.
    const top = drive(up.state, [tick(133.1, 4000), fill('g-4', 133.1, 0.8264, 0.10999384, 4000)]);
    expect(trades(top.commands)[0]).toMatchObject({
      lotId: 'g-1:2',
      buyPrice: 120,
      sellPrice: 133.1,
      pnlNet: 10.61667816,
    });
    expect(brief(places(top.commands))).toEqual([['g-8', 'buy', 'limit', 121, 0.8264, 'grid_buy', false]]);
    expect(top.state.realizedPnl).toBe('20.40569916');
  });

  it('logs leaving and re-entering the range once per crossing, orders stay', () => {
    const started = drive(createGridBot('g', gridConfig()), [
      tick(120, 1000),
      fill('g-1', 120, 1.5777, 0.189324, 1001),
    ]);
    const out = drive(started.state, [tick(160, 2000), tick(170, 3000), tick(165, 4000)]);
    expect(codes(out.commands)).toEqual(['grid_out_of_range']);
    expect(logs(out.commands)[0]!.params).toEqual({ price: 160, low: 100, high: 146.41, side: 'above' });
    expect(places(out.commands)).toEqual([]);
    const back = drive(out.state, [tick(140, 5000), tick(141, 6000)]);
    expect(codes(back.commands)).toEqual(['grid_back_in_range']);
  });

  it('close_market sells what the grid holds; cancel_only keeps it', () => {
    const started = drive(createGridBot('g', gridConfig()), [
      tick(120, 1000),
      fill('g-1', 120, 1.5777, 0.189324, 1001),
    ]);
    const stop = drive(started.state, [{ type: 'stop', mode: 'close_market', ts: 2000 }]);
    expect(stop.commands.filter((c) => c.type === 'cancel_order').length).toBe(4);
    const cancelled = drive(
      stop.state,
      ['g-2', 'g-3', 'g-4', 'g-5'].map((id) => ({
        type: 'order_cancelled' as const,
        clientOrderId: id,
        ts: 2001,
      })),
    );
    // One market sell of the 1.5777 base held.
    expect(brief(places(cancelled.commands))).toEqual([
      ['g-6', 'sell', 'market', null, 1.5777, 'close', false],
    ]);
    // Sold at 119 (fee 0.1877463): the slot of 0.8264 gets 0.8264 / 1.5777 of the fee = 0.0983416:
    // 0.8264 × (119 − 120) − 0.099168 − 0.0983416 = −1.0239096 (and for 0.7513, fee share 0.0894047:
    // −0.7513 − 0.090156 − 0.0894047 = −0.9308607).
    const sold = drive(cancelled.state, [fill('g-6', 119, 1.5777, 0.1877463, 2002)]);
    const t = trades(sold.commands);
    expect(t.map((x) => [x.lotId, x.qty, x.sellPrice, x.pnlNet])).toEqual([
      ['g-1:2', 0.8264, 119, -1.0239096],
      ['g-1:3', 0.7513, 119, -0.9308607],
    ]);
    expect(stops(sold.commands)).toEqual(['user_close_market']);
    const keep = drive(started.state, [
      { type: 'stop', mode: 'cancel_only', ts: 2000 },
      ...['g-2', 'g-3', 'g-4', 'g-5'].map((id) => ({
        type: 'order_cancelled' as const,
        clientOrderId: id,
        ts: 2001,
      })),
    ]);
    expect(places(keep.commands)).toEqual([]);
    expect(stops(keep.commands)).toEqual(['user_cancel_only']);
    expect(gridSummary(keep.state).baseHeld).toBe(1.5777);
  });

  it('explains every order it cannot place and retries those refused for funds', () => {
    const started = drive(createGridBot('g', gridConfig()), [
      tick(120, 1000),
      fill('g-1', 120, 1.5777, 0.189324, 1001),
    ]);
    const refused = drive(started.state, [
      { type: 'order_rejected', clientOrderId: 'g-2', reason: 'insufficient_funds', ts: 1002 },
      { type: 'order_rejected', clientOrderId: 'g-3', reason: 'min_cost', ts: 1002 },
    ]);
    expect(logs(refused.commands).map((l) => [l.code, l.params.level, l.params.retry_in_s ?? null])).toEqual([
      ['insufficient_funds', 0, 60],
      ['below_min_cost', 1, null],
    ]);
    // 59 s later nothing; at 60 s the buy at 100 is placed again; the one at 110 stays blocked.
    expect(places(drive(refused.state, [tick(120, 61_001)]).commands)).toEqual([]);
    expect(brief(places(drive(refused.state, [tick(120, 61_002)]).commands))).toEqual([
      ['g-6', 'buy', 'limit', 100, 1, 'grid_buy', false],
    ]);
  });

  it('profitCurrency base spends the profit on base once it reaches the minimum', () => {
    const started = drive(createGridBot('g', gridConfig({ profitCurrency: 'base' })), [
      tick(120, 1000),
      fill('g-1', 120, 1.5777, 0.189324, 1001),
    ]);
    const r = drive(started.state, [
      tick(110, 2000),
      fill('g-3', 110, 0.909, 0.09999, 2000),
      tick(121, 3000),
      fill('g-6', 121, 0.909, 0.109989, 3000),
    ]);
    // 9.789021 USDT of profit ≥ 5: a market buy of 9.789021 / 121 = 0.0809 base.
    const buy = places(r.commands).find((p) => p.orderType === 'market')!;
    expect([buy.side, buy.amount, buy.quoteAmount, buy.role]).toEqual(['buy', 0.0809, 9.789021, 'grid_buy']);
    const bought = drive(r.state, [fill(buy.clientOrderId, 121, 0.0809, 0.0097889, 3001)]);
    // Spent 0.0809 × 121 + 0.0097889 = 9.7986889 > 9.789021: nothing left of the profit.
    expect(bought.state.profitBase).toBe('0.0809');
    expect(bought.state.profitQuote).toBe('0');
    expect(bought.state.realizedPnl).toBe('9.789021');
  });

  it('refuses configurations it cannot run, with the numbers', () => {
    expect(() => createGridBot('g', gridConfig({ position: 'short' }))).toThrow(GridConfigError);
    expect(() => createGridBot('g', gridConfig({ position: 'neutral' }))).toThrow(/derivatives/);
    expect(() => createGridBot('g', gridConfig({ low: 150, high: 100 }))).toThrow(
      'Low Price must be less than High Price.',
    );
    expect(() => createGridBot('g', gridConfig({ stepPct: 0 }))).toThrow(/stepPct/);
    expect(() => createGridBot('g', gridConfig({ stepPct: 0.1, low: 10, high: 1000 }))).toThrow(
      'The range 10–1000 at 0.1% needs more than 200 levels.',
    );
    expect(() => createGridBot('g', gridConfig({ amountPerLevel: 4 }))).toThrow(
      'amountPerLevel 4 buys 0.04 at 100: below the market minimum (cost 5, amount 0).',
    );
  });
});

describe('Grid bot on derivatives', () => {
  it('short: sells the base of the buy levels at market; closing buys are reduceOnly', () => {
    const r = drive(createGridBot('g', gridConfig({ position: 'short', derivatives: true })), [
      tick(120, 1000),
    ]);
    // The short of slots 0 and 1: 1 + 0.909 = 1.909 base sold at market.
    expect(brief(places(r.commands))).toEqual([['g-1', 'sell', 'market', null, 1.909, 'grid_init', false]]);
    const s = drive(r.state, [fill('g-1', 120, 1.909, 0.22908, 1001)]);
    expect(brief(places(s.commands))).toEqual([
      ['g-2', 'buy', 'limit', 100, 1, 'grid_buy', true],
      ['g-3', 'buy', 'limit', 110, 0.909, 'grid_buy', true],
      ['g-4', 'sell', 'limit', 133.1, 0.8264, 'grid_sell', false],
      ['g-5', 'sell', 'limit', 146.41, 0.7513, 'grid_sell', false],
    ]);
    // Down to 110: slot 1's short (0.909 sold at 120, fee 0.22908 × 0.909 / 1.909 = 0.10908) is bought
    // back: 0.909 × (120 − 110) − 0.09999 − 0.10908 = 8.88093; the slot sells again at 121.
    const d = drive(s.state, [tick(110, 2000), fill('g-3', 110, 0.909, 0.09999, 2000)]);
    expect(trades(d.commands)).toEqual([
      {
        lotId: 'g-1:1',
        qty: 0.909,
        buyPrice: 110,
        sellPrice: 120,
        buyTime: 2000,
        sellTime: 1001,
        buyFee: 0.09999,
        sellFee: 0.10908,
        pnlNet: 8.88093,
      },
    ]);
    expect(brief(places(d.commands))).toEqual([['g-6', 'sell', 'limit', 121, 0.909, 'grid_sell', false]]);
    // Up to 121 the sell opens the short again; its buy back at 110 is reduceOnly.
    const u = drive(d.state, [tick(121, 3000), fill('g-6', 121, 0.909, 0.109989, 3000)]);
    expect(brief(places(u.commands))).toEqual([['g-7', 'buy', 'limit', 110, 0.909, 'grid_buy', true]]);
    expect(gridSummary(u.state).baseHeld).toBe(-1.909);
  });

  it('neutral: no start position; buys below, sells above, each fill re-arms one level away', () => {
    const r = drive(createGridBot('g', gridConfig({ position: 'neutral', derivatives: true })), [
      tick(120, 1000),
    ]);
    expect(r.state.status).toBe('running');
    expect(brief(places(r.commands))).toEqual([
      ['g-1', 'buy', 'limit', 100, 1, 'grid_buy', false],
      ['g-2', 'buy', 'limit', 110, 0.909, 'grid_buy', false],
      ['g-3', 'sell', 'limit', 133.1, 0.8264, 'grid_sell', false],
      ['g-4', 'sell', 'limit', 146.41, 0.7513, 'grid_sell', false],
    ]);
    const d = drive(r.state, [tick(133.1, 2000), fill('g-3', 133.1, 0.8264, 0.10999384, 2000)]);
    expect(brief(places(d.commands))).toEqual([['g-5', 'buy', 'limit', 121, 0.8264, 'grid_buy', false]]);
    // Back down to 121: 0.8264 × (133.1 − 121) − 0.10999384 − 0.0999944 = 9.99944 − 0.20998824
    // = 9.78945176.
    const u = drive(d.state, [tick(121, 3000), fill('g-5', 121, 0.8264, 0.0999944, 3000)]);
    expect(trades(u.commands)[0]!.pnlNet).toBe(9.78945176);
    expect(brief(places(u.commands))).toEqual([['g-6', 'sell', 'limit', 133.1, 0.8264, 'grid_sell', false]]);
  });

  it('a liquidation closes every open slot at its price and stops the bot', () => {
    const s = drive(createGridBot('g', gridConfig({ position: 'short', derivatives: true })), [
      tick(120, 1000),
      fill('g-1', 120, 1.909, 0.22908, 1001),
    ]);
    const l = drive(s.state, [{ type: 'liquidated', price: 180, contracts: 1.909, ts: 5000 }]);
    expect(codes(l.commands)).toEqual(['liquidated']);
    // Slot 0: 1 × (120 − 180) − 0.12 = −60.12; slot 1: 0.909 × (120 − 180) − 0.10908 = −54.64908.
    expect(trades(l.commands).map((t) => [t.lotId, t.buyPrice, t.pnlNet])).toEqual([
      ['g-1:0', 180, -60.12],
      ['g-1:1', 180, -54.64908],
    ]);
    expect(stops(l.commands)).toEqual(['liquidated']);
    expect(l.state.status).toBe('stopped');
    expect(drive(l.state, [tick(100, 6000)]).commands).toEqual([]);
  });
});
