import { Alert, Anchor, Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { estimatedTokens, isValidAmount, sameAddress, TOKEN_SALE, type PaymentMethod } from '../config';

/** The EIP-1193 subset the modal uses (a browser wallet such as MetaMask). */
interface Eip1193Provider {
  request: (args: { method: string; params?: unknown[] }) => Promise<unknown>;
  on?: (event: string, listener: (...args: unknown[]) => void) => void;
  removeListener?: (event: string, listener: (...args: unknown[]) => void) => void;
}

const browserWallet = (): Eip1193Provider | undefined =>
  (window as unknown as { ethereum?: Eip1193Provider }).ethereum;

const shortAddress = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/**
 * Token purchase modal (spec part 1 §2 "Token purchase modal"): fixed estimated price, USDT or USDC,
 * amount, connect/disconnect a browser wallet, Buy Now, a DEX swap link on Arbitrum and, for the
 * contract owner's wallet only, Withdraw USDT. The on-chain purchase itself comes with the sale
 * contract in a later release; the modal says so instead of pretending.
 */
export function BuyTokenModal({
  opened,
  onClose,
  ownerAddress = TOKEN_SALE.ownerAddress,
}: {
  opened: boolean;
  onClose: () => void;
  ownerAddress?: string | null;
}) {
  const { t } = useTranslation();
  const [method, setMethod] = useState<PaymentMethod>('USDT');
  const [amount, setAmount] = useState('');
  const [account, setAccount] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [connecting, setConnecting] = useState(false);

  // Follow the wallet when the user switches or disconnects accounts in it.
  useEffect(() => {
    const eth = browserWallet();
    if (!eth?.on || !account) return;
    const onAccounts = (...args: unknown[]) => {
      const list = args[0];
      setAccount(Array.isArray(list) && typeof list[0] === 'string' ? list[0] : null);
    };
    eth.on('accountsChanged', onAccounts);
    return () => eth.removeListener?.('accountsChanged', onAccounts);
  }, [account]);

  const connect = useCallback(async () => {
    setError(null);
    setNotice(null);
    const eth = browserWallet();
    if (!eth) {
      setError(t('token.metamaskNotDetected'));
      return;
    }
    setConnecting(true);
    try {
      const accounts = await eth.request({ method: 'eth_requestAccounts' });
      const first = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null;
      setAccount(first);
      const chainId = await eth.request({ method: 'eth_chainId' }).catch(() => null);
      if (typeof chainId === 'string' && parseInt(chainId, 16) !== TOKEN_SALE.chainId) {
        setError(t('token.wrongNetwork'));
      }
    } catch (err) {
      setError(err instanceof Error && err.message ? err.message : t('token.connectFailed'));
    } finally {
      setConnecting(false);
    }
  }, [t]);

  const disconnect = () => {
    setAccount(null);
    setError(null);
    setNotice(null);
  };

  const buy = () => {
    setNotice(null);
    if (!isValidAmount(amount)) {
      setError(t('token.invalidAmount'));
      return;
    }
    setError(null);
    setNotice(t('token.purchaseLater'));
  };

  const parsed = isValidAmount(amount) ? Number(amount) : 0;
  const isOwner = sameAddress(account, ownerAddress);

  return (
    <Modal opened={opened} onClose={onClose} title={t('token.title')} centered data-testid="buy-token-modal">
      <Stack gap="sm">
        <Text size="sm" data-testid="token-price">
          {t('token.estimatedPrice', { price: TOKEN_SALE.estimatedPrice, symbol: TOKEN_SALE.symbol })}
        </Text>
        <div>
          <Text size="sm" fw={500} mb={4}>
            {t('token.paymentMethod')}
          </Text>
          <SegmentedControl
            fullWidth
            value={method}
            onChange={setMethod}
            data={[...TOKEN_SALE.paymentMethods]}
            aria-label={t('token.paymentMethod')}
          />
        </div>
        <TextInput
          label={t('token.amount', { method })}
          placeholder="100"
          inputMode="decimal"
          value={amount}
          onChange={(e) => setAmount(e.currentTarget.value)}
          data-testid="token-amount"
        />
        <Text size="sm" c="dimmed" data-testid="token-estimate">
          {t('token.youReceive', { tokens: estimatedTokens(parsed), symbol: TOKEN_SALE.symbol })}
        </Text>
        <Group grow>
          {account ? (
            <Button variant="default" onClick={disconnect} data-testid="token-disconnect">
              {t('token.disconnect', { address: shortAddress(account) })}
            </Button>
          ) : (
            <Button variant="default" onClick={connect} loading={connecting} data-testid="token-connect">
              {t('token.connect')}
            </Button>
          )}
          <Button onClick={buy} data-testid="token-buy">
            {t('token.buyNow')}
          </Button>
        </Group>
        {isOwner && (
          <Button
            color="red"
            variant="light"
            onClick={() => setNotice(t('token.purchaseLater'))}
            data-testid="token-withdraw"
          >
            {t('token.withdraw')}
          </Button>
        )}
        {error && (
          <Alert color="red" data-testid="token-error">
            {error}
          </Alert>
        )}
        {notice && (
          <Alert color="yellow" data-testid="token-notice">
            {notice}
          </Alert>
        )}
        <Text size="xs" c="dimmed">
          {t('token.comingLater')}
        </Text>
        <Anchor href={TOKEN_SALE.swapUrl} target="_blank" rel="noopener noreferrer" data-testid="token-swap">
          {t('token.swapLink')}
        </Anchor>
      </Stack>
    </Modal>
  );
}
