import { Group, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import {
  COUNTDOWN_TICK_MS,
  countdown,
  FUNDING_RELOAD_MS,
  fundingPercent,
  futuresApi,
  futuresKeys,
  signColor,
} from '../api/futures';

/** The current time, ticking every `ms`. */
export function useNow(ms = COUNTDOWN_TICK_MS) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

/**
 * The swap's funding rate (per interval, in %, green when positive — longs pay shorts — red when
 * negative) and hh:mm:ss to the next funding. Read each minute and again once the countdown reaches
 * zero; the countdown itself ticks each second. Test ids `futures-funding`, `futures-funding-rate`,
 * `futures-funding-countdown`, `futures-funding-loading`, `futures-funding-error`.
 */
export function FundingCountdown({ exchange, symbol }: { exchange: string; symbol: string }) {
  const { t } = useTranslation();
  const now = useNow();
  const ready = !!exchange && !!symbol;
  const q = useQuery({
    queryKey: futuresKeys.funding(exchange, symbol),
    queryFn: () => futuresApi.funding(exchange, symbol),
    enabled: ready,
    refetchInterval: FUNDING_RELOAD_MS,
  });
  const next = q.data?.next_funding_time ?? null;

  // Funding time passed: the next one is read at once (once per passed time, not every second).
  const askedFor = useRef<number | null>(null);
  const { refetch, isFetching } = q;
  useEffect(() => {
    if (next === null || next > now || isFetching || askedFor.current === next) return;
    askedFor.current = next;
    void refetch();
  }, [next, now, isFetching, refetch]);

  let body;
  if (!ready || q.isPending) {
    body = <Skeleton h={40} data-testid="futures-funding-loading" />;
  } else if (q.isError && !q.data) {
    body = (
      <Tooltip label={errorMessage(q.error)}>
        <Text size="sm" c="dimmed" data-testid="futures-funding-error">
          {t('futures.funding.unavailable')}
        </Text>
      </Tooltip>
    );
  } else {
    const rate = q.data?.rate ?? null;
    body = (
      <>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm" c="dimmed">
            {t('futures.funding.rate')}
          </Text>
          <Text size="sm" fw={600} c={signColor(rate)} data-testid="futures-funding-rate">
            {fundingPercent(rate)}
          </Text>
        </Group>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm" c="dimmed">
            {t('futures.funding.next')}
          </Text>
          <Text
            size="sm"
            ff="monospace"
            aria-label={t('futures.funding.countdownLabel')}
            data-testid="futures-funding-countdown"
          >
            {countdown(next, now)}
          </Text>
        </Group>
      </>
    );
  }
  return (
    <Stack gap={4} data-testid="futures-funding">
      {body}
    </Stack>
  );
}
