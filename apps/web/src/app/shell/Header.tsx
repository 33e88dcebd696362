import { ActionIcon, Burger, Button, Drawer, Group, Menu, Stack, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { MouseEvent, ReactNode } from 'react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { SignInDropdown } from '../../features/auth/components/SignInDropdown';
import { useSession } from '../../shared/session/session';
import { useBuyTokenModal } from '../../shared/ui/BuyTokenContext';
import { DevModal } from './DevModal';
import { LanguageSwitch } from './LanguageSwitch';
import { canTrade, isSupport, stopIfLoggedOut } from './navGuards';

/**
 * How a header link behaves (spec part 1 §2). `trade`: Spot and Futures, which open for the support
 * accounts, or for every logged-in user when the operator set TRADING_SCREENS=all.
 */
type Access = 'open' | 'login' | 'support' | 'trade';

interface NavItem {
  to: string;
  label: string;
  access: Access;
  testId: string;
}

/** The header's access rules in one place: login-gated links toast, support links open the dev modal. */
function useNavAccess() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [devOpen, setDevOpen] = useState(false);
  const guard = (access: Access) => (e: MouseEvent<HTMLElement>) => {
    if (access === 'login') {
      stopIfLoggedOut(e, user, t('shell.loginRequired'));
    } else if ((access === 'support' && !isSupport(user)) || (access === 'trade' && !canTrade(user))) {
      e.preventDefault();
      setDevOpen(true);
    }
  };
  return { guard, devOpen, closeDev: () => setDevOpen(false) };
}

function NavButton({
  item,
  onClick,
  children,
}: {
  item: NavItem;
  onClick: (e: MouseEvent<HTMLElement>) => void;
  children?: ReactNode;
}) {
  return (
    <Button
      component={Link}
      to={item.to}
      variant="subtle"
      color="gray"
      size="compact-sm"
      onClick={onClick}
      data-testid={item.testId}
    >
      {children ?? item.label}
    </Button>
  );
}

/**
 * The shared header (spec part 1 §2): links home, Trade (Spot, Futures), Bots, Staking, Loans, Forum,
 * sign-up, the sign-in control or Log out, language switch, Buy token, Wallet and the settings gear.
 */
export function Header() {
  const { t } = useTranslation();
  const { user, logout } = useSession();
  const navigate = useNavigate();
  const buyToken = useBuyTokenModal();
  const { guard, devOpen, closeDev } = useNavAccess();
  const [drawerOpen, drawer] = useDisclosure(false);

  const trade: NavItem[] = [
    { to: '/spot', label: t('shell.nav.spot'), access: 'trade', testId: 'nav-spot' },
    { to: '/futuros', label: t('shell.nav.futures'), access: 'trade', testId: 'nav-futures' },
  ];
  const main: NavItem[] = [
    { to: '/bot-dca', label: t('shell.nav.bots'), access: 'login', testId: 'nav-bots' },
    { to: '/earnings-pools', label: t('shell.nav.staking'), access: 'login', testId: 'nav-staking' },
    { to: '/LoansLiquidity', label: t('shell.nav.loans'), access: 'login', testId: 'nav-loans' },
    { to: '/forum', label: t('shell.nav.forum'), access: 'open', testId: 'nav-forum' },
  ];
  const wallet: NavItem = {
    to: '/wallet',
    label: t('shell.nav.wallet'),
    access: 'support',
    testId: 'nav-wallet',
  };
  const settings: NavItem = {
    to: '/settings',
    label: t('shell.nav.settings'),
    access: 'login',
    testId: 'nav-settings',
  };

  const onLogout = async () => {
    await logout();
    void navigate('/');
  };

  return (
    <>
      <Group
        h="100%"
        px="md"
        justify="space-between"
        wrap="nowrap"
        component="nav"
        aria-label={t('shell.nav.label')}
      >
        <Group gap="xs" wrap="nowrap">
          <Burger
            hiddenFrom="lg"
            size="sm"
            opened={drawerOpen}
            onClick={drawer.toggle}
            aria-label={t('shell.nav.menu')}
            data-testid="nav-burger"
          />
          <Link
            to="/"
            data-testid="nav-home"
            style={{ display: 'flex', alignItems: 'center', gap: 8, textDecoration: 'none' }}
          >
            <img src="/logo.svg" alt="" width={28} height={28} />
            <Text fw={700} c="yellow" component="span">
              BYTX
            </Text>
          </Link>
          <Group gap={2} wrap="nowrap" visibleFrom="lg">
            <Menu trigger="click-hover" position="bottom-start" withinPortal>
              <Menu.Target>
                <Button variant="subtle" color="gray" size="compact-sm" data-testid="nav-trade">
                  {t('shell.nav.trade')} ▾
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                {trade.map((item) => (
                  <Menu.Item
                    key={item.to}
                    component={Link}
                    to={item.to}
                    onClick={guard(item.access)}
                    data-testid={item.testId}
                  >
                    {item.label}
                  </Menu.Item>
                ))}
              </Menu.Dropdown>
            </Menu>
            {main.map((item) => (
              <NavButton key={item.to} item={item} onClick={guard(item.access)} />
            ))}
          </Group>
        </Group>

        <Group gap="xs" wrap="nowrap">
          <LanguageSwitch />
          <Button size="compact-sm" onClick={buyToken.open} data-testid="header-buy-token" visibleFrom="sm">
            {t('shell.buyToken')}
          </Button>
          <Button
            component={Link}
            to={wallet.to}
            size="compact-sm"
            variant="light"
            onClick={guard(wallet.access)}
            data-testid={wallet.testId}
            visibleFrom="sm"
          >
            {wallet.label}
          </Button>
          {user ? (
            <>
              <Text size="xs" c="dimmed" visibleFrom="md" data-testid="header-user">
                {user.email}
              </Text>
              <Button size="compact-sm" variant="default" onClick={onLogout} data-testid="header-logout">
                {t('shell.logout')}
              </Button>
            </>
          ) : (
            <>
              <Button
                component={Link}
                to="/registro"
                size="compact-sm"
                variant="subtle"
                color="gray"
                data-testid="nav-register"
                visibleFrom="sm"
              >
                {t('shell.nav.register')}
              </Button>
              <SignInDropdown />
              <Tooltip label={t('shell.nav.loginPage')}>
                <ActionIcon
                  component={Link}
                  to="/login"
                  variant="subtle"
                  color="gray"
                  aria-label={t('shell.nav.loginPage')}
                  data-testid="nav-login"
                >
                  <span aria-hidden>↗</span>
                </ActionIcon>
              </Tooltip>
            </>
          )}
          <ActionIcon
            component={Link}
            to={settings.to}
            variant="subtle"
            color="gray"
            onClick={guard(settings.access)}
            aria-label={settings.label}
            data-testid={settings.testId}
          >
            <span aria-hidden style={{ fontSize: 18 }}>
              ⚙
            </span>
          </ActionIcon>
        </Group>
      </Group>

      <Drawer opened={drawerOpen} onClose={drawer.close} title="BYTX" size="xs" data-testid="nav-drawer">
        <Stack gap={4} onClick={drawer.close}>
          <Button component={Link} to="/" variant="subtle" color="gray" justify="flex-start">
            {t('shell.nav.home')}
          </Button>
          {[...trade, ...main, wallet].map((item) => (
            <Button
              key={item.to}
              component={Link}
              to={item.to}
              variant="subtle"
              color="gray"
              justify="flex-start"
              onClick={guard(item.access)}
            >
              {item.label}
            </Button>
          ))}
          {!user && (
            <>
              <Button component={Link} to="/registro" variant="subtle" color="gray" justify="flex-start">
                {t('shell.nav.register')}
              </Button>
              <Button component={Link} to="/login" variant="subtle" color="gray" justify="flex-start">
                {t('shell.nav.loginPage')}
              </Button>
            </>
          )}
          <Button variant="subtle" justify="flex-start" onClick={buyToken.open}>
            {t('shell.buyToken')}
          </Button>
        </Stack>
      </Drawer>

      <DevModal opened={devOpen} onClose={closeDev} />
    </>
  );
}
