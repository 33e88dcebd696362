import {
  DRAWDOWN_ALERT_PCT,
  DRAWDOWN_WARN_PCT,
  PENDING_ASSUMED_TP_PCT,
  type PendingOrderView,
} from '@bytx/contract';
import { exchangeName } from '../../../shared/bots/format';

/** The table's sortable columns (spec part 2 §2). */
export const SORT_KEYS = [
  'date',
  'exchange',
  'pair',
  'limit',
  'entry',
  'amount',
  'result',
  'state',
  'drawdown',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDir = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

export type StateFilter = 'all' | 'open' | 'completed';
export interface Filters {
  exchange: string;
  pair: string;
  state: StateFilter;
}
export const NO_FILTERS: Filters = { exchange: '', pair: '', state: 'all' };

/** The bot's take profit in percent, or the assumed 2 % when the bot is unknown (§9). */
export const tpPctOf = (o: Pick<PendingOrderView, 'tp_pct'>) =>
  typeof o.tp_pct === 'number' && Number.isFinite(o.tp_pct) ? o.tp_pct : PENDING_ASSUMED_TP_PCT;

/** The limit (take profit) price; derived from the entry and the take profit when the row has none. */
export const limitOf = (o: Pick<PendingOrderView, 'limit_price' | 'entry_price' | 'tp_pct'>) =>
  typeof o.limit_price === 'number' && o.limit_price > 0
    ? o.limit_price
    : o.entry_price > 0
      ? o.entry_price * (1 + tpPctOf(o) / 100)
      : null;

/** The row's date: when the lot was bought, or when a completed one sold. */
export const dateOf = (o: Pick<PendingOrderView, 'status' | 'created_at' | 'closed_at'>) =>
  o.status === 'completed' ? (o.closed_at ?? o.created_at) : o.created_at;

export type DrawdownLevel = 'none' | 'ok' | 'warn' | 'alert';
/** Red at −10 % or worse, yellow at −6 % or worse (§9). */
export function drawdownLevel(pct: number | null | undefined): DrawdownLevel {
  if (typeof pct !== 'number' || !Number.isFinite(pct)) return 'none';
  if (pct <= DRAWDOWN_ALERT_PCT) return 'alert';
  if (pct <= DRAWDOWN_WARN_PCT) return 'warn';
  return 'ok';
}
export const drawdownColor = (level: DrawdownLevel) =>
  level === 'alert' ? 'red' : level === 'warn' ? 'yellow' : undefined;

/** The amount-weighted drawdown of the open rows that have one; null when none has. */
export function weightedDrawdown(
  rows: Pick<PendingOrderView, 'status' | 'drawdown_pct' | 'amount_quote'>[],
): number | null {
  let weight = 0;
  let sum = 0;
  for (const o of rows) {
    if (o.status !== 'open' || typeof o.drawdown_pct !== 'number' || !Number.isFinite(o.drawdown_pct)) {
      continue;
    }
    const w = Number.isFinite(o.amount_quote) && o.amount_quote > 0 ? o.amount_quote : 0;
    weight += w;
    sum += o.drawdown_pct * w;
  }
  return weight > 0 ? sum / weight : null;
}

function sortValue(o: PendingOrderView, key: SortKey): number | string | null {
  switch (key) {
    case 'date': {
      const ms = Date.parse(dateOf(o));
      return Number.isFinite(ms) ? ms : null;
    }
    case 'exchange':
      return exchangeName(o.exchange).toLowerCase();
    case 'pair':
      return o.symbol;
    case 'limit':
      return limitOf(o);
    case 'entry':
      return o.entry_price;
    case 'amount':
      return o.amount_quote;
    case 'result':
      return o.result;
    case 'state':
      return o.status;
    case 'drawdown':
      return o.drawdown_pct;
  }
}

/** Sorted by one column; rows without a value last either way. */
export function sortRows<T extends PendingOrderView>(rows: T[], sort: Sort): T[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = sortValue(a, sort.key);
    const vb = sortValue(b, sort.key);
    const na = va === null || (typeof va === 'number' && !Number.isFinite(va));
    const nb = vb === null || (typeof vb === 'number' && !Number.isFinite(vb));
    if (na || nb) return na === nb ? 0 : na ? 1 : -1;
    if (typeof va === 'number' && typeof vb === 'number') return (va - vb) * sign;
    return String(va).localeCompare(String(vb)) * sign;
  });
}

export const filterRows = <T extends PendingOrderView>(rows: T[], f: Filters): T[] =>
  rows.filter(
    (o) =>
      (f.exchange === '' || o.exchange === f.exchange) &&
      (f.pair === '' || o.symbol === f.pair) &&
      (f.state === 'all' || o.status === f.state),
  );

/** A header click: the same column flips its direction, another one starts ascending. */
export const nextSort = (sort: Sort, key: SortKey): Sort =>
  sort.key === key ? { key, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' };
