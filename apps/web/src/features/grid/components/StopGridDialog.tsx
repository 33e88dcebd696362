import { Button, Group, Modal, Radio, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GridBotRow } from '../api/grid';

/**
 * The grid's stop dialog (spec part 2 §2, §4): 'Sell All to Market & Close' (`vender: true`) or
 * 'Keep Assets & Close' (`vender: false`, the default), then Stop; Cancel leaves the bot running.
 */
export function StopGridDialog({
  bot,
  onCancel,
  onConfirm,
}: {
  bot: GridBotRow | null;
  onCancel: () => void;
  onConfirm: (bot: GridBotRow, vender: boolean) => void;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<'vender' | 'mantener'>('mantener');
  const close = () => {
    setMode('mantener');
    onCancel();
  };
  return (
    <Modal
      opened={bot !== null}
      onClose={close}
      title={t('grid.stopDialog.title')}
      centered
      data-testid="grid-stop-dialog"
    >
      {bot && (
        <Stack>
          <Text>{t('grid.stopDialog.question', { symbol: bot.symbol })}</Text>
          <Radio.Group value={mode} onChange={(v) => setMode(v === 'vender' ? 'vender' : 'mantener')}>
            <Stack gap="xs">
              <Radio value="vender" label={t('grid.stopDialog.sell')} data-testid="grid-stop-sell" />
              <Radio value="mantener" label={t('grid.stopDialog.keep')} data-testid="grid-stop-keep" />
            </Stack>
          </Radio.Group>
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-testid="grid-stop-cancel">
              {t('grid.stopDialog.cancel')}
            </Button>
            <Button
              color="red"
              onClick={() => {
                const vender = mode === 'vender';
                setMode('mantener');
                onConfirm(bot, vender);
              }}
              data-testid="grid-stop-confirm"
            >
              {t('grid.stopDialog.confirm')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
