import { createTheme } from '@mantine/core';

/**
 * The app's Mantine theme. Its CSS variables (the primary color) are written statically in
 * app/styles/theme.css for the first paint, which `app/mantine.test.tsx` checks against this theme.
 */
export const theme = createTheme({ primaryColor: 'yellow', defaultRadius: 'md' });
