import { describe, expect, it } from 'vitest';
import {
  InsufficientFundsError,
  InvalidOrderError,
  MarketSimulator,
  MemoryPaperStore,
  OrderNotFoundError,
  PaperVenue,
  SimulatedMarketData,
  VenueNetworkError,
  type Order,
  type PaperStore,
} from '../src/index';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

function setup(opts: { store?: PaperStore; sim?: MarketSimulator; account?: string; usdt?: number } = {}) {
  const sim = opts.sim ?? new MarketSimulator({ seed: 7, startTime: T0 });
  const store = opts.store ?? new MemoryPaperStore();
  const feed = new SimulatedMarketData(sim, 'binance');
  const venue = new PaperVenue({
    accountId: opts.account ?? 'acct-1',
    feed,
    store,
    addressSeed: 'user-1',
    initialBalances: { USDT: opts.usdt ?? 10_000 },
  });
  return { sim, store, feed, venue };
}

describe('PaperVenue', () => {
  it('seeds 10,000 USDT on first load and saves it', async () => {
    const { venue, store } = setup();
    const bal = await venue.fetchBalance();
    expect(bal.USDT).toEqual({ free: 10_000, used: 0, total: 10_000 });
    expect((await store.load('acct-1'))?.balances.USDT?.free).toBe(10_000);
  });

  it('rests a limit buy, reserves quote plus fee, and fills at its own price when the market crosses', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const updates: Order[] = [];
    venue.onOrderUpdate((o) => updates.push(o));
    const o = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 1,
      price: 3000,
      clientOrderId: 'b1',
    });
    expect(o.status).toBe('open');
    let bal = await venue.fetchBalance();
    expect(bal.USDT).toEqual({ free: 6997, used: 3003, total: 10_000 });

    sim.setPrice('binance', 'ETH/USDT', 3000.5); // not crossed yet
    expect((await venue.fetchOrder(o.id, 'ETH/USDT')).status).toBe('open');
    sim.setPrice('binance', 'ETH/USDT', 2950); // crossed: fills at 3000, not 2950
    const filled = await venue.fetchOrder(o.id, 'ETH/USDT');
    expect(filled).toMatchObject({ status: 'closed', filled: 1, remaining: 0, average: 3000, cost: 3000 });
    expect(filled.fee).toEqual({ cost: 3, currency: 'USDT' });
    bal = await venue.fetchBalance();
    expect(bal.USDT).toEqual({ free: 6997, used: 0, total: 6997 });
    expect(bal.ETH?.free).toBe(1);
    expect(updates.map((u) => u.status)).toEqual(['closed']);
  });

  it('a limit sell reserves base and credits quote minus the 0.1% fee when the price rises to it', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'ETH/USDT', 2000);
    await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 2,
      price: 2000,
      clientOrderId: 'b',
    });
    const s = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'sell',
      type: 'limit',
      amount: 2,
      price: 2100,
      clientOrderId: 's',
    });
    expect(s.status).toBe('open');
    expect((await venue.fetchBalance()).ETH).toEqual({ free: 0, used: 2, total: 2 });
    sim.setPrice('binance', 'ETH/USDT', 2100);
    const bal = await venue.fetchBalance();
    expect(bal.ETH).toEqual({ free: 0, used: 0, total: 0 });
    // 10000 - 4000 - 4 (buy fee) + 4200 - 4.2 (sell fee)
    expect(bal.USDT?.free).toBe(10_191.8);
  });

  it('a limit order that already crosses fills at once at its own price with the taker fee', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'BTC/USDT', 90_000);
    const o = await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 91_000,
      clientOrderId: 'x',
    });
    expect(o).toMatchObject({ status: 'closed', average: 91_000, cost: 910 });
    expect(o.fee?.cost).toBe(0.91);
  });

  it('rounds amounts down to the step and prices to the tick', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'BTC/USDT', 95_000);
    const m = (await venue.loadMarkets())['BTC/USDT'];
    expect(m).toMatchObject({ amountStep: 0.00001, priceStep: 0.01, minCost: 5, taker: 0.001 });
    const o = await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.0123456,
      price: 90_000.1234,
      clientOrderId: 'p',
    });
    expect(o.amount).toBe(0.01234);
    expect(o.price).toBe(90_000.12);
  });

  it('refuses orders below the minimum cost or amount with InvalidOrderError and changes nothing', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'BTC/USDT', 95_000);
    const err = await venue
      .createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.00004,
        price: 90_000,
        clientOrderId: 'm1',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOrderError);
    expect((err as InvalidOrderError).reason).toBe('min_cost');
    expect((err as InvalidOrderError).action).toBe('refuse');
    const err2 = await venue
      .createOrder({ symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: 0.000001, clientOrderId: 'm2' })
      .catch((e: unknown) => e);
    expect((err2 as InvalidOrderError).reason).toBe('min_amount');
    const err3 = await venue
      .createOrder({ symbol: 'NOPE/USDT', side: 'buy', type: 'market', amount: 1, clientOrderId: 'm3' })
      .catch((e: unknown) => e);
    expect((err3 as InvalidOrderError).reason).toBe('bad_symbol');
    expect(await venue.fetchOpenOrders()).toEqual([]);
    expect((await venue.fetchBalance()).USDT?.free).toBe(10_000);
  });

  it('refuses what the free balance cannot pay with InsufficientFundsError', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'BTC/USDT', 95_000);
    await expect(
      venue.createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.2,
        price: 90_000,
        clientOrderId: 'i1',
      }),
    ).rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(
      venue.createOrder({
        symbol: 'BTC/USDT',
        side: 'sell',
        type: 'market',
        amount: 0.001,
        clientOrderId: 'i2',
      }),
    ).rejects.toMatchObject({ action: 'wait_funds' });
    // Reserved funds are not free: two buys of 6,000 do not both fit.
    await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.1,
      price: 60_000,
      clientOrderId: 'i3',
    });
    await expect(
      venue.createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.1,
        price: 60_000,
        clientOrderId: 'i4',
      }),
    ).rejects.toBeInstanceOf(InsufficientFundsError);
  });

  it('a repeated client order id returns the existing order, not a second one', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const req = {
      symbol: 'ETH/USDT',
      side: 'buy' as const,
      type: 'limit' as const,
      amount: 0.5,
      price: 3000,
      clientOrderId: 'bot1-0001',
    };
    const [a, b] = await Promise.all([venue.createOrder(req), venue.createOrder(req)]);
    const c = await venue.createOrder({ ...req, price: 2000 });
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    expect(await venue.fetchOpenOrders('ETH/USDT')).toHaveLength(1);
    expect((await venue.fetchBalance()).USDT?.used).toBe(1501.5);
    expect((await venue.fetchOrderByClientId('bot1-0001', 'ETH/USDT'))?.id).toBe(a.id);
    expect(await venue.fetchOrderByClientId('unknown', 'ETH/USDT')).toBeNull();
  });

  it('a market buy walks the book for size and pays the average price', async () => {
    const { venue, sim } = setup({ usdt: 1_000_000 });
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const book = await venue.fetchOrderBook('ETH/USDT');
    expect(book.asks).toHaveLength(10);
    const [l1, l2] = book.asks;
    const amount = Number((l1![1] + l2![1] / 2).toFixed(4));
    const o = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'market',
      amount,
      clientOrderId: 'mk',
    });
    expect(o.status).toBe('closed');
    expect(o.filled).toBe(amount);
    const expectedCost = l1![0] * l1![1] + l2![0] * (amount - l1![1]);
    expect(o.cost).toBeCloseTo(expectedCost, 6);
    expect(o.average!).toBeGreaterThan(l1![0]);
    expect(o.average!).toBeLessThan(l2![0]);
    const bal = await venue.fetchBalance();
    expect(bal.USDT?.free).toBeCloseTo(1_000_000 - expectedCost * 1.001, 6);
    expect(bal.ETH?.free).toBe(amount);
  });

  it('cancel releases the reservation and reports the order; unknown ids give OrderNotFoundError', async () => {
    const { venue, sim } = setup();
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const updates: string[] = [];
    venue.onOrderUpdate((o) => updates.push(`${o.id}:${o.status}`));
    const o = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 1,
      price: 3000,
      clientOrderId: 'c1',
    });
    const c = await venue.cancelOrder(o.id, 'ETH/USDT');
    expect(c.status).toBe('canceled');
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 10_000, used: 0, total: 10_000 });
    expect(updates).toEqual([`${o.id}:canceled`]);
    sim.setPrice('binance', 'ETH/USDT', 2000); // a cancelled order never fills
    expect((await venue.fetchOrder(o.id, 'ETH/USDT')).status).toBe('canceled');
    await expect(venue.cancelOrder(o.id, 'ETH/USDT')).rejects.toBeInstanceOf(OrderNotFoundError);
    await expect(venue.fetchOrder('999', 'ETH/USDT')).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  it('a restart on the same store keeps balances and resting orders, which still fill', async () => {
    const store = new MemoryPaperStore();
    const sim = new MarketSimulator({ seed: 3, startTime: T0 });
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const first = setup({ store, sim }).venue;
    const o = await first.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 1,
      price: 3000,
      clientOrderId: 'r1',
    });
    await first.close();

    const second = setup({ store, sim }).venue;
    expect(await second.fetchOpenOrders()).toEqual([o]);
    expect((await second.fetchBalance()).USDT).toEqual({ free: 6997, used: 3003, total: 10_000 });
    // The client id survives the restart: no second order.
    const again = await second.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 1,
      price: 3000,
      clientOrderId: 'r1',
    });
    expect(again.id).toBe(o.id);
    sim.setPrice('binance', 'ETH/USDT', 2999);
    expect((await second.fetchOrder(o.id, 'ETH/USDT')).status).toBe('closed');
    // New ids continue the sequence.
    const next = await second.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 2500,
      clientOrderId: 'r2',
    });
    expect(Number(next.id)).toBeGreaterThan(Number(o.id));
    await second.close();
    const third = setup({ store, sim }).venue;
    expect((await third.fetchBalance()).ETH?.free).toBe(1);
  });

  it('orders crossed while the account was not loaded fill when it loads', async () => {
    const store = new MemoryPaperStore();
    const sim = new MarketSimulator({ seed: 3, startTime: T0 });
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const first = setup({ store, sim }).venue;
    const o = await first.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 1,
      price: 3000,
      clientOrderId: 'r1',
    });
    await first.close();
    sim.setPrice('binance', 'ETH/USDT', 2900);
    const second = setup({ store, sim }).venue;
    expect((await second.fetchOrder(o.id, 'ETH/USDT')).status).toBe('closed');
  });

  it('flush() waits for a slow store to save a fill made on a price move', async () => {
    const inner = new MemoryPaperStore();
    let gate: (() => void) | null = null;
    let slow = false;
    const store: PaperStore = {
      load: (id) => inner.load(id),
      save: async (id, c) => {
        if (slow) await new Promise<void>((r) => (gate = r));
        await inner.save(id, c);
      },
    };
    const { venue, sim } = setup({ store });
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const o = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 1,
      price: 3000,
      clientOrderId: 'f1',
    });
    const pushed: string[] = [];
    venue.onOrderUpdate((u) => pushed.push(u.status));
    slow = true;
    sim.setPrice('binance', 'ETH/USDT', 2990); // fills now; its save waits at the gate
    expect(pushed).toEqual(['closed']);
    let flushed = false;
    const done = venue.flush().then(() => (flushed = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(flushed).toBe(false);
    const savedBefore = (await inner.load('acct-1'))!.orders.find((x) => x.id === o.id);
    expect(savedBefore?.status).toBe('open');
    slow = false;
    (gate as (() => void) | null)?.();
    await done;
    expect(flushed).toBe(true);
    const saved = (await inner.load('acct-1'))!.orders.find((x) => x.id === o.id);
    expect(saved?.status).toBe('closed');
    // Nothing pending: resolves at once.
    await venue.flush();
  });

  it('a failing store makes createOrder throw a retryable error; the order is found by client id', async () => {
    const inner = new MemoryPaperStore();
    let fail = false;
    const store: PaperStore = {
      load: (id) => inner.load(id),
      save: (id, c) => (fail ? Promise.reject(new Error('db down')) : inner.save(id, c)),
    };
    const { venue, sim } = setup({ store });
    sim.setPrice('binance', 'ETH/USDT', 3400);
    await venue.ready();
    fail = true;
    const err = await venue
      .createOrder({
        symbol: 'ETH/USDT',
        side: 'buy',
        type: 'limit',
        amount: 1,
        price: 3000,
        clientOrderId: 'f1',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueNetworkError);
    fail = false;
    const found = await venue.fetchOrderByClientId('f1', 'ETH/USDT');
    expect(found?.status).toBe('open');
    await venue.cancelOrder(found!.id, 'ETH/USDT');
    const saved = await inner.load('acct-1');
    expect(saved?.orders.find((o) => o.clientOrderId === 'f1')?.status).toBe('canceled');
  });

  it('gives deterministic deposit addresses per seed and coin', async () => {
    const { venue } = setup();
    const a = await venue.fetchDepositAddress('ETH');
    expect(a.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await venue.createDepositAddress('ETH')).toEqual(a);
    expect((await venue.fetchDepositAddress('BTC')).address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
  });

  it('keeps a large resting book and fills only the crossed ones', async () => {
    const { venue, sim } = setup({ usdt: 1_000_000 });
    sim.setPrice('binance', 'BTC/USDT', 95_000);
    for (let i = 0; i < 2000; i++) {
      await venue.createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.0001,
        price: 90_000 - i,
        clientOrderId: `g${i}`,
      });
    }
    expect(venue.restingCount).toBe(2000);
    sim.setPrice('binance', 'BTC/USDT', 89_990.5);
    expect(venue.restingCount).toBe(1990);
    const open = await venue.fetchOpenOrders('BTC/USDT');
    expect(Math.max(...open.map((o) => o.price ?? 0))).toBe(89_990);
  });
});

describe('PaperVenue and listing changes', () => {
  it('asks the feed whether a pair is listed now, not the markets it loaded at start', async () => {
    const sim = new MarketSimulator({ startTime: Date.UTC(2025, 0, 15) });
    sim.setListed('binance', 'BTC/USDT', false);
    const venue = new PaperVenue({
      accountId: 'listing',
      feed: new SimulatedMarketData(sim, 'binance'),
      store: new MemoryPaperStore(),
    });
    await venue.ready(); // loaded while delisted (a restart during a delisting)
    const order = (cid: string) =>
      venue.createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.001,
        price: 50_000,
        clientOrderId: cid,
      });
    await expect(order('d1')).rejects.toMatchObject({ reason: 'bad_symbol' });
    sim.setListed('binance', 'BTC/USDT', true);
    expect((await order('l1')).status).toBe('open');
    sim.setListed('binance', 'BTC/USDT', false);
    await expect(order('d2')).rejects.toMatchObject({ reason: 'bad_symbol' });
    await venue.close();
  });
});
