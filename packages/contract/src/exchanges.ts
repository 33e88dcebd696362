import { z } from 'zod';
import { EXCHANGES, type ExchangeKey } from './catalog';
import { textField, userIdField } from './common';

/**
 * Exchange connections (spec part 1 §7: estado_conexion, conectar_exchange, eliminar_exchange).
 * An exchange is named by its lowercase key (spec part 2 §3); the display name is accepted too.
 */

/** The spec's validation text for live keys (part 1 §5). */
export const MISSING_KEYS_MESSAGE = 'Please complete API Key and API Secret before connecting.';
/** The spec's text for a call on an exchange the user has not connected (part 2 §2). */
export const NOT_CONNECTED_MESSAGE = 'Este exchange no está conectado. Conéctalo en Settings.';

export const CONNECTION_MODES = ['paper', 'live'] as const;
export type ConnectionMode = (typeof CONNECTION_MODES)[number];

/** Key or display name (any case) -> key, or null when it names no exchange of the catalogue. */
export function exchangeKeyOf(value: string): ExchangeKey | null {
  const v = value.trim().toLowerCase();
  const hit = EXCHANGES.find((e) => e.key === v || e.name.toLowerCase() === v);
  return hit ? hit.key : null;
}

/** Exchanges whose API keys come with a passphrase. */
export const PASSPHRASE_EXCHANGES: readonly ExchangeKey[] = ['okx', 'kucoin', 'bitget'];

/** False for the keys ccxt no longer has (listed, marked unavailable, refused on connect). */
export function isExchangeAvailable(key: ExchangeKey): boolean {
  return EXCHANGES.find((e) => e.key === key)?.ccxtId != null;
}

export const exchangeField = textField('exchange')
  .trim()
  .min(1, 'exchange is required')
  .max(64)
  .transform((v, ctx) => {
    const key = exchangeKeyOf(v);
    if (!key) {
      ctx.addIssue({ code: 'custom', message: `Unknown exchange: ${v}` });
      return z.NEVER;
    }
    return key;
  });

export const estadoConexionBody = z.object({ user_id: userIdField }).optional();

export const estadoConexionResponse = z.object({
  /** Every one of the 20 keys, true when the user has a connection (paper or live). */
  conexiones: z.record(z.string(), z.boolean()),
});
export type EstadoConexionResponse = z.infer<typeof estadoConexionResponse>;

/** Keys are trimmed; an empty string counts as missing. */
const keyField = z.string().max(512).optional();

export const conectarExchangeBody = z.object({
  exchange: exchangeField,
  apiKey: keyField,
  apiSecret: keyField,
  /** The API passphrase of OKX, KuCoin and Bitget keys (not in the spec's call; optional). */
  password: keyField,
  /** 'paper' connects a simulated account that needs no keys; default 'live'. */
  mode: z.enum(CONNECTION_MODES).optional(),
  user_id: userIdField,
});
export type ConectarExchangeBody = z.input<typeof conectarExchangeBody>;

export const conectarExchangeResponse = z.object({
  success: z.boolean(),
  error: z.string().optional(),
  message: z.string().optional(),
  exchange: z.string().optional(),
  mode: z.enum(CONNECTION_MODES).optional(),
  /**
   * Live keys (not in the spec's call): `checked` when the exchange showed that the key cannot withdraw,
   * `unchecked` when it does not show a key's rights (docs/exchanges.md "Withdrawal check"); `notice` then
   * says so in English (the settings page shows its own translated text).
   */
  withdraw_check: z.enum(['checked', 'unchecked']).optional(),
  notice: z.string().optional(),
});
export type ConectarExchangeResponse = z.infer<typeof conectarExchangeResponse>;

export const eliminarExchangeBody = z.object({
  exchange: exchangeField,
  user_id: userIdField,
});

export const eliminarExchangeResponse = z.object({
  success: z.boolean(),
  message: z.string().optional(),
  error: z.string().optional(),
});

/** What a live key's re-check can find wrong (docs/exchanges.md "Key re-check"). */
export const KEY_PROBLEMS = ['revoked', 'can_withdraw'] as const;
export type KeyProblem = (typeof KEY_PROBLEMS)[number];

/** One connected exchange as the settings list shows it; never carries key material. */
export const exchangeConnection = z.object({
  exchange: z.string(),
  name: z.string(),
  mode: z.enum(CONNECTION_MODES),
  createdAt: z.string(),
  /**
   * Live keys (issue 38 point 9): what the last re-check found — `revoked` (the exchange refuses the key)
   * or `can_withdraw` (it gained withdrawal rights; its bots are paused) — or null when it found the key
   * good or no re-check ran since connect. `key_checked_at`: when (ISO), or null.
   */
  key_problem: z.enum(KEY_PROBLEMS).nullable().optional(),
  key_checked_at: z.string().nullable().optional(),
});
export type ExchangeConnection = z.infer<typeof exchangeConnection>;

export const exchangeConnectionsResponse = z.object({
  success: z.literal(true),
  connections: z.array(exchangeConnection),
});
export type ExchangeConnectionsResponse = z.infer<typeof exchangeConnectionsResponse>;

/**
 * What each exchange supports with live keys (issue 38 point 8; docs/exchanges.md "What each exchange
 * supports"), derived on the server from ccxt and our per-exchange rules. Paper accounts support everything.
 */
export const exchangeCapability = z.object({
  exchange: z.string(),
  name: z.string(),
  available: z.boolean(),
  spot: z.boolean(),
  perpetual: z.boolean(),
  inverse: z.boolean(),
  margin: z.boolean(),
  leverage: z.boolean(),
  clientIds: z.string().nullable(),
  lookups: z.string().nullable(),
});
export type ExchangeCapability = z.infer<typeof exchangeCapability>;

export const exchangeCapabilitiesResponse = z.object({
  success: z.literal(true),
  exchanges: z.array(exchangeCapability),
});
export type ExchangeCapabilitiesResponse = z.infer<typeof exchangeCapabilitiesResponse>;

// Zod-free, in their own module (the web's start forms import them): ./market-support.ts.
export { supportsMarket, UNSUPPORTED_MARKET_MESSAGE, unsupportedMarketMessage } from './market-support';
