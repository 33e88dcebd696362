import type { TooltipProps } from '@mantine/core';
import { lazy, Suspense } from 'react';

/*
 * Mantine's Tooltip brings floating-ui (about 20 KB gzip with its own parts). On a page that shows a
 * tooltip only in rows drawn from data (the Grid Bot DCA's range dot), it is its own chunk, asked for
 * when such a row first renders rather than with the page (issue 39: `/bot-dca`'s first visit).
 */
const Tooltip = lazy(() => import('./TooltipPart'));

/** Mantine's `<Tooltip>`; until its chunk is there, the target alone (the same element, no tooltip yet). */
export function LazyTooltip(props: TooltipProps) {
  return (
    <Suspense fallback={props.children}>
      <Tooltip {...props} />
    </Suspense>
  );
}
