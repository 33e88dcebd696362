/**
 * The order lookups of each exchange, by the rules in lookup-rules.ts (which stay free of ccxt: the
 * capability table reads them on paper servers, where ccxt is never loaded). These functions run
 * only inside a live venue, so this module imports ccxt (its error classes).
 */
import ccxt from 'ccxt';
import { lookupRule, openOrdersParams } from './lookup-rules';

export * from './lookup-rules';

/** The ccxt calls a lookup makes (a subset of ccxt's Exchange, loosely typed as ccxt's own are). */
export interface LookupExchange {
  id: string;
  has: Record<string, unknown>;
  fetchOrder(id: string, symbol?: string, params?: Record<string, unknown>): Promise<unknown>;
  fetchOpenOrder?(id: string, symbol?: string, params?: Record<string, unknown>): Promise<unknown>;
  fetchOpenOrders(
    symbol?: string,
    since?: number,
    limit?: number,
    params?: Record<string, unknown>,
  ): Promise<unknown[]>;
  fetchClosedOrders(
    symbol?: string,
    since?: number,
    limit?: number,
    params?: Record<string, unknown>,
  ): Promise<unknown[]>;
  fetchOrders(
    symbol?: string,
    since?: number,
    limit?: number,
    params?: Record<string, unknown>,
  ): Promise<unknown[]>;
  fetchCanceledAndClosedOrders(
    symbol?: string,
    since?: number,
    limit?: number,
    params?: Record<string, unknown>,
  ): Promise<unknown[]>;
}

/** True for ccxt's OrderNotFound (what the exchange says when it has no such order). */
export function isCcxtOrderNotFound(err: unknown): boolean {
  return err instanceof ccxt.OrderNotFound;
}

/** The first order of a list filtered by id, or ccxt's OrderNotFound (as ccxt's own single lookups). */
const first = (list: unknown[], id: string): unknown => {
  if (list.length === 0) throw new ccxt.OrderNotFound(`order ${id} not found`);
  return list[0];
};

/**
 * The raw ccxt order with exchange id `id`, by the exchange's rule. Throws ccxt's errors (an
 * `OrderNotFound` when the exchange has no such order), for the caller to translate.
 */
export async function fetchOrderById(ex: LookupExchange, id: string, symbol: string): Promise<unknown> {
  const rule = lookupRule(ex.id).byId;
  if (rule.kind === 'openThenHistory') {
    try {
      return first(await ex.fetchOpenOrders(symbol, undefined, undefined, { orderId: id }), id);
    } catch (err) {
      if (!isCcxtOrderNotFound(err)) throw err;
    }
    return first(await ex.fetchCanceledAndClosedOrders(symbol, undefined, undefined, { orderId: id }), id);
  }
  if (rule.kind === 'openThenFetchOrder' && ex.fetchOpenOrder) {
    try {
      return await ex.fetchOpenOrder(id, symbol);
    } catch (err) {
      if (!isCcxtOrderNotFound(err)) throw err;
    }
  }
  return ex.fetchOrder(id, symbol);
}

/** The client order id ccxt parsed from a raw order. */
const clientIdOf = (o: unknown): unknown => (o as { clientOrderId?: unknown } | null)?.clientOrderId;
const idOf = (o: unknown): unknown => (o as { id?: unknown } | null)?.id;

/**
 * The raw order placed with `clientOrderId` by the exchange's direct lookup; null when the exchange
 * says it has none (final); undefined when the caller must search the lists (the rule is 'lists', or
 * the direct lookup sees only part of the orders). Throws ccxt's other errors.
 */
export async function fetchOrderByClientIdDirect(
  ex: LookupExchange,
  clientOrderId: string,
  symbol: string,
): Promise<unknown> {
  const { byClientId: rule, listsAfterNotFound } = lookupRule(ex.id);
  const notFound = listsAfterNotFound ? undefined : null;
  try {
    switch (rule.kind) {
      case 'lists':
        return undefined;
      case 'asId':
        return await fetchOrderById(ex, clientOrderId, symbol);
      case 'bybitLink': {
        const link = { orderLinkId: clientOrderId };
        const open = await ex.fetchOpenOrders(symbol, undefined, undefined, link);
        if (open.length > 0) return open[0];
        const done = await ex.fetchCanceledAndClosedOrders(symbol, undefined, undefined, link);
        return done[0] ?? null;
      }
      case 'param': {
        const o = await ex.fetchOrder('', symbol, rule.params(clientOrderId));
        // An exchange that ignored the parameter answers with another order: not this one.
        const cid = clientIdOf(o);
        return cid === undefined || cid === null || cid === clientOrderId ? o : undefined;
      }
    }
  } catch (err) {
    if (isCcxtOrderNotFound(err)) return notFound;
    throw err;
  }
}

/**
 * Searches the open orders, then the recent finished ones (every status where the exchange lists
 * them together, else the closed ones), for the order with this exchange id or client id. Returns
 * the raw order, or undefined when neither list has it.
 */
export async function findInLists(
  ex: LookupExchange,
  symbol: string,
  key: { id?: string; clientOrderId?: string | null },
): Promise<unknown> {
  const match = (o: unknown): boolean =>
    (key.id !== undefined && key.id !== '' && String(idOf(o)) === key.id) ||
    (key.clientOrderId !== undefined && key.clientOrderId !== null && clientIdOf(o) === key.clientOrderId);
  const open = await ex.fetchOpenOrders(symbol, undefined, undefined, openOrdersParams(ex.id));
  const hit = open.find(match);
  if (hit) return hit;
  const has = ex.has;
  const finished = has.fetchCanceledAndClosedOrders
    ? await ex.fetchCanceledAndClosedOrders(symbol)
    : has.fetchOrders
      ? await ex.fetchOrders(symbol)
      : has.fetchClosedOrders
        ? await ex.fetchClosedOrders(symbol)
        : [];
  return finished.find(match);
}

/**
 * Whether a failed lookup counts towards giving up on an order: the exchange said it has no such
 * order, or answered the lookup with a refusal of its own (a ccxt ExchangeError, such as Bybit's
 * "acknowledged" refusal). Network trouble, rate limits and refused keys do not count: the order is
 * asked about again at the next poll.
 */
export function countsAsMiss(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const cause = (err as { cause?: unknown }).cause ?? err;
  if (cause instanceof ccxt.OrderNotFound) return true;
  if (err.name === 'OrderNotFoundError') return true;
  if (cause instanceof ccxt.AuthenticationError || cause instanceof ccxt.PermissionDenied) return false;
  if (err.name === 'AuthenticationError') return false;
  return cause instanceof ccxt.ExchangeError && !(cause instanceof ccxt.InvalidNonce);
}
