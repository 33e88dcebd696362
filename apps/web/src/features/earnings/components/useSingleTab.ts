import { useEffect, useState } from 'react';

export type TabLockState = 'pending' | 'held' | 'taken';

interface LockManagerLike {
  request: (
    name: string,
    options: { ifAvailable: boolean },
    callback: (lock: unknown) => Promise<void> | void,
  ) => Promise<unknown>;
}

const lockManager = (): LockManagerLike | undefined =>
  typeof navigator === 'undefined' ? undefined : (navigator as unknown as { locks?: LockManagerLike }).locks;

/** A taken lock is asked again once after this long (React's development double mount frees it late). */
const RETRY_MS = 300;
/** BroadcastChannel fallback: how long a tab waits for a holder to answer. */
const ANSWER_MS = 250;

/**
 * Only one tab may hold a page (spec part 1 §2 "Earnings pool"). With the Web Locks API the page holds
 * an exclusive lock named `name` while it is shown; the browser frees it when the tab closes. Where
 * the API is missing, a BroadcastChannel asks whether another tab holds the page.
 */
export function useSingleTab(name: string): TabLockState {
  const [state, setState] = useState<TabLockState>('pending');

  useEffect(() => {
    let gone = false;
    const locks = lockManager();
    if (locks) {
      let release: (() => void) | null = null;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ask = (retry: boolean) => {
        void locks
          .request(name, { ifAvailable: true }, (lock) => {
            if (gone) return;
            if (!lock) {
              if (retry) timer = setTimeout(() => ask(false), RETRY_MS);
              else setState('taken');
              return;
            }
            setState('held');
            return new Promise<void>((resolve) => {
              release = resolve;
            });
          })
          .catch(() => {
            if (!gone) setState('held');
          });
      };
      ask(true);
      return () => {
        gone = true;
        clearTimeout(timer);
        release?.();
      };
    }

    if (typeof BroadcastChannel === 'undefined') {
      setState('held');
      return;
    }
    const channel = new BroadcastChannel(name);
    let holding = false;
    channel.onmessage = (e: MessageEvent) => {
      if (e.data === 'who' && holding) channel.postMessage('mine');
      if (e.data === 'mine' && !holding && !gone) setState('taken');
    };
    channel.postMessage('who');
    const timer = setTimeout(() => {
      if (gone) return;
      setState((s) => {
        if (s === 'taken') return s;
        holding = true;
        return 'held';
      });
    }, ANSWER_MS);
    return () => {
      gone = true;
      clearTimeout(timer);
      channel.close();
    };
  }, [name]);

  return state;
}
