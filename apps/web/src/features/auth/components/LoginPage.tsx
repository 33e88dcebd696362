import { Anchor, Container, Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate } from 'react-router';
import { useSession } from '../../../shared/session/session';
import { LoginForm } from './LoginForm';

/** /login (spec part 1 §2 Sign-in): the same form as the header dropdown. */
export function LoginPage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  const navigate = useNavigate();
  if (user && !checking) return <Navigate to="/" replace />;
  return (
    <Container size={420} py="xl">
      <Paper withBorder p="lg" radius="md">
        <Title order={1} size="h2" mb="md">
          {t('auth.login.title')}
        </Title>
        <LoginForm idPrefix="login" onDone={() => void navigate('/')} />
        <Text size="sm" mt="md">
          {t('auth.login.noAccount')}{' '}
          {/* Underlined: in a sentence, colour alone does not mark a link (WCAG 1.4.1). */}
          <Anchor component={Link} to="/registro" underline="always">
            {t('auth.login.signUp')}
          </Anchor>
        </Text>
      </Paper>
    </Container>
  );
}
