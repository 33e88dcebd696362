import { HISTORY_PAGE_SIZES, type GlobalHistoryRow } from '@bytx/contract';
import { ActionIcon, Button, Group, NativeSelect, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { NARROW_QUERY, ResponsiveTable, type ResponsiveColumn } from '../../../shared/ui/ResponsiveTable';
import { fix8, signColor } from './format';

const pad = (n: number) => String(n).padStart(2, '0');

/** A time in the user's zone on two short lines (date, time), so the table keeps its PnL column in view. */
function When({ iso }: { iso: string }) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <>—</>;
  return (
    <span title={d.toLocaleString()} style={{ whiteSpace: 'nowrap' }}>
      {`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`}
      <br />
      {`${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`}
    </span>
  );
}

/** The middle panel: rows-per-page choice, the page's rows with a delete button each, and the pager. */
export function HistoryTable({
  rows,
  loading,
  page,
  pages,
  perPage,
  busy,
  onPage,
  onPerPage,
  onDelete,
}: {
  rows: GlobalHistoryRow[] | null;
  loading: boolean;
  page: number;
  pages: number;
  perPage: number;
  busy: boolean;
  onPage: (page: number) => void;
  onPerPage: (perPage: number) => void;
  onDelete: (row: GlobalHistoryRow) => void;
}) {
  const { t } = useTranslation();
  const k = (key: string) => t(`history.table.${key}`);
  const columns: ResponsiveColumn<GlobalHistoryRow>[] = [
    { key: 'id', label: k('id'), cell: (r) => r.id },
    {
      key: 'bot',
      label: k('bot'),
      cell: (r) => r.bot_id.slice(0, 8),
      cellProps: (r) => ({ title: r.bot_id }),
    },
    { key: 'symbol', label: k('symbol'), cell: (r) => r.symbol },
    { key: 'exchange', label: k('exchange'), cell: (r) => r.exchange },
    { key: 'qty', label: k('qty'), cell: (r) => fix8(r.qty) },
    { key: 'buy', label: k('buy'), cell: (r) => fix8(r.buy_price) },
    { key: 'sell', label: k('sell'), cell: (r) => fix8(r.sell_price) },
    { key: 'buyTime', label: k('buyTime'), cell: (r) => <When iso={r.buy_time} /> },
    { key: 'sellTime', label: k('sellTime'), cell: (r) => <When iso={r.sell_time} /> },
    {
      key: 'pnl',
      label: k('pnl'),
      cell: (r) => fix8(r.pnl_net),
      cellProps: (r) => ({ c: signColor(r.pnl_net), 'data-testid': 'gh-row-pnl' }),
    },
  ];
  return (
    <>
      <Group justify="flex-end" mb="xs">
        <NativeSelect
          size="xs"
          label={k('perPage')}
          value={String(perPage)}
          data={HISTORY_PAGE_SIZES.map(String)}
          onChange={(e) => onPerPage(Number(e.currentTarget.value))}
          data-testid="gh-per-page"
        />
      </Group>
      {loading && <Text data-testid="gh-loading">{k('loading')}</Text>}
      {!loading && rows?.length === 0 && <Text data-testid="gh-empty">{k('empty')}</Text>}
      {!loading && rows && rows.length > 0 && (
        <ResponsiveTable
          columns={columns}
          rows={rows}
          rowKey={(r) => r.id}
          rowProps={(r) => ({ 'data-testid': 'gh-row', 'data-id': r.id })}
          actions={{
            label: k('actions'),
            hideLabel: true,
            cell: (r) => (
              <ActionIcon
                size="sm"
                color="red"
                variant="light"
                disabled={busy}
                onClick={() => onDelete(r)}
                aria-label={k('delete')}
                title={k('delete')}
                data-testid="gh-row-delete"
              >
                ✕
              </ActionIcon>
            ),
          }}
          tableProps={{
            striped: true,
            highlightOnHover: true,
            fz: 'xs',
            horizontalSpacing: 6,
            verticalSpacing: 4,
          }}
          testId="gh-table"
          // From lg the table is the middle of three panels (14 of 24 columns): its ten columns need
          // about 800 px, so it is cards there too until the page is 1500 px wide.
          narrowQuery={`${NARROW_QUERY}, (min-width: 75em) and (max-width: 93.74em)`}
        />
      )}
      <Group justify="center" gap={4} mt="sm">
        <Button
          size="xs"
          variant="default"
          disabled={page <= 1}
          onClick={() => onPage(1)}
          aria-label={k('first')}
          data-testid="gh-first"
        >
          «
        </Button>
        <Button
          size="xs"
          variant="default"
          disabled={page <= 1}
          onClick={() => onPage(page - 1)}
          aria-label={k('prev')}
          data-testid="gh-prev"
        >
          ‹
        </Button>
        <Text size="sm" px="xs" data-testid="gh-page-info">
          {t('history.table.pageOf', { page, pages })}
        </Text>
        <Button
          size="xs"
          variant="default"
          disabled={page >= pages}
          onClick={() => onPage(page + 1)}
          aria-label={k('next')}
          data-testid="gh-next"
        >
          ›
        </Button>
        <Button
          size="xs"
          variant="default"
          disabled={page >= pages}
          onClick={() => onPage(pages)}
          aria-label={k('last')}
          data-testid="gh-last"
        >
          »
        </Button>
      </Group>
    </>
  );
}
