import { Button, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** 'Platform in Development' (spec part 1 §2): what everyone but the support account sees for Spot, Futures, Wallet. */
export function DevModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('shell.devModal.title')}
      centered
      data-testid="dev-modal"
    >
      <Stack gap="md">
        <Text size="sm">{t('shell.devModal.body')}</Text>
        <Button component={Link} to="/earnings-pools" onClick={onClose} data-testid="dev-modal-pools">
          {t('shell.devModal.goToPools')}
        </Button>
      </Stack>
    </Modal>
  );
}
