/**
 * When the first page's later parts (the header's menus and sign-in form, the toasts' container) are
 * asked for: at the visitor's first interaction with the page, or failing that once the page has been
 * loaded and quiet for a while (docs/web-shell.md "First page size"). Asked for right after the first
 * paint, their ~45 chunks of Mantine code were downloaded and evaluated while the page itself was still
 * loading (on `/bot-dca` beside the page's own chunks and data), and Lighthouse's mobile run counted their
 * tasks as blocking (TBT 1,249 ms on `/`, issue 39). Nothing of them shows until someone points, taps,
 * types or scrolls: the stand-ins look the same, and a click on one is kept (Deferred.tsx).
 */

/** What counts as an interaction: any of these on the page (capture, so nothing can stop them first). */
const INTERACTIONS = ['pointerdown', 'pointermove', 'touchstart', 'keydown', 'wheel', 'focusin'] as const;

/**
 * With no interaction: this long after the load event, then at the next idle moment (`requestIdleCallback`,
 * at most IDLE_TIMEOUT_MS later). Long enough for a slow phone to have drawn the page and its first data
 * (Lighthouse's mobile LCP on `/bot-dca` was 5.3 s, the load event comes well before), short enough that
 * the menus are there when a keyboard-less visitor or a browser test reaches for them.
 */
export const AFTER_LOAD_MS = 5_000;
const IDLE_TIMEOUT_MS = 2_000;

/** An interaction was seen: later callers (a part mounted after a logout, say) are served at once. */
let interacted = false;

/**
 * Calls `run` once, at the first interaction (or at once, after a zero timer, if one was already seen),
 * or when the page has been loaded AFTER_LOAD_MS and the main thread is idle. Returns a cancel function.
 */
export function whenWanted(run: () => void): () => void {
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle: number | undefined;
  const off = () => {
    for (const type of INTERACTIONS) window.removeEventListener(type, onInteraction, true);
    window.removeEventListener('load', afterLoad);
    clearTimeout(timer);
    if (idle !== undefined) window.cancelIdleCallback?.(idle);
  };
  const fire = () => {
    if (done) return;
    done = true;
    off();
    run();
  };
  function onInteraction() {
    interacted = true;
    fire();
  }
  function afterLoad() {
    timer = setTimeout(() => {
      if (typeof window.requestIdleCallback === 'function')
        idle = window.requestIdleCallback(fire, { timeout: IDLE_TIMEOUT_MS });
      else fire();
    }, AFTER_LOAD_MS);
  }
  if (interacted) {
    timer = setTimeout(fire, 0);
    return () => {
      done = true;
      clearTimeout(timer);
    };
  }
  for (const type of INTERACTIONS)
    window.addEventListener(type, onInteraction, { capture: true, passive: true });
  if (document.readyState === 'complete') afterLoad();
  else window.addEventListener('load', afterLoad, { once: true });
  return () => {
    done = true;
    off();
  };
}

/** Component tests only: forget the interaction seen, so the next test starts as a fresh page does. */
export function forgetInteractionForTests(): void {
  interacted = false;
}
