import { Suspense, useEffect, useState, type ReactNode } from 'react';

/**
 * A header control whose interactive part loads after the first paint (docs/web-shell.md "First page
 * size"). Mantine's Menu, Popover and Tooltip bring floating-ui, and the sign-in form its inputs: about
 * 20 KB gzip the first page does not need to paint. `fallback` is the control's trigger as it looks,
 * without its dropdown, so the swap moves nothing; a click on it before the part has arrived is kept
 * (`woken`), and the part then opens as if clicked.
 *
 * The part is a `React.lazy` component rendered by `children`, mounted in a task of its own right after
 * the first paint (or at once on a click), so its chunk is asked for then, usually well before anyone
 * clicks. Not in the first render: asking for a chunk runs Vite's preload helper, which appends a
 * `<link rel="modulepreload">` for each of the chunk's ~30 imports — 20-50 ms added to the first
 * render's task on a slow CPU, where Lighthouse counts a task over 50 ms as blocking (issue 18, TBT).
 */
export function Deferred({
  fallback,
  children,
}: {
  fallback: (wake: () => void) => ReactNode;
  children: (woken: boolean) => ReactNode;
}) {
  const [woken, setWoken] = useState(false);
  const [asked, setAsked] = useState(false);
  useEffect(() => {
    // Effects run after the paint; the timer makes it a task of its own on either runtime.
    const timer = setTimeout(() => setAsked(true), 0);
    return () => clearTimeout(timer);
  }, []);
  const standIn = fallback(() => {
    setWoken(true);
    setAsked(true);
  });
  return asked ? <Suspense fallback={standIn}>{children(woken)}</Suspense> : standIn;
}
