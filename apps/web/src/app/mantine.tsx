import { MantineContext, MantineProvider } from '@mantine/core';
import { use, type ReactNode } from 'react';
import { theme } from '../shared/ui/theme';

/*
 * Mantine's provider, for what renders Mantine components: every lazy page (./lazyPage.tsx), the
 * header's later parts and the toasts (./shell/Header.tsx, ./providers.tsx). Not in the first script:
 * the shell and the landing draw with shared/ui/plain.tsx, and Mantine's runtime comes with the first
 * of these chunks (docs/web-shell.md "First page size").
 */

/**
 * The app's Mantine provider around `children`, unless one is already above (a component test's,
 * test/renderApp.tsx, or another part's). The theme's CSS variables, the `visibleFrom` classes and
 * the dark scheme are in the page before any of these mounts (./styles/theme.css, `<html
 * data-mantine-color-scheme="dark">` in index.html), so each provider writes no `<style>` of its own;
 * every one of them keeps the scheme dark, as the one provider did before.
 */
export function AppMantine({ children }: { children: ReactNode }) {
  if (use(MantineContext)) return children;
  return (
    <MantineProvider
      theme={theme}
      defaultColorScheme="dark"
      withCssVariables={false}
      withGlobalClasses={false}
    >
      {children}
    </MantineProvider>
  );
}
