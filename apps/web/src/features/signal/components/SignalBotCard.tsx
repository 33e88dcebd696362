import { Badge, Button, Code, Group, Modal, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { exchangeName, fmt, fmtDate, pnlColor } from '../../../shared/bots/format';
import { signalApi, signalTemplate, type SignalBotView } from '../api/signal';
import { CopyButton } from './CopyButton';
import { serverText } from './serverText';
import { SignalLog } from './SignalLog';

const HIDDEN = '••••••••••••••••';
const STATUS_COLOR = { active: 'green', stopped: 'gray', error: 'red' } as const;

/**
 * One signal bot: its webhook URL (copy), its secret (reveal, hide, rotate after a confirmation), the
 * TradingView alert message with its values (copy), the position and PnL, the signal counts, Stop and
 * the signal log. `initialSecret` is the secret the create call answered (shown until hidden).
 */
export function SignalBotCard({
  bot,
  initialSecret,
  onStop,
}: {
  bot: SignalBotView;
  initialSecret?: string;
  onStop: (bot: SignalBotView) => void;
}) {
  const { t, i18n } = useTranslation();
  const [secret, setSecret] = useState<string | null>(initialSecret ?? null);
  const [shown, setShown] = useState(initialSecret !== undefined);
  const [loading, setLoading] = useState<'reveal' | 'rotate' | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [logOpen, setLogOpen] = useState(false);
  // The create call's secret may arrive after the list's poll already drew this card.
  useEffect(() => {
    if (initialSecret === undefined) return;
    setSecret(initialSecret);
    setShown(true);
  }, [initialSecret]);
  const base = bot.symbol.split('/')[0] ?? '';
  const quote = bot.quote || bot.symbol.split('/')[1] || '';

  /** The secret, read from the server the first time it is needed. */
  const readSecret = async (): Promise<string | null> => {
    if (secret !== null) return secret;
    setLoading('reveal');
    try {
      const r = await signalApi.revealSecret(bot.id);
      setSecret(r.secret);
      return r.secret;
    } catch (err) {
      notifications.show({
        color: 'red',
        message: t('signal.bot.secretFailed', { message: serverText(t, errorMessage(err)) }),
      });
      return null;
    } finally {
      setLoading(null);
    }
  };
  const reveal = async () => {
    if ((await readSecret()) !== null) setShown(true);
  };
  const rotate = async () => {
    setConfirmRotate(false);
    setLoading('rotate');
    try {
      const r = await signalApi.rotateSecret(bot.id);
      setSecret(r.secret);
      setShown(true);
      notifications.show({
        color: 'green',
        message: r.message ? serverText(t, r.message) : t('signal.messages.secretRotated'),
        autoClose: 5_000,
      });
    } catch (err) {
      notifications.show({
        color: 'red',
        message: t('signal.bot.rotateFailed', { message: serverText(t, errorMessage(err)) }),
      });
    } finally {
      setLoading(null);
    }
  };

  const template = signalTemplate(shown && secret !== null ? secret : HIDDEN, bot.symbol);
  const copyTemplate = async () => {
    const s = await readSecret();
    return s === null ? null : signalTemplate(s, bot.symbol);
  };
  const active = bot.status !== 'stopped';

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
          {active && (
            <Button size="compact-sm" color="red" onClick={() => onStop(bot)} data-testid="signal-bot-stop">
              {t('signal.bot.stop')}
            </Button>
          )}
        </Group>
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
            <Code style={{ wordBreak: 'break-all' }} data-testid="signal-webhook-url">
              {bot.webhook_url}
            </Code>
            <CopyButton text={bot.webhook_url} testId="signal-webhook-copy" />
          </Group>
        </Stack>

        <Stack gap={4}>
          <Text size="sm" fw={600}>
            {t('signal.bot.secret')}
          </Text>
          <Group gap="xs">
            <Code
              data-testid="signal-secret"
              data-shown={shown ? '1' : '0'}
              style={{ wordBreak: 'break-all' }}
            >
              {shown && secret !== null ? secret : HIDDEN}
            </Code>
            {shown ? (
              <Button
                size="compact-xs"
                variant="default"
                onClick={() => setShown(false)}
                data-testid="signal-secret-hide"
              >
                {t('signal.bot.hide')}
              </Button>
            ) : (
              <Button
                size="compact-xs"
                variant="default"
                loading={loading === 'reveal'}
                onClick={() => void reveal()}
                data-testid="signal-secret-reveal"
              >
                {t('signal.messages.revealSecret')}
              </Button>
            )}
            <CopyButton text={readSecret} testId="signal-secret-copy" />
            <Button
              size="compact-xs"
              variant="light"
              color="orange"
              loading={loading === 'rotate'}
              onClick={() => setConfirmRotate(true)}
              data-testid="signal-secret-rotate"
            >
              {t('signal.messages.rotateSecret')}
            </Button>
          </Group>
        </Stack>

        <Stack gap={4}>
          <Group justify="space-between">
            <Text size="sm" fw={600}>
              {t('signal.bot.template')}
            </Text>
            <CopyButton text={copyTemplate} testId="signal-template-copy" />
          </Group>
          <Code block data-testid="signal-template">
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

        <Group>
          <Button
            size="compact-sm"
            variant="subtle"
            onClick={() => setLogOpen((o) => !o)}
            data-testid="signal-log-toggle"
          >
            {logOpen ? t('signal.log.hide') : t('signal.log.show')}
          </Button>
        </Group>
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
