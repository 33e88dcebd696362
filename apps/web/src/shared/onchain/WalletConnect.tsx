import { Alert, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { shortAddress } from './api';
import type { ChainInfo } from './types';
import { ARBITRUM_ONE, WalletMissingError, type BrowserWallet } from './wallet';

type T = (k: string, o?: Record<string, unknown>) => string;

/** The message for a wallet on another chain: the spec's text for Arbitrum One. */
export const wrongNetworkText = (t: T, chainId: number) =>
  chainId === ARBITRUM_ONE ? t('onchain.wrongNetwork') : t('onchain.wrongNetworkOther', { chainId });

/** The message of a failed connect: 'MetaMask not detected' without a browser wallet. */
export const connectErrorText = (t: T, err: unknown) =>
  err instanceof WalletMissingError || !(err instanceof Error) || !err.message
    ? t('onchain.metamaskNotDetected')
    : err.message;

/**
 * Connect / Disconnect the browser wallet. Errors go to `onError` so each screen shows them where it
 * shows its own ('MetaMask not detected').
 */
export function WalletButton({
  wallet,
  onError,
  testIdPrefix,
  fullWidth,
}: {
  wallet: BrowserWallet;
  onError: (message: string | null) => void;
  testIdPrefix: string;
  fullWidth?: boolean;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);

  const connect = async () => {
    onError(null);
    setBusy(true);
    try {
      await wallet.connect();
    } catch (err) {
      onError(connectErrorText(t, err));
    } finally {
      setBusy(false);
    }
  };

  return wallet.account ? (
    <Button
      variant="default"
      onClick={() => {
        onError(null);
        wallet.disconnect();
      }}
      fullWidth={fullWidth}
      data-testid={`${testIdPrefix}-disconnect`}
      data-address={wallet.account}
    >
      {t('onchain.disconnect', { address: shortAddress(wallet.account) })}
    </Button>
  ) : (
    <Button
      variant="default"
      onClick={() => void connect()}
      loading={busy}
      fullWidth={fullWidth}
      data-testid={`${testIdPrefix}-connect`}
    >
      {t('onchain.connect')}
    </Button>
  );
}

/** 'Please connect to Arbitrum One network' with a Switch network button, while the wallet is elsewhere. */
export function WrongNetworkAlert({
  wallet,
  info,
  testIdPrefix,
}: {
  wallet: BrowserWallet;
  info: ChainInfo | null | undefined;
  testIdPrefix: string;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  if (!wallet.wrongChain || !info) return null;

  const switchNetwork = async () => {
    setFailure(null);
    setBusy(true);
    try {
      await wallet.switchChain(info);
    } catch (err) {
      setFailure(t('onchain.switchFailed', { message: err instanceof Error ? err.message : String(err) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Alert color="orange" data-testid={`${testIdPrefix}-network`}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" data-testid={`${testIdPrefix}-network-text`}>
          {wrongNetworkText(t, info.chainId)}
        </Text>
        <Button
          size="xs"
          onClick={() => void switchNetwork()}
          loading={busy}
          data-testid={`${testIdPrefix}-switch-network`}
        >
          {t('onchain.switchNetwork')}
        </Button>
      </Group>
      {failure && (
        <Text size="xs" c="red" mt={4} data-testid={`${testIdPrefix}-switch-error`}>
          {failure}
        </Text>
      )}
    </Alert>
  );
}
