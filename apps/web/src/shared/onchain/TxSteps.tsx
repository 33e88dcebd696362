import { Anchor, Group, Loader, Stack, Text, ThemeIcon } from '@mantine/core';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { shortHash, txLink } from './api';
import type { ChainInfo } from './types';

/** The keys of `actions.ts` StepKey, without importing viem's module. */
export type TxStepKey = 'approve' | 'buy' | 'withdraw' | 'stake' | 'unstake' | 'claim' | 'pay';
export type TxStepStatus = 'idle' | 'sign' | 'wait' | 'done' | 'error';
export interface TxStep {
  key: TxStepKey;
  status: TxStepStatus;
  hash?: string;
}

/**
 * The state of a multi-transaction flow (approve → wait → act → wait): `start(keys)` lays the steps
 * out, `onStep` follows the actions' events, `fail()` marks the running step failed.
 */
export function useTxSteps() {
  const [steps, setSteps] = useState<TxStep[]>([]);
  const start = useCallback((keys: TxStepKey[]) => {
    setSteps(keys.map((key) => ({ key, status: 'idle' })));
  }, []);
  const onStep = useCallback((e: { step: TxStepKey; phase: 'sign' | 'wait' | 'done'; hash?: string }) => {
    setSteps((old) =>
      old.map((s) => (s.key === e.step ? { ...s, status: e.phase, hash: e.hash ?? s.hash } : s)),
    );
  }, []);
  const fail = useCallback(() => {
    setSteps((old) => {
      const i = old.findIndex((s) => s.status === 'sign' || s.status === 'wait');
      const j = i >= 0 ? i : old.findIndex((s) => s.status === 'idle');
      return old.map((s, k) => (k === j ? { ...s, status: 'error' } : s));
    });
  }, []);
  const clear = useCallback(() => setSteps([]), []);
  const running = steps.some((s) => s.status === 'sign' || s.status === 'wait');
  return { steps, start, onStep, fail, clear, running };
}

const ICON: Record<TxStepStatus, { color: string; mark: string }> = {
  idle: { color: 'gray', mark: '·' },
  sign: { color: 'yellow', mark: '' },
  wait: { color: 'yellow', mark: '' },
  done: { color: 'teal', mark: '✓' },
  error: { color: 'red', mark: '✕' },
};

/** A link to a transaction: the explorer, or the local chain's own view `/chain/tx/{hash}`. */
export function TxLink({
  info,
  hash,
  testId,
}: {
  info: ChainInfo | null | undefined;
  hash: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  // A new tab either way, so a running flow on this page is not left.
  return (
    <Anchor
      href={txLink(info, hash).href}
      target="_blank"
      rel="noopener noreferrer"
      size="xs"
      data-testid={testId}
      data-hash={hash}
    >
      {t('onchain.viewTx', { hash: shortHash(hash) })}
    </Anchor>
  );
}

/** The step-by-step progress of a flow, each mined transaction linked. */
export function TxSteps({
  steps,
  info,
  testId = 'tx-steps',
}: {
  steps: TxStep[];
  info: ChainInfo | null | undefined;
  testId?: string;
}) {
  const { t } = useTranslation();
  if (steps.length === 0) return null;
  return (
    <Stack gap={6} data-testid={testId} aria-label={t('onchain.progress')} role="list">
      {steps.map((s, i) => (
        <Group
          key={s.key}
          gap="xs"
          wrap="nowrap"
          role="listitem"
          data-testid={`${testId}-${s.key}`}
          data-status={s.status}
        >
          {s.status === 'sign' || s.status === 'wait' ? (
            <Loader size={18} />
          ) : (
            <ThemeIcon size={18} radius="xl" color={ICON[s.status].color} variant="light">
              <Text size="xs" fw={700}>
                {ICON[s.status].mark}
              </Text>
            </ThemeIcon>
          )}
          <Text size="sm" style={{ flex: 1 }}>
            {i + 1}. {t(`onchain.steps.${s.key}`)}{' '}
            <Text span size="xs" c="dimmed">
              — {t(`onchain.status.${s.status}`)}
            </Text>
          </Text>
          {s.hash && <TxLink info={info} hash={s.hash} testId={`${testId}-${s.key}-link`} />}
        </Group>
      ))}
    </Stack>
  );
}
