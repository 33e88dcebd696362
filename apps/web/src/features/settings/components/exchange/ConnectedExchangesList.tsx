import { Badge, Button, Group, Modal, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { serverError } from '../../api/account';
import { useConnections, useRemoveExchange } from '../../api/exchanges';

/** The user's connected exchanges with their mode and a remove button (confirmed first). */
export function ConnectedExchangesList() {
  const { t, i18n } = useTranslation();
  const connections = useConnections();
  const remove = useRemoveExchange();
  const [confirm, setConfirm] = useState<{ exchange: string; name: string; mode: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  if (connections.isLoading) return <Text c="dimmed">{t('common.loading')}</Text>;
  const rows = connections.data ?? [];
  if (rows.length === 0) {
    return (
      <Text c="dimmed" data-testid="exchange-list-empty">
        {t('settings.exchange.none')}
      </Text>
    );
  }

  const doRemove = async () => {
    if (!confirm) return;
    setError(null);
    try {
      await remove.mutateAsync(confirm.exchange);
      setConfirm(null);
    } catch (err) {
      setError(`❌ ${serverError(err) ?? t('common.error')}`);
    }
  };

  return (
    <>
      {/* Wider than a phone: it scrolls in its own box, its scrollbar in view (shared/ui/theme.ts). */}
      <Table.ScrollContainer minWidth={420}>
        <Table data-testid="exchange-list" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('settings.exchange.exchange')}</Table.Th>
              <Table.Th>{t('settings.exchange.mode')}</Table.Th>
              <Table.Th>{t('settings.exchange.since')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((c) => (
              <Table.Tr key={c.exchange} data-testid={`exchange-row-${c.exchange}`}>
                <Table.Td>{c.name}</Table.Td>
                <Table.Td>
                  <Badge color={c.mode === 'paper' ? 'grape' : 'blue'} variant="light">
                    {t(c.mode === 'paper' ? 'settings.exchange.paper' : 'settings.exchange.live')}
                  </Badge>
                  {/* What the last re-check of the live key found (daily and on resume; docs/exchanges.md). */}
                  {c.key_problem && (
                    <>
                      <Badge
                        color="red"
                        variant="filled"
                        ml="xs"
                        data-testid={`exchange-key-problem-${c.exchange}`}
                      >
                        {t(`settings.exchange.keyProblem.${c.key_problem}`)}
                      </Badge>
                      <Text
                        size="xs"
                        c="red"
                        mt={4}
                        role="alert"
                        data-testid={`exchange-key-notice-${c.exchange}`}
                      >
                        {t(`settings.exchange.keyProblemNotice.${c.key_problem}`, { name: c.name })}
                      </Text>
                    </>
                  )}
                </Table.Td>
                <Table.Td>{new Date(c.createdAt).toLocaleDateString(i18n.language)}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    onClick={() => setConfirm({ exchange: c.exchange, name: c.name, mode: c.mode })}
                    data-testid={`exchange-remove-${c.exchange}`}
                  >
                    {t('settings.exchange.remove')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {error && (
        <Text c="red" size="sm" role="alert">
          {error}
        </Text>
      )}
      <Modal
        opened={!!confirm}
        onClose={() => setConfirm(null)}
        title={t('settings.exchange.removeTitle', { name: confirm?.name ?? '' })}
        centered
      >
        <Text size="sm">
          {t(
            confirm?.mode === 'paper'
              ? 'settings.exchange.removePaperText'
              : 'settings.exchange.removeLiveText',
          )}
        </Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setConfirm(null)}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => void doRemove()}
            data-testid="exchange-remove-confirm"
          >
            {t('settings.exchange.remove')}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
