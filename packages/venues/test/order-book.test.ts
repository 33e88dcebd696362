/**
 * The matching core (RestingOrderBook): price-time priority, cancels, partial crossing of a side,
 * equal prices, several symbols, and a property test against a naive reference (one array, a
 * filter and a sort per cross) over random add / cancel / cross sequences.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RestingOrderBook, type MatchSide, type MatchableOrder } from '../src/index';

interface O extends MatchableOrder {
  readonly side: MatchSide;
  readonly price: number;
}

let n = 0;
const order = (side: MatchSide, price: number, symbol = 'ETH/USDT', id = `o${++n}`): O => ({
  id,
  symbol,
  side,
  price,
});
const ids = (orders: readonly MatchableOrder[]) => orders.map((o) => o.id);

describe('RestingOrderBook', () => {
  it('crosses buys at or above the price, best price first, oldest first within a price', () => {
    const book = new RestingOrderBook<O>();
    const a = order('buy', 100, 'ETH/USDT', 'a');
    const b = order('buy', 101, 'ETH/USDT', 'b');
    const c = order('buy', 100, 'ETH/USDT', 'c');
    const d = order('buy', 99, 'ETH/USDT', 'd');
    const e = order('buy', 101, 'ETH/USDT', 'e');
    for (const o of [a, b, c, d, e]) book.add(o);
    expect(book.best('ETH/USDT', 'buy')).toBe(101);
    // 100.5 crosses only the 101 level (partial crossing of the side): b before e (time).
    expect(ids(book.cross('ETH/USDT', 100.5))).toEqual(['b', 'e']);
    expect(book.size).toBe(3);
    // Exactly at a limit: a buy at 100 fills when the market trades at 100.
    expect(ids(book.cross('ETH/USDT', 100))).toEqual(['a', 'c']);
    expect(book.best('ETH/USDT', 'buy')).toBe(99);
    expect(book.cross('ETH/USDT', 99.5)).toEqual([]);
    expect(ids(book.cross('ETH/USDT', 1))).toEqual(['d']);
    expect(book.size).toBe(0);
    expect(book.best('ETH/USDT', 'buy')).toBeUndefined();
  });

  it('crosses sells at or below the price, lowest first; buys before sells when both cross', () => {
    const book = new RestingOrderBook<O>();
    book.add(order('sell', 105, 'X', 's1'));
    book.add(order('sell', 103, 'X', 's2'));
    book.add(order('sell', 103, 'X', 's3'));
    book.add(order('sell', 110, 'X', 's4'));
    expect(book.best('X', 'sell')).toBe(103);
    expect(ids(book.cross('X', 104.99))).toEqual(['s2', 's3']);
    // A buy above a sell can rest after a jump; a price between them crosses both.
    book.add(order('buy', 108, 'X', 'b1'));
    expect(ids(book.cross('X', 106))).toEqual(['b1', 's1']);
    expect(ids(book.orders('X'))).toEqual(['s4']);
  });

  it('cancels from the front, middle and back of a price level and keeps the rest in time order', () => {
    const book = new RestingOrderBook<O>();
    for (const id of ['p', 'q', 'r', 's', 't']) book.add(order('buy', 50, 'X', id));
    expect(book.cancel('p')?.id).toBe('p');
    expect(book.cancel('r')?.id).toBe('r');
    expect(book.cancel('t')?.id).toBe('t');
    expect(book.cancel('t')).toBeUndefined();
    expect(book.cancel('nope')).toBeUndefined();
    expect(book.has('q') && book.has('s')).toBe(true);
    expect(book.get('r')).toBeUndefined();
    // A new order at the price queues behind the survivors.
    book.add(order('buy', 50, 'X', 'u'));
    expect(ids(book.cross('X', 50))).toEqual(['q', 's', 'u']);
  });

  it('reuses a price level emptied by cancels, behind nothing stale', () => {
    const book = new RestingOrderBook<O>();
    book.add(order('sell', 10, 'X', 'a'));
    book.add(order('sell', 12, 'X', 'b'));
    book.cancel('a');
    expect(book.best('X', 'sell')).toBe(12);
    book.add(order('sell', 10, 'X', 'c'));
    expect(book.best('X', 'sell')).toBe(10);
    expect(ids(book.cross('X', 11))).toEqual(['c']);
    expect(book.sizeOf('X')).toBe(1);
  });

  it('keeps symbols apart', () => {
    const book = new RestingOrderBook<O>();
    book.add(order('buy', 100, 'A', 'a1'));
    book.add(order('buy', 100, 'B', 'b1'));
    expect(ids(book.cross('A', 90))).toEqual(['a1']);
    expect(book.sizeOf('A')).toBe(0);
    expect(book.sizeOf('B')).toBe(1);
    expect(book.cross('C', 1)).toEqual([]);
    expect(book.best('C', 'sell')).toBeUndefined();
  });

  it('refuses a repeated id and an order without a finite price', () => {
    const book = new RestingOrderBook();
    book.add({ id: '1', symbol: 'X', side: 'buy', price: 1 });
    expect(() => book.add({ id: '1', symbol: 'X', side: 'sell', price: 2 })).toThrow(RangeError);
    expect(() => book.add({ id: '2', symbol: 'X', side: 'sell', price: null })).toThrow(RangeError);
    expect(() => book.add({ id: '3', symbol: 'X', side: 'sell', price: Number.NaN })).toThrow(RangeError);
    expect(book.size).toBe(1);
  });

  it('stays right after most levels are cancelled (the heap is rebuilt without empty levels)', () => {
    const book = new RestingOrderBook<O>();
    // 1,000 distinct prices, then 900 of them cancelled from the best end and the middle: far more
    // empty levels than the 64 that start a rebuild.
    for (let i = 0; i < 1000; i++) book.add(order('buy', 1000 + i, 'X', `b${i}`));
    for (let i = 999; i >= 100; i--) book.cancel(`b${i}`);
    expect(book.size).toBe(100);
    expect(book.best('X', 'buy')).toBe(1099);
    book.add(order('buy', 1500, 'X', 'late'));
    expect(ids(book.cross('X', 1095))).toEqual(['late', 'b99', 'b98', 'b97', 'b96', 'b95']);
    expect(book.best('X', 'buy')).toBe(1094);
    expect(book.orders('X')).toHaveLength(95);
  });

  it('rests again at prices it crossed, before and after the crossed levels are swept (1,000 prices, 3 rounds)', () => {
    const book = new RestingOrderBook<O>();
    const far = order('buy', 1, 'ETH/USDT', 'far');
    book.add(far);
    for (let round = 0; round < 3; round++) {
      // 1,000 buys at 1,000 prices, crossed level by level from the top: every level leaves the heap
      // (more than the sweep's threshold of detached levels), then the same prices are used again.
      for (let p = 1000; p < 2000; p++) book.add(order('buy', p, 'ETH/USDT', `r${round}-${p}`));
      expect(book.best('ETH/USDT', 'buy')).toBe(1999);
      for (let p = 1999; p >= 1000; p -= 100) {
        expect(ids(book.cross('ETH/USDT', p - 99))).toEqual(
          Array.from({ length: 100 }, (_, i) => `r${round}-${p - i}`),
        );
      }
      expect(book.size).toBe(1);
      expect(book.best('ETH/USDT', 'buy')).toBe(1);
    }
    expect(ids(book.cross('ETH/USDT', 1))).toEqual(['far']);
    expect(book.best('ETH/USDT', 'buy')).toBeUndefined();
  });

  it('matches a naive reference over random add / cancel / cross sequences (property)', () => {
    // Two symbols (mostly one) and integer prices (half the time on a small grid): many equal
    // prices, empty levels reused, crosses that take some levels and not others.
    const symbol = fc.oneof(
      { weight: 4, arbitrary: fc.constant('A') },
      { weight: 1, arbitrary: fc.constant('B') },
    );
    const price = fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 2000 }));
    const add = fc.record({
      t: fc.constant('add' as const),
      side: fc.constantFrom<MatchSide>('buy', 'sell'),
      price,
      symbol,
    });
    // A cancel of a resting order (live) or of any id ever added (resting, filled or cancelled).
    const cancel = fc.record({ t: fc.constant('cancel' as const), live: fc.boolean(), pick: fc.nat() });
    const cross = fc.record({ t: fc.constant('cross' as const), price, symbol });
    // Segments that build the book up and segments that mostly cancel: the latter leave more empty
    // levels than live ones, which is when a side's heap is rebuilt.
    const segment = (addWeight: number, cancelWeight: number) =>
      fc.array(
        fc.oneof(
          { weight: addWeight, arbitrary: add },
          { weight: cancelWeight, arbitrary: cancel },
          { weight: 1, arbitrary: cross },
        ),
        { maxLength: 400, size: 'max' },
      );
    const ops = fc
      .array(fc.oneof(segment(6, 2), segment(1, 8)), { maxLength: 5 })
      .map((segments) => segments.flat());
    fc.assert(
      // Half the runs rebuild a side's heap as soon as 2 of its levels are empty (and outnumber
      // the live ones), so the rebuild runs often; the others use the default threshold.
      fc.property(ops, fc.boolean(), (ops, eager) => {
        const book = new RestingOrderBook<O>(eager ? { minEmptyLevels: 2 } : {});
        // The reference: every resting order with its arrival number, in one array.
        let ref: { o: O; seq: number }[] = [];
        let seq = 0;
        const everAdded: string[] = [];
        for (const step of ops) {
          if (step.t === 'add') {
            const o = order(step.side, step.price, step.symbol, `r${seq}`);
            book.add(o);
            ref.push({ o, seq: seq++ });
            everAdded.push(o.id);
          } else if (step.t === 'cancel') {
            if (everAdded.length === 0) continue;
            const id =
              step.live && ref.length > 0
                ? ref[step.pick % ref.length]!.o.id
                : everAdded[step.pick % everAdded.length]!;
            const expected = ref.find((r) => r.o.id === id)?.o;
            expect(book.cancel(id)).toBe(expected);
            ref = ref.filter((r) => r.o.id !== id);
          } else {
            const onSymbol = ref.filter((r) => r.o.symbol === step.symbol);
            const buys = onSymbol
              .filter((r) => r.o.side === 'buy' && r.o.price >= step.price)
              .sort((x, y) => y.o.price - x.o.price || x.seq - y.seq);
            const sells = onSymbol
              .filter((r) => r.o.side === 'sell' && r.o.price <= step.price)
              .sort((x, y) => x.o.price - y.o.price || x.seq - y.seq);
            const expected = [...buys, ...sells].map((r) => r.o);
            expect(book.cross(step.symbol, step.price)).toEqual(expected);
            const taken = new Set(expected);
            ref = ref.filter((r) => !taken.has(r.o));
          }
          expect(book.size).toBe(ref.length);
        }
        for (const s of ['A', 'B']) {
          const left = ref.filter((r) => r.o.symbol === s);
          const bestBuy = Math.max(...left.filter((r) => r.o.side === 'buy').map((r) => r.o.price));
          const bestSell = Math.min(...left.filter((r) => r.o.side === 'sell').map((r) => r.o.price));
          expect(book.best(s, 'buy')).toBe(Number.isFinite(bestBuy) ? bestBuy : undefined);
          expect(book.best(s, 'sell')).toBe(Number.isFinite(bestSell) ? bestSell : undefined);
          expect(book.sizeOf(s)).toBe(left.length);
          // The listing: each side in price-time priority, buys first.
          const listed = [
            ...left.filter((r) => r.o.side === 'buy').sort((x, y) => y.o.price - x.o.price || x.seq - y.seq),
            ...left.filter((r) => r.o.side === 'sell').sort((x, y) => x.o.price - y.o.price || x.seq - y.seq),
          ].map((r) => r.o);
          expect(book.orders(s)).toEqual(listed);
        }
      }),
      { numRuns: 150 },
    );
    // About 4 s alone; a generous bound for a loaded 2-core CI (not a speed assertion).
  }, 60_000);
});
