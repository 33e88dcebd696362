import { startTransition, Suspense, useEffect, useState, type ReactNode } from 'react';
import { whenWanted } from './wanted';

/**
 * A header control whose interactive part loads later (docs/web-shell.md "First page size"). Mantine's
 * Menu, Popover and Tooltip bring floating-ui, and the sign-in form its inputs: about 20 KB gzip the first
 * page does not need to paint. `fallback` is the control's trigger as it looks, without its dropdown, so
 * the swap moves nothing; a click on it before the part has arrived is kept (`woken`), and the part then
 * opens as if clicked.
 *
 * The part is a `React.lazy` component rendered by `children`, mounted (so its chunk asked for) at the
 * visitor's first interaction with the page or once the loaded page has been quiet a while (./wanted.ts),
 * or at once on a click on the stand-in. Never in the first render: asking for a chunk runs Vite's
 * preload helper, which appends a `<link rel="modulepreload">` for each of the chunk's ~30 imports —
 * 20-50 ms added to the first render's task on a slow CPU, where Lighthouse counts a task over 50 ms as
 * blocking (issue 18, TBT).
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
  // A transition: while the chunk loads, the stand-in already on screen stays the very same node (no
  // fallback swap), so a press that woke the part (the pointerdown of a click on the stand-in) still
  // ends with its click on the stand-in.
  useEffect(() => whenWanted(() => startTransition(() => setAsked(true))), []);
  const standIn = fallback(() => {
    setWoken(true);
    setAsked(true);
  });
  return <Suspense fallback={standIn}>{asked ? children(woken) : standIn}</Suspense>;
}
