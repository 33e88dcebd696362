/**
 * Client order ids in the form each exchange accepts (issue 38 point 1). A bot's strategy names its
 * orders `${botKey}-${seq}` (botKey = `b` + the first 20 hex digits of the bot's uuid, 80 bits; seq the
 * bot's order counter); that string is the journal's key. What is SENT is `clientOrderIdFor(exchange,
 * botKey, seq)`: a pure, deterministic function, so the journal's key alone finds the order again after
 * a crash. Where the strategy's own form is valid on the exchange the function returns it unchanged —
 * so journals written before this table existed are still found, with no migration. Where it is not
 * (OKX, Kraken, Coinbase Exchange, Bitfinex, Gate), the exchange's form is derived from the same pair.
 *
 * FROZEN: a form here is what the open orders of running bots carry. Changing the form of an exchange
 * must keep the old one in `legacyForms` (or the lookups of orders placed before the change fail).
 *
 * Each rule cites the exchange's API documentation. `ccxtParam` is set only where ccxt 4.5 does not map
 * the unified `clientOrderId` param itself (read in node_modules/ccxt/js/src/<id>.js createOrder).
 */
import { createHash } from 'node:crypto';

/** How an exchange wants the id. */
export type ClientIdForm =
  /** The strategy's own `${botKey}-${seq}` (compact `k…` beyond the length limit). */
  | 'text'
  /** Letters and digits only: `${botKey}${base36(seq)}`. */
  | 'alnum'
  /** A UUID laid out from (botKey, seq), version/variant nibbles set so every UUID validator accepts it. */
  | 'uuid'
  /** A positive integer of `bits` bits taken from a hash of (botKey, seq). */
  | 'int';

export interface ClientIdRule {
  /** The catalogue key (packages/contract EXCHANGES). */
  key: string;
  ccxtId: string;
  form: ClientIdForm;
  /** The exchange's documented pattern of the whole id as sent (prefix included). */
  pattern: RegExp;
  /** Longest id we send, prefix included (characters). */
  maxLength: number;
  /** Sent in front of every id (Gate's `t-`). */
  prefix?: string;
  /** For 'int': how many bits (Bitfinex's cid is an int45). */
  bits?: number;
  /** The param ccxt reads when it does not map `clientOrderId` itself; sent as a number when `numeric`. */
  ccxtParam?: string;
  numeric?: boolean;
  /** The exchange's API documentation of the rule. */
  source: string;
}

// The strategy's `${botKey}-${seq}` is 22 + digits(seq) characters of [b0-9a-f-]: it fits every
// 'text' rule below for any seq under 10^(maxLength − 22) (10^10 for a 32-character limit).
const TEXT_36 = /^[.A-Z:/a-z0-9_-]{1,36}$/;

export const CLIENT_ID_RULES: readonly ClientIdRule[] = [
  {
    // newClientOrderId: "A unique id among open orders. ... ^[\.A-Z\:/a-z0-9_-]{1,36}$".
    // https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#new-order-trade
    key: 'binance',
    ccxtId: 'binance',
    form: 'text',
    pattern: TEXT_36,
    maxLength: 36,
    source: 'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints',
  },
  {
    // orderLinkId: "User customised order ID. A max of 36 characters. Combinations of numbers, letters (upper
    // and lower cases), dashes, and underscores are supported."
    key: 'bybit',
    ccxtId: 'bybit',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,36}$/,
    maxLength: 36,
    source: 'https://bybit-exchange.github.io/docs/v5/order/create-order',
  },
  {
    key: 'bybit_testnet',
    ccxtId: 'bybit',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,36}$/,
    maxLength: 36,
    source: 'https://bybit-exchange.github.io/docs/v5/order/create-order',
  },
  {
    // client_oid: "[optional] Order ID selected by you to identify your order. This should be a UUID".
    key: 'coinbaseexchange',
    ccxtId: 'coinbaseexchange',
    form: 'uuid',
    pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    maxLength: 36,
    source: 'https://docs.cdp.coinbase.com/exchange/reference/exchangerestapi_postorders',
  },
  {
    // clOrdId: "Client Order ID as assigned by the client. A combination of case-sensitive alphanumerics,
    // all numbers, or all letters of up to 32 characters." (no hyphen, no underscore)
    key: 'okx',
    ccxtId: 'okx',
    form: 'alnum',
    pattern: /^[A-Za-z0-9]{1,32}$/,
    maxLength: 32,
    source: 'https://www.okx.com/docs-v5/en/#order-book-trading-trade-post-place-order',
  },
  {
    // clientOid: "Customize order ID" — letters, digits, `_` and `-`; at most 50 characters (v2 spot).
    key: 'bitget',
    ccxtId: 'bitget',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,50}$/,
    maxLength: 50,
    source: 'https://www.bitget.com/api-doc/spot/trade/Place-Order',
  },
  {
    // newClientOrderId (spot v3): a free string; no published limit, so we keep to 32 of [A-Za-z0-9_-],
    // the form every other exchange here accepts too.
    key: 'mexc',
    ccxtId: 'mexc',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,32}$/,
    maxLength: 32,
    source: 'https://mexcdevelop.github.io/apidocs/spot_v3_en/#new-order',
  },
  {
    // clientOid: "can only contain numbers, letters, underscores (_), and hyphens (-) ... maximum length
    // for the ClientOid is 40 characters."
    key: 'kucoin',
    ccxtId: 'kucoin',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,40}$/,
    maxLength: 40,
    source: 'https://www.kucoin.com/docs-new/rest/spot-trading/orders/add-order',
  },
  {
    // newClientOrderId (spot) / clientOrderID (swap): "Customized order ID for users, with a limit of
    // characters from 1 to 40."
    key: 'bingx',
    ccxtId: 'bingx',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,40}$/,
    maxLength: 40,
    source: 'https://bingx-api.github.io/docs/#/en-us/spot/trade-api.html#Place%20order',
  },
  {
    // cl_ord_id: "Long UUID (32 hex characters separated with 4 dashes), Short UUID (32 hex characters),
    // or free text: free format ascii text up to 18 characters". Our 24+ character form is too long for
    // free text; a long UUID carries all of (botKey, seq). (`userref` is an int32: too small.)
    key: 'kraken',
    ccxtId: 'kraken',
    form: 'uuid',
    pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    maxLength: 36,
    source: 'https://docs.kraken.com/api/docs/guides/spot-clordid',
  },
  {
    // cid: "int45 — Should be unique in the day (UTC) (not enforced)". ccxt copies `clientOrderId` into
    // `cid` as given: we pass a number (a JSON string is not an int45).
    key: 'bitfinex',
    ccxtId: 'bitfinex',
    form: 'int',
    bits: 45,
    pattern: /^[1-9][0-9]{0,13}$/,
    maxLength: 14,
    ccxtParam: 'cid',
    numeric: true,
    source: 'https://docs.bitfinex.com/reference/rest-auth-submit-order',
  },
  {
    // text: "User defined information. If not empty, must follow the rules below: 1. prefixed with `t-`
    // 2. no longer than 28 bytes without `t-` prefix 3. can only include 0-9, A-Z, a-z, underscore(_),
    // hyphen(-) or dot(.)". ccxt 4.5 refuses more than 28 characters counting a `t-` we give it, and
    // adds `t-` when missing; we send it ourselves so the id sent is the one Gate returns.
    key: 'gateio',
    ccxtId: 'gate',
    form: 'text',
    prefix: 't-',
    pattern: /^t-[A-Za-z0-9_.-]{1,26}$/,
    maxLength: 28,
    source: 'https://www.gate.io/docs/developers/apiv4/en/#create-an-order',
  },
  {
    // clOrdID: "client order id, max length 40" (ccxt's own note, as Phemex's docs' examples).
    key: 'phemex',
    ccxtId: 'phemex',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,40}$/,
    maxLength: 40,
    source: 'https://phemex-docs.github.io/#place-order',
  },
  {
    // client_order_id: "Client order ID set by the client for internal reference. It should be unique, but
    // there are no additional constraints or checks guaranteed on the field by Bitstamp."
    key: 'bitstamp',
    ccxtId: 'bitstamp',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,36}$/,
    maxLength: 36,
    source: 'https://www.bitstamp.net/api/#tag/Orders/operation/OpenInstantBuyOrder',
  },
  {
    // clientOrderId (spot v3) / clOrdId (futures): "Maximum 64-character length".
    key: 'poloniex',
    ccxtId: 'poloniex',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,64}$/,
    maxLength: 64,
    source: 'https://api-docs.poloniex.com/spot/api/private/order#create-order',
  },
  {
    // custom_id: "user-defined id" — no published charset or limit; we keep to 32 of [A-Za-z0-9_-].
    key: 'lbank',
    ccxtId: 'lbank',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,32}$/,
    maxLength: 32,
    source: 'https://www.lbank.com/en-US/docs/index.html#place-order',
  },
  {
    // client_order_id: "Uniqueness must be guaranteed for a single user's orders within a trading day"; the
    // docs' examples are 32 characters of [A-Za-z0-9_-]. ccxt 4.5 does NOT map `clientOrderId` for HitBTC
    // (createOrderRequest copies params as given): the param is `client_order_id`.
    key: 'hitbtc',
    ccxtId: 'hitbtc',
    form: 'text',
    pattern: /^[A-Za-z0-9_-]{1,32}$/,
    maxLength: 32,
    ccxtParam: 'client_order_id',
    source: 'https://api.hitbtc.com/#create-new-spot-order',
  },
];

const BY_KEY = new Map<string, ClientIdRule>();
for (const r of CLIENT_ID_RULES) {
  BY_KEY.set(r.key, r);
  if (!BY_KEY.has(r.ccxtId)) BY_KEY.set(r.ccxtId, r);
}

/** The rule of `exchange` (catalogue key or ccxt id); exchanges not listed (paper-only names) get Binance's. */
export function clientIdRule(exchange: string): ClientIdRule {
  return BY_KEY.get(exchange) ?? BY_KEY.get('binance')!;
}

const KEY_RE = /^b[0-9a-f]{20}$/;

/**
 * The bot's key: `b` + the first 20 hex digits of its uuid (as the runner's strategyIdOf), or the key
 * itself. Anything else (a test's name) is hashed into the same shape.
 */
export function botKeyOf(botId: string): string {
  const lower = botId.toLowerCase();
  if (KEY_RE.test(lower)) return lower;
  const hex = lower.replace(/-/g, '');
  if (/^[0-9a-f]{32}$/.test(hex)) return `b${hex.slice(0, 20)}`;
  return `b${createHash('sha256').update(botId).digest('hex').slice(0, 20)}`;
}

/** 80 bits of the key as 16 base-36 digits (compact text form). */
function key36(key: string): string {
  return BigInt(`0x${key.slice(1)}`)
    .toString(36)
    .padStart(16, '0');
}

function keyFrom36(s: string): string | null {
  let n = 0n;
  for (const ch of s) {
    const d = parseInt(ch, 36);
    if (Number.isNaN(d)) return null;
    n = n * 36n + BigInt(d);
  }
  const hex = n.toString(16);
  return hex.length > 20 ? null : `b${hex.padStart(20, '0')}`;
}

function checkSeq(seq: number): void {
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new RangeError(`order sequence ${seq} is not a natural number`);
}

/** The UUID of (key, seq): 18 of the key's 20 hex digits around the version/variant nibbles, 2 more and 10 of seq. */
function uuidOf(key: string, seq: number): string {
  if (seq >= 16 ** 10) throw new RangeError(`order sequence ${seq} does not fit a UUID id (below 16^10)`);
  const k = key.slice(1);
  const s = seq.toString(16).padStart(10, '0');
  // xxxxxxxx-xxxx-4xxx-8xxx-xxssssssssss: version 4 and RFC 4122 variant so strict validators pass; the
  // other 122 bits are (key, seq), which the inverse reads back.
  return `${k.slice(0, 8)}-${k.slice(8, 12)}-4${k.slice(12, 15)}-8${k.slice(15, 18)}-${k.slice(18, 20)}${s}`;
}

function fromUuid(id: string): { key: string; seq: number } | null {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-4([0-9a-f]{3})-8([0-9a-f]{3})-([0-9a-f]{2})([0-9a-f]{10})$/.exec(
    id,
  );
  if (!m) return null;
  return { key: `b${m[1]}${m[2]}${m[3]}${m[4]}${m[5]}`, seq: parseInt(m[6]!, 16) };
}

/**
 * The integer id of (key, seq): the first `bits` bits of SHA-256(`${key}-${seq}`), never 0. Not
 * invertible: the runner recognises it by recomputing it from its journal. Odds that two orders of one
 * account share a cid: 2^-45 per pair; Bitfinex looks cids up within a UTC day, so with 10,000 orders
 * in a day the odds of any clash that day are about 10^8 / 2 / 3.5·10^13 ≈ 1.4·10^-6.
 */
function intOf(key: string, seq: number, bits: number): string {
  const h = createHash('sha256').update(`${key}-${seq}`).digest();
  let n = 0n;
  for (let i = 0; i < 8; i++) n = (n << 8n) | BigInt(h[i]!);
  const v = n >> BigInt(64 - bits);
  return (v === 0n ? 1n : v).toString();
}

/**
 * The client order id for order `seq` of bot `botId` on `exchange`, in the exchange's documented form.
 * Deterministic: the same (exchange, bot, seq) always gives the same id; distinct seqs of a bot give
 * distinct ids (except 'int', where distinct with odds 1 − 2^-45 per pair).
 */
export function clientOrderIdFor(exchange: string, botId: string, seq: number): string {
  checkSeq(seq);
  const rule = clientIdRule(exchange);
  const key = botKeyOf(botId);
  const prefix = rule.prefix ?? '';
  switch (rule.form) {
    case 'uuid':
      return uuidOf(key, seq);
    case 'int':
      return intOf(key, seq, rule.bits ?? 45);
    case 'alnum': {
      const id = `${key}${seq.toString(36)}`;
      if (id.length > rule.maxLength) throw new RangeError(`order sequence ${seq} too large for ${rule.key}`);
      return id;
    }
    case 'text': {
      const own = `${prefix}${key}-${seq}`;
      if (own.length <= rule.maxLength) return own;
      // Beyond the limit (Gate after 10^4 orders of a bot): `k` + the key in base 36 + the seq in base 36.
      const compact = `${prefix}k${key36(key)}${seq.toString(36)}`;
      if (compact.length > rule.maxLength)
        throw new RangeError(`order sequence ${seq} too large for ${rule.key}`);
      return compact;
    }
  }
}

/** The strategy's `${botKey}-${seq}` split, or null for another shape. */
export function parseStrategyClientId(id: string): { key: string; seq: number } | null {
  const m = /^(b[0-9a-f]{20})-(\d{1,15})$/.exec(id);
  return m ? { key: m[1]!, seq: Number(m[2]) } : null;
}

/**
 * The id to send for the strategy's order `strategyId` (`${botKey}-${seq}`). Ids of another shape are
 * sent as they are (none is made today; kept so nothing the strategy names is ever refused here).
 */
export function venueClientIdOf(exchange: string, strategyId: string): string {
  const p = parseStrategyClientId(strategyId);
  return p ? clientOrderIdFor(exchange, p.key, p.seq) : strategyId;
}

/**
 * Other ids an order of `strategyId` may carry on `exchange` because it was sent before this table
 * existed: on Gate ccxt put `t-` in front of the strategy's id, which differs from today's id past
 * 10^4 orders. Lookups try these after the current id.
 */
export function legacyClientIds(exchange: string, strategyId: string): string[] {
  const rule = clientIdRule(exchange);
  const current = venueClientIdOf(exchange, strategyId);
  const old = rule.prefix ? `${rule.prefix}${strategyId}` : strategyId;
  return old !== current && rule.form === 'text' ? [old] : [];
}

/**
 * Whose order `id` (as the exchange returns it) is: the bot key and seq it encodes, or null when it
 * encodes none (not ours, or the 'int' form, which only the journal can recognise: see
 * `venueClientIdOf`). The strategy's own form (every journal before this table) is always recognised.
 */
export function recognise(exchange: string, id: string): { key: string; seq: number } | null {
  const rule = clientIdRule(exchange);
  let body = id;
  if (rule.prefix && body.startsWith(rule.prefix)) body = body.slice(rule.prefix.length);
  const own = parseStrategyClientId(body);
  if (own) return own;
  if (rule.form === 'uuid') return fromUuid(id.toLowerCase());
  if (rule.form === 'alnum') {
    const m = /^(b[0-9a-f]{20})([0-9a-z]{1,11})$/.exec(body);
    return m ? { key: m[1]!, seq: parseInt(m[2]!, 36) } : null;
  }
  if (rule.form === 'text') {
    const m = /^k([0-9a-z]{16})([0-9a-z]{1,11})$/.exec(body);
    const key = m ? keyFrom36(m[1]!) : null;
    return m && key ? { key, seq: parseInt(m[2]!, 36) } : null;
  }
  return null;
}

/** The strategy's id of the order `venueId` if it is bot `botId`'s (structurally), else null. */
export function strategyClientIdOf(exchange: string, venueId: string, botId: string): string | null {
  const r = recognise(exchange, venueId);
  const key = botKeyOf(botId);
  return r && r.key === key ? `${key}-${r.seq}` : null;
}

/**
 * The ccxt createOrder params carrying `venueId` for `ccxtId`: ccxt's unified `clientOrderId`, or the
 * exchange's own param (as a number where the exchange wants an integer).
 */
export function ccxtClientIdParams(ccxtId: string, venueId: string): Record<string, unknown> {
  const rule = BY_KEY.get(ccxtId);
  if (!rule?.ccxtParam) return { clientOrderId: venueId };
  const value = rule.numeric && /^\d+$/.test(venueId) ? Number(venueId) : venueId;
  return { [rule.ccxtParam]: value };
}
