import { Button, Drawer, Menu, Stack, Tooltip } from '@mantine/core';
import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { LoginPageIcon } from './LoginPageIcon';
import type { NavItem } from './navItems';

/*
 * The header's floating parts (Header.tsx loads this module after the first paint, `Deferred.tsx`):
 * each one's trigger looks exactly like the static stand-in the header shows until then.
 */

/** The Trade menu: Spot and Futures. */
export function TradeMenu({
  items,
  guard,
  defaultOpened,
}: {
  items: NavItem[];
  guard: (item: NavItem) => (e: MouseEvent<HTMLElement>) => void;
  defaultOpened: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Menu trigger="click-hover" position="bottom-start" withinPortal defaultOpened={defaultOpened}>
      <Menu.Target>
        <Button variant="subtle" color="gray" size="compact-sm" data-testid="nav-trade">
          {t('shell.nav.trade')} ▾
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {items.map((item) => (
          <Menu.Item
            key={item.to}
            component={Link}
            to={item.to}
            onClick={guard(item)}
            data-testid={item.testId}
          >
            {item.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** The login page's icon link, with its tooltip. */
export function LoginPageLink() {
  const { t } = useTranslation();
  return (
    <Tooltip label={t('shell.nav.loginPage')}>
      <LoginPageIcon />
    </Tooltip>
  );
}

/** The small screens' navigation drawer. */
export function NavDrawer({
  opened,
  onClose,
  items,
  guard,
  loggedIn,
  onBuyToken,
}: {
  opened: boolean;
  onClose: () => void;
  items: NavItem[];
  guard: (item: NavItem) => (e: MouseEvent<HTMLElement>) => void;
  loggedIn: boolean;
  onBuyToken: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Drawer opened={opened} onClose={onClose} title="BYTX" size="xs" data-testid="nav-drawer">
      <Stack gap={4} onClick={onClose}>
        <Button component={Link} to="/" variant="subtle" color="gray" justify="flex-start">
          {t('shell.nav.home')}
        </Button>
        {items.map((item) => (
          <Button
            key={item.to}
            component={Link}
            to={item.to}
            variant="subtle"
            color="gray"
            justify="flex-start"
            onClick={guard(item)}
          >
            {item.label}
          </Button>
        ))}
        {!loggedIn && (
          <>
            <Button component={Link} to="/registro" variant="subtle" color="gray" justify="flex-start">
              {t('shell.nav.register')}
            </Button>
            <Button component={Link} to="/login" variant="subtle" color="gray" justify="flex-start">
              {t('shell.nav.loginPage')}
            </Button>
          </>
        )}
        <Button variant="subtle" justify="flex-start" onClick={onBuyToken}>
          {t('shell.buyToken')}
        </Button>
      </Stack>
    </Drawer>
  );
}
