import { notificationsStore } from '@mantine/notifications';

/**
 * Calls `onFirst` once a toast is waiting in @mantine/notifications' store (one shown before the
 * toasts' container is there, app/providers.tsx). Its own module, so that importing it brings the
 * store's chunk (already downloaded with any page that shows toasts) and not the container's.
 */
export function watchToasts(onFirst: () => void): () => void {
  const waiting = () => {
    const { notifications, queue } = notificationsStore.getState();
    return notifications.length + queue.length > 0;
  };
  if (waiting()) {
    onFirst();
    return () => undefined;
  }
  const unsubscribe = notificationsStore.subscribe(() => {
    if (!waiting()) return;
    unsubscribe();
    onFirst();
  });
  return unsubscribe;
}
