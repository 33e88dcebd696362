import { startTransition, useEffect, useState } from 'react';

/**
 * False on a component's first render; true once the browser has painted that render, then in a
 * transition (React renders it in slices, yielding to the browser). A page renders its heading on the
 * first pass and the rest on the second: the heading, the page's largest text, paints without waiting
 * for the form, the lists and their first queries (issue 39: `/bot-dca`'s LCP on a phone waited for all
 * of it, and for the queries' answers that came back before that one paint).
 *
 * "Painted" is the frame after the commit: a `requestAnimationFrame` callback runs just before the
 * browser draws that frame, and the timer it starts runs after. A hidden tab draws no frames, so there
 * (or when the tab is hidden before the frame comes) the second pass comes after a timer.
 */
export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let frame: number | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const go = () => {
      if (timer !== undefined) return;
      if (frame !== undefined) cancelAnimationFrame(frame);
      document.removeEventListener('visibilitychange', onHide);
      timer = setTimeout(() => startTransition(() => setPainted(true)), 0);
    };
    function onHide() {
      if (document.visibilityState === 'hidden') go();
    }
    if (document.visibilityState === 'hidden') go();
    else {
      frame = requestAnimationFrame(go);
      document.addEventListener('visibilitychange', onHide);
    }
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onHide);
    };
  }, []);
  return painted;
}
