import { USD_STABLES } from '../api/wallet';

export interface WalletValue {
  /** USDT value of the coins that could be valued. */
  total: number;
  /** Held coins without a USDT price: the total leaves them out and the page says so. */
  unvalued: string[];
  /** Held coins whose price is still loading. */
  pending: string[];
  /** Per held coin: its USDT value, null when it cannot be valued, undefined while loading. */
  values: Record<string, number | null | undefined>;
}

/** Coins with a positive balance (a zero is neither valued nor shown by default). */
export const heldCoins = (balances: Record<string, number>): string[] =>
  Object.keys(balances).filter((c) => (balances[c] ?? 0) > 0);

/**
 * The wallet's value in USDT: stablecoins at 1, other held coins at their USDT price. A coin without a
 * price is listed in `unvalued`, never counted as 0 silently.
 */
export function walletValue(
  balances: Record<string, number>,
  prices: Record<string, number | null | undefined>,
): WalletValue {
  const out: WalletValue = { total: 0, unvalued: [], pending: [], values: {} };
  for (const coin of heldCoins(balances)) {
    const qty = balances[coin] ?? 0;
    const price = USD_STABLES.includes(coin) ? 1 : prices[coin];
    if (price === undefined) {
      out.pending.push(coin);
      out.values[coin] = undefined;
    } else if (price === null) {
      out.unvalued.push(coin);
      out.values[coin] = null;
    } else {
      out.values[coin] = qty * price;
      out.total += qty * price;
    }
  }
  return out;
}
