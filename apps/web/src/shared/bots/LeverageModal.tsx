import { Button, Group, Modal, NumberInput, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { clampLeverage, LEVERAGE_MAX, LEVERAGE_MIN } from './leverage';

/**
 * 'Adjust Leverage' (spec part 2 §2): − / numeric input / +, kept between 1 and `max`, Cancel and
 * Confirm. The screen shows the 3 s toast 'Leverage configured to Nx' on confirm. Test ids
 * `<prefix>-leverage-{dialog,minus,input,plus,cancel,confirm}`.
 */
export function LeverageModal({
  prefix,
  opened,
  value,
  max = LEVERAGE_MAX,
  onCancel,
  onConfirm,
}: {
  prefix: string;
  opened: boolean;
  value: number;
  max?: number;
  onCancel: () => void;
  onConfirm: (n: number) => void;
}) {
  const { t } = useTranslation();
  const [n, setN] = useState(() => clampLeverage(value, max));
  const id = (name: string) => `${prefix}-leverage-${name}`;
  return (
    <Modal
      opened={opened}
      onClose={onCancel}
      title={t('bots.leverage.title')}
      centered
      data-testid={id('dialog')}
    >
      <Stack>
        <Group justify="center">
          <Button
            variant="default"
            onClick={() => setN((x) => clampLeverage(x - 1, max))}
            disabled={n <= LEVERAGE_MIN}
            aria-label={t('bots.leverage.minus')}
            data-testid={id('minus')}
          >
            −
          </Button>
          <NumberInput
            value={n}
            min={LEVERAGE_MIN}
            max={max}
            allowDecimal={false}
            allowNegative={false}
            onChange={(v) => setN(clampLeverage(v, max))}
            w={100}
            aria-label={t('bots.leverage.input')}
            data-testid={id('input')}
          />
          <Button
            variant="default"
            onClick={() => setN((x) => clampLeverage(x + 1, max))}
            disabled={n >= max}
            aria-label={t('bots.leverage.plus')}
            data-testid={id('plus')}
          >
            +
          </Button>
        </Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} data-testid={id('cancel')}>
            {t('bots.leverage.cancel')}
          </Button>
          <Button onClick={() => onConfirm(n)} data-testid={id('confirm')}>
            {t('bots.leverage.confirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
