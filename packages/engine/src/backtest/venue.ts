/**
 * The backtest's simulated spot venue (docs/bots/backtest-engine.md): one account (quote, base) and the
 * bot's resting limit orders, buys and sells apart, each sorted best first so the path crosses them in
 * order. Its rules are the paper venue's (packages/venues paper-venue.ts):
 * - a resting limit fills completely at its own price when the price reaches it (buy: price ≤ limit,
 *   sell: price ≥ limit), maker fee; a limit placed on the wrong side of the price fills at once at its
 *   own price, taker fee;
 * - a market order fills at once at the current price × (1 ± slippage) (buys up, sells down), taker fee;
 * - fee = rate × quote value, in quote, rounded to 8 decimals (as balances);
 * - refusals: `min_cost` below the market's minimum amount or cost, `insufficient_funds` when the free
 *   quote (cost + fee) or base is short; a resting buy reserves cost × (1 + maker), a sell its base;
 * - no partial fills; amounts and prices are taken as the strategy rounded them.
 * Every answer is queued as a strategy event (FIFO) for the run to deliver.
 */
import { decimalsOf, roundDownToStep } from '../money';
import type { MarketRules, OrderRole, PlaceOrderCommand, StrategyEvent } from '../strategy';
import type { BacktestFill } from './types';

/** A limit order resting on the venue. */
export interface RestingOrder {
  id: string;
  side: 'buy' | 'sell';
  price: number;
  amount: number;
  role: OrderRole;
  /** Quote (buy: cost × (1 + maker)) or base (sell) held for it. */
  reserved: number;
  /** Placement order: ties at one price fill first placed first. */
  seq: number;
}

function money(x: number): number {
  return Number(x.toFixed(8));
}

/** Base amounts to 12 decimals: sums of stepped amounts stay exact (no 1e-17 short for the last sell). */
function units(x: number): number {
  return Number(x.toFixed(12));
}

export class BacktestVenue {
  quoteFree: number;
  quoteReserved = 0;
  baseFree: number;
  baseReserved = 0;
  /** What the base held cost (fees excluded; average cost, sales take their share). */
  costBasis = 0;
  /** Σ amount × price of the resting buys. */
  reservedCost = 0;
  /** Largest costBasis + reservedCost seen. */
  capitalPeak = 0;
  feesPaid = 0;
  fillCount = 0;
  readonly fills: BacktestFill[] = [];
  readonly rejections = { insufficient_funds: 0, min_cost: 0 };
  /** The current path point. */
  price = 0;
  ts = 0;
  /** Resting buys, highest price first; resting sells, lowest first. */
  readonly buys: RestingOrder[] = [];
  readonly sells: RestingOrder[] = [];
  private readonly byId = new Map<string, RestingOrder>();
  private readonly queue: StrategyEvent[] = [];
  private head = 0;
  private seq = 0;
  private readonly minAmount: number;
  private readonly slipUp: number;
  private readonly slipDown: number;
  private readonly priceDecimals: number;

  constructor(
    readonly rules: MarketRules,
    initialQuote: number,
    initialBase: number,
    slippagePct: number,
    private readonly maxFills: number,
  ) {
    this.quoteFree = initialQuote;
    this.baseFree = initialBase;
    this.minAmount = Math.max(rules.minAmount || 0, rules.amountStep || 0);
    this.slipUp = 1 + slippagePct / 100;
    this.slipDown = 1 - slippagePct / 100;
    this.priceDecimals = Math.min(20, decimalsOf(rules.priceStep) + 3);
  }

  /** Base held (free and reserved). */
  get base(): number {
    return this.baseFree + this.baseReserved;
  }

  /** Quote held (free and reserved). */
  get quote(): number {
    return this.quoteFree + this.quoteReserved;
  }

  /** The highest resting buy (−∞ without). */
  get maxBuy(): number {
    return this.buys.length > 0 ? this.buys[0]!.price : Number.NEGATIVE_INFINITY;
  }

  /** The lowest resting sell (+∞ without). */
  get minSell(): number {
    return this.sells.length > 0 ? this.sells[0]!.price : Number.POSITIVE_INFINITY;
  }

  /** The next queued event, or undefined. */
  next(): StrategyEvent | undefined {
    if (this.head < this.queue.length) return this.queue[this.head++];
    if (this.head > 0) {
      this.queue.length = 0;
      this.head = 0;
    }
    return undefined;
  }

  get pending(): boolean {
    return this.head < this.queue.length;
  }

  /** Sets the price the next commands and the next `match` see. */
  setPrice(price: number, ts: number): void {
    this.price = price;
    this.ts = ts;
  }

  /** Carries out a place_order: rests it, fills it, or refuses it (the answer is queued). */
  place(cmd: PlaceOrderCommand): void {
    const id = cmd.clientOrderId;
    const market = cmd.orderType === 'market';
    const price = market ? this.marketPrice(cmd.side) : (cmd.price ?? Number.NaN);
    let amount = cmd.amount ?? Number.NaN;
    if (cmd.amount === undefined && market && cmd.quoteAmount !== undefined) {
      amount = roundDownToStep(cmd.quoteAmount / price, this.rules.amountStep);
    }
    if (!(price > 0) || !Number.isFinite(price)) return this.reject(id, 'min_cost', text('price', price, 0));
    if (!(amount > 0) || amount < this.minAmount * (1 - 1e-12)) {
      return this.reject(id, 'min_cost', text('amount', amount, this.minAmount));
    }
    const cost = money(amount * price);
    if (this.rules.minCost > 0 && cost < this.rules.minCost) {
      return this.reject(id, 'min_cost', text('cost', cost, this.rules.minCost));
    }
    const crosses = market || (cmd.side === 'buy' ? this.price <= price : this.price >= price);
    if (crosses) {
      const fee = money(cost * this.rules.takerFee);
      if (cmd.side === 'buy') {
        if (this.quoteFree < cost + fee) return this.insufficient(id, cost + fee, this.quoteFree, 'quote');
        this.quoteFree = money(this.quoteFree - cost - fee);
      } else {
        if (this.baseFree < amount) return this.insufficient(id, amount, this.baseFree, 'base');
        this.baseFree = units(this.baseFree - amount);
      }
      this.settle(id, cmd.side, amount, price, cost, fee, cmd.role, market ? 'market' : 'limit');
      return;
    }
    const o: RestingOrder = {
      id,
      side: cmd.side,
      price,
      amount,
      role: cmd.role,
      reserved: 0,
      seq: this.seq++,
    };
    if (cmd.side === 'buy') {
      const need = money(cost * (1 + this.rules.makerFee));
      if (this.quoteFree < need) return this.insufficient(id, need, this.quoteFree, 'quote');
      o.reserved = need;
      this.quoteFree = money(this.quoteFree - need);
      this.quoteReserved = money(this.quoteReserved + need);
      this.reservedCost += cost;
      insert(this.buys, o, true);
    } else {
      if (this.baseFree < amount) return this.insufficient(id, amount, this.baseFree, 'base');
      o.reserved = amount;
      this.baseFree = units(this.baseFree - amount);
      this.baseReserved = units(this.baseReserved + amount);
      insert(this.sells, o, false);
    }
    this.byId.set(id, o);
    this.notePeak();
  }

  /** Carries out a cancel_order: an order still resting is taken off and `order_cancelled` queued; an
   *  order already filled (its fill is queued or delivered) needs no answer. */
  cancel(id: string): void {
    const o = this.byId.get(id);
    if (!o) return;
    this.remove(o);
    if (o.side === 'buy') {
      this.quoteReserved = money(this.quoteReserved - o.reserved);
      this.quoteFree = money(this.quoteFree + o.reserved);
      this.reservedCost -= money(o.amount * o.price);
      if (this.buys.length === 0) this.reservedCost = 0;
    } else {
      this.baseReserved = units(this.baseReserved - o.reserved);
      this.baseFree = units(this.baseFree + o.reserved);
    }
    this.queue.push({ type: 'order_cancelled', clientOrderId: id, ts: this.ts });
  }

  /** Fills every resting order the current price reaches, in the order the path crosses them. */
  match(): void {
    const p = this.price;
    while (this.buys.length > 0 && this.buys[0]!.price >= p) this.fillResting(this.buys[0]!);
    while (this.sells.length > 0 && this.sells[0]!.price <= p) this.fillResting(this.sells[0]!);
  }

  private fillResting(o: RestingOrder): void {
    this.remove(o);
    const cost = money(o.amount * o.price);
    const fee = money(cost * this.rules.makerFee);
    if (o.side === 'buy') {
      this.quoteReserved = money(this.quoteReserved - o.reserved);
      this.quoteFree = money(this.quoteFree + o.reserved - cost - fee);
      this.reservedCost -= cost;
      if (this.buys.length === 0) this.reservedCost = 0;
    } else {
      this.baseReserved = units(this.baseReserved - o.reserved);
    }
    this.settle(o.id, o.side, o.amount, o.price, cost, fee, o.role, 'limit');
  }

  /** Books a fill (the quote of a buy is already paid, the base of a sell already taken). */
  private settle(
    id: string,
    side: 'buy' | 'sell',
    amount: number,
    price: number,
    cost: number,
    fee: number,
    role: OrderRole,
    orderType: 'limit' | 'market',
  ): void {
    if (side === 'buy') {
      this.baseFree = units(this.baseFree + amount);
      this.costBasis += cost;
    } else {
      const held = this.base + amount;
      this.costBasis = held > 0 && this.base > 1e-12 ? this.costBasis * (this.base / held) : 0;
      this.quoteFree = money(this.quoteFree + cost - fee);
    }
    this.feesPaid += fee;
    this.fillCount++;
    if (this.fills.length < this.maxFills) {
      this.fills.push({ time: this.ts, side, price, qty: amount, fee, role, orderType, clientOrderId: id });
    }
    this.queue.push({ type: 'order_filled', clientOrderId: id, price, amount, fee, ts: this.ts });
    this.notePeak();
  }

  private marketPrice(side: 'buy' | 'sell'): number {
    const p = this.price * (side === 'buy' ? this.slipUp : this.slipDown);
    return Number(p.toFixed(this.priceDecimals));
  }

  private notePeak(): void {
    const c = this.costBasis + this.reservedCost;
    if (c > this.capitalPeak) this.capitalPeak = c;
  }

  private remove(o: RestingOrder): void {
    const list = o.side === 'buy' ? this.buys : this.sells;
    const i = list.indexOf(o);
    if (i >= 0) list.splice(i, 1);
    this.byId.delete(o.id);
  }

  private insufficient(id: string, need: number, have: number, coin: 'quote' | 'base'): void {
    this.reject(id, 'insufficient_funds', text(coin, need, have));
  }

  private reject(id: string, reason: 'min_cost' | 'insufficient_funds', message: string): void {
    this.rejections[reason]++;
    this.queue.push({ type: 'order_rejected', clientOrderId: id, reason, message, ts: this.ts });
  }
}

/** A refusal's message (built apart: template literals in a hot function keep V8 from optimizing it). */
function text(what: 'price' | 'amount' | 'cost' | 'quote' | 'base', x: number, y: number): string {
  if (what === 'price') return `invalid price ${x}`;
  if (what === 'amount') return `amount ${x} is below the minimum ${y}`;
  if (what === 'cost') return `order value ${x} is below the minimum ${y}`;
  return `needs ${money(x)} ${what}, has ${money(y)} ${what} free`;
}

/** Inserts `o` after every order at least as good (buys: higher first; sells: lower first). */
function insert(list: RestingOrder[], o: RestingOrder, buy: boolean): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const p = list[mid]!.price;
    if (buy ? p >= o.price : p <= o.price) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, o);
}
