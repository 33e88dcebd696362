import type { Balances, WalletType } from '../types';

/**
 * Wallet figures as the exchange states them where ccxt's balance parser bends them (issue 38 point 6,
 * found by the conformance tier). One rule per exchange (ccxt id) and wallet, with its source.
 */
interface WalletRule {
  wallet: WalletType;
  source: string;
  /** Per currency, the exchange's own figures read from ccxt's `info` (the raw reply). */
  read(info: unknown): Record<string, { used?: number; total?: number }>;
}

const numberOf = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : undefined;
};

export const WALLET_RULES: Readonly<Record<string, WalletRule>> = {
  // BingX USDT-M perpetual wallet (GET /openApi/swap/v3/user/balance: rows of asset, balance, equity,
  // unrealizedProfit, availableMargin, usedMargin, freezedMargin). ccxt 4.5.84 takes the total from
  // maxWithdrawAmount (what may be withdrawn, less than the wallet while margin is in use) or, when the
  // row has none, free + used; and leaves the margin frozen by open orders out of used. The wallet's
  // total is `balance` (deposits and realised PnL, unrealised PnL not included, as Gate's and Phemex's),
  // used is usedMargin + freezedMargin.
  bingx: {
    wallet: 'swap',
    source: 'https://bingx-api.github.io/docs-v3/#/en/Swap/Account%20Endpoints/Query%20account%20data',
    read(info) {
      const rows = (info as { data?: unknown } | undefined)?.data;
      const out: Record<string, { used?: number; total?: number }> = {};
      if (!Array.isArray(rows)) return out;
      for (const row of rows as Record<string, unknown>[]) {
        const asset = typeof row.asset === 'string' ? row.asset.toUpperCase() : undefined;
        if (!asset) continue;
        const usedMargin = numberOf(row.usedMargin);
        const frozen = numberOf(row.freezedMargin) ?? 0;
        out[asset] = {
          total: numberOf(row.balance),
          used: usedMargin === undefined ? undefined : usedMargin + frozen,
        };
      }
      return out;
    },
  },
};

/** `balances` with the exchange's own figures where a rule says ccxt bends them. */
export function applyWalletRule(
  ccxtId: string,
  wallet: WalletType,
  info: unknown,
  balances: Balances,
): Balances {
  const rule = WALLET_RULES[ccxtId];
  if (!rule || rule.wallet !== wallet) return balances;
  const stated = rule.read(info);
  const out: Balances = { ...balances };
  for (const [coin, b] of Object.entries(balances)) {
    const s = stated[coin];
    if (!s) continue;
    out[coin] = { free: b.free, used: s.used ?? b.used, total: s.total ?? b.total };
  }
  return out;
}
