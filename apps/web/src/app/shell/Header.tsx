import type { ComponentType, MouseEvent, ReactNode } from 'react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../shared/session/session';
import { useBuyTokenModal } from '../../shared/ui/BuyTokenContext';
import { PlainActionIcon, PlainBurger, PlainButton, PlainGroup, PlainText } from '../../shared/ui/plain';
import { Deferred } from './Deferred';
import { LanguageSwitch } from './LanguageSwitch';
import { LoginPageIcon } from './LoginPageIcon';
import { canTrade, isSupport, stopIfLoggedOut } from './navGuards';
import type { Access, NavItem } from './navItems';

// The floating parts: their own chunks, asked for right after the first paint (Deferred.tsx says why),
// each inside Mantine's provider (../mantine.tsx), which comes with the first of them.
const inMantine = <P extends object>(load: () => Promise<ComponentType<P>>) =>
  lazy(async () => {
    const [Part, { AppMantine }] = await Promise.all([load(), import('../mantine')]);
    return { default: (props: P) => <AppMantine>{<Part {...props} />}</AppMantine> };
  });
const controls = () => import('./HeaderControls');
const TradeMenu = inMantine(() => controls().then((m) => m.TradeMenu));
const LoginPageLink = inMantine(() => controls().then((m) => m.LoginPageLink));
const NavDrawer = inMantine(() => controls().then((m) => m.NavDrawer));
const SignInDropdown = inMantine(() =>
  import('../../features/auth/components/SignInDropdown').then((m) => m.SignInDropdown),
);
const DevModal = inMantine(() => import('./DevModal').then((m) => m.DevModal));

/** The header's access rules in one place: login-gated links toast, support links open the dev modal. */
function useNavAccess() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [devOpen, setDevOpen] = useState(false);
  // Mounted from the first open on (its chunk loads then), so the closing transition still plays.
  const [devMounted, setDevMounted] = useState(false);
  const guard = (access: Access) => (e: MouseEvent<HTMLElement>) => {
    if (access === 'login') {
      stopIfLoggedOut(e, user, t('shell.loginRequired'));
    } else if ((access === 'support' && !isSupport(user)) || (access === 'trade' && !canTrade(user))) {
      e.preventDefault();
      setDevMounted(true);
      setDevOpen(true);
    }
  };
  return { guard, devOpen, devMounted, closeDev: () => setDevOpen(false) };
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
    <PlainButton
      to={item.to}
      variant="subtle"
      color="gray"
      size="compact-sm"
      onClick={onClick}
      data-testid={item.testId}
    >
      {children ?? item.label}
    </PlainButton>
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
  const { guard, devOpen, devMounted, closeDev } = useNavAccess();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [drawerMounted, setDrawerMounted] = useState(false);
  const guardItem = (item: NavItem) => guard(item.access);

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
      <PlainGroup
        style={{ paddingInline: 'var(--mantine-spacing-md)', height: '100%' }}
        justify="space-between"
        wrap="nowrap"
        component="nav"
        aria-label={t('shell.nav.label')}
      >
        <PlainGroup gap="xs" wrap="nowrap">
          <PlainBurger
            hiddenFrom="lg"
            opened={drawerOpen}
            onClick={() => {
              setDrawerMounted(true);
              setDrawerOpen((o) => !o);
            }}
            aria-label={t('shell.nav.menu')}
            data-testid="nav-burger"
          />
          <Link
            to="/"
            data-testid="nav-home"
            style={{ display: 'flex', alignItems: 'center', gap: 8, textDecoration: 'none' }}
          >
            <img src="/logo.svg" alt="" width={28} height={28} />
            <PlainText fw={700} c="yellow" component="span">
              BYTX
            </PlainText>
          </Link>
          <PlainGroup gap={2} wrap="nowrap" visibleFrom="lg">
            <Deferred
              fallback={(wake) => (
                <PlainButton variant="subtle" color="gray" size="compact-sm" onClick={wake}>
                  {t('shell.nav.trade')} ▾
                </PlainButton>
              )}
            >
              {(woken) => <TradeMenu items={trade} guard={guardItem} defaultOpened={woken} />}
            </Deferred>
            {main.map((item) => (
              <NavButton key={item.to} item={item} onClick={guard(item.access)} />
            ))}
          </PlainGroup>
        </PlainGroup>

        <PlainGroup gap="xs" wrap="nowrap">
          <LanguageSwitch />
          <PlainButton
            size="compact-sm"
            onClick={buyToken.open}
            data-testid="header-buy-token"
            visibleFrom="sm"
          >
            {t('shell.buyToken')}
          </PlainButton>
          <PlainButton
            to={wallet.to}
            size="compact-sm"
            variant="light"
            onClick={guard(wallet.access)}
            data-testid={wallet.testId}
            visibleFrom="sm"
          >
            {wallet.label}
          </PlainButton>
          {user ? (
            <>
              <PlainText size="xs" c="dimmed" visibleFrom="md" data-testid="header-user">
                {user.email}
              </PlainText>
              <PlainButton
                size="compact-sm"
                variant="default"
                onClick={() => void onLogout()}
                data-testid="header-logout"
              >
                {t('shell.logout')}
              </PlainButton>
            </>
          ) : (
            <>
              <PlainButton
                to="/registro"
                size="compact-sm"
                variant="subtle"
                color="gray"
                data-testid="nav-register"
                visibleFrom="sm"
              >
                {t('shell.nav.register')}
              </PlainButton>
              <Deferred
                fallback={(wake) => (
                  <PlainButton size="compact-sm" variant="light" onClick={wake}>
                    {t('auth.login.submit')}
                  </PlainButton>
                )}
              >
                {(woken) => <SignInDropdown defaultOpened={woken} />}
              </Deferred>
              <Deferred fallback={() => <LoginPageIcon />}>{() => <LoginPageLink />}</Deferred>
            </>
          )}
          <PlainActionIcon
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
          </PlainActionIcon>
        </PlainGroup>
      </PlainGroup>

      {drawerMounted && (
        <Suspense fallback={null}>
          <NavDrawer
            opened={drawerOpen}
            onClose={() => setDrawerOpen(false)}
            items={[...trade, ...main, wallet]}
            guard={guardItem}
            loggedIn={!!user}
            onBuyToken={buyToken.open}
          />
        </Suspense>
      )}

      {devMounted && (
        <Suspense fallback={null}>
          <DevModal opened={devOpen} onClose={closeDev} />
        </Suspense>
      )}
    </>
  );
}
