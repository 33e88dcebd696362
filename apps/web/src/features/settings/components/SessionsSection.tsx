import { Alert, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { OpenSession } from '@bytx/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../../shared/session/session';
import { ResponsiveTable, type ResponsiveColumn } from '../../../shared/ui/ResponsiveTable';
import { endOtherSessions, listSessions } from '../api/account';

/** A user agent cut to what a person reads in a table cell (the full one is its title). */
const shortAgent = (ua: string) => (ua.length > 60 ? `${ua.slice(0, 57)}…` : ua);

/**
 * Open sessions (issue 37 point 8; docs/accounts.md): when each signed in and was last seen, from
 * which address and browser (when stored), "this device", and "end all other sessions".
 */
export function SessionsSection() {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['sessions', user?.id], queryFn: listSessions, enabled: !!user });
  const [note, setNote] = useState<{ color: 'green' | 'red'; text: string } | null>(null);
  const end = useMutation({
    mutationFn: endOtherSessions,
    onSuccess: async (res) => {
      setNote({ color: 'green', text: t('settings.sessions.ended', { count: res.ended }) });
      await queryClient.invalidateQueries({ queryKey: ['sessions'] });
    },
    onError: () => setNote({ color: 'red', text: t('settings.sessions.failed') }),
  });
  const when = (iso: string) => new Date(iso).toLocaleString(i18n.resolvedLanguage === 'es' ? 'es' : 'en');
  const list: OpenSession[] = sessions.data?.sessions ?? [];
  const others = list.filter((s) => !s.current).length;
  const columns: ResponsiveColumn<OpenSession>[] = [
    { key: 'created', label: t('settings.sessions.created'), cell: (s) => when(s.created_at) },
    { key: 'lastSeen', label: t('settings.sessions.lastSeen'), cell: (s) => when(s.last_seen_at) },
    {
      key: 'address',
      label: t('settings.sessions.address'),
      cell: (s) => s.ip ?? t('settings.sessions.unknown'),
    },
    {
      key: 'device',
      label: t('settings.sessions.device'),
      cell: (s) => (
        <Group gap={6}>
          <span>{s.user_agent ? shortAgent(s.user_agent) : t('settings.sessions.unknown')}</span>
          {s.current && (
            <Badge color="blue" variant="light">
              {t('settings.sessions.thisDevice')}
            </Badge>
          )}
        </Group>
      ),
      cellProps: (s) => ({ title: s.user_agent ?? undefined }),
    },
  ];

  return (
    <Paper withBorder p="md" radius="md" data-testid="settings-sessions">
      <Title order={2} size="h4">
        {t('settings.sessions.title')}
      </Title>
      <Text size="sm" c="dimmed" mt={4}>
        {t('settings.sessions.intro')}
      </Text>
      <Stack gap="sm" mt="sm">
        {sessions.isError && <Alert color="red">{t('settings.sessions.loadFailed')}</Alert>}
        {list.length > 0 && (
          <ResponsiveTable
            columns={columns}
            rows={list}
            rowKey={(s) => s.id}
            rowProps={(s) => ({ 'data-testid': s.current ? 'session-current' : 'session-other' })}
            tableProps={{ striped: true }}
            testId="sessions-table"
          />
        )}
        {sessions.isSuccess && others === 0 && (
          <Text size="sm" data-testid="sessions-only-this">
            {t('settings.sessions.onlyThis')}
          </Text>
        )}
        <Button
          variant="light"
          color="red"
          w="fit-content"
          disabled={others === 0}
          loading={end.isPending}
          onClick={() => {
            setNote(null);
            end.mutate();
          }}
          data-testid="sessions-end-others"
        >
          {t('settings.sessions.endOthers')}
        </Button>
        {note && (
          <Alert color={note.color} data-testid="sessions-message">
            {note.text}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
