import { Alert, Badge, Button, Code, Group, Modal, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { BotFiguresLine, RowActionsMenu } from '../../../shared/bots/BotRowParts';
import { RowChartSlot } from '../../../shared/bots/RowChartSlot';
import { exchangeName, fmt, fmtDate, pnlColor } from '../../../shared/bots/format';
import { ReauthCancelled, useReauth } from '../../../shared/session/useReauth';
import { signalApi, signalTemplate, type SignalBotView } from '../api/signal';
import { CopyButton } from './CopyButton';
import { serverText } from './serverText';
import { SignalLog } from './SignalLog';
import { WebhookReach } from './WebhookReach';

const HIDDEN = '••••••••••••••••';
const STATUS_COLOR = { active: 'green', stopped: 'gray', error: 'red' } as const;

/**
 * One signal bot: its webhook URL (copy), its secret — shown once, right after the create or a rotation,
 * with a copy button and a notice that it will not be seen again (the server keeps only its hash and no
 * call reads it back) —, Rotate after a confirmation (and the password when the session's sign-in is
 * older than 5 minutes: useReauth), the TradingView alert message (copy), the position and PnL, the signal counts,
 * Stop and the signal log. `initialSecret` is the secret the create call answered.
 */
export function SignalBotCard({
  bot,
  initialSecret,
  onStop,
  now,
}: {
  bot: SignalBotView;
  initialSecret?: string;
  onStop: (bot: SignalBotView) => void;
  /** The list's minute clock, for the runtime. */
  now: number;
}) {
  const { t, i18n } = useTranslation();
  /** The secret while this page still holds it (after create or rotate), until "I saved it". */
  const [secret, setSecret] = useState<string | null>(initialSecret ?? null);
  const [rotating, setRotating] = useState(false);
  const [confirmRotate, setConfirmRotate] = useState(false);
  // Rotating needs a sign-in or a password confirmation in the last 5 minutes: the app's password
  // dialog (features/auth) on 403 reauth_required, then the call once more.
  const reauth = useReauth();
  const [logOpen, setLogOpen] = useState(false);
  // The create call's secret may arrive after the list's poll already drew this card.
  useEffect(() => {
    if (initialSecret !== undefined) setSecret(initialSecret);
  }, [initialSecret]);
  const base = bot.symbol.split('/')[0] ?? '';
  const quote = bot.quote || bot.symbol.split('/')[1] || '';

  const rotate = async () => {
    setConfirmRotate(false);
    setRotating(true);
    try {
      const r = await reauth.run(() => signalApi.rotateSecret(bot.id));
      setSecret(r.secret);
      notifications.show({
        color: 'green',
        message: r.message ? serverText(t, r.message) : t('signal.messages.secretRotated'),
        autoClose: 5_000,
      });
    } catch (err) {
      if (err instanceof ReauthCancelled) return;
      notifications.show({
        color: 'red',
        message: t('signal.bot.rotateFailed', { message: serverText(t, errorMessage(err)) }),
      });
    } finally {
      setRotating(false);
    }
  };

  const template = signalTemplate(secret ?? t('signal.bot.secretPlaceholder'), bot.symbol);
  const active = bot.status !== 'stopped';
  const passwordNotice =
    secret === null && bot.secret_rotated_reason === 'password_change' && bot.secret_rotated_at !== null;

  return (
    <Paper withBorder p="md" data-testid="signal-bot" data-bot-id={bot.id} data-status={bot.status}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Text fw={700} data-testid="signal-bot-symbol">
              {bot.symbol}
            </Text>
            <Text c="dimmed">{exchangeName(bot.exchange)}</Text>
            <Badge color={STATUS_COLOR[bot.status] ?? 'gray'} data-testid="signal-bot-status">
              {t(`signal.bot.statuses.${bot.status}`, { defaultValue: bot.status })}
            </Badge>
          </Group>
          <RowActionsMenu
            menuTestId="signal-bot-actions"
            label={t('bots.row.actionsFor', { symbol: bot.symbol })}
            actions={[
              {
                name: 'log',
                label: logOpen ? t('signal.log.hide') : t('signal.log.show'),
                onClick: () => setLogOpen((o) => !o),
                testId: 'signal-log-toggle',
              },
              {
                name: 'rotate',
                label: t('signal.messages.rotateSecret'),
                onClick: () => setConfirmRotate(true),
                disabled: rotating,
                testId: 'signal-secret-rotate',
              },
              ...(active
                ? [
                    {
                      name: 'stop',
                      label: t('signal.bot.stop'),
                      onClick: () => onStop(bot),
                      danger: true,
                      testId: 'signal-bot-stop',
                    },
                  ]
                : []),
            ]}
          />
        </Group>
        <BotFiguresLine
          testPrefix="signal-bot"
          pnl={bot.pnl_realized + bot.pnl_unrealized}
          capital={bot.max_position}
          startedAt={bot.created_at}
          now={bot.stopped_at ? Date.parse(bot.stopped_at) : now}
          quote={quote}
        />
        <Text size="xs" c="dimmed">
          {t('signal.bot.settings', { amount: fmt(bot.amount, 8), max: fmt(bot.max_position, 8), quote })}
          {' · '}
          {bot.stopped_at
            ? t('signal.bot.stoppedAt', { time: fmtDate(bot.stopped_at) })
            : t('signal.bot.created', { time: fmtDate(bot.created_at) })}
        </Text>
        {bot.problem && (
          <Text size="sm" c="red" data-testid="signal-bot-problem">
            {bot.reason ? (i18n.language.startsWith('es') ? bot.reason.es : bot.reason.en) : bot.problem}
          </Text>
        )}

        <Stack gap={4}>
          <Text size="sm" fw={600}>
            {t('signal.bot.webhook')}
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Code style={{ wordBreak: 'break-all', flex: 1, minWidth: 0 }} data-testid="signal-webhook-url">
              {bot.webhook_url}
            </Code>
            <CopyButton text={bot.webhook_url} testId="signal-webhook-copy" />
          </Group>
          <WebhookReach url={bot.webhook_url} />
        </Stack>

        <Stack gap={4}>
          <Text size="sm" fw={600}>
            {t('signal.bot.secret')}
          </Text>
          <Group gap="xs">
            <Code
              data-testid="signal-secret"
              data-shown={secret !== null ? '1' : '0'}
              style={{ wordBreak: 'break-all' }}
            >
              {secret ?? HIDDEN}
            </Code>
            {secret !== null && <CopyButton text={secret} testId="signal-secret-copy" />}
            {secret !== null && (
              <Button
                size="compact-xs"
                variant="default"
                onClick={() => setSecret(null)}
                data-testid="signal-secret-hide"
              >
                {t('signal.bot.forget')}
              </Button>
            )}
          </Group>
          {secret !== null ? (
            <Alert color="yellow" p="xs" data-testid="signal-secret-once">
              {t('signal.messages.secretOnce')}
            </Alert>
          ) : (
            <Text size="xs" c="dimmed" data-testid="signal-secret-hidden">
              {t('signal.messages.secretHidden')}
            </Text>
          )}
          {passwordNotice && (
            <Alert color="orange" p="xs" data-testid="signal-secret-password-notice">
              {t('signal.messages.secretRotatedPassword', { time: fmtDate(bot.secret_rotated_at) })}
            </Alert>
          )}
        </Stack>

        <Stack gap={4}>
          <Group justify="space-between">
            <Text size="sm" fw={600}>
              {t('signal.bot.template')}
            </Text>
            <CopyButton text={template} testId="signal-template-copy" />
          </Group>
          {/* Scrolls sideways on a phone: focusable, so the keyboard scrolls it too (WCAG 2.1.1). */}
          <Code block tabIndex={0} data-testid="signal-template">
            {template}
          </Code>
          <Text size="xs" c="dimmed">
            {t('signal.messages.templateHint', {
              action: '{{strategy.order.action}}',
              timenow: '{{timenow}}',
            })}
          </Text>
        </Stack>

        <Stack gap={4} data-testid="signal-position">
          <Text size="sm" fw={600}>
            {t('signal.bot.position')}
          </Text>
          <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs" verticalSpacing={4}>
            <Figure
              label={t('signal.bot.qty')}
              testId="signal-position-qty"
              value={`${fmt(bot.position_qty, 8)} ${base}`}
              raw={bot.position_qty}
            />
            <Figure
              label={t('signal.bot.avgEntry')}
              testId="signal-avg-entry"
              value={fmt(bot.avg_entry, 8)}
              raw={bot.avg_entry}
            />
            <Figure
              label={t('signal.bot.price')}
              testId="signal-price"
              value={fmt(bot.price, 8)}
              raw={bot.price}
            />
            <Figure
              label={t('signal.bot.value')}
              testId="signal-position-value"
              value={`${fmt(bot.position_value, 4)} ${quote}`}
              raw={bot.position_value}
            />
            <Figure
              label={t('signal.bot.pnlRealized')}
              testId="signal-pnl-realized"
              value={`${fmt(bot.pnl_realized, 4)} ${quote}`}
              raw={bot.pnl_realized}
              color={pnlColor(bot.pnl_realized)}
            />
            <Figure
              label={t('signal.bot.pnlUnrealized')}
              testId="signal-pnl-unrealized"
              value={`${fmt(bot.pnl_unrealized, 4)} ${quote}`}
              raw={bot.pnl_unrealized}
              color={pnlColor(bot.pnl_unrealized)}
            />
          </SimpleGrid>
          <Text size="xs" c="dimmed" data-testid="signal-counts">
            {t('signal.bot.signals', { accepted: bot.signals_accepted, rejected: bot.signals_rejected })}
          </Text>
        </Stack>

        {/* The pair's last day with the position's average entry (when there is a position). */}
        {active && (
          <RowChartSlot
            exchange={bot.exchange}
            symbol={bot.symbol}
            levels={
              bot.position_qty > 0 && bot.avg_entry > 0
                ? [
                    {
                      key: 'entry',
                      label: t('bots.rowChart.avgEntry'),
                      value: bot.avg_entry,
                      color: '#1c7ed6',
                    },
                  ]
                : []
            }
          />
        )}

        {logOpen && <SignalLog botId={bot.id} />}
      </Stack>

      <Modal
        opened={confirmRotate}
        onClose={() => setConfirmRotate(false)}
        title={t('signal.messages.rotateSecret')}
        centered
      >
        <Stack data-testid="signal-rotate-dialog">
          <Text>{t('signal.messages.rotateConfirm')}</Text>
          <Group justify="flex-end">
            <Button
              variant="default"
              onClick={() => setConfirmRotate(false)}
              data-testid="signal-rotate-cancel"
            >
              {t('signal.bot.cancel')}
            </Button>
            <Button color="orange" onClick={() => void rotate()} data-testid="signal-rotate-confirm">
              {t('signal.bot.rotate')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      {reauth.modal}
    </Paper>
  );
}

function Figure({
  label,
  value,
  raw,
  testId,
  color,
}: {
  label: string;
  value: string;
  raw: number | null;
  testId: string;
  color?: string;
}) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" c={color} data-testid={testId} data-value={raw ?? ''}>
        {value}
      </Text>
    </Stack>
  );
}
