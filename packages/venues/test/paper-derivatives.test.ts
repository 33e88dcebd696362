import { describe, expect, it } from 'vitest';
import {
  InsufficientFundsError,
  InvalidOrderError,
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  simulatedFundingRate,
  type CreateOrderRequest,
  type Liquidation,
  type PaperStore,
} from '../src/index';

/** 2025-01-15 12:00 UTC: the next funding time is 16:00. */
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const PERP = 'BTC/USDT:USDT';
const INV = 'BTC/USD:BTC';

function setup(opts: { store?: PaperStore; sim?: MarketSimulator; account?: string } = {}) {
  const sim = opts.sim ?? new MarketSimulator({ seed: 7, startTime: T0 });
  const store = opts.store ?? new MemoryPaperStore();
  const venue = new PaperVenue({
    accountId: opts.account ?? 'acct-d',
    feed: new SimulatedMarketData(sim, 'binance'),
    store,
    // The simulated market's clock (funding times are market times).
    now: () => sim.time,
  });
  return { sim, store, venue };
}

let cid = 0;
const order = (
  o: Partial<CreateOrderRequest> & Pick<CreateOrderRequest, 'side' | 'amount'>,
): CreateOrderRequest => ({
  symbol: PERP,
  type: 'limit',
  clientOrderId: `c${++cid}`,
  ...o,
});

describe('simulated swap markets', () => {
  it('lists linear and inverse swaps that follow the spot price', async () => {
    const sim = new MarketSimulator({ seed: 7, startTime: T0 });
    const md = new SimulatedMarketData(sim, 'binance');
    const markets = await md.loadMarkets();
    expect(markets[PERP]).toMatchObject({
      type: 'swap',
      linear: true,
      inverse: false,
      settle: 'USDT',
      contractSize: 1,
      maxLeverage: 125,
      amountStep: 0.00001,
      taker: 0.0005,
      maker: 0.0002,
    });
    expect(markets[INV]).toMatchObject({
      type: 'swap',
      inverse: true,
      settle: 'BTC',
      quote: 'USD',
      amountStep: 1,
    });
    expect(markets['ETH/USDT:USDT']?.maxLeverage).toBe(125);
    expect(markets['SOL/USDT:USDT']?.maxLeverage).toBe(75);
    expect(markets['ETH/USDC:USDC']?.settle).toBe('USDC');
    expect(markets['BTC/USDT']).toMatchObject({ type: 'spot', margin: true, maxLeverage: 10 });
    // The spot list is unchanged.
    expect(Object.keys(sim.markets('binance')).every((s) => !s.includes(':'))).toBe(true);

    const seen: string[] = [];
    sim.onPairPrice('binance', INV, (e) => seen.push(`${e.symbol}@${e.price}`));
    sim.setPrice('binance', 'BTC/USDT', 61_000);
    expect(sim.price('binance', PERP)).toBe(61_000);
    expect(sim.price('binance', INV)).toBe(61_000);
    expect(seen).toEqual(['BTC/USD:BTC@61000']);
    // Setting a swap's price sets its spot pair.
    sim.setPrice('binance', PERP, 62_000);
    expect(sim.price('binance', 'BTC/USDT')).toBe(62_000);
    expect((await md.fetchTicker(PERP)).symbol).toBe(PERP);
    const book = await md.fetchOrderBook(INV);
    for (const [, contracts] of [...book.bids, ...book.asks]) expect(Number.isInteger(contracts)).toBe(true);
    expect((await md.fetchOHLCV(PERP, '1h', undefined, 5)).length).toBe(5);
  });
});

describe('PaperVenue: Perpetual (linear)', () => {
  it('opens, increases, reduces and closes a position with margin, fees and PnL', async () => {
    const { venue, sim } = setup();
    expect(await venue.setLeverage(10, PERP)).toBe(10);
    sim.setPrice('binance', PERP, 59_990);
    // A limit buy above the last price fills at once at its price (taker 0.05 %).
    const o1 = await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 60_000 }));
    expect(o1).toMatchObject({ status: 'closed', filled: 0.1, average: 60_000, cost: 6_000 });
    expect(o1.fee).toEqual({ cost: 3, currency: 'USDT' });
    // margin 6,000 ÷ 10 = 600; fee 3: free 10,000 − 603
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({
      free: 9_397,
      used: 600,
      total: 9_997,
    });
    // The spot wallet is untouched.
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 10_000, used: 0, total: 10_000 });
    let [pos] = await venue.fetchPositions();
    expect(pos).toMatchObject({
      symbol: PERP,
      marketType: 'Perpetual',
      side: 'long',
      contracts: 0.1,
      entryPrice: 60_000,
      markPrice: 59_990,
      leverage: 10,
      collateral: 600,
      liquidationPrice: 54_271.36,
      unrealizedPnl: -1,
      settle: 'USDT',
      marginMode: 'isolated',
    });

    // Increase: +0.1 at 62,000 → entry 61,000, margin +620, fee 3.1.
    sim.setPrice('binance', PERP, 61_990);
    await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 62_000 }));
    [pos] = await venue.fetchPositions([PERP]);
    expect(pos).toMatchObject({ contracts: 0.2, entryPrice: 61_000, collateral: 1_220 });
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({
      free: 8_773.9,
      used: 1_220,
      total: 9_993.9,
    });

    // Reduce: sell 0.1 at 63,000 → PnL 0.1 × 2,000 = 200, half the margin (610) back, fee 3.15.
    sim.setPrice('binance', PERP, 63_010);
    await venue.createOrder(order({ side: 'sell', amount: 0.1, price: 63_000 }));
    [pos] = await venue.fetchPositions();
    expect(pos).toMatchObject({ side: 'long', contracts: 0.1, entryPrice: 61_000, collateral: 610 });
    // 8,773.9 + 610 + 200 − 3.15
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({
      free: 9_580.75,
      used: 610,
      total: 10_190.75,
    });

    // Close: a reduce-only market sell of more than the position is capped at it.
    const close = await venue.createOrder(
      order({ side: 'sell', type: 'market', amount: 0.5, reduceOnly: true }),
    );
    expect(close).toMatchObject({ status: 'closed', amount: 0.1, filled: 0.1, reduceOnly: true });
    expect(await venue.fetchPositions()).toEqual([]);
    expect((await venue.fetchBalance({ type: 'swap' })).USDT?.used).toBe(0);
  });

  it('reduce-only never opens or flips; a plain order through the position flips it', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', PERP, 59_990);
    await expect(
      venue.createOrder(order({ side: 'sell', amount: 0.1, price: 59_000, reduceOnly: true })),
    ).rejects.toBeInstanceOf(InvalidOrderError);
    await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 60_000 }));
    // A reduce-only buy would increase the long: refused.
    await expect(
      venue.createOrder(order({ side: 'buy', type: 'market', amount: 0.1, reduceOnly: true })),
    ).rejects.toThrow(/ReduceOnly Order is rejected/);
    // A resting reduce-only sell of 0.3 reserves nothing …
    const ro = await venue.createOrder(order({ side: 'sell', amount: 0.3, price: 61_000, reduceOnly: true }));
    expect(ro.status).toBe('open');
    expect((await venue.fetchBalance({ type: 'swap' })).USDT?.used).toBe(6_000); // 1x: the margin only
    // … and fills only the 0.1 held when crossed, then ends cancelled: no short.
    sim.setPrice('binance', PERP, 61_000);
    const after = await venue.fetchOrder(ro.id, PERP);
    expect(after).toMatchObject({ status: 'canceled', filled: 0.1, remaining: 0.2 });
    expect(await venue.fetchPositions()).toEqual([]);

    // Without reduceOnly a sell larger than the long closes it and opens a short with the rest.
    await venue.setLeverage(10, PERP);
    sim.setPrice('binance', PERP, 59_990);
    await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 60_000 }));
    sim.setPrice('binance', PERP, 60_010);
    await venue.createOrder(order({ side: 'sell', amount: 0.3, price: 60_000 }));
    const [short] = await venue.fetchPositions();
    // 0.2 × 60,000 ÷ 10
    expect(short).toMatchObject({ side: 'short', contracts: 0.2, entryPrice: 60_000, collateral: 1_200 });
  });

  it('limit orders reserve initial margin plus maker fee; cancel releases it; a fill uses it', async () => {
    const { venue, sim } = setup();
    await venue.setLeverage(10, PERP);
    sim.setPrice('binance', PERP, 60_000);
    const rest = await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 59_000 }));
    expect(rest.status).toBe('open');
    // 5,900 ÷ 10 = 590 margin + 5,900 × 0.02 % = 1.18 maker fee
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({
      free: 9_408.82,
      used: 591.18,
      total: 10_000,
    });
    await venue.cancelOrder(rest.id, PERP);
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({
      free: 10_000,
      used: 0,
      total: 10_000,
    });

    const again = await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 59_000 }));
    const updates: string[] = [];
    venue.onOrderUpdate((o) => updates.push(`${o.id}:${o.status}`));
    sim.setPrice('binance', PERP, 58_990);
    expect(updates).toEqual([`${again.id}:closed`]);
    expect((await venue.fetchOrder(again.id, PERP)).fee).toEqual({ cost: 1.18, currency: 'USDT' });
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({
      free: 9_408.82,
      used: 590,
      total: 9_998.82,
    });
    expect((await venue.fetchPositions())[0]).toMatchObject({ entryPrice: 59_000, collateral: 590 });

    // More margin than the wallet has: refused before anything changes.
    await expect(venue.createOrder(order({ side: 'buy', amount: 2, price: 58_000 }))).rejects.toBeInstanceOf(
      InsufficientFundsError,
    );
    expect(await venue.fetchOpenOrders(PERP)).toEqual([]);
  });

  it('liquidates when the mark crosses: cancels the orders (pushed first), closes, records, then notifies', async () => {
    const inner = new MemoryPaperStore();
    const { venue, sim } = setup({ store: inner });
    await venue.setLeverage(10, PERP);
    sim.setPrice('binance', PERP, 59_990);
    await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 60_000 }));
    const tp = await venue.createOrder(order({ side: 'sell', amount: 0.1, price: 66_000, reduceOnly: true }));
    const other = await venue.createOrder(order({ side: 'sell', amount: 0.05, price: 70_000 }));
    // A spot order on the same base is another market: it stays.
    sim.setPrice('binance', 'BTC/USDT', 59_990);
    const spot = await venue.createOrder(
      order({ symbol: 'BTC/USDT', side: 'buy', amount: 0.001, price: 50_000 }),
    );
    expect((await venue.fetchPositions())[0]?.liquidationPrice).toBe(54_271.36);

    const events: string[] = [];
    let savedAtNotice: Liquidation[] | undefined;
    venue.onOrderUpdate((o) => events.push(`order ${o.id} ${o.status}`));
    const notified = new Promise<Liquidation>((resolve) =>
      venue.onLiquidation((l) => {
        events.push(`liquidation ${l.price}`);
        void inner.load('acct-d').then((s) => {
          savedAtNotice = s?.derivatives?.liquidations;
          resolve(l);
        });
      }),
    );
    sim.setPrice('binance', 'BTC/USDT', 54_000); // the perpetual's mark follows
    const liq = await notified;
    expect(events).toEqual([`order ${tp.id} canceled`, `order ${other.id} canceled`, 'liquidation 54271.36']);
    expect(liq).toMatchObject({
      symbol: PERP,
      side: 'long',
      contracts: 0.1,
      price: 54_271.36,
      loss: 600,
      settle: 'USDT',
    });
    expect(savedAtNotice).toHaveLength(1);
    expect(await venue.fetchPositions()).toEqual([]);
    expect(await venue.fetchOpenOrders(PERP)).toEqual([]);
    expect((await venue.fetchOrder(spot.id, 'BTC/USDT')).status).toBe('open');
    // 10,000 − 3 (open fee) − 600 (margin lost); the reservations are released.
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toEqual({ free: 9_397, used: 0, total: 9_397 });
    expect(await venue.fetchMyLiquidations(PERP, T0)).toEqual([liq]);
    expect(await venue.fetchMyLiquidations(PERP, liq.ts + 1)).toEqual([]);
    await venue.close();
    // Persisted: a new instance lists it.
    expect(await setup({ store: inner, sim }).venue.fetchMyLiquidations(PERP)).toEqual([liq]);
  });

  it('a market short walks the book and is liquidated when the mark rises to its liquidation price', async () => {
    const { venue, sim } = setup();
    await venue.setLeverage(20, 'ETH/USDT:USDT');
    sim.setPrice('binance', 'ETH/USDT', 3_000);
    const book = await venue.fetchOrderBook('ETH/USDT:USDT');
    const o = await venue.createOrder(
      order({ symbol: 'ETH/USDT:USDT', side: 'sell', type: 'market', amount: 1 }),
    );
    expect(o.status).toBe('closed');
    expect(o.average!).toBeLessThanOrEqual(book.bids[0]![0]);
    const [pos] = await venue.fetchPositions();
    // short liq = e(1 + 1/20) ÷ 1.005 ≈ e × 1.04478
    expect(pos!.side).toBe('short');
    expect(pos!.liquidationPrice!).toBeCloseTo((o.average! * 1.05) / 1.005, 1);
    const liquidated: Liquidation[] = [];
    venue.onLiquidation((l) => liquidated.push(l));
    sim.setPrice('binance', 'ETH/USDT', 3_100); // below: nothing
    expect(await venue.fetchPositions()).toHaveLength(1);
    sim.setPrice('binance', 'ETH/USDT', 3_200);
    await venue.flush();
    expect(liquidated).toMatchObject([
      { symbol: 'ETH/USDT:USDT', side: 'short', contracts: 1, price: pos!.liquidationPrice },
    ]);
    expect(liquidated[0]!.loss).toBeCloseTo(o.average! / 20, 6);
  });

  it('charges funding once per funding time, also across a reload from the store', async () => {
    const store = new MemoryPaperStore();
    const sim = new MarketSimulator({ seed: 7, startTime: T0 });
    const first = setup({ store, sim }).venue;
    await first.setLeverage(10, PERP);
    sim.setPrice('binance', PERP, 59_990);
    await first.createOrder(order({ side: 'buy', amount: 0.1, price: 60_000 }));
    const t16 = Date.UTC(2025, 0, 15, 16);
    const r16 = simulatedFundingRate(PERP, t16);
    expect(await first.fetchFundingRate(PERP)).toEqual({
      symbol: PERP,
      rate: r16,
      nextFundingTime: t16,
      timestamp: T0,
    });

    sim.advance(t16 - 1_000);
    sim.setPrice('binance', PERP, 61_000); // before 16:00: nothing
    expect((await first.fetchPositions())[0]?.fundingPaid).toBe(0);
    // The first update after 16:00 is the held 61,000 sent again by the simulator (it re-sends an
    // unchanged price once a second): funding 0.1 × 61,000 × rate; the 62,000 after it changes nothing.
    sim.advance(t16 + 1_000);
    sim.setPrice('binance', PERP, 62_000);
    const pay16 = Number((6_100 * r16).toFixed(8));
    let [pos] = await first.fetchPositions();
    expect(pos?.fundingPaid).toBe(pay16);
    expect(pos?.collateral).toBeCloseTo(600 - pay16, 8);
    sim.advance(t16 + 60_000);
    sim.setPrice('binance', PERP, 62_500); // same funding time: not again
    expect((await first.fetchPositions())[0]?.fundingPaid).toBe(pay16);
    await first.close();

    // While nobody has the account loaded, 00:00 passes.
    const t00 = Date.UTC(2025, 0, 16, 0);
    sim.advance(t00 + 5_000);
    sim.setPrice('binance', PERP, 63_000);
    const second = setup({ store, sim }).venue;
    const r00 = simulatedFundingRate(PERP, t00);
    const pay00 = Number((6_300 * r00).toFixed(8));
    [pos] = await second.fetchPositions();
    expect(pos?.fundingPaid).toBeCloseTo(pay16 + pay00, 8);
    sim.advance(t00 + 10_000);
    sim.setPrice('binance', PERP, 63_100);
    await second.close();
    const third = setup({ store, sim }).venue;
    [pos] = await third.fetchPositions();
    expect(pos?.fundingPaid).toBeCloseTo(pay16 + pay00, 8);
    expect(pos?.collateral).toBeCloseTo(600 - pay16 - pay00, 8);
  });
});

describe('PaperVenue: Inverse and Margin', () => {
  it('an inverse position posts margin and pays PnL in BTC', async () => {
    const { venue, sim } = setup();
    await venue.setLeverage(5, INV);
    sim.setPrice('binance', 'BTC/USDT', 59_990);
    // 6,000 contracts of 1 USD at 60,000 = 0.1 BTC; margin 0.02 BTC; fee 0.1 × 0.05 % = 0.00005 BTC
    await venue.createOrder(order({ symbol: INV, side: 'buy', amount: 6_000, price: 60_000 }));
    expect((await venue.fetchBalance({ type: 'swap' })).BTC).toEqual({
      free: 0.07995,
      used: 0.02,
      total: 0.09995,
    });
    const [pos] = await venue.fetchPositions([INV]);
    expect(pos).toMatchObject({
      marketType: 'Inverse',
      contracts: 6_000,
      notional: 0.10001667,
      collateral: 0.02,
      liquidationPrice: 50_250,
      settle: 'BTC',
    });
    // Close at 66,000: PnL 0.00909091 BTC, fee 0.09090909 × 0.05 % = 0.00004545 BTC
    sim.setPrice('binance', 'BTC/USDT', 66_010);
    await venue.createOrder(
      order({ symbol: INV, side: 'sell', amount: 6_000, price: 66_000, reduceOnly: true }),
    );
    expect(await venue.fetchPositions()).toEqual([]);
    // 0.07995 + 0.02 + 0.00909091 − 0.00004545
    expect((await venue.fetchBalance({ type: 'swap' })).BTC).toEqual({
      free: 0.10899546,
      used: 0,
      total: 0.10899546,
    });
  });

  it('a margin long borrows quote from the spot wallet, pays hourly interest and liquidates only margin orders', async () => {
    const { venue, sim } = setup();
    await venue.setLeverage(3, 'BTC/USDT');
    sim.setPrice('binance', 'BTC/USDT', 59_990);
    const m = await venue.createOrder(
      order({ symbol: 'BTC/USDT', side: 'buy', amount: 0.1, price: 60_000, marginMode: 'isolated' }),
    );
    expect(m).toMatchObject({ status: 'closed', marginMode: 'isolated', fee: { cost: 6, currency: 'USDT' } });
    let [pos] = await venue.fetchPositions();
    // collateral 2,000 less the first hour's interest on 4,000 borrowed (0.04)
    expect(pos).toMatchObject({
      marketType: 'Margin',
      symbol: 'BTC/USDT',
      collateral: 1_999.96,
      borrowed: { currency: 'USDT', amount: 4_000 },
      interestPaid: 0.04,
      settle: 'USDT',
    });
    // Spot wallet: 10,000 − 2,000 − 6 (0.1 % spot taker fee); the BTC is in the position, not in spot.
    let spot = await venue.fetchBalance({ type: 'margin' });
    expect(spot.USDT).toEqual({ free: 7_994, used: 1_999.96, total: 9_993.96 });
    expect(spot.BTC).toBeUndefined();

    // Two whole hours later: 2 × 0.04 more.
    sim.advance(Date.UTC(2025, 0, 15, 14, 0, 1));
    sim.setPrice('binance', 'BTC/USDT', 60_100);
    [pos] = await venue.fetchPositions();
    expect(pos).toMatchObject({ interestPaid: 0.12, collateral: 1_999.88 });

    // Liquidation cancels the margin orders of the symbol, not its spot orders.
    const spotBuy = await venue.createOrder(
      order({ symbol: 'BTC/USDT', side: 'buy', amount: 0.001, price: 30_000 }),
    );
    const marginTp = await venue.createOrder(
      order({
        symbol: 'BTC/USDT',
        side: 'sell',
        amount: 0.1,
        price: 70_000,
        marginMode: 'isolated',
        reduceOnly: true,
      }),
    );
    const liqPrice = pos!.liquidationPrice!;
    // (60,000 − 1,999.88 / 0.1) ÷ 0.995 = 40,001.2 ÷ 0.995 = 40,202.211…
    expect(liqPrice).toBe(40_202.21);
    sim.setPrice('binance', 'BTC/USDT', 40_000);
    expect((await venue.fetchOrder(marginTp.id, 'BTC/USDT')).status).toBe('canceled');
    expect((await venue.fetchOrder(spotBuy.id, 'BTC/USDT')).status).toBe('open');
    expect(await venue.fetchPositions()).toEqual([]);
    expect(await venue.fetchMyLiquidations('BTC/USDT')).toMatchObject([{ price: 40_202.21, loss: 1_999.88 }]);
    spot = await venue.fetchBalance();
    expect(spot.USDT?.used).toBeCloseTo(30.03, 8); // the spot buy's reservation only
  });
});

describe('PaperVenue: wallets and leverage', () => {
  it('seeds the derivatives wallet and transfers between spot and swap (persisted)', async () => {
    const store = new MemoryPaperStore();
    const { venue, sim } = setup({ store });
    const swap = await venue.fetchBalance({ type: 'swap' });
    expect(swap).toEqual({
      USDT: { free: 10_000, used: 0, total: 10_000 },
      BTC: { free: 0.1, used: 0, total: 0.1 },
      ETH: { free: 3, used: 0, total: 3 },
    });
    await venue.transfer('USDT', 1_000, 'spot', 'swap');
    await venue.transfer('BTC', 0.05, 'swap', 'spot');
    expect((await venue.fetchBalance()).USDT?.free).toBe(9_000);
    expect((await venue.fetchBalance()).BTC?.free).toBe(0.05);
    expect((await venue.fetchBalance({ type: 'swap' })).USDT?.free).toBe(11_000);
    await expect(venue.transfer('ETH', 1, 'spot', 'swap')).rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(venue.transfer('USDT', 1, 'spot', 'spot')).rejects.toBeInstanceOf(InvalidOrderError);
    await expect(venue.transfer('USDT', -5, 'swap', 'spot')).rejects.toBeInstanceOf(InvalidOrderError);
    await venue.close();
    const again = setup({ store, sim }).venue;
    expect((await again.fetchBalance({ type: 'swap' })).BTC?.free).toBe(0.05);
    expect((await again.fetchBalance()).USDT?.free).toBe(9_000);
  });

  it('an account saved before derivatives loads with the seed', async () => {
    const inner = new MemoryPaperStore();
    const old: PaperStore = {
      load: async (id) => {
        const s = await inner.load(id);
        if (!s) return null;
        const { derivatives: _ignored, ...rest } = s;
        return rest;
      },
      save: (id, c) => inner.save(id, c),
    };
    await setup({ store: inner }).venue.transfer('USDT', 500, 'spot', 'swap');
    const venue = setup({ store: old }).venue;
    expect((await venue.fetchBalance()).USDT?.free).toBe(9_500);
    expect((await venue.fetchBalance({ type: 'swap' })).USDT?.free).toBe(10_000);
  });

  it('leverage is a whole number from 1 to the market maximum (125 BTC/ETH, 75 others, 10 margin)', async () => {
    const store = new MemoryPaperStore();
    const { venue, sim } = setup({ store });
    expect(await venue.fetchLeverage(PERP)).toBe(1);
    expect(await venue.setLeverage(125, PERP)).toBe(125);
    expect(await venue.setLeverage(125, 'ETH/USDT:USDT')).toBe(125);
    expect(await venue.setLeverage(75, 'SOL/USDT:USDT')).toBe(75);
    expect(await venue.setLeverage(10, 'BTC/USDT')).toBe(10);
    for (const [l, s] of [
      [126, PERP],
      [76, 'SOL/USDT:USDT'],
      [0, PERP],
      [2.5, PERP],
      [11, 'BTC/USDT'],
    ] as const) {
      await expect(venue.setLeverage(l, s)).rejects.toThrow(/Leverage must be a whole number from 1 to/);
    }
    await expect(venue.setLeverage(5, 'NOPE/USDT:USDT')).rejects.toMatchObject({ reason: 'bad_symbol' });
    await venue.close();
    expect(await setup({ store, sim }).venue.fetchLeverage(PERP)).toBe(125);
  });

  it('a 125x position opens with 1/125 of the value and its liquidation price close by', async () => {
    const { venue, sim } = setup();
    await venue.setLeverage(125, PERP);
    sim.setPrice('binance', PERP, 59_990);
    await venue.createOrder(order({ side: 'buy', amount: 0.1, price: 60_000 }));
    const [pos] = await venue.fetchPositions();
    // 6,000 ÷ 125 = 48; liq = (60,000 − 480) ÷ 0.995 = 59,819.10
    expect(pos).toMatchObject({ collateral: 48, liquidationPrice: 59_819.1 });
    await expect(
      venue.createOrder(order({ symbol: 'BTC/USDT', side: 'sell', amount: 0.1, price: 1, reduceOnly: true })),
    ).rejects.toThrow(/reduceOnly applies to derivatives and margin orders only/);
  });
});
