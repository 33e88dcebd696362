/**
 * Value checks every strategy applies to outside input (configs, user actions, venue events). One copy,
 * so a config the Grid Bot DCA accepts is checked by the same rule in the classic DCA and its VNC.
 */
import type { MarketRules } from '../strategy';

/** A finite number above 0. */
export function positive(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0;
}

/** A finite number of at least 0. */
export function nonNegative(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

/** A fill reported by the venue: cumulative amount, average price and fee, none negative. */
export function validFill(amount: unknown, price: unknown, fee: unknown): boolean {
  return nonNegative(amount) && nonNegative(price) && nonNegative(fee);
}

/**
 * The market rules of a config: positive steps, non-negative minimums and, with `fees`, non-negative
 * fees (a VNC only sells, so it does not need the fees). `fail` throws the strategy's own config error.
 */
export function checkMarketRules(
  m: MarketRules,
  fail: (code: string, message: string) => never,
  fees: boolean,
): void {
  if (!m || !positive(m.amountStep) || !positive(m.priceStep))
    fail('invalid_market', 'market amountStep and priceStep must be positive');
  if (!fees) {
    if (!nonNegative(m.minAmount) || !nonNegative(m.minCost))
      fail('invalid_market', 'market minimums must be non-negative numbers');
    return;
  }
  if (
    !nonNegative(m.minAmount) ||
    !nonNegative(m.minCost) ||
    !nonNegative(m.takerFee) ||
    !nonNegative(m.makerFee)
  )
    fail('invalid_market', 'market minimums and fees must be non-negative numbers');
}
