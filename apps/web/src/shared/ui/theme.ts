import { createTheme, DEFAULT_THEME, type MantineColorsTuple } from '@mantine/core';

/*
 * Contrast (WCAG 1.4.3, 4.5:1 for text; issue 40 point 6, checked by e2e/a11y-layout.test.ts):
 * - the dimmed text of the dark scheme is `dark-2`: Mantine's #828282 is 4.03:1 on the page's #242424;
 *   #969696 is 5.2:1 there and 4.6:1 on the cards' and inputs' #2e2e2e;
 * - a filled button's or badge's text is black or white by its fill's luminance (`autoContrast`): white
 *   on the primary yellow #f08c00 was 2.48:1, black is 8.5:1. Mantine decides on the light scheme's
 *   shade (6) while the dark scheme fills with shade 8; its default threshold (0.3) picks the text that
 *   passes 4.5:1 on shade 8 for every theme color (blue white 5.0:1, green black 6.1:1, red white 4.5:1).
 */
const dark = [...DEFAULT_THEME.colors.dark] as unknown as MantineColorsTuple;
(dark as unknown as string[])[2] = '#969696';

/**
 * The app's Mantine theme. Its CSS variables (the primary color) are written statically in
 * app/styles/theme.css for the first paint, which `app/mantine.test.tsx` checks against this theme.
 */
export const theme = createTheme({
  primaryColor: 'yellow',
  defaultRadius: 'md',
  autoContrast: true,
  colors: { dark },
  components: {
    /*
     * A table or list wider than its box scrolls sideways with its scrollbar in view (Mantine's default
     * shows it only on hover, so the columns past the edge looked absent: issue 40 point 4), and its
     * viewport takes the keyboard focus so the arrow keys scroll it (WCAG 2.1.1). Written as a plain
     * object: `ScrollArea.extend` would bring the component into this module's chunk.
     */
    ScrollArea: { defaultProps: { type: 'auto', viewportProps: { tabIndex: 0 } } },
    // A status badge is a word or two: shown whole, never cut to "O…" or "EXEC…" in a narrow cell or row.
    Badge: { styles: { root: { overflow: 'visible', flexShrink: 0 }, label: { overflow: 'visible' } } },
  },
});
