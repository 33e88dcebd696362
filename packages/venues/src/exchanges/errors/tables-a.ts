import type { ErrorRule } from './rules';

/**
 * Per-exchange error rules, part A (Binance, Bybit, OKX, Bitget, MEXC, KuCoin, BingX, Kraken). The
 * first rule that matches wins, before ccxt's own class; each rule names the exchange's documentation
 * of the error. Codes are compared as strings.
 */

const BINANCE = 'https://developers.binance.com/docs/binance-spot-api-docs/errors';
const BINANCE_FAPI = 'https://developers.binance.com/docs/derivatives/usds-margined-futures/error-code';
const binance: ErrorRule[] = [
  { code: '-1021', kind: 'clock', source: `${BINANCE}#-1021-invalid_timestamp` },
  { code: '-1022', kind: 'auth', source: `${BINANCE}#-1022-invalid_signature` },
  { code: '-2014', kind: 'auth', source: `${BINANCE}#-2014-bad_api_key_fmt` },
  // -2015: "Invalid API-key, IP, or permissions for action" — one code for all three.
  { code: '-2015', kind: 'auth', source: `${BINANCE}#-2015-rejected_mbx_key` },
  { code: '-1003', kind: 'rate_limit', source: `${BINANCE}#-1003-too_many_requests` },
  {
    status: 429,
    kind: 'rate_limit',
    source: 'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/limits',
  },
  {
    status: 418,
    kind: 'rate_limit',
    source: 'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/limits',
  },
  // "Duplicate order sent.": the newClientOrderId is in use by an open order (an earlier send got through,
  // its answer lost); one of the -2010 messages on that page ("Messages for -1010, -2010, -2011").
  { code: '-2010', pattern: /Duplicate order sent/i, kind: 'duplicate', source: BINANCE },
  {
    code: '-2010',
    pattern: /insufficient balance/i,
    kind: 'funds',
    source: `${BINANCE}#-2010-new_order_rejected`,
  },
  {
    code: '-1013',
    pattern: /NOTIONAL/,
    kind: 'min_cost',
    source: 'https://developers.binance.com/docs/binance-spot-api-docs/filters',
  },
  {
    code: '-1013',
    pattern: /LOT_SIZE/,
    kind: 'min_amount',
    source: 'https://developers.binance.com/docs/binance-spot-api-docs/filters',
  },
  {
    code: '-1013',
    pattern: /PRICE_FILTER|PERCENT_PRICE/,
    kind: 'bad_price',
    source: 'https://developers.binance.com/docs/binance-spot-api-docs/filters',
  },
  { code: '-1111', kind: 'precision', source: `${BINANCE}#-1111-bad_precision` },
  { code: '-1121', kind: 'bad_symbol', source: `${BINANCE}#-1121-bad_symbol` },
  { code: '-2011', kind: 'not_found', source: `${BINANCE}#-2011-cancel_rejected` },
  { code: '-2013', kind: 'not_found', source: `${BINANCE}#-2013-no_such_order` },
  { code: '-1008', kind: 'maintenance', source: `${BINANCE}#-1008-server_busy` },
  // USDⓈ-M futures (/fapi). ccxt maps these only for its own fapi URLs; through another base URL (the
  // emulator's, a proxy's) they reached the platform unmapped.
  { code: '-2019', kind: 'funds', source: `${BINANCE_FAPI} (-2019 MARGIN_NOT_SUFFICIEN)` },
  { code: '-2022', kind: 'refused', source: `${BINANCE_FAPI} (-2022 REDUCE_ONLY_REJECT)` },
  // Unique among the open orders: an earlier send of this order is on the book (look it up).
  { code: '-4116', kind: 'duplicate', source: `${BINANCE_FAPI} (-4116 DUPLICATED_CLIENT_TRAN_ID)` },
  { code: '-4164', kind: 'min_cost', source: `${BINANCE_FAPI} (-4164 MIN_NOTIONAL)` },
  { code: '-4028', kind: 'refused', source: `${BINANCE_FAPI} (-4028 INVALID_LEVERAGE)` },
  // The margin type cannot change while the symbol has open orders / a position.
  {
    code: '-4047',
    kind: 'refused',
    source: `${BINANCE_FAPI} (-4047 MARGIN_TYPE_CANNOT_BE_CHANGED_IF_THERE_EXISTS_OPEN_ORDERS)`,
  },
  {
    code: '-4048',
    kind: 'refused',
    source: `${BINANCE_FAPI} (-4048 MARGIN_TYPE_CANNOT_BE_CHANGED_IF_THERE_EXISTS_POSITION)`,
  },
];

const BYBIT = 'https://bybit-exchange.github.io/docs/v5/error';
const bybit: ErrorRule[] = [
  { code: '10002', kind: 'clock', source: BYBIT },
  { code: '10003', kind: 'auth', source: BYBIT },
  { code: '10004', kind: 'auth', source: BYBIT },
  { code: '10005', kind: 'permission', source: BYBIT },
  { code: '10010', kind: 'ip', source: BYBIT },
  { code: '10006', kind: 'rate_limit', source: BYBIT },
  { code: '10018', kind: 'rate_limit', source: BYBIT },
  { status: 429, kind: 'rate_limit', source: 'https://bybit-exchange.github.io/docs/v5/rate-limit' },
  { code: '170131', kind: 'funds', source: BYBIT },
  { code: '110004', kind: 'funds', source: BYBIT },
  { code: '110007', kind: 'funds', source: BYBIT },
  { code: '170136', kind: 'min_amount', source: BYBIT },
  { code: '170140', kind: 'min_cost', source: BYBIT },
  { code: '170137', kind: 'precision', source: BYBIT },
  { code: '170134', kind: 'precision', source: BYBIT },
  { code: '170121', kind: 'bad_symbol', source: BYBIT },
  {
    code: '10001',
    pattern: /symbol (is )?invalid|not supported symbols/i,
    kind: 'bad_symbol',
    source: BYBIT,
  },
  { code: '110001', kind: 'not_found', source: BYBIT },
  { code: '170213', kind: 'not_found', source: BYBIT },
  { code: '10016', kind: 'maintenance', source: BYBIT },
];

const OKX = 'https://www.okx.com/docs-v5/en/#error-code';
const okx: ErrorRule[] = [
  { code: '50102', kind: 'clock', source: `${OKX}-rest-api-authentication` },
  { code: '50111', kind: 'auth', source: `${OKX}-rest-api-authentication` },
  { code: '50113', kind: 'auth', source: `${OKX}-rest-api-authentication` },
  { code: '50105', kind: 'auth', source: `${OKX}-rest-api-authentication` },
  { code: '50110', kind: 'ip', source: `${OKX}-rest-api-authentication` },
  { code: '50030', kind: 'permission', source: `${OKX}-rest-api-general-class` },
  { code: '50011', kind: 'rate_limit', source: `${OKX}-rest-api-general-class` },
  { code: '50061', kind: 'rate_limit', source: `${OKX}-rest-api-general-class` },
  { code: '51008', kind: 'funds', source: `${OKX}-rest-api-trade` },
  { code: '51020', kind: 'min_amount', source: `${OKX}-rest-api-trade` },
  { code: '51121', kind: 'precision', source: `${OKX}-rest-api-trade` },
  { code: '51006', kind: 'bad_price', source: `${OKX}-rest-api-trade` },
  { code: '51001', kind: 'bad_symbol', source: `${OKX}-rest-api-trade` },
  { code: '51603', kind: 'not_found', source: `${OKX}-rest-api-trade` },
  { code: '50001', kind: 'maintenance', source: `${OKX}-rest-api-general-class` },
];

const BITGET = 'https://www.bitget.com/api-doc/common/error-code/restapi';
const bitget: ErrorRule[] = [
  { code: '40008', kind: 'clock', source: BITGET },
  { code: '40005', kind: 'clock', source: BITGET },
  { code: '40006', kind: 'auth', source: BITGET },
  { code: '40009', kind: 'auth', source: BITGET },
  { code: '40012', kind: 'auth', source: BITGET },
  { code: '40037', kind: 'auth', source: BITGET },
  { code: '40018', kind: 'ip', source: BITGET },
  { code: '40014', kind: 'permission', source: BITGET },
  { code: '429', kind: 'rate_limit', source: BITGET },
  { status: 429, kind: 'rate_limit', source: BITGET },
  { code: '43012', kind: 'funds', source: BITGET },
  { code: '40762', kind: 'funds', source: BITGET },
  { code: '45110', kind: 'min_cost', source: BITGET },
  { code: '40808', pattern: /scale/i, kind: 'precision', source: BITGET },
  { code: '40309', kind: 'bad_symbol', source: BITGET },
  { code: '40034', pattern: /symbol/i, kind: 'bad_symbol', source: BITGET },
  { code: '43001', kind: 'not_found', source: BITGET },
  { pattern: /maintenance|being upgraded/i, kind: 'maintenance', source: BITGET },
];

const MEXC = 'https://mexcdevelop.github.io/apidocs/spot_v3_en/#error-code';
const mexc: ErrorRule[] = [
  { code: '700003', kind: 'clock', source: MEXC },
  { code: '700002', kind: 'auth', source: MEXC },
  // ccxt reads 10072 ("Api key info invalid") and 700006 (IP not on the allow list) as bad requests.
  { code: '10072', kind: 'auth', source: MEXC },
  { code: '700006', kind: 'ip', source: MEXC },
  { code: '700007', kind: 'permission', source: MEXC },
  { code: '510', kind: 'rate_limit', source: MEXC },
  { code: '429', kind: 'rate_limit', source: MEXC },
  { status: 429, kind: 'rate_limit', source: 'https://mexcdevelop.github.io/apidocs/spot_v3_en/#limits' },
  { code: '30004', kind: 'funds', source: MEXC },
  { code: '30002', kind: 'min_amount', source: MEXC },
  { code: '10007', kind: 'bad_symbol', source: MEXC },
  { code: '30014', kind: 'bad_symbol', source: MEXC },
  // "Unknown order sent." — ccxt maps -2011 to a bad request.
  { code: '-2011', kind: 'not_found', source: MEXC },
  { code: '-2013', kind: 'not_found', source: MEXC },
  { pattern: /maintenance|system upgrade/i, kind: 'maintenance', source: MEXC },
];

const KUCOIN = 'https://www.kucoin.com/docs-new/error-code/spot';
const kucoin: ErrorRule[] = [
  { code: '400002', kind: 'clock', source: KUCOIN },
  { code: '400003', kind: 'auth', source: KUCOIN },
  { code: '400004', kind: 'auth', source: KUCOIN },
  { code: '400005', kind: 'auth', source: KUCOIN },
  { code: '400006', kind: 'ip', source: KUCOIN },
  { code: '400007', kind: 'permission', source: KUCOIN },
  { code: '429000', kind: 'rate_limit', source: 'https://www.kucoin.com/docs-new/rate-limit' },
  { status: 429, kind: 'rate_limit', source: 'https://www.kucoin.com/docs-new/rate-limit' },
  { code: '200004', kind: 'funds', source: KUCOIN },
  { code: '400100', pattern: /balance insufficient|available\.amount/i, kind: 'funds', source: KUCOIN },
  { code: '400100', pattern: /funds.*(minimum|less than|too small)/i, kind: 'min_cost', source: KUCOIN },
  { code: '400100', pattern: /size.*(minimum|less than|too small)/i, kind: 'min_amount', source: KUCOIN },
  { code: '400100', pattern: /increment|precision/i, kind: 'precision', source: KUCOIN },
  { code: '400100', pattern: /order_not_exist|order not exist/i, kind: 'not_found', source: KUCOIN },
  // "symbol not exists": ccxt has no rule for it.
  { code: '900001', kind: 'bad_symbol', source: KUCOIN },
  { status: 503, kind: 'maintenance', source: KUCOIN },
];

const BINGX = 'https://bingx-api.github.io/docs/#/en-us/spot/base-info.html';
const bingx: ErrorRule[] = [
  { pattern: /timestamp.*(invalid|expired|mismatch|not within)/i, kind: 'clock', source: BINGX },
  { code: '100001', kind: 'auth', source: BINGX },
  { code: '100413', kind: 'auth', source: BINGX },
  { code: '100419', kind: 'ip', source: BINGX },
  { pattern: /permission denied/i, kind: 'permission', source: BINGX },
  { code: '100410', kind: 'rate_limit', source: BINGX },
  { status: 429, kind: 'rate_limit', source: BINGX },
  { code: '100202', kind: 'funds', source: BINGX },
  { code: '101204', kind: 'funds', source: BINGX },
  { code: '110425', kind: 'min_cost', source: BINGX },
  { pattern: /symbol.*(not exist|invalid)/i, kind: 'bad_symbol', source: BINGX },
  { code: '80016', kind: 'not_found', source: BINGX },
  { pattern: /maintenance/i, kind: 'maintenance', source: BINGX },
];

const KRAKEN = 'https://docs.kraken.com/api/docs/guides/spot-errors';
const kraken: ErrorRule[] = [
  // Kraken's nonce is our clock in ms: an invalid nonce after a clock step is fixed by a resync.
  { code: 'EAPI:Invalid nonce', kind: 'clock', source: KRAKEN },
  { code: 'EAPI:Invalid key', kind: 'auth', source: KRAKEN },
  // ccxt has no rule for a bad signature: it read as a generic error, retried forever.
  { code: 'EAPI:Invalid signature', kind: 'auth', source: KRAKEN },
  // Kraken answers a key used from an IP outside its allow list with this too.
  { code: 'EGeneral:Permission denied', kind: 'permission', source: KRAKEN },
  { code: 'EAPI:Rate limit exceeded', kind: 'rate_limit', source: KRAKEN },
  { code: 'EOrder:Rate limit exceeded', kind: 'rate_limit', source: KRAKEN },
  { code: 'EGeneral:Temporary lockout', kind: 'rate_limit', source: KRAKEN },
  { code: 'EOrder:Insufficient funds', kind: 'funds', source: KRAKEN },
  { code: 'EOrder:Order minimum not met', kind: 'min_amount', source: KRAKEN },
  { code: 'EOrder:Cost minimum not met', kind: 'min_cost', source: KRAKEN },
  { pattern: /EOrder:Invalid price.*decimals/, kind: 'precision', source: KRAKEN },
  { pattern: /EGeneral:Invalid arguments:volume/, kind: 'precision', source: KRAKEN },
  { code: 'EQuery:Unknown asset pair', kind: 'bad_symbol', source: KRAKEN },
  { code: 'EOrder:Unknown order', kind: 'not_found', source: KRAKEN },
  { code: 'EService:Unavailable', kind: 'maintenance', source: KRAKEN },
  { code: 'EService:Busy', kind: 'maintenance', source: KRAKEN },
];

/** By ccxt id. */
export const RULES_A: Record<string, ErrorRule[]> = {
  binance,
  bybit,
  okx,
  bitget,
  mexc,
  kucoin,
  bingx,
  kraken,
};
