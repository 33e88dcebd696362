/** The static display values of the loans page (spec part 2 §9). The page makes no calls. */
export const LOANS = {
  borrowAssets: ['USDT', 'USDC'],
  collaterals: ['BTC', 'ETH', 'BYTX', 'LTC', 'XRP', 'SOL'],
  initialLtv: '70%',
  marginCallLtv: '80%',
  liquidationLtv: '90%',
  hourlyInterest: '0.0018%',
  annualInterest: '15.94%',
  remainingLimit: '1,600,000',
  poolApy: '15%',
  poolSize: '1,234,567 USDT',
} as const;

/** The four wallet providers of the Connect Wallet dialog (the spec does not name them). */
export const WALLET_PROVIDERS = ['MetaMask', 'WalletConnect', 'Coinbase Wallet', 'Trust Wallet'] as const;
