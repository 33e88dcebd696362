import { FIXED, useNumbers } from '../ui/numbers';

/**
 * The trading screens' display formats in the house style (shared/ui/numbers): the same names and
 * arguments as orderRules' fmtPrice / fmtQty / fmtValue, with the user's separators. orderRules keeps
 * its own plain forms for what must match the server byte for byte (its messages, input values).
 */
export function useTradeNumbers() {
  const num = useNumbers();
  return {
    /** A price to the market's tick (its price step); without one, by its size. */
    fmtPrice: (n: number | null | undefined, step?: number) => num.price(n, { tick: step }),
    /** The spec's quantity display: 6 decimals. */
    fmtQty: (n: number | null | undefined) => num.fixed(n, FIXED.quantity),
    /** The spec's value display: 2 decimals. */
    fmtValue: (n: number | null | undefined) => num.money(n),
  };
}
