import { Alert, Anchor, Button, Checkbox, Paper, ScrollArea, Table, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { exchangeName, fmtDate, pnlColor } from '../../../shared/bots/format';
import { gridApi, quoteOf, type GridBotRow } from '../api/grid';

/** PnL in the quote currency, 4 decimals (a grid round on a small amount earns cents). */
const pnlText = (pnl: number, symbol: string, quote?: string) =>
  `${Number.isFinite(pnl) ? pnl.toFixed(4) : '—'} ${quote ?? quoteOf(symbol)}`.trim();

const marketLabel = (m: string) => (m ? m[0]!.toUpperCase() + m.slice(1).toLowerCase() : m);

/**
 * 'Real-Time Grid Data' (spec part 2 §2): Active Bots (symbol, market type, PNL in quote, the
 * display-only R(B) and R(S), Stop) and History (the user's closed grids from the server).
 */
export function GridDataPanel({
  userId,
  bots,
  loading,
  selected,
  onSelect,
  onStop,
}: {
  userId: string;
  bots: GridBotRow[];
  loading: boolean;
  selected: string | null;
  onSelect: (b: GridBotRow) => void;
  onStop: (b: GridBotRow) => void;
}) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<string | null>('active');
  const history = useQuery({
    queryKey: ['grid', 'history', userId],
    queryFn: async () => {
      const r = await gridApi.history(userId);
      if (!r.ok) throw new Error(r.error ?? 'Error');
      return r.history;
    },
    enabled: tab === 'history',
  });
  return (
    <Paper withBorder p="md" data-testid="grid-data">
      <Title order={4} mb="sm">
        {t('grid.data.title')}
      </Title>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List mb="sm">
          <Tabs.Tab value="active" data-testid="grid-tab-active">
            {t('grid.data.active')}
          </Tabs.Tab>
          <Tabs.Tab value="history" data-testid="grid-tab-history">
            {t('grid.data.history')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="active">
          {bots.length === 0 ? (
            <Text c="dimmed" size="sm" data-testid="grid-no-active">
              {loading ? t('grid.data.loading') : t('grid.data.noActive')}
            </Text>
          ) : (
            <ScrollArea>
              <Table striped fz="sm" horizontalSpacing={6}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('grid.data.symbol')}</Table.Th>
                    <Table.Th>{t('grid.data.marketType')}</Table.Th>
                    <Table.Th>{t('grid.data.pnl')}</Table.Th>
                    <Table.Th>{t('grid.data.rb')}</Table.Th>
                    <Table.Th>{t('grid.data.rs')}</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {bots.map((b) => (
                    <Table.Tr
                      key={b.id}
                      data-testid="grid-bot-row"
                      data-bot-id={b.id}
                      data-selected={b.id === selected ? '1' : '0'}
                      bg={b.id === selected ? 'var(--mantine-color-default-hover)' : undefined}
                    >
                      <Table.Td data-testid="grid-bot-symbol">
                        <Anchor
                          component="button"
                          type="button"
                          size="sm"
                          onClick={() => onSelect(b)}
                          title={t('grid.data.show')}
                          data-testid="grid-bot-show"
                        >
                          {b.symbol}
                        </Anchor>
                      </Table.Td>
                      <Table.Td data-testid="grid-bot-market">{marketLabel(b.market_type)}</Table.Td>
                      <Table.Td
                        c={pnlColor(b.pnl_quote)}
                        style={{ whiteSpace: 'nowrap' }}
                        data-testid="grid-bot-pnl"
                        data-pnl={b.pnl_quote}
                      >
                        {pnlText(b.pnl_quote, b.symbol, b.quote)}
                      </Table.Td>
                      <Table.Td>
                        <Checkbox readOnly disabled aria-label={t('grid.data.rb')} size="xs" />
                      </Table.Td>
                      <Table.Td>
                        <Checkbox readOnly disabled aria-label={t('grid.data.rs')} size="xs" />
                      </Table.Td>
                      <Table.Td>
                        <Button
                          size="compact-xs"
                          color="red"
                          onClick={() => onStop(b)}
                          data-testid="grid-bot-stop"
                        >
                          {t('grid.data.stop')}
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="history">
          {history.isError ? (
            <Alert color="red" data-testid="grid-history-error">
              {t('grid.data.historyFailed', { message: errorMessage(history.error) })}
            </Alert>
          ) : !history.data ? (
            <Text c="dimmed" size="sm">
              {t('grid.data.loading')}
            </Text>
          ) : history.data.length === 0 ? (
            <Text c="dimmed" size="sm" data-testid="grid-no-history">
              {t('grid.data.noHistory')}
            </Text>
          ) : (
            <ScrollArea>
              <Table striped fz="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('grid.data.symbol')}</Table.Th>
                    <Table.Th>{t('grid.data.exchange')}</Table.Th>
                    <Table.Th>{t('grid.data.marketType')}</Table.Th>
                    <Table.Th>{t('grid.data.started')}</Table.Th>
                    <Table.Th>{t('grid.data.stopped')}</Table.Th>
                    <Table.Th>{t('grid.data.rounds')}</Table.Th>
                    <Table.Th>{t('grid.data.pnl')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {history.data.map((h) => (
                    <Table.Tr key={h.id} data-testid="grid-history-row">
                      <Table.Td>{h.symbol}</Table.Td>
                      <Table.Td>{exchangeName(h.exchange)}</Table.Td>
                      <Table.Td>{marketLabel(h.market_type)}</Table.Td>
                      <Table.Td>{fmtDate(h.started_at)}</Table.Td>
                      <Table.Td>{fmtDate(h.stopped_at)}</Table.Td>
                      <Table.Td data-testid="grid-history-rounds">{h.rounds}</Table.Td>
                      <Table.Td c={pnlColor(h.pnl_quote)} data-testid="grid-history-pnl">
                        {pnlText(h.pnl_quote, h.symbol)}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          )}
        </Tabs.Panel>
      </Tabs>
    </Paper>
  );
}
