/**
 * The spec's fixed catalogues (part 1 §3, part 2 §3 and §9), shared by server and web.
 */

/** The 16 ticker assets: market-data id and trading pair (spec part 1 §3). */
export const TICKER_ASSETS = [
  { id: 'bitcoin', symbol: 'BTCUSDT', name: 'Bitcoin' },
  { id: 'ethereum', symbol: 'ETHUSDT', name: 'Ethereum' },
  { id: 'litecoin', symbol: 'LTCUSDT', name: 'Litecoin' },
  { id: 'ripple', symbol: 'XRPUSDT', name: 'XRP' },
  { id: 'solana', symbol: 'SOLUSDT', name: 'Solana' },
  { id: 'binancecoin', symbol: 'BNBUSDT', name: 'BNB' },
  { id: 'cardano', symbol: 'ADAUSDT', name: 'Cardano' },
  { id: 'tron', symbol: 'TRXUSDT', name: 'TRON' },
  { id: 'polkadot', symbol: 'DOTUSDT', name: 'Polkadot' },
  { id: 'chainlink', symbol: 'LINKUSDT', name: 'Chainlink' },
  { id: 'dogecoin', symbol: 'DOGEUSDT', name: 'Dogecoin' },
  { id: 'bitcoin-cash', symbol: 'BCHUSDT', name: 'Bitcoin Cash' },
  { id: 'theta-token', symbol: 'THETAUSDT', name: 'Theta Network' },
  { id: 'optimism', symbol: 'OPUSDT', name: 'Optimism' },
  { id: 'the-sandbox', symbol: 'SANDUSDT', name: 'The Sandbox' },
  { id: 'worldcoin-wld', symbol: 'WLDUSDT', name: 'Worldcoin' },
] as const;
export type TickerAssetId = (typeof TICKER_ASSETS)[number]['id'];

/** The 26 wallet coins (spec part 1 §3), in the spec's order. */
export const WALLET_COINS = [
  'ETH',
  'BYTX',
  'BTC',
  'USDT',
  'USDC',
  'LTC',
  'BNB',
  'XRP',
  'SOL',
  'DOT',
  'AVAX',
  'ADA',
  'TRX',
  'LINK',
  'BCH',
  'ARB',
  'ATOM',
  'UNI',
  'HBAR',
  'SUI',
  'ALGO',
  'FIL',
  'THETA',
  'OP',
  'SAND',
  'WLD',
] as const;
export type WalletCoin = (typeof WALLET_COINS)[number];

/** Spot quotes and bases: the wallet coins without the stablecoins (spec part 1 §3). */
export const SPOT_QUOTES = ['USDT', 'USDC'] as const;
export const SPOT_BASES = WALLET_COINS.filter((c) => c !== 'USDT' && c !== 'USDC');

/**
 * The 20 exchange keys with display names (spec part 2 §3). `ccxtId` is ccxt 4.5's id; null where
 * ccxt no longer has the exchange (closed or removed): listed, marked unavailable, refused on connect.
 * `{host}` in the spec stands for a display name it does not show; we show the exchange's own name.
 */
export const EXCHANGES = [
  { key: 'binance', name: 'Binance', ccxtId: 'binance', sandbox: false },
  { key: 'bybit', name: 'Bybit', ccxtId: 'bybit', sandbox: false },
  { key: 'bybit_testnet', name: 'Bybit_Testnet', ccxtId: 'bybit', sandbox: true },
  { key: 'coinbaseexchange', name: 'Coinbase Exchange', ccxtId: 'coinbaseexchange', sandbox: false },
  { key: 'okx', name: 'OKX', ccxtId: 'okx', sandbox: false },
  { key: 'bitget', name: 'Bitget', ccxtId: 'bitget', sandbox: false },
  { key: 'mexc', name: 'MEXC', ccxtId: 'mexc', sandbox: false },
  { key: 'kucoin', name: 'KuCoin', ccxtId: 'kucoin', sandbox: false },
  { key: 'bingx', name: 'BingX', ccxtId: 'bingx', sandbox: false },
  { key: 'kraken', name: 'Kraken', ccxtId: 'kraken', sandbox: false },
  { key: 'bitfinex', name: 'Bitfinex', ccxtId: 'bitfinex', sandbox: false },
  { key: 'gateio', name: 'Gate.io', ccxtId: 'gate', sandbox: false },
  { key: 'phemex', name: 'Phemex', ccxtId: 'phemex', sandbox: false },
  { key: 'bitstamp', name: 'Bitstamp', ccxtId: 'bitstamp', sandbox: false },
  { key: 'bittrex', name: 'Bittrex', ccxtId: null, sandbox: false },
  { key: 'poloniex', name: 'Poloniex', ccxtId: 'poloniex', sandbox: false },
  { key: 'lbank', name: 'LBank', ccxtId: 'lbank', sandbox: false },
  { key: 'zb', name: 'ZB', ccxtId: null, sandbox: false },
  { key: 'hitbtc', name: 'HitBTC', ccxtId: 'hitbtc', sandbox: false },
  { key: 'ascendex', name: 'AscendEX', ccxtId: null, sandbox: false },
] as const;
export type ExchangeKey = (typeof EXCHANGES)[number]['key'];
export const EXCHANGE_KEYS = EXCHANGES.map((e) => e.key) as unknown as readonly [
  ExchangeKey,
  ...ExchangeKey[],
];
/** The grid page lists 19: every exchange but the testnet (spec part 2 §9). */
export const GRID_EXCHANGES = EXCHANGES.filter((e) => e.key !== 'bybit_testnet');

export const MARKET_TYPES = ['Spot', 'Perpetual', 'Inverse', 'Margin'] as const;
export type MarketType = (typeof MARKET_TYPES)[number];

export const PLANS = [
  { id: 'basic', name: 'Basic', priceUsd: 5 },
  { id: 'advanced', name: 'Advanced', priceUsd: 15 },
  { id: 'professional', name: 'Professional', priceUsd: 30 },
] as const;

/** The display name of an exchange key ('binance' -> 'Binance'); the key itself when unknown. */
export const exchangeDisplayName = (key: string): string =>
  EXCHANGES.find((e) => e.key === key.toLowerCase())?.name ?? key;
