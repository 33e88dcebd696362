/**
 * Deposit addresses with their network (issue 38 point 5). The network names the chain the address
 * belongs to (ccxt's unified network code: ERC20, TRC20, BSC...); a deposit sent on another chain is
 * lost, so an address is never shown without it where the exchange says it. The currencies (with their
 * networks) are loaded once per venue: ccxt's loadMarkets loads them with the markets on most
 * exchanges when keys are set; otherwise `fetchCurrencies` is called once.
 */
import type { DepositAddress } from '../types';

/** The ccxt calls used here (a subset of ccxt's Exchange). */
export interface DepositExchange {
  id: string;
  has: Record<string, unknown>;
  currencies?: Record<string, unknown> | undefined;
  markets?: Record<string, unknown> | undefined;
  fetchCurrencies(params?: Record<string, unknown>): Promise<unknown>;
  setMarkets(markets: unknown, currencies?: unknown): unknown;
}

/**
 * Exchanges whose deposit-address call needs a network: MEXC GET /api/v3/capital/deposit/address
 * takes `coin` and `network` ("network: deposit network", required to get one address; without it the
 * answer is every network's address or an error), https://mexcdevelop.github.io/apidocs/spot_v3_en/#deposit-address-supporting-network
 * ccxt's mexc reads `params.network` as a unified network code (ccxt 4.5.84 mexc.fetchDepositAddress).
 */
const NEEDS_NETWORK = new Set(['mexc']);

interface CcxtNetwork {
  id?: unknown;
  network?: unknown;
  deposit?: unknown;
  active?: unknown;
}

/** The unified network codes of `code` that take deposits, in the exchange's order. */
export function depositNetworks(ex: DepositExchange, code: string): string[] {
  const currency = ex.currencies?.[code] as { networks?: Record<string, CcxtNetwork> } | undefined;
  const networks = currency?.networks ?? {};
  return Object.entries(networks)
    .filter(([, n]) => n.deposit !== false && n.active !== false)
    .map(([key, n]) => (typeof n.network === 'string' && n.network !== '' ? n.network : key));
}

/**
 * Loads the exchange's currencies once (ccxt keeps them on the instance): markets first, then
 * `fetchCurrencies` when loading the markets did not bring them. A failure leaves them unloaded (the
 * address is still asked for without a network where the exchange allows it).
 */
export async function ensureCurrencies(
  ex: DepositExchange,
  loadMarkets: () => Promise<unknown>,
): Promise<void> {
  await loadMarkets();
  if (Object.keys(ex.currencies ?? {}).length > 0 || ex.has.fetchCurrencies !== true) return;
  const currencies = await ex.fetchCurrencies().catch(() => null);
  if (currencies && typeof currencies === 'object' && Object.keys(currencies).length > 0) {
    ex.setMarkets(Object.values(ex.markets ?? {}), currencies);
  }
}

/** The ccxt params of a deposit-address call: the asked network, else the first one where needed. */
export function depositParams(ex: DepositExchange, code: string, network?: string): Record<string, unknown> {
  if (network) return { network };
  if (!NEEDS_NETWORK.has(ex.id)) return {};
  const first = depositNetworks(ex, code)[0];
  return first ? { network: first } : {};
}

/** A ccxt deposit address in our shape; the network as the exchange said it, else as it was asked. */
export function toDepositAddress(currency: string, raw: unknown, asked?: unknown): DepositAddress {
  const a = (raw ?? {}) as { address?: unknown; tag?: unknown; network?: unknown };
  const network =
    typeof a.network === 'string' && a.network !== ''
      ? a.network
      : typeof asked === 'string' && asked !== ''
        ? asked
        : null;
  return {
    currency,
    address:
      typeof a.address === 'string' ? a.address : typeof a.address === 'number' ? String(a.address) : '',
    tag: typeof a.tag === 'string' && a.tag !== '' ? a.tag : null,
    network,
  };
}
