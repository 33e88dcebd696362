import { Badge, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PENDING_MESSAGES, type PendingOrderView } from '@bytx/contract';
import { ApiError, errorMessage } from '../api/client';
import { fmt } from './format';
import { canAct, parseFundsAmount, pendingActionsApi } from './pending-actions';

export type PendingActionKind = 'sell' | 'funds' | 'delete' | 'autofund';

/** An action the user asked for, waiting for its confirmation; `enabled` is the auto-fund state asked. */
export interface PendingActionRequest {
  kind: PendingActionKind;
  order: PendingOrderView;
  enabled?: boolean;
}

/** What an action did: the page reloads after each (whatever the outcome) and keeps the new ON/OFF. */
export interface PendingActionDone {
  kind: PendingActionKind;
  order: PendingOrderView;
  ok: boolean;
  enabled?: boolean;
}

const K = 'bots.pendingActions';

/**
 * The server's own words for a refused action (PENDING_MESSAGES, some of them the spec's Spanish texts)
 * in the user's language: a known message is its catalog entry, anything else is shown as it came.
 */
function serverText(t: (key: string) => string, message: string): string {
  const key = (Object.keys(PENDING_MESSAGES) as (keyof typeof PENDING_MESSAGES)[]).find(
    (k) => PENDING_MESSAGES[k] === message,
  );
  const path = `${K}.server.${key}`;
  return key && t(path) !== path ? t(path) : message;
}

/**
 * A row's actions: sell, add funds, delete, auto-fund ON/OFF. Completed orders cannot be sold, funded
 * or deleted (nor switched); a busy order shows what is in flight and waits.
 */
export function PendingRowActions({
  prefix,
  order,
  autoFund,
  onRequest,
}: {
  prefix: string;
  order: PendingOrderView;
  autoFund: boolean;
  onRequest: (req: PendingActionRequest) => void;
}) {
  const { t } = useTranslation();
  const disabled = !canAct(order);
  // A completed order (sold or filled) offers no action at all: it cannot be sold, funded, deleted or
  // auto-funded (spec part 2 §4), and greyed buttons still read as offers (issue 37 point 19).
  if (order.status !== 'open') {
    return (
      <Text size="xs" c="dimmed" data-testid={`${prefix}-no-actions`}>
        {t(`${K}.noActions`)}
      </Text>
    );
  }
  return (
    <Group gap={4} wrap="nowrap">
      {order.busy && (
        <Badge color="orange" variant="light" data-testid={`${prefix}-busy`} data-busy={order.busy}>
          {t(`${K}.busy.${order.busy}`)}
        </Badge>
      )}
      <Button
        size="compact-xs"
        color="red"
        variant="light"
        disabled={disabled}
        onClick={() => onRequest({ kind: 'sell', order })}
        data-testid={`${prefix}-sell`}
      >
        {t(`${K}.sell`)}
      </Button>
      <Button
        size="compact-xs"
        variant="light"
        disabled={disabled}
        onClick={() => onRequest({ kind: 'funds', order })}
        data-testid={`${prefix}-funds`}
      >
        {t(`${K}.addFunds`)}
      </Button>
      <Button
        size="compact-xs"
        color="gray"
        variant="light"
        disabled={disabled}
        onClick={() => onRequest({ kind: 'delete', order })}
        data-testid={`${prefix}-delete`}
      >
        {t(`${K}.delete`)}
      </Button>
      <Button
        size="compact-xs"
        color={autoFund ? 'green' : 'gray'}
        variant={autoFund ? 'filled' : 'outline'}
        disabled={disabled}
        title={t(`${K}.autoFund`)}
        onClick={() => onRequest({ kind: 'autofund', order, enabled: !autoFund })}
        data-testid={`${prefix}-autofund`}
        data-enabled={autoFund ? 'true' : 'false'}
      >
        {t(`${K}.autoFund`)} {autoFund ? t(`${K}.on`) : t(`${K}.off`)}
      </Button>
    </Group>
  );
}

/**
 * The purchase itself failed (spec part 2 §8 '❌ Error al comprar: {message}'): the server tried the
 * add-funds buy and the bot or the exchange did not carry it out — its 'No se pudo agregar fondos: why'
 * answer — or the exchange did not answer it (502). The why, or null when the refusal came before
 * any buy (bad amount, below the minimum, no price yet, completed or busy order).
 */
function buyFailure(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  // The server's answer when the bot did not carry the buy out (modules/bots/pending/service.ts);
  // a 502 is the exchange not answering the buy.
  const tried = 'No se pudo agregar fondos: ';
  if (err.message.startsWith(tried)) return err.message.slice(tried.length);
  return err.status === 502 ? err.message : null;
}

const toast = (color: 'green' | 'red', message: string, title?: string) =>
  notifications.show({ color, message, ...(title ? { title } : {}) });

/**
 * The confirmation dialogs of the actions (and the add-funds dialog with its amount), the calls, and
 * the spec's toasts. `onDone` runs after each call, whatever its outcome, so the list reloads.
 */
export function PendingActionDialogs({
  prefix,
  userId,
  request,
  onClose,
  onDone,
}: {
  prefix: string;
  userId: string;
  request: PendingActionRequest | null;
  onClose: () => void;
  onDone: (done: PendingActionDone) => void;
}) {
  const { t } = useTranslation();
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);

  const close = () => {
    if (working) return;
    setAmount('');
    setAmountError(null);
    onClose();
  };
  const finish = (done: PendingActionDone) => {
    setWorking(false);
    setAmount('');
    setAmountError(null);
    onClose();
    onDone(done);
  };
  /** fetch itself failed (no answer): '❌ Error de red'. */
  const network = (err: unknown) => err instanceof TypeError;

  const run = async () => {
    if (!request || working) return;
    const { kind, order } = request;
    if (kind === 'funds') {
      const n = parseFundsAmount(amount);
      if (n === null) {
        setAmountError(t(`${K}.badAmount`));
        return;
      }
      setWorking(true);
      try {
        const res = await pendingActionsApi.addFunds(userId, order.id, n);
        if (!res.success) throw new Error(res.error || t(`${K}.fundsFailedPlain`));
        toast('green', t(`${K}.fundsAdded`));
        finish({ kind, order, ok: true });
      } catch (err) {
        if (err instanceof ApiError && err.message === PENDING_MESSAGES.badAmount) {
          setWorking(false);
          setAmountError(t(`${K}.badAmount`));
          return;
        }
        const bought = buyFailure(err);
        toast(
          'red',
          network(err)
            ? t(`${K}.network`)
            : bought !== null
              ? t(`${K}.buyFailed`, { message: bought })
              : t(`${K}.fundsFailed`, {
                  message: serverText(t, errorMessage(err, t(`${K}.fundsFailedPlain`))),
                }),
        );
        finish({ kind, order, ok: false });
      }
      return;
    }
    setWorking(true);
    if (kind === 'sell') {
      try {
        const res = await pendingActionsApi.sell(userId, order.id);
        if (!res.success) throw new Error(res.error ?? res.message ?? t(`${K}.sellFailed`));
        toast('green', t(`${K}.sold`));
        finish({ kind, order, ok: true });
      } catch (err) {
        toast(
          'red',
          network(err)
            ? t(`${K}.network`)
            : t(`${K}.sellFailedMsg`, { message: serverText(t, errorMessage(err, t(`${K}.sellFailed`))) }),
          t(`${K}.sellFailed`),
        );
        finish({ kind, order, ok: false });
      }
    } else if (kind === 'delete') {
      try {
        const outcome = await pendingActionsApi.remove(userId, order.id);
        toast('green', t(outcome === 'gone' ? `${K}.alreadyDeleted` : `${K}.deleted`));
        finish({ kind, order, ok: true });
      } catch (err) {
        toast(
          'red',
          network(err)
            ? t(`${K}.network`)
            : t(`${K}.deleteFailed`, { message: serverText(t, errorMessage(err)) }),
        );
        finish({ kind, order, ok: false });
      }
    } else {
      const want = request.enabled ?? !order.auto_fund;
      try {
        const res = await pendingActionsApi.toggleAutoFund(userId, order.id, want);
        if (!res.success) throw new Error(res.error ?? 'Error');
        const enabled = typeof res.enabled === 'boolean' ? res.enabled : want;
        toast('green', t(enabled ? `${K}.autoFundOn` : `${K}.autoFundOff`));
        finish({ kind, order, ok: true, enabled });
      } catch {
        toast('red', t(`${K}.autoFundFailed`));
        finish({ kind, order, ok: false });
      }
    }
  };

  const o = request?.order;
  const vars = o ? { symbol: o.symbol, exchange: o.exchange, qty: fmt(o.qty), quote: o.quote } : {};
  const question =
    request?.kind === 'sell'
      ? t(`${K}.confirmSell`, vars)
      : request?.kind === 'delete'
        ? t(`${K}.confirmDelete`, vars)
        : request?.kind === 'autofund'
          ? t(request.enabled ? `${K}.confirmOn` : `${K}.confirmOff`, vars)
          : '';

  return (
    <>
      <Modal
        opened={request !== null && request.kind !== 'funds'}
        onClose={close}
        title={t(`${K}.confirmTitle`)}
        centered
        zIndex={400}
      >
        <Stack data-testid={`${prefix}-confirm`} data-kind={request?.kind}>
          <Text data-testid={`${prefix}-confirm-text`}>{question}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={working} data-testid={`${prefix}-confirm-no`}>
              {t(`${K}.no`)}
            </Button>
            <Button onClick={() => void run()} loading={working} data-testid={`${prefix}-confirm-yes`}>
              {t(`${K}.yes`)}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal
        opened={request?.kind === 'funds'}
        onClose={close}
        title={o ? t(`${K}.fundsTitle`, vars) : ''}
        centered
        zIndex={400}
      >
        <Stack data-testid={`${prefix}-funds-dialog`}>
          <TextInput
            label={t(`${K}.fundsAmount`, vars)}
            value={amount}
            inputMode="numeric"
            maxLength={8}
            onChange={(e) => {
              setAmount(e.currentTarget.value);
              setAmountError(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void run();
            }}
            error={amountError !== null}
            data-testid={`${prefix}-funds-input`}
            data-autofocus
          />
          {amountError && (
            <Text size="sm" c="red" data-testid={`${prefix}-funds-error`}>
              {amountError}
            </Text>
          )}
          <Group justify="flex-end">
            <Button
              variant="default"
              onClick={close}
              disabled={working}
              data-testid={`${prefix}-funds-cancel`}
            >
              {t(`${K}.no`)}
            </Button>
            <Button onClick={() => void run()} loading={working} data-testid={`${prefix}-funds-confirm`}>
              {t(`${K}.yes`)}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
