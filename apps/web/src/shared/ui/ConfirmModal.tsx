import { Button, Group, Modal, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The modal of `useConfirm` (ConfirmDialog.tsx), in its own chunk: a page loads Mantine's Modal (and
 * its scroll lock and focus trap) only when it first asks something.
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

export interface ConfirmModalProps extends ConfirmOptions {
  opened: boolean;
  message: ReactNode;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmModal({
  opened,
  message,
  title,
  confirmLabel,
  cancelLabel,
  danger,
  alert,
  onConfirm,
  onCancel,
}: ConfirmModalProps) {
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
