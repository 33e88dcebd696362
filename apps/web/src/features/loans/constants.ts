/** The static display values of the loans page (spec part 2 §9). The page makes no calls. */
export const LOANS = {
  borrowAssets: ['USDT', 'USDC'],
  collaterals: ['BTC', 'ETH', 'BYTX', 'LTC', 'XRP', 'SOL'],
  /** Percentages with the decimals the spec writes them with (shown through shared/ui/numbers). */
  initialLtv: { pct: 70, decimals: 0 },
  marginCallLtv: { pct: 80, decimals: 0 },
  liquidationLtv: { pct: 90, decimals: 0 },
  hourlyInterest: { pct: 0.0018, decimals: 4 },
  annualInterest: { pct: 15.94, decimals: 2 },
  remainingLimit: 1_600_000,
  poolApy: { pct: 15, decimals: 0 },
  /** USDT. */
  poolSize: 1_234_567,
} as const;

/** The four wallet providers of the Connect Wallet dialog (the spec does not name them). */
export const WALLET_PROVIDERS = ['MetaMask', 'WalletConnect', 'Coinbase Wallet', 'Trust Wallet'] as const;
