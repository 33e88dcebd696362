import { Suspense, useState, type ReactNode } from 'react';

/**
 * A header control whose interactive part loads after the first paint (docs/web-shell.md "First page
 * size"). Mantine's Menu, Popover and Tooltip bring floating-ui, and the sign-in form its inputs: about
 * 20 KB gzip the first page does not need to paint. `fallback` is the control's trigger as it looks,
 * without its dropdown, so the swap moves nothing; a click on it before the part has arrived is kept
 * (`woken`), and the part then opens as if clicked.
 *
 * The part is a `React.lazy` component rendered by `children`: React asks for its chunk at the first
 * render, right after the first script has run, so it is usually there before anyone clicks.
 */
export function Deferred({
  fallback,
  children,
}: {
  fallback: (wake: () => void) => ReactNode;
  children: (woken: boolean) => ReactNode;
}) {
  const [woken, setWoken] = useState(false);
  return <Suspense fallback={fallback(() => setWoken(true))}>{children(woken)}</Suspense>;
}
