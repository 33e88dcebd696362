import { AppShell } from '@mantine/core';
import { Suspense, useMemo, useState } from 'react';
import { Outlet } from 'react-router';
import { BuyTokenContext } from '../../shared/ui/BuyTokenContext';
import { lazyPage } from '../lazyPage';
import { Footer } from './Footer';
import { Header } from './Header';
import { PageFallback } from './PageFallback';
import { TickerBar } from './TickerBar';

// The purchase modal brings the wallet code with it: its own chunk, fetched on the first Buy click.
const BuyTokenModal = lazyPage(
  () => import('../../features/token/components/BuyTokenModal'),
  'BuyTokenModal',
);

/**
 * The page's area fills the viewport below the header, so the footer under it always starts below the
 * fold: a page that shows in steps (the session check, the lazy chunk, then its data) never moves a
 * visible footer (layout shift, docs/web-shell.md "First page size"). The variables are AppShell's.
 */
const PAGE_AREA = {
  minHeight: 'calc(100dvh - var(--app-shell-header-offset, 0rem) - var(--app-shell-padding, 0rem))',
} as const;

export function Shell() {
  const [buyOpen, setBuyOpen] = useState(false);
  // Mounted from the first open on, so the modal's closing transition still plays.
  const [buyMounted, setBuyMounted] = useState(false);
  const buyToken = useMemo(
    () => ({
      open: () => {
        setBuyMounted(true);
        setBuyOpen(true);
      },
    }),
    [],
  );
  return (
    <BuyTokenContext.Provider value={buyToken}>
      <AppShell header={{ height: 60 }} footer={{ height: 40 }} padding="md">
        <AppShell.Header>
          <Header />
        </AppShell.Header>
        <AppShell.Main>
          <div style={PAGE_AREA}>
            <Suspense fallback={<PageFallback />}>
              <Outlet />
            </Suspense>
          </div>
          <Footer />
        </AppShell.Main>
        <AppShell.Footer>
          <TickerBar />
        </AppShell.Footer>
      </AppShell>
      {buyMounted && (
        <Suspense fallback={null}>
          <BuyTokenModal opened={buyOpen} onClose={() => setBuyOpen(false)} />
        </Suspense>
      )}
    </BuyTokenContext.Provider>
  );
}
