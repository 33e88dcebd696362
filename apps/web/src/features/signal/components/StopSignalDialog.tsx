import { Button, Group, Modal, Radio, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SignalBotView } from '../api/signal';

/** Stop: sell the position at market (the default) or keep it; Cancel leaves the bot running. */
export function StopSignalDialog({
  bot,
  onCancel,
  onConfirm,
}: {
  bot: SignalBotView | null;
  onCancel: () => void;
  onConfirm: (bot: SignalBotView, keepAssets: boolean) => void;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<'sell' | 'keep'>('sell');
  const close = () => {
    setMode('sell');
    onCancel();
  };
  return (
    <Modal opened={bot !== null} onClose={close} title={t('signal.stopDialog.title')} centered>
      {bot && (
        <Stack data-testid="signal-stop-dialog">
          <Text>
            {t('signal.stopDialog.question', { base: bot.symbol.split('/')[0], symbol: bot.symbol })}
          </Text>
          <Radio.Group value={mode} onChange={(v) => setMode(v === 'keep' ? 'keep' : 'sell')}>
            <Stack gap="xs">
              <Radio value="sell" label={t('signal.stopDialog.sell')} data-testid="signal-stop-sell" />
              <Radio value="keep" label={t('signal.stopDialog.keep')} data-testid="signal-stop-keep" />
            </Stack>
          </Radio.Group>
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-testid="signal-stop-cancel">
              {t('signal.stopDialog.cancel')}
            </Button>
            <Button
              color="red"
              onClick={() => {
                const keep = mode === 'keep';
                setMode('sell');
                onConfirm(bot, keep);
              }}
              data-testid="signal-stop-confirm"
            >
              {t('signal.stopDialog.confirm')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
