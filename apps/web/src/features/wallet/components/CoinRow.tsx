import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FIXED, useNumbers } from '../../../shared/ui/numbers';
import { CoinLogo } from './CoinLogo';

export interface CoinRowProps {
  symbol: string;
  balance: number;
  /** Its USDT value: null when it cannot be valued, undefined when not asked (zero) or loading. */
  value?: number | null;
  /** undefined: not known (yet); `loading`: the address map is still loading. */
  address: string | undefined;
  loading: boolean;
  generating: boolean;
  /** A paper account's address: marked simulated in the row and in the copied notice. */
  simulated: boolean;
  onGenerate: () => Promise<string | null>;
  onWithdraw: () => void;
}

/** The spec's copy notice lasts 2 s. */
export const COPY_NOTICE_MS = 2000;

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Not a secure context or no permission: the old way.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/** One wallet coin: logo, balance (4 decimals), deposit address and its three buttons. */
export function CoinRow(props: CoinRowProps) {
  const { t } = useTranslation();
  const num = useNumbers();
  const { symbol, balance, address, loading, generating, simulated, value } = props;
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);

  const deposit = async () => {
    const addr = address ?? (await props.onGenerate());
    if (!addr) return;
    if (!(await copyText(addr))) return;
    setCopied(true);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPY_NOTICE_MS);
  };

  return (
    <Paper withBorder p="sm" radius="md" data-testid={`wallet-row-${symbol}`} data-symbol={symbol}>
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm" wrap="nowrap" miw={200}>
          <CoinLogo symbol={symbol} />
          <Stack gap={0}>
            <Text fw={700}>{symbol}</Text>
            <Text ff="monospace" data-testid={`wallet-balance-${symbol}`}>
              {num.fixed(balance, FIXED.walletBalance)}
            </Text>
            {value !== undefined && (
              <Text size="xs" c={value === null ? 'orange' : 'dimmed'} data-testid={`wallet-value-${symbol}`}>
                {value === null
                  ? t('wallet.total.noPrice')
                  : t('wallet.total.value', { value: num.money(value) })}
              </Text>
            )}
          </Stack>
        </Group>
        <Stack gap={2} style={{ flex: 1, minWidth: 220 }}>
          <Group gap={6} wrap="nowrap" align="flex-start">
            {simulated && address && (
              <Badge color="orange" variant="light" size="sm" data-testid={`wallet-simulated-${symbol}`}>
                {t('wallet.simulatedBadge')}
              </Badge>
            )}
            <Text
              ff="monospace"
              size="sm"
              style={{ wordBreak: 'break-all' }}
              c={address ? undefined : 'dimmed'}
              data-testid={`wallet-address-${symbol}`}
            >
              {address ?? (loading || generating ? t('wallet.loading') : t('wallet.noAddress'))}
            </Text>
          </Group>
          {simulated && address && (
            <Text size="xs" c="orange" data-testid={`wallet-simulated-note-${symbol}`}>
              {t('wallet.simulated')}
            </Text>
          )}
        </Stack>
        <Group gap="xs">
          <Button
            size="xs"
            variant="light"
            loading={generating}
            onClick={() => void props.onGenerate()}
            title={simulated ? t('wallet.generatePaper') : undefined}
            data-testid={`wallet-generate-${symbol}`}
          >
            {t('wallet.generate')}
          </Button>
          <Button size="xs" onClick={() => void deposit()} data-testid={`wallet-deposit-${symbol}`}>
            {t('wallet.deposit')}
          </Button>
          <Button
            size="xs"
            variant="default"
            onClick={props.onWithdraw}
            data-testid={`wallet-withdraw-${symbol}`}
          >
            {t('wallet.withdraw')}
          </Button>
        </Group>
      </Group>
      {copied && (
        <Text
          c={simulated ? 'orange' : 'green'}
          size="sm"
          mt={4}
          role="status"
          data-testid={`wallet-copied-${symbol}`}
        >
          {t(simulated ? 'wallet.copiedSimulated' : 'wallet.copied')}
        </Text>
      )}
    </Paper>
  );
}
