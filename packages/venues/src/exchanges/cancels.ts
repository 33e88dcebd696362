/**
 * How an exchange answers an accepted cancel (issue 38 point 6, found by the conformance tier).
 * Most state the order's new status ("canceled") or nothing at all (ids only: CcxtOrderVenue reads that
 * as cancelled). Some answer with the order as it stood when the cancel arrived: an order "on the book"
 * (ccxt: open) in the reply to a cancel that the exchange accepted is being cancelled, not still open.
 * Without this rule the venue reported it open and the caller would think the cancel had not happened.
 */
export const CANCEL_REPLY_STATES_PRIOR: Readonly<Record<string, string>> = {
  // POST /v2/supplement/cancel_order.do answers {"result":true, "data":{..., "status":0}}: status 0 is
  // "on trading", the order's state before the cancel (ccxt 4.5.84 js/src/lbank.js cancelOrder's
  // recorded reply; https://www.lbank.com/en-US/docs/index.html#cancel-order-new). A failed cancel is
  // an error reply (result false, error_code), which ccxt raises.
  lbank: 'https://www.lbank.com/en-US/docs/index.html#cancel-order-new',
};

/** True when the exchange's accepted-cancel reply still shows the order open (see above). */
export function cancelReplyShowsPriorState(ccxtId: string, status: unknown): boolean {
  return ccxtId in CANCEL_REPLY_STATES_PRIOR && status === 'open';
}
