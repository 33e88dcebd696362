import { MantineContext, MantineProvider, type MantineThemeOverride } from '@mantine/core';
import { use, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { theme } from '../shared/ui/theme';

/**
 * The theme with the close buttons of dialogs, drawers and toasts named in the user's language: Mantine
 * draws them as an icon without a name (axe `button-name`, WCAG 4.1.2). The static theme cannot hold a
 * translated text, so it is added here, again when the language changes.
 */
function useNamedCloseButtons(): MantineThemeOverride {
  const { t } = useTranslation();
  const close = t('common.close');
  return useMemo(() => {
    const named = { closeButtonProps: { 'aria-label': close } };
    return {
      ...theme,
      components: {
        ...theme.components,
        Modal: { defaultProps: named },
        Drawer: { defaultProps: named },
        Notification: { defaultProps: named },
      },
    };
  }, [close]);
}

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
  const named = useNamedCloseButtons();
  if (use(MantineContext)) return children;
  return (
    <MantineProvider
      theme={named}
      defaultColorScheme="dark"
      withCssVariables={false}
      withGlobalClasses={false}
    >
      {children}
    </MantineProvider>
  );
}
