import { SPOT, SPOT_BASES } from '@bytx/contract';
import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Paper,
  ScrollArea,
  Stack,
  Text,
  TextInput,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rovingKeyDown } from './roving';
import type { Quote } from './storage';

export interface PairRow {
  base: string;
  /** 'BTC/USDT' (favourites are kept in this form on both screens). */
  symbol: string;
  favorite: boolean;
  /** False when the exchange's pair list is known and does not hold the pair; null while unknown. */
  listed: boolean | null;
}

/**
 * The rows of the list: the spot bases (the wallet coins without USDT and USDC) against the quote,
 * filtered by the search (base or pair, any case), favourites floated to the top, each group in the
 * spec's coin order. A pair the exchange does not list is kept and marked.
 */
export function orderPairs({
  quote,
  favorites,
  listed,
  search,
  bases = SPOT_BASES,
}: {
  quote: string;
  favorites: readonly string[];
  /** The exchange's pairs; null while not loaded. */
  listed: ReadonlySet<string> | null;
  search: string;
  bases?: readonly string[];
}): PairRow[] {
  const q = search.trim().toUpperCase();
  const favs = new Set(favorites);
  const rows = bases
    .map((base) => {
      const symbol = `${base}/${quote}`;
      return { base, symbol, favorite: favs.has(symbol), listed: listed ? listed.has(symbol) : null };
    })
    .filter((r) => q === '' || r.base.includes(q) || r.symbol.includes(q));
  return [...rows.filter((r) => r.favorite), ...rows.filter((r) => !r.favorite)];
}

function Star({ on }: { on: boolean }) {
  return (
    <Text component="span" fz="md" c={on ? 'yellow' : 'dimmed'} lh={1} aria-hidden>
      {on ? '★' : '☆'}
    </Text>
  );
}

/**
 * The pair list: search, the USDT / USDC quote selector, and one row per pair with its favourite star.
 * Test ids `trade-pairs`, `trade-pair-search`, `trade-quote-<QUOTE>`, rows `trade-pair` (data-symbol,
 * data-favorite, data-listed, data-selected) with `trade-pair-star`, `trade-pair-select` and the
 * `trade-pair-unlisted` badge, `trade-pairs-empty`. The list is one tab stop (the selected pair);
 * Up / Down move between pairs, Left / Right between a pair's star and its name.
 */
export function PairList({
  exchangeName,
  pair,
  favorites,
  listed,
  onSelect,
  onQuote,
  onFavorite,
}: {
  exchangeName: string;
  pair: { base: string; quote: Quote };
  favorites: readonly string[];
  listed: ReadonlySet<string> | null;
  onSelect: (base: string) => void;
  onQuote: (quote: Quote) => void;
  onFavorite: (symbol: string, favorite: boolean) => void;
}) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const rows = useMemo(
    () => orderPairs({ quote: pair.quote, favorites, listed, search }),
    [pair.quote, favorites, listed, search],
  );
  // One tab stop: the selected pair (or the first row when the search hides it); arrows move on.
  const tabBase = rows.some((r) => r.base === pair.base) ? pair.base : rows[0]?.base;

  return (
    <Paper withBorder p="sm" data-testid="trade-pairs" h="100%">
      <Stack gap="xs">
        <Group gap={4} grow role="group" aria-label={t('trading.pairs.quote')}>
          {SPOT.quotes.map((q) => (
            <Button
              key={q}
              size="compact-sm"
              variant={pair.quote === q ? 'filled' : 'default'}
              aria-pressed={pair.quote === q}
              onClick={() => onQuote(q)}
              data-testid={`trade-quote-${q}`}
            >
              {q}
            </Button>
          ))}
        </Group>
        <TextInput
          size="xs"
          placeholder={t('trading.pairs.search')}
          aria-label={t('trading.pairs.search')}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          data-testid="trade-pair-search"
        />
        <ScrollArea.Autosize mah={{ base: 260, md: 560 }} type="auto" offsetScrollbars>
          <Stack
            gap={2}
            role="list"
            aria-label={t('trading.pairs.title')}
            onKeyDown={(e) => rovingKeyDown(e, 2)}
          >
            {rows.length === 0 && (
              <Text size="sm" c="dimmed" data-testid="trade-pairs-empty">
                {t('trading.pairs.none', { search })}
              </Text>
            )}
            {rows.map((r) => {
              const selected = r.base === pair.base;
              const tabStop = r.base === tabBase;
              const label = r.favorite
                ? t('trading.pairs.unfavorite', { symbol: r.symbol })
                : t('trading.pairs.favorite', { symbol: r.symbol });
              return (
                <Group
                  key={r.symbol}
                  role="listitem"
                  gap={4}
                  wrap="nowrap"
                  px={4}
                  py={2}
                  bg={selected ? 'var(--mantine-color-default-hover)' : undefined}
                  style={{ borderRadius: 'var(--mantine-radius-sm)' }}
                  data-testid="trade-pair"
                  data-symbol={r.symbol}
                  data-favorite={r.favorite}
                  data-listed={r.listed === null ? 'unknown' : String(r.listed)}
                  data-selected={selected}
                >
                  <Tooltip label={label} openDelay={500}>
                    <ActionIcon
                      variant="subtle"
                      size="sm"
                      aria-label={label}
                      aria-pressed={r.favorite}
                      onClick={() => onFavorite(r.symbol, !r.favorite)}
                      tabIndex={-1}
                      data-roving
                      data-testid="trade-pair-star"
                    >
                      <Star on={r.favorite} />
                    </ActionIcon>
                  </Tooltip>
                  <UnstyledButton
                    onClick={() => onSelect(r.base)}
                    aria-current={selected ? 'true' : undefined}
                    tabIndex={tabStop ? 0 : -1}
                    data-roving
                    style={{ flex: 1, minWidth: 0 }}
                    data-testid="trade-pair-select"
                  >
                    <Group gap={6} wrap="nowrap" justify="space-between">
                      <Text size="sm" fw={selected ? 700 : 400} c={r.listed === false ? 'dimmed' : undefined}>
                        {r.symbol}
                      </Text>
                      {r.listed === false && (
                        <Tooltip
                          label={t('trading.pairs.unlistedHint', {
                            exchange: exchangeName,
                            symbol: r.symbol,
                          })}
                        >
                          <Badge size="xs" color="gray" variant="light" data-testid="trade-pair-unlisted">
                            {t('trading.pairs.unlisted')}
                          </Badge>
                        </Tooltip>
                      )}
                    </Group>
                  </UnstyledButton>
                </Group>
              );
            })}
          </Stack>
        </ScrollArea.Autosize>
      </Stack>
    </Paper>
  );
}
