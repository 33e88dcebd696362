import { Anchor, Button, Container, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fmtMoney, type RealisedSummary } from './figures';
import { pnlColor } from './format';
import { Pager } from './Pager';
import type { BotScreen } from './screen';
import { pulseCss } from './StartForm';
import { tid } from './testIds';

/** 'Verificando sesión...' while the session loads, then 'Acceso denegado…' without a user. */
export function NoSession({ checking }: { checking: boolean }) {
  const { t } = useTranslation();
  return <Text p="xl">{checking ? t('bots.checking') : t('bots.denied')}</Text>;
}

const NAV = [
  { key: 'grid', to: '/grid-bot', variant: 'subtle' },
  // The classic DCA (/dashboard) is the Advanced Bot: its page is titled as this tab (issue 40 pt 3).
  { key: 'advanced', to: '/dashboard' as string | null, variant: 'subtle' },
  { key: 'dca', to: '/bot-dca', variant: 'subtle' },
  { key: 'arbitrage', to: '/arbitraje', variant: 'subtle' },
  { key: 'signal', to: '/signalbot', variant: 'subtle' },
  { key: 'forum', to: '/forum', variant: 'outline' },
] as const;

/** The bot screens' nav; `active` is the current screen's button, if it has one. */
export function BotNav({ active }: { active?: (typeof NAV)[number]['key'] }) {
  const { t } = useTranslation();
  return (
    <Group gap="xs" mb="md">
      {NAV.map(({ key, to, variant }) => {
        const v = key === active ? 'light' : variant;
        return to === null ? (
          <Button key={key} variant={v} size="xs">
            {t(`bots.nav.${key}`)}
          </Button>
        ) : (
          <Button key={key} component={Link} to={to} variant={v} size="xs">
            {t(`bots.nav.${key}`)}
          </Button>
        );
      })}
    </Group>
  );
}

/** The frame of a bot screen: nav, title, the start form beside the active bots, the footer. */
export function BotScreenFrame({
  screen,
  title,
  activeNav,
  form,
  list,
  footer,
  children,
}: {
  screen: BotScreen;
  title: string;
  activeNav?: 'dca' | 'grid' | 'advanced';
  form: ReactNode;
  list: ReactNode;
  footer: ReactNode;
  children?: ReactNode;
}) {
  return (
    <BotScreenHead screen={screen} title={title} {...(activeNav ? { activeNav } : {})}>
      <BotScreenBody form={form} list={list} footer={footer}>
        {children}
      </BotScreenBody>
    </BotScreenHead>
  );
}

/**
 * The frame's top, nav and title, with the rest (`BotScreenBody`) as its children: a screen may draw
 * this first and its body once it has painted (shared/ui/afterFirstPaint.ts), in the same elements
 * `BotScreenFrame` draws at once.
 */
export function BotScreenHead({
  screen,
  title,
  activeNav,
  children,
}: {
  screen: BotScreen;
  title: string;
  activeNav?: 'dca' | 'grid' | 'advanced';
  children?: ReactNode;
}) {
  return (
    <Container size="xl" py="md">
      <style>{pulseCss(screen.ids.prefix)}</style>
      <BotNav {...(activeNav ? { active: activeNav } : {})} />
      <Title order={1} size="h2" mb="md">
        {title}
      </Title>
      {children}
    </Container>
  );
}

/** The frame's body under `BotScreenHead`: the start form beside the active bots, the footer. */
export function BotScreenBody({
  form,
  list,
  footer,
  children,
}: {
  form: ReactNode;
  list: ReactNode;
  footer: ReactNode;
  children?: ReactNode;
}) {
  return (
    <>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder p="md">
          <Stack gap="sm">{form}</Stack>
        </Paper>
        <Paper withBorder p="md">
          <Stack gap="sm">{list}</Stack>
        </Paper>
      </SimpleGrid>
      {footer}
      {children}
    </>
  );
}

/** 'Active bots', 'No active bots.' when there are none, the rows, and their pager. */
export function ActiveBotsList({
  count,
  page,
  pages,
  onPage,
  children,
}: {
  count: number;
  page: number;
  pages: number;
  onPage: (p: number) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Title order={2} size="h4">
        {t('bots.row.title')}
      </Title>
      {count === 0 && <Text c="dimmed">{t('bots.row.none')}</Text>}
      {children}
      <Pager page={page} pages={pages} onPage={onPage} />
    </>
  );
}

/**
 * The realised profit of the stopped bots by the day they stopped: today, the last 7 days, all
 * (issue 40 pt 3: the page's "Total PnL" counts the running bots only, and dropped to 0.00 when the
 * last bot stopped). `null` while it loads: the line keeps its place with dashes.
 */
export function RealisedLine({
  testPrefix,
  realised,
  quote = 'USDT',
}: {
  testPrefix: string;
  realised: RealisedSummary | null;
  quote?: string;
}) {
  const { t, i18n } = useTranslation();
  const locale = i18n.language || 'en';
  const part = (key: 'today' | 'week' | 'all') => {
    const v = realised?.[key];
    return (
      <Text
        size="sm"
        span
        c={v === undefined ? 'dimmed' : pnlColor(v)}
        data-testid={`${testPrefix}-realised-${key}`}
        data-value={v ?? ''}
      >
        {t(`bots.footer.${key}`, { pnl: v === undefined ? '—' : fmtMoney(v, locale), quote })}
      </Text>
    );
  };
  return (
    <Group gap="sm" data-testid={`${testPrefix}-realised`}>
      <Text size="sm" fw={600} span>
        {t('bots.footer.realised')}
      </Text>
      {part('today')}
      {part('week')}
      {part('all')}
    </Group>
  );
}

/**
 * Total PnL (the running bots), the number of active bots, the stopped bots' realised profit (today,
 * 7 days, all), the closed bots' history and the global links.
 */
export function BotsFooter({
  screen,
  totalPnl,
  activeCount,
  realised,
  onHistory,
}: {
  screen: BotScreen;
  totalPnl: number;
  activeCount: number;
  realised?: RealisedSummary | null;
  onHistory: () => void;
}) {
  const { t } = useTranslation();
  const { ids } = screen;
  return (
    <Paper withBorder p="sm" mt="lg">
      <Stack gap="xs">
        <Group justify="space-between">
          <Group>
            <Text fw={600} c={totalPnl >= 0 ? 'green' : 'red'} data-testid={tid(ids, 'total-pnl')}>
              {t('bots.footer.totalPnl', { pnl: totalPnl.toFixed(2) })}
            </Text>
            <Text data-testid={tid(ids, 'active-count')}>{t('bots.footer.active', { n: activeCount })}</Text>
          </Group>
          <Group>
            <Button variant="default" size="xs" onClick={onHistory} data-testid={tid(ids, 'closed-btn')}>
              {t('bots.footer.history')}
            </Button>
            <Anchor component={Link} to="/GlobalPendingOrders">
              {t('bots.footer.globalPending')}
            </Anchor>
            <Anchor component={Link} to="/historial-global">
              {t('bots.footer.globalHistory')}
            </Anchor>
          </Group>
        </Group>
        {realised !== undefined && <RealisedLine testPrefix={ids.prefix} realised={realised} />}
      </Stack>
    </Paper>
  );
}
