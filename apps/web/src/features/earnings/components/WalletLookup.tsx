import {
  ActionIcon,
  Box,
  Button,
  Group,
  Modal,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { connectErrorText } from '../../../shared/onchain/WalletConnect';
import type { BrowserWallet } from '../../../shared/onchain/wallet';
import { isValidWalletAddress } from '../apy';
import { localMessage } from './messages';

/** A small trash-can outline (no icon font or emoji needed). */
function TrashIcon() {
  return (
    <svg
      width="18"
      height="18"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      aria-hidden
    >
      <path d="M4 7h16M10 11v6M14 11v6M5 7l1 12a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2l1-12M9 7V4h6v3" />
    </svg>
  );
}

export interface LookupFailure {
  message: string;
  canSwitch: boolean;
  address: string;
}

/**
 * The address input, Connect and consult, the delete-wallet icon and the green connected indicator
 * (spec part 1 §2), with the error modal 'Something went wrong' (§8) that offers the switch when the
 * server asks for it.
 */
export function WalletLookup({
  consultedAddress,
  connectedAddress,
  wallet,
  consulting,
  deleting,
  failure,
  onConsult,
  onDelete,
  onCloseFailure,
}: {
  /** The address being consulted (the input starts with it; the parent remounts on a change). */
  consultedAddress: string | null;
  connectedAddress: string | null;
  wallet: BrowserWallet;
  consulting: boolean;
  deleting: boolean;
  failure: LookupFailure | null;
  onConsult: (address: string, force: boolean) => void;
  onDelete: () => void;
  onCloseFailure: () => void;
}) {
  const { t } = useTranslation();
  const [input, setInput] = useState(consultedAddress ?? '');
  const [localFailure, setLocalFailure] = useState<string | null>(null);

  const consult = () => {
    const a = input.trim();
    if (!isValidWalletAddress(a)) {
      setLocalFailure('Invalid wallet address');
      return;
    }
    onConsult(a, false);
  };

  const fillFromBrowserWallet = async () => {
    try {
      const { account } = wallet.account ? { account: wallet.account } : await wallet.connect();
      if (account) setInput(account);
    } catch (err) {
      setLocalFailure(connectErrorText(t, err));
    }
  };

  const shown = localFailure ?? failure?.message ?? null;
  const close = () => {
    setLocalFailure(null);
    onCloseFailure();
  };

  return (
    <Paper withBorder p="md" radius="md" data-testid="earnings-lookup">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('earnings.lookup.title')}
        </Title>
        <Group gap={6} data-testid="earnings-indicator" data-connected={connectedAddress ? 'true' : 'false'}>
          <Box
            w={10}
            h={10}
            style={{
              borderRadius: '50%',
              background: connectedAddress ? 'var(--mantine-color-green-6)' : 'var(--mantine-color-gray-6)',
            }}
            aria-hidden
          />
          <Text size="sm" c={connectedAddress ? 'green' : 'dimmed'} data-testid="earnings-connected-text">
            {connectedAddress
              ? t('earnings.lookup.connected', { address: connectedAddress })
              : t('earnings.lookup.notConnected')}
          </Text>
        </Group>
      </Group>
      <Stack gap="xs">
        <Group align="flex-end" gap="xs" wrap="nowrap">
          <TextInput
            // minWidth 0: the field gives way on a phone, not the button beside it.
            style={{ flex: 1, minWidth: 0 }}
            label={t('earnings.lookup.address')}
            placeholder={t('earnings.lookup.placeholder')}
            value={input}
            onChange={(e) => setInput(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') consult();
            }}
            spellCheck={false}
            autoComplete="off"
            data-testid="earnings-address"
          />
          <Button onClick={consult} loading={consulting} data-testid="earnings-consult">
            {t('earnings.lookup.consult')}
          </Button>
          <Tooltip label={t('earnings.lookup.delete')}>
            <ActionIcon
              size="lg"
              variant="light"
              color="red"
              onClick={onDelete}
              loading={deleting}
              disabled={!connectedAddress}
              aria-label={t('earnings.lookup.delete')}
              data-testid="earnings-delete"
            >
              <TrashIcon />
            </ActionIcon>
          </Tooltip>
        </Group>
        <Group>
          <Button
            variant="subtle"
            size="xs"
            onClick={() => void fillFromBrowserWallet()}
            data-testid="earnings-use-wallet"
          >
            {t('earnings.lookup.useBrowserWallet')}
          </Button>
        </Group>
      </Stack>
      <Modal
        opened={shown !== null}
        onClose={close}
        title={t('earnings.errorModal.title')}
        centered
        data-testid="earnings-error-modal"
      >
        <Text data-testid="earnings-error-message">{shown ? localMessage(t, shown) : ''}</Text>
        <Group justify="flex-end" mt="md">
          {!localFailure && failure?.canSwitch && (
            <Button
              onClick={() => onConsult(failure.address, true)}
              loading={consulting}
              data-testid="earnings-switch"
            >
              {t('earnings.errorModal.switch')}
            </Button>
          )}
          <Button variant="default" onClick={close} data-testid="earnings-error-close">
            {t('earnings.errorModal.close')}
          </Button>
        </Group>
      </Modal>
    </Paper>
  );
}
