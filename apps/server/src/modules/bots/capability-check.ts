import { exchangeKeyOf, unsupportedMarketMessage, type MarketType } from '@bytx/contract';
import { exchangeCapabilities, supportsMarketType } from '@bytx/venues';
import type { VenueRegistry } from '../../context';
import { badRequest } from '../../lib/errors';

/**
 * Refuses a start on a market type the user's LIVE exchange cannot trade (issue 38 point 8; the table:
 * packages/venues/src/exchanges/capabilities.ts, docs/exchanges.md), with the text the start forms show
 * before the start. Paper accounts trade every market type, so they pass; so does an exchange without a
 * connection (the start's own "not connected" answer comes at its point).
 */
export async function assertLiveSupports(
  venues: VenueRegistry | undefined,
  userId: string,
  exchange: string,
  type: MarketType,
): Promise<void> {
  const key = exchangeKeyOf(exchange);
  if (!key || !venues) return;
  if ((await venues.connectionKind(userId, key)) !== 'live') return;
  const c = exchangeCapabilities().find((x) => x.exchange === key);
  if (c && !supportsMarketType(c, type)) {
    throw badRequest(unsupportedMarketMessage('en', key, type), { field: 'apartado' });
  }
}
