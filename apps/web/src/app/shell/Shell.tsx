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

/*
 * The layout is ./layout.css. The page's area fills the viewport below the header, so the footer under
 * it always starts below the fold: a page that shows in steps (the session check, the lazy chunk, then
 * its data) never moves a visible footer (layout shift, docs/web-shell.md "First page size").
 */

/**
 * react-remove-scroll's class for fixed elements: while a modal locks the page's scroll, it keeps them
 * clear of the scrollbar's gap, as AppShell's header and footer did.
 */
const SCROLL_LOCK_OFFSET = 'right-scroll-bar-position';

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
      <div className="bytx-shell">
        <header className={`bytx-shell-header ${SCROLL_LOCK_OFFSET}`}>
          <Header />
        </header>
        <main className="bytx-shell-main">
          <div className="bytx-shell-page">
            <Suspense fallback={<PageFallback />}>
              <Outlet />
            </Suspense>
          </div>
          <Footer />
        </main>
        <footer className={`bytx-shell-footer ${SCROLL_LOCK_OFFSET}`}>
          <TickerBar />
        </footer>
      </div>
      {buyMounted && (
        <Suspense fallback={null}>
          <BuyTokenModal opened={buyOpen} onClose={() => setBuyOpen(false)} />
        </Suspense>
      )}
    </BuyTokenContext.Provider>
  );
}
