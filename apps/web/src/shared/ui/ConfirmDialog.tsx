import { lazy, Suspense, useCallback, useRef, useState, type ReactNode } from 'react';
import type { ConfirmOptions } from './ConfirmModal';

/**
 * The app's own confirm and alert (issue 40: no native `confirm()`/`alert()`, whose buttons and title
 * are the browser's, in the browser's language). A Mantine modal in the user's language: the confirm
 * button has the focus, Enter or a click confirms, Escape or Cancel cancels. The modal is a chunk of its
 * own (ConfirmModal.tsx), loaded at the first question: a page's first paint (/bot-dca's is benchmarked)
 * carries only this hook.
 */
export type { ConfirmOptions };

const ConfirmModal = lazy(() => import('./ConfirmModal').then((m) => ({ default: m.ConfirmModal })));

type Ask = (message: ReactNode, options?: ConfirmOptions) => Promise<boolean>;

/**
 * `const [confirm, dialog] = useConfirm()`: render `dialog` once, then `if (!(await confirm(text)))
 * return;` where `window.confirm(text)` was. Resolves true on confirm, false on cancel or Escape; an
 * alert (`{ alert: true }`) resolves when it is closed. A second question replaces an unanswered one,
 * which resolves false.
 */
export function useConfirm(): [Ask, ReactNode] {
  // `asked`: the modal has been needed once, so it stays mounted (its closing transition, the next question).
  const [state, setState] = useState<{
    asked: boolean;
    opened: boolean;
    message: ReactNode;
    options: ConfirmOptions;
  }>({ asked: false, opened: false, message: null, options: {} });
  const pending = useRef<((ok: boolean) => void) | null>(null);

  const ask = useCallback<Ask>(
    (message, options = {}) =>
      new Promise<boolean>((resolve) => {
        pending.current?.(false);
        pending.current = resolve;
        setState({ asked: true, opened: true, message, options });
      }),
    [],
  );
  const settle = (ok: boolean) => {
    const resolve = pending.current;
    pending.current = null;
    // The message stays while the modal fades out.
    setState((s) => ({ ...s, opened: false }));
    resolve?.(ok);
  };

  const dialog = state.asked ? (
    <Suspense fallback={null}>
      <ConfirmModal
        opened={state.opened}
        message={state.message}
        {...state.options}
        onConfirm={() => settle(true)}
        onCancel={() => settle(false)}
      />
    </Suspense>
  ) : null;
  return [ask, dialog];
}
