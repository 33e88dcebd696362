import { Button, Group, Modal, NumberInput, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Futures leverage (Grid Bot DCA only): − / value / +, at least 1. */
export function LeverageDialog({
  opened,
  value,
  onCancel,
  onConfirm,
}: {
  opened: boolean;
  value: number;
  onCancel: () => void;
  onConfirm: (n: number) => void;
}) {
  const { t } = useTranslation();
  const [n, setN] = useState(value);
  return (
    <Modal opened={opened} onClose={onCancel} title={t('dca.leverage.title')} centered>
      <Stack>
        <Group justify="center">
          <Button variant="default" onClick={() => setN((x) => Math.max(1, x - 1))}>
            −
          </Button>
          <NumberInput
            value={n}
            min={1}
            allowDecimal={false}
            onChange={(v) => setN(Math.max(1, Math.floor(Number(v) || 1)))}
            w={100}
            data-testid="dca-leverage-input"
          />
          <Button variant="default" onClick={() => setN((x) => x + 1)}>
            +
          </Button>
        </Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('dca.leverage.cancel')}
          </Button>
          <Button onClick={() => onConfirm(n)}>{t('dca.leverage.confirm')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
