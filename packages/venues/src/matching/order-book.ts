/**
 * The matching core of a paper exchange: resting orders by price, per symbol and side, crossed by
 * an external price (the simulated market's last price). No balances, no I/O, no promises: the
 * caller (PaperVenue) settles what `cross` returns.
 *
 * A paper exchange never matches its users against each other: a resting buy fills when the market
 * trades at or below its limit, a resting sell when at or above. So the core only needs, per symbol
 * and side, "the best resting price" and "every order at or better than this price", in price-time
 * priority.
 *
 * Structure, per symbol and side:
 * - price levels: a Map from price to a level holding its orders in a FIFO (an intrusive doubly
 *   linked list, so a cancel unlinks in O(1) and the oldest order is at the head);
 * - a binary min-heap of the levels, keyed by price for sells and by −price for buys, so the best
 *   level is at the root;
 * - one Map from order id to its list node, for O(1) lookup on cancel.
 *
 * Why levels in a heap rather than one sorted array of orders (the previous index) or a balanced
 * tree: inserting into a sorted array shifts O(n) entries; a tree has O(log n) inserts but more
 * pointers to chase and rebalance on every change. Real books hold many orders per price (grid
 * bots, round prices), and a paper book only ever takes from its best end, which is what a heap
 * gives in O(log L) (L = distinct prices): a new price is a heap push, an order at an existing price
 * is an O(1) append, a cancel is an O(1) unlink. A level emptied by cancels is not taken out of the
 * middle of the heap (that would need its heap index); it stays as an empty level, is skipped and
 * dropped when it reaches the root, is reused if an order arrives at its price again, and the heap
 * is rebuilt without the empty levels when they outnumber the live ones (amortized O(1) per cancel).
 * A level out of the heap keeps its place in the price map until a bulk sweep (see `detached`).
 *
 * Complexity (n orders, L levels on a side, k crossed orders, c crossed levels):
 * add O(1) at an existing price, O(log L) at a new one; cancel O(1) amortized; best O(1) amortized;
 * cross O(k + c log L), and O(1) when nothing crosses.
 */

export type MatchSide = 'buy' | 'sell';

/** What the core needs of an order; the caller's own object is kept and returned as is. */
export interface MatchableOrder {
  readonly id: string;
  readonly symbol: string;
  readonly side: MatchSide;
  /** The limit price; an order without one cannot rest (add throws). */
  readonly price: number | null;
}

// Nodes and levels are reused through free lists (below): resting orders live long, so fresh
// objects would survive young-generation collections and be copied and promoted; measured at 10,000
// resting orders that copying, not the book work, was most of an add's cost.
interface Node<T> {
  order: T | null;
  level: Level<T> | null;
  prev: Node<T> | null;
  next: Node<T> | null;
}

interface Level<T> {
  price: number;
  /** Heap key: price for sells (lowest first), −price for buys (highest first). */
  key: number;
  readonly side: SideBook<T>;
  head: Node<T> | null;
  tail: Node<T> | null;
  count: number;
  /** In the heap; a level taken out of it stays in the price map, detached, until the next sweep. */
  inHeap: boolean;
}

/**
 * Free objects kept for reuse, at most, per list: enough to absorb an add / cancel churn and a big
 * cross; beyond that they are left to the collector (an idle account holds little).
 */
const MAX_FREE = 1024;

/** Compaction waits for at least this many empty levels (small heaps are cheap to skip through). */
const MIN_EMPTY_TO_COMPACT = 64;

/** Detached levels are swept from the price map once at least this many and half the map. */
const MIN_DETACHED_TO_SWEEP = 256;

export interface RestingOrderBookOptions {
  /**
   * A side's heap is rebuilt without its empty levels once they are at least this many (default 64)
   * and outnumber the live ones. Tests lower it to reach the rebuild with small books.
   */
  minEmptyLevels?: number;
}

class SideBook<T> {
  readonly levels = new Map<number, Level<T>>();
  /** Min-heap by `key`; may hold empty levels (count 0), never the same level twice. */
  readonly heap: Level<T>[] = [];
  /** Orders resting on this side. */
  size = 0;
  /** Levels in the heap with no order left. */
  empty = 0;
  /**
   * Levels out of the heap still in `levels`. A level leaves the heap when it is crossed or reaches
   * the root empty, but its price stays in the map: deleting a key and setting the same key again
   * (a bot that rests at one price, fills and rests there again) costs V8's Map a walk over every
   * deletion left in that key's bucket since the last rehash — 21 µs a time at 10,000 prices,
   * measured. Detached levels are swept in bulk instead (distinct keys: no such walk).
   */
  private detached = 0;

  constructor(
    readonly isBuy: boolean,
    private readonly minEmpty: number,
  ) {}

  /** Levels no longer in the heap, for reuse. */
  private readonly freeLevels: Level<T>[] = [];

  level(price: number): Level<T> {
    let level = this.levels.get(price);
    if (level === undefined) {
      level = this.freeLevels.pop();
      if (level === undefined) {
        level = { price, key: 0, side: this, head: null, tail: null, count: 0, inHeap: false };
      } else {
        level.price = price;
      }
      level.key = this.isBuy ? -price : price;
      this.levels.set(price, level);
      this.push(level);
    } else if (!level.inHeap) {
      this.detached--;
      this.push(level);
    } else if (level.count === 0) {
      this.empty--;
    }
    return level;
  }

  /** A level just taken out of the heap, empty: kept in the map until a sweep. */
  detach(level: Level<T>): void {
    level.inHeap = false;
    this.detached++;
    if (this.detached >= MIN_DETACHED_TO_SWEEP && this.detached * 2 > this.levels.size) this.sweep();
  }

  private sweep(): void {
    for (const [price, level] of this.levels) {
      if (level.inHeap) continue;
      this.levels.delete(price);
      this.free(level);
    }
    this.detached = 0;
  }

  /** The best level that still has orders, dropping empty ones found at the root. */
  best(): Level<T> | undefined {
    const heap = this.heap;
    while (heap.length > 0) {
      const top = heap[0]!;
      if (top.count > 0) return top;
      this.pop();
      this.empty--;
      this.detach(top);
    }
    return undefined;
  }

  /** Called when a cancel emptied a level: rebuild once empty levels outnumber the live ones. */
  emptied(): void {
    this.empty++;
    if (this.empty >= this.minEmpty && this.empty * 2 > this.heap.length) this.compact();
  }

  private compact(): void {
    const heap = this.heap;
    let w = 0;
    for (let r = 0; r < heap.length; r++) {
      const level = heap[r]!;
      if (level.count > 0) heap[w++] = level;
      else this.detach(level);
    }
    heap.length = w;
    this.empty = 0;
    // Floyd's heapify: O(L).
    for (let i = (w >>> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** A level out of the heap and the map (empty: head and tail null, count 0). */
  free(level: Level<T>): void {
    if (this.freeLevels.length < MAX_FREE) this.freeLevels.push(level);
  }

  private push(level: Level<T>): void {
    level.inHeap = true;
    const heap = this.heap;
    heap.push(level);
    let i = heap.length - 1;
    const key = level.key;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      const p = heap[parent]!;
      if (p.key <= key) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = level;
  }

  pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    this.siftDown(0);
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    const level = heap[start]!;
    const key = level.key;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && heap[right]!.key < heap[child]!.key) child = right;
      const c = heap[child]!;
      if (c.key >= key) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = level;
  }
}

interface SymbolSides<T> {
  readonly buys: SideBook<T>;
  readonly sells: SideBook<T>;
}

/**
 * Resting limit orders of any number of symbols. `T` is the caller's order object; the core reads
 * its id, symbol, side and price once, when it is added (change them later and the core does not
 * see it: cancel and add again).
 */
export class RestingOrderBook<T extends MatchableOrder = MatchableOrder> {
  private readonly symbols = new Map<string, SymbolSides<T>>();
  private readonly nodes = new Map<string, Node<T>>();
  private readonly freeNodes: Node<T>[] = [];
  private readonly minEmpty: number;

  constructor(options: RestingOrderBookOptions = {}) {
    this.minEmpty = Math.max(1, options.minEmptyLevels ?? MIN_EMPTY_TO_COMPACT);
  }

  /** Orders resting, every symbol. */
  get size(): number {
    return this.nodes.size;
  }

  /** Orders resting on one symbol (both sides). */
  sizeOf(symbol: string): number {
    const s = this.symbols.get(symbol);
    return s ? s.buys.size + s.sells.size : 0;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  get(id: string): T | undefined {
    return this.nodes.get(id)?.order ?? undefined;
  }

  /** Clears a node taken off the book (no references kept to the order) and keeps it for reuse. */
  private release(node: Node<T>): void {
    node.order = null;
    node.level = null;
    node.prev = null;
    node.next = null;
    if (this.freeNodes.length < MAX_FREE) this.freeNodes.push(node);
  }

  /** Rests an order behind every order already at its price. Throws on a repeated id or a bad price. */
  add(order: T): void {
    const price = order.price;
    if (price === null || !Number.isFinite(price)) {
      throw new RangeError(`Order ${order.id} has no finite limit price: it cannot rest`);
    }
    if (this.nodes.has(order.id)) throw new RangeError(`Order ${order.id} is already resting`);
    let sides = this.symbols.get(order.symbol);
    if (sides === undefined) {
      sides = { buys: new SideBook<T>(true, this.minEmpty), sells: new SideBook<T>(false, this.minEmpty) };
      this.symbols.set(order.symbol, sides);
    }
    const side = order.side === 'buy' ? sides.buys : sides.sells;
    const level = side.level(price);
    let node = this.freeNodes.pop();
    if (node === undefined) {
      node = { order, level, prev: level.tail, next: null };
    } else {
      node.order = order;
      node.level = level;
      node.prev = level.tail;
    }
    if (level.tail === null) level.head = node;
    else level.tail.next = node;
    level.tail = node;
    level.count++;
    side.size++;
    this.nodes.set(order.id, node);
  }

  /** Takes an order off the book; returns it, or undefined when no order with that id rests. */
  cancel(id: string): T | undefined {
    const node = this.nodes.get(id);
    if (node === undefined) return undefined;
    this.nodes.delete(id);
    const level = node.level!;
    const order = node.order!;
    if (node.prev === null) level.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) level.tail = node.prev;
    else node.next.prev = node.prev;
    level.count--;
    level.side.size--;
    this.release(node);
    if (level.count === 0) level.side.emptied();
    return order;
  }

  /** The best resting price of a side (highest buy, lowest sell), or undefined when it is empty. */
  best(symbol: string, side: MatchSide): number | undefined {
    const sides = this.symbols.get(symbol);
    if (sides === undefined) return undefined;
    return (side === 'buy' ? sides.buys : sides.sells).best()?.price;
  }

  /**
   * The market traded at `price`: takes off and returns every crossed order — buys whose limit is at
   * or above the price, then sells whose limit is at or below it — each side in price-time priority
   * (best price first, oldest first within a price). Touches only the crossed orders and levels.
   */
  cross(symbol: string, price: number): T[] {
    const out: T[] = [];
    const sides = this.symbols.get(symbol);
    if (sides === undefined) return out;
    this.take(sides.buys, price, out);
    this.take(sides.sells, price, out);
    return out;
  }

  private take(side: SideBook<T>, price: number, out: T[]): void {
    // Buys cross when the market is at or below their limit: key −limit ≤ −price; sells: limit ≤ price.
    const bound = side.isBuy ? -price : price;
    for (;;) {
      const level = side.best();
      if (level === undefined || level.key > bound) return;
      for (let node = level.head; node !== null;) {
        const order = node.order!;
        const next = node.next;
        out.push(order);
        this.nodes.delete(order.id);
        this.release(node);
        node = next;
      }
      side.size -= level.count;
      level.head = null;
      level.tail = null;
      level.count = 0;
      side.pop();
      side.detach(level);
    }
  }

  /** Every resting order of a symbol (or of all), each side in price-time priority, buys first. */
  orders(symbol?: string): T[] {
    const out: T[] = [];
    const list = symbol === undefined ? [...this.symbols.values()] : [this.symbols.get(symbol)];
    for (const sides of list) {
      if (sides === undefined) continue;
      for (const side of [sides.buys, sides.sells]) {
        const levels = side.heap.filter((l) => l.count > 0).sort((a, b) => a.key - b.key);
        for (const level of levels) {
          for (let node = level.head; node !== null; node = node.next) out.push(node.order!);
        }
      }
    }
    return out;
  }

  clear(): void {
    this.symbols.clear();
    this.nodes.clear();
    this.freeNodes.length = 0;
  }
}
