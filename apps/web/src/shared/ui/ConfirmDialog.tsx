import { Button, Group, Modal, Text } from '@mantine/core';
import { useCallback, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The app's own confirm and alert (issue 40: no native `confirm()`/`alert()`, whose buttons and title
 * are the browser's, in the browser's language). A Mantine modal in the user's language: the confirm
 * button has the focus, Enter or a click confirms, Escape or Cancel cancels. Pages are lazy chunks that
 * already use Mantine's Modal, so this adds no code to the first page.
 */
export interface ConfirmOptions {
  /** Defaults to "Confirm" (an alert: no title). */
  title?: string;
  confirmLabel?: string;
  cancelLabel?: string;
  /** A destructive action: the confirm button is red. */
  danger?: boolean;
  /** One button only (a notice, as `alert()` was). */
  alert?: boolean;
}

interface ConfirmDialogProps extends ConfirmOptions {
  opened: boolean;
  message: ReactNode;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({
  opened,
  message,
  title,
  confirmLabel,
  cancelLabel,
  danger,
  alert,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onCancel}
      title={title ?? (alert ? undefined : t('common.confirm'))}
      withCloseButton={!alert}
      centered
      // Above the page's own dialogs (a pending-orders dialog asks from inside itself).
      zIndex={500}
      data-testid="confirm-dialog"
    >
      <Text data-testid="confirm-dialog-text" style={{ whiteSpace: 'pre-line' }}>
        {message}
      </Text>
      <Group justify="flex-end" mt="md">
        {!alert && (
          <Button variant="default" onClick={onCancel} data-testid="confirm-dialog-cancel">
            {cancelLabel ?? t('common.cancel')}
          </Button>
        )}
        <Button
          color={danger ? 'red' : undefined}
          onClick={onConfirm}
          // Mantine focuses the element marked data-autofocus when the modal opens.
          data-autofocus
          data-testid="confirm-dialog-ok"
        >
          {confirmLabel ?? (alert ? t('common.close') : t('common.confirm'))}
        </Button>
      </Group>
    </Modal>
  );
}

type Ask = (message: ReactNode, options?: ConfirmOptions) => Promise<boolean>;

/**
 * `const [confirm, dialog] = useConfirm()`: render `dialog` once, then `if (!(await confirm(text)))
 * return;` where `window.confirm(text)` was. Resolves true on confirm, false on cancel or Escape; an
 * alert (`{ alert: true }`) resolves when it is closed. A second question replaces an unanswered one,
 * which resolves false.
 */
export function useConfirm(): [Ask, ReactNode] {
  const [state, setState] = useState<{ opened: boolean; message: ReactNode; options: ConfirmOptions }>({
    opened: false,
    message: null,
    options: {},
  });
  const pending = useRef<((ok: boolean) => void) | null>(null);

  const ask = useCallback<Ask>(
    (message, options = {}) =>
      new Promise<boolean>((resolve) => {
        pending.current?.(false);
        pending.current = resolve;
        setState({ opened: true, message, options });
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

  const dialog = (
    <ConfirmDialog
      opened={state.opened}
      message={state.message}
      {...state.options}
      onConfirm={() => settle(true)}
      onCancel={() => settle(false)}
    />
  );
  return [ask, dialog];
}
