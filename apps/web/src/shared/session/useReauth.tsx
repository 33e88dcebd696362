import { useCallback, useRef, useState, type ReactNode } from 'react';
import { useSession } from './session';
import { isReauthRequired } from './reauth';
import { ReauthModal } from './ReauthModal';

/** Thrown by `run` when the user closes the password dialog: the caller shows nothing. */
export class ReauthCancelled extends Error {
  constructor() {
    super('Re-authentication cancelled');
    this.name = 'ReauthCancelled';
  }
}

/**
 * For calls that need a recent authentication (delete the account, 2FA on/off, a webhook secret):
 * `run(call, retry?)` makes the call; on 403 `reauth_required` it shows the password dialog (with a
 * code field when 2FA is on), then makes `retry` (default: the same call) once. Render `modal`.
 */
export function useReauth(): {
  run: <T>(call: () => Promise<T>, retry?: () => Promise<T>) => Promise<T>;
  modal: ReactNode;
} {
  const { user } = useSession();
  const [opened, setOpened] = useState(false);
  const waiting = useRef<{ resolve: () => void; reject: (err: Error) => void } | null>(null);

  const run = useCallback(async <T,>(call: () => Promise<T>, retry?: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (!isReauthRequired(err)) throw err;
      await new Promise<void>((resolve, reject) => {
        waiting.current = { resolve, reject };
        setOpened(true);
      });
      return (retry ?? call)();
    }
  }, []);

  const finish = (ok: boolean) => {
    const w = waiting.current;
    waiting.current = null;
    setOpened(false);
    if (ok) w?.resolve();
    else w?.reject(new ReauthCancelled());
  };

  const modal = (
    <ReauthModal
      opened={opened}
      needsCode={user?.has2FA ?? false}
      onConfirmed={() => finish(true)}
      onCancel={() => finish(false)}
    />
  );
  return { run, modal };
}
