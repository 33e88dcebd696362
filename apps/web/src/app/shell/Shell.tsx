import { AppShell } from '@mantine/core';
import { Outlet } from 'react-router';
import { Footer } from './Footer';
import { Header } from './Header';
import { TickerBar } from './TickerBar';

export function Shell() {
  return (
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
  );
}
