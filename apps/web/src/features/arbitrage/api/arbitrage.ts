import {
  ARBITRAGE_DEFAULT_SYMBOL,
  ARBITRAGE_EXCHANGES,
  ARBITRAGE_MESSAGES,
  type ArbitrageBotView,
  type ArbitrageHistoryResponse,
  type ArbitrageHistoryRow,
  type ArbitrageLogResponse,
  type ArbitrageSpreadView,
  type ArbitrageStartResponse,
  type ArbitrageStatusResponse,
  type ArbitrageStopResponse,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';

export { ARBITRAGE_DEFAULT_SYMBOL, ARBITRAGE_EXCHANGES, ARBITRAGE_MESSAGES };
export type { ArbitrageBotView, ArbitrageHistoryRow, ArbitrageSpreadView, ArbitrageStatusResponse };

/** The status and the Operation History are polled every 5 s (spec part 2 §9: arbitrage history 5 s). */
export const ARBITRAGE_POLL_MS = 5_000;

/** The page's symbol is fixed (spec part 2 §2 "Arbitrage page"). */
export const ARBITRAGE_SYMBOL = ARBITRAGE_DEFAULT_SYMBOL;

/** The keys of `arbitrage.validation.*`: the spec's start checks, in its order (part 2 §5). */
export type ArbitrageValidationKey = 'notConnected' | 'invalidAmount';

/** Decimal commas become dots; an empty or non-numeric text is NaN. */
export const parseAmount = (v: string) =>
  v.trim() === '' ? Number.NaN : Number(v.trim().replace(/,/g, '.'));

/** The arbitrage start's checks in the spec's order: both exchanges connected, then the amount > 0. */
export function validateArbitrageStart(f: {
  connected: boolean;
  amount: string;
}): ArbitrageValidationKey | null {
  if (!f.connected) return 'notConnected';
  const n = parseAmount(f.amount);
  if (!Number.isFinite(n) || !(n > 0)) return 'invalidAmount';
  return null;
}

/** The two directions the status answers, as `buy_to_sell` keys. */
export const DIRECTIONS = [
  { key: 'binance_to_bybit', buy: 'binance', sell: 'bybit' },
  { key: 'bybit_to_binance', buy: 'bybit', sell: 'binance' },
] as const;
export type DirectionKey = (typeof DIRECTIONS)[number]['key'];

/**
 * Where one direction stands: `trade` when the executable edge beats both taker fees plus the margin,
 * `below` when it does not, `thin` when the books cannot fill the trip size, `unknown` before the books.
 */
export function spreadVerdict(
  s: ArbitrageSpreadView | null | undefined,
): 'trade' | 'below' | 'thin' | 'unknown' {
  if (!s) return 'unknown';
  if (s.edge_pct === null) return 'thin';
  return s.edge_pct > s.fees_pct + s.margin_pct ? 'trade' : 'below';
}

/** The strategy's waiting code (`base_on_bybit`, `quote_on_binance`) split for the page's text. */
export function parseWaiting(w: string | null): { side: 'base' | 'quote'; exchange: string } | null {
  if (!w) return null;
  const m = /^(base|quote)_on_(.+)$/.exec(w);
  return m ? { side: m[1] as 'base' | 'quote', exchange: m[2]! } : null;
}

/** The base and quote currencies of a spot symbol. */
export const currenciesOf = (symbol: string) => {
  const [base = '', quote = ''] = symbol.split(':')[0]!.split('/');
  return { base, quote };
};

/** The arbitrage page's calls (spec part 2 §7; issue 15 §1), paths and fields as the spec names them. */
export const arbitrageApi = {
  status: (user_id: string) =>
    api<ArbitrageStatusResponse>('/api/estado_bot_arbitraje', { body: { user_id } }),
  history: (user_id: string) =>
    api<ArbitrageHistoryResponse>('/api/historial_arbitraje', { body: { user_id } }),
  start: (user_id: string, monto_usdt: number) =>
    api<ArbitrageStartResponse>('/api/start_arbitraje', {
      body: { user_id, monto_usdt, symbol: ARBITRAGE_SYMBOL },
    }),
  stop: (user_id: string, keep_assets: boolean) =>
    api<ArbitrageStopResponse>('/api/stop_arbitraje', { body: { user_id, keep_assets } }),
  log: (user_id: string, limit = 20) =>
    api<ArbitrageLogResponse>('/api/arbitraje/log', { query: { user_id, limit } }),
};
