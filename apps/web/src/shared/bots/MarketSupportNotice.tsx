import {
  supportsMarket,
  UNSUPPORTED_MARKET_MESSAGE,
  unsupportedMarketMessage,
  type ExchangeCapabilitiesResponse,
  type ExchangeConnectionsResponse,
  type MarketType,
} from '@bytx/contract';
import { Alert } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../api/client';
import { userIdOf, useSession } from '../session/session';

/** `spot` / `Perpetual` / … as the forms send it → the contract's market type, or null. */
export function marketTypeOf(value: string): MarketType | null {
  const v = value.trim().toLowerCase();
  if (v === 'spot') return 'Spot';
  if (v === 'perpetual') return 'Perpetual';
  if (v === 'inverse') return 'Inverse';
  if (v === 'margin') return 'Margin';
  return null;
}

/**
 * The text a start form shows when the user's LIVE exchange cannot trade the chosen market type (issue 38
 * point 8; the table is GET /api/exchanges/capabilities, docs/exchanges.md), in the page's language — the
 * same text the server refuses the start with. Null while unknown, for paper accounts (they trade every
 * market type) and where the exchange supports it.
 */
export function useMarketSupport(exchange: string, marketType: string): string | null {
  const { i18n } = useTranslation();
  const { user } = useSession();
  const capabilities = useQuery({
    queryKey: ['exchanges', 'capabilities'],
    queryFn: () => api<ExchangeCapabilitiesResponse>('/api/exchanges/capabilities'),
    staleTime: Infinity,
    enabled: exchange !== '',
  });
  const connections = useQuery({
    queryKey: ['exchanges', 'connections', userIdOf(user)],
    queryFn: async () => (await api<ExchangeConnectionsResponse>('/api/exchanges/connections')).connections,
    enabled: !!user && exchange !== '',
  });
  const type = marketTypeOf(marketType);
  if (!exchange || !type) return null;
  const live = connections.data?.some((c) => c.exchange === exchange && c.mode === 'live');
  const c = capabilities.data?.exchanges.find((x) => x.exchange === exchange);
  if (!live || !c || supportsMarket(c, type)) return null;
  const lang: keyof typeof UNSUPPORTED_MARKET_MESSAGE = i18n.language.startsWith('es') ? 'es' : 'en';
  return unsupportedMarketMessage(lang, exchange, type);
}

/** The inline notice under a form's market type. */
export function MarketSupportNotice({
  exchange,
  marketType,
  testId,
}: {
  exchange: string;
  marketType: string;
  testId: string;
}) {
  const message = useMarketSupport(exchange, marketType);
  if (!message) return null;
  return (
    <Alert color="orange" variant="light" p="xs" data-testid={testId}>
      {message}
    </Alert>
  );
}
