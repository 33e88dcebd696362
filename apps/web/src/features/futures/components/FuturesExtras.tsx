import { Card, Divider, Stack } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { MarketSupportNotice } from '../../../shared/bots/MarketSupportNotice';
import type { TradingExtrasContext } from '../../../shared/trading/TradingScreen';
import { futuresKeys } from '../api/futures';
import { FundingCountdown } from './FundingCountdown';
import { LeverageControl } from './LeverageControl';
import { PositionPanel } from './PositionPanel';

export type { TradingExtrasContext };

/**
 * The screen's `refresh` (after an order is placed or cancelled) invalidates its orders; the positions
 * of the exchange are read again with them, without waiting for the next 5 s poll.
 */
export function usePositionsFollowRefresh(exchange: string) {
  const qc = useQueryClient();
  useEffect(
    () =>
      qc.getQueryCache().subscribe((event) => {
        if (event.type !== 'updated' || event.action.type !== 'invalidate') return;
        const [area, kind, ex] = event.query.queryKey as unknown[];
        if (area === 'trading' && kind === 'orders' && (ex === undefined || ex === exchange)) {
          void qc.invalidateQueries({ queryKey: futuresKeys.positions(exchange) });
        }
      }),
    [qc, exchange],
  );
}

/**
 * The futures screen's part under the order panel: the leverage control and the funding rate with its
 * countdown, then the position panel. Test id `futures-extras`.
 */
export function FuturesExtras({ exchange, symbol, refresh }: TradingExtrasContext) {
  const qc = useQueryClient();
  usePositionsFollowRefresh(exchange);
  const refreshAll = useCallback(() => {
    refresh();
    void qc.invalidateQueries({ queryKey: futuresKeys.all });
  }, [qc, refresh]);
  return (
    <Stack gap="sm" data-testid="futures-extras">
      {/* A live exchange without perpetual swaps is named before any order (issue 38 #8). */}
      <MarketSupportNotice exchange={exchange} marketType="Perpetual" testId="futures-market-unsupported" />
      <Card withBorder padding="sm">
        <Stack gap="xs">
          <LeverageControl exchange={exchange} symbol={symbol} onChanged={refresh} />
          <Divider />
          <FundingCountdown exchange={exchange} symbol={symbol} />
        </Stack>
      </Card>
      <PositionPanel exchange={exchange} symbol={symbol} onClosed={refreshAll} />
    </Stack>
  );
}

/** The function `FuturesPage` gives to `TradingScreen`'s `renderExtras`. */
export const renderFuturesExtras = (ctx: TradingExtrasContext) => <FuturesExtras {...ctx} />;
