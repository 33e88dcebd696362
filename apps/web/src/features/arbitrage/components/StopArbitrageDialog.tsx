import { Button, Group, Modal, Radio, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currenciesOf } from '../api/arbitrage';

/**
 * Stop: sell the bot's inventory at market on both exchanges (the default, `keep_assets: false`) or keep
 * it; Cancel leaves the bot running.
 */
export function StopArbitrageDialog({
  opened,
  symbol,
  onCancel,
  onConfirm,
}: {
  opened: boolean;
  symbol: string;
  onCancel: () => void;
  onConfirm: (keepAssets: boolean) => void;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<'sell' | 'keep'>('sell');
  const close = () => {
    setMode('sell');
    onCancel();
  };
  return (
    <Modal opened={opened} onClose={close} title={t('arbitrage.stopDialog.title')} centered>
      <Stack data-testid="arb-stop-dialog">
        <Text>{t('arbitrage.stopDialog.question', { base: currenciesOf(symbol).base })}</Text>
        <Radio.Group value={mode} onChange={(v) => setMode(v === 'keep' ? 'keep' : 'sell')}>
          <Stack gap="xs">
            <Radio value="sell" label={t('arbitrage.stopDialog.sell')} data-testid="arb-stop-sell" />
            <Radio value="keep" label={t('arbitrage.stopDialog.keep')} data-testid="arb-stop-keep" />
          </Stack>
        </Radio.Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={close} data-testid="arb-stop-cancel">
            {t('arbitrage.stopDialog.cancel')}
          </Button>
          <Button
            color="red"
            onClick={() => {
              const keep = mode === 'keep';
              setMode('sell');
              onConfirm(keep);
            }}
            data-testid="arb-stop-confirm"
          >
            {t('arbitrage.stopDialog.confirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
