import {
  Box,
  Group,
  Paper,
  ScrollArea,
  Stack,
  Table,
  Text,
  type BoxProps,
  type TableProps,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';

/** Attributes put on a row (the table's `tr`, the card) or a cell (the `td`, the card's value). */
export type Attrs = BoxProps & {
  className?: string;
  title?: string;
  'aria-sort'?: 'ascending' | 'descending' | 'none';
} & { [data: `data-${string}`]: string | number | boolean | undefined };

export interface ResponsiveColumn<R> {
  key: string;
  /** The column's name: the table header (unless `th` is given) and the card's label. */
  label: string;
  /** The header's content when it is more than its name (a sort button). */
  th?: ReactNode;
  thProps?: Attrs;
  cell: (row: R) => ReactNode;
  cellProps?: (row: R) => Attrs;
}

/**
 * Mantine's `sm` breakpoint (48em, 768 px at the default font size): below it a row is a card.
 *
 * A media query in JavaScript, not CSS (`hiddenFrom`/`visibleFrom`): CSS would need both the table and the
 * cards in the document, so every row's test ids, labels and buttons twice (a page's tests and a screen
 * reader would each meet two of everything) at twice the rendering cost. `getInitialValueInEffect: false`
 * reads `matchMedia` on the first render (this app renders in the browser only), so the first paint is
 * already the right one: no layout shift, one render.
 */
export const NARROW_QUERY = '(max-width: 47.99em)';
/** Mantine's `md` (62em): for a table in a side-by-side layout whose box is narrow up to there. */
export const NARROW_QUERY_MD = '(max-width: 61.99em)';

/**
 * A table on wide screens, one card per row on a phone: every column as a "label: value" pair and the row's
 * actions at the bottom, with the same attributes (test ids, data-*) on the card and its values as on the
 * table's rows and cells, so nothing of a row is hidden or lost at either width.
 */
export function ResponsiveTable<R>({
  columns,
  rows,
  rowKey,
  rowProps,
  actions,
  cardsTop,
  tableProps,
  testId,
  narrowQuery = NARROW_QUERY,
}: {
  columns: ResponsiveColumn<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string | number;
  rowProps?: (row: R) => Attrs;
  /** The row's buttons; `label` is the column's header, `hideLabel` keeps it for screen readers only. */
  actions?: { label: string; hideLabel?: boolean; cell: (row: R) => ReactNode };
  /** Shown above the cards only (e.g. the sort buttons the table has in its headers). */
  cardsTop?: ReactNode;
  tableProps?: Omit<TableProps, 'children'>;
  testId?: string;
  /** Below which width the rows are cards (default: Mantine's `sm`). */
  narrowQuery?: string;
}) {
  const narrow = useMediaQuery(narrowQuery, false, { getInitialValueInEffect: false });
  if (narrow) {
    return (
      <Stack gap="xs" data-testid={testId} data-layout="cards">
        {cardsTop}
        {rows.map((r) => (
          <Paper key={rowKey(r)} withBorder p="xs" {...rowProps?.(r)}>
            <Box
              component="dl"
              m={0}
              style={{
                display: 'grid',
                gridTemplateColumns: 'minmax(6em, max-content) minmax(0, 1fr)',
                columnGap: 'var(--mantine-spacing-sm)',
                rowGap: 4,
                overflowWrap: 'anywhere',
              }}
            >
              {columns.map((c) => (
                <Box key={c.key} style={{ display: 'contents' }}>
                  <Text component="dt" size="sm" c="dimmed">
                    {c.label}
                  </Text>
                  <Box component="dd" m={0} fz="sm" {...c.cellProps?.(r)}>
                    {c.cell(r)}
                  </Box>
                </Box>
              ))}
            </Box>
            {actions && (
              <Group justify="flex-end" gap="xs" mt="xs">
                {actions.cell(r)}
              </Group>
            )}
          </Paper>
        ))}
      </Stack>
    );
  }
  // Between the breakpoint and a width that fits every column, the table scrolls in its box, not the page,
  // with Mantine's always-drawn bar (`auto`): a browser with overlay scrollbars would show none.
  return (
    <ScrollArea type="auto">
      <Table {...tableProps} data-testid={testId} data-layout="table">
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.key} {...c.thProps}>
                {c.th ?? c.label}
              </Table.Th>
            ))}
            {actions &&
              (actions.hideLabel ? (
                <Table.Th aria-label={actions.label} />
              ) : (
                <Table.Th>{actions.label}</Table.Th>
              ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={rowKey(r)} {...rowProps?.(r)}>
              {columns.map((c) => (
                <Table.Td key={c.key} {...c.cellProps?.(r)}>
                  {c.cell(r)}
                </Table.Td>
              ))}
              {actions && <Table.Td>{actions.cell(r)}</Table.Td>}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
