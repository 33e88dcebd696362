import type { OrderRole, PlaceOrderCommand } from '../strategy';

/**
 * An order a bot has on the venue, with what has filled of it so far: the fields every strategy keeps
 * for each of its orders (the classic DCA and the VNC add their own).
 */
export interface OrderRef {
  clientOrderId: string;
  /** Limit price, or the tick price a market order was sized with. */
  price: number;
  amount: number;
  /** Cumulative base filled so far (partial fills). */
  filled: number;
  /** Average fill price so far (0 before any fill). */
  avgPrice: number;
  /** Cumulative quote fee so far. */
  fee: number;
  /** A cancel was sent; waiting for order_cancelled / order_filled. */
  cancelling: boolean;
}

/**
 * A new order, nothing filled yet. `extra` (a strategy's own fields) goes right after the client id so
 * the persisted JSON keeps the key order each strategy has always written.
 */
export function newOrderRef<E extends object>(
  clientOrderId: string,
  extra: E,
  price: number,
  amount: number,
): OrderRef & E {
  return { clientOrderId, ...extra, price, amount, filled: 0, avgPrice: 0, fee: 0, cancelling: false };
}

/** The market sell that closes `lotId` at a close_market stop (SL, TP+, or the user's). */
export function closeOrder(clientOrderId: string, amount: number, lotId: string): PlaceOrderCommand {
  return {
    type: 'place_order',
    clientOrderId,
    side: 'sell',
    orderType: 'market',
    amount,
    role: 'close',
    lotId,
  };
}

/**
 * A limit order, tagged with the ladder `level` of a buy or the `lotId` a sell closes. Built in one place
 * so every strategy sends the command with the same keys in the same order (the journal stores it as is).
 */
export function limitOrder(
  clientOrderId: string,
  side: 'buy' | 'sell',
  price: number,
  amount: number,
  role: OrderRole,
  tag: { level: number } | { lotId: string },
): PlaceOrderCommand {
  return { type: 'place_order', clientOrderId, side, orderType: 'limit', price, amount, role, ...tag };
}

/** A market buy of `quoteAmount` quote (`amount` base at the tick price, for venues that take base only). */
export function marketBuy(
  clientOrderId: string,
  amount: number,
  quoteAmount: number,
  role: OrderRole,
  tag?: { level: number },
): PlaceOrderCommand {
  return {
    type: 'place_order',
    clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount,
    role,
    ...tag,
  };
}
