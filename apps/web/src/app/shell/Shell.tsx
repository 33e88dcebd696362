import { AppShell } from '@mantine/core';
import { useMemo, useState } from 'react';
import { Outlet } from 'react-router';
import { BuyTokenModal } from '../../features/token/components/BuyTokenModal';
import { BuyTokenContext } from '../../shared/ui/BuyTokenContext';
import { Footer } from './Footer';
import { Header } from './Header';
import { TickerBar } from './TickerBar';

export function Shell() {
  const [buyOpen, setBuyOpen] = useState(false);
  const buyToken = useMemo(() => ({ open: () => setBuyOpen(true) }), []);
  return (
    <BuyTokenContext.Provider value={buyToken}>
      <AppShell header={{ height: 60 }} footer={{ height: 40 }} padding="md">
        <AppShell.Header>
          <Header />
        </AppShell.Header>
        <AppShell.Main>
          <Outlet />
          <Footer />
        </AppShell.Main>
        <AppShell.Footer>
          <TickerBar />
        </AppShell.Footer>
      </AppShell>
      <BuyTokenModal opened={buyOpen} onClose={() => setBuyOpen(false)} />
    </BuyTokenContext.Provider>
  );
}
