import { Badge, Button, Paper, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { eventSentence, humanize } from '../../../shared/bots/eventText';
import { fmtDate } from '../../../shared/bots/format';
import { ARBITRAGE_POLL_MS, arbitrageApi } from '../api/arbitrage';

const LEVEL_COLOR = { info: 'blue', warn: 'orange', error: 'red' } as const;

/**
 * The bot's event log (inventory prepared, opportunities, round trips, failed legs and unwinds, waiting
 * for inventory), newest first, each event a sentence in the user's language (shared/bots/eventText.ts);
 * loaded and polled every 5 s only while shown.
 */
export function ArbitrageEvents({ userId }: { userId: string }) {
  const { t, i18n } = useTranslation();
  const [open, setOpen] = useState(false);
  const log = useQuery({
    queryKey: ['arbitrage', 'log', userId],
    queryFn: () => arbitrageApi.log(userId),
    enabled: open,
    refetchInterval: open ? ARBITRAGE_POLL_MS : false,
  });
  const events = log.data?.events ?? [];
  return (
    <Paper withBorder p="md" data-testid="arb-events">
      <Button
        size="compact-sm"
        variant="subtle"
        onClick={() => setOpen((o) => !o)}
        data-testid="arb-events-toggle"
      >
        {open ? t('arbitrage.events.hide') : t('arbitrage.events.show')}
      </Button>
      {open && (
        <Stack gap="xs" mt="sm">
          {log.isError ? (
            <Text c="red" size="sm">
              {t('arbitrage.events.failed', { message: errorMessage(log.error) })}
            </Text>
          ) : !log.data ? (
            <Text c="dimmed" size="sm">
              {t('arbitrage.history.loading')}
            </Text>
          ) : events.length === 0 ? (
            <Text c="dimmed" size="sm" data-testid="arb-events-empty">
              {t('arbitrage.events.empty')}
            </Text>
          ) : (
            <ScrollArea h={260}>
              <Table fz="xs" striped>
                <Table.Tbody>
                  {events.map((e) => (
                    <Table.Tr key={e.id} data-testid="arb-event" data-type={e.type}>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{fmtDate(e.ts)}</Table.Td>
                      <Table.Td>
                        <Badge size="xs" color={LEVEL_COLOR[e.level] ?? 'gray'}>
                          {t(`arbitrage.events.types.${e.type}`, { defaultValue: humanize(e.type) })}
                        </Badge>
                      </Table.Td>
                      <Table.Td data-testid="arb-event-text">
                        {eventSentence(t, i18n, ['arbitrage'], e.type, e.data)}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          )}
        </Stack>
      )}
    </Paper>
  );
}
