import { Anchor, Button, Container, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
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
      <Title order={2} mb="md">
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
      <Title order={4}>{t('bots.row.title')}</Title>
      {count === 0 && <Text c="dimmed">{t('bots.row.none')}</Text>}
      {children}
      <Pager page={page} pages={pages} onPage={onPage} />
    </>
  );
}

/** Total PnL, the number of active bots, the closed bots' history and the global links. */
export function BotsFooter({
  screen,
  totalPnl,
  activeCount,
  onHistory,
}: {
  screen: BotScreen;
  totalPnl: number;
  activeCount: number;
  onHistory: () => void;
}) {
  const { t } = useTranslation();
  const { ids } = screen;
  return (
    <Paper withBorder p="sm" mt="lg">
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
    </Paper>
  );
}
