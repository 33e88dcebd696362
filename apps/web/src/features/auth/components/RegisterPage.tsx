import {
  Alert,
  Box,
  Button,
  Container,
  Group,
  Overlay,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../../shared/api/client';
import { ServerText } from '../../../shared/serverMessages/ServerText';
import { fetchPublicConfig, registerCall, sendSignupCode, serverMessage } from '../api/auth';
import { passwordRule } from '../../../shared/session/reauth';

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** The spec's locked overlay, shown only when the server says registration is closed. */
function LockedOverlay() {
  const { t } = useTranslation();
  return (
    <Overlay backgroundOpacity={0.85} blur={3} center zIndex={150} data-testid="register-locked">
      <Paper withBorder p="xl" radius="md" maw={460} ta="center">
        <Title order={2} size="h3">
          {t('auth.register.lockedTitle')}
        </Title>
        <Text mt="sm">{t('auth.register.lockedText')}</Text>
        <Group justify="center" mt="lg">
          <Button component={Link} to="/login" data-testid="register-locked-login">
            {t('auth.register.goToSignIn')}
          </Button>
          <Button component={Link} to="/" variant="default" data-testid="register-locked-home">
            {t('auth.register.backHome')}
          </Button>
        </Group>
      </Paper>
    </Overlay>
  );
}

/**
 * /registro (spec part 1 §2 Sign-up): step 1 details and 'Send verification code', step 2 the code
 * and 'Verify and create account', then /login after 2 seconds.
 */
export function RegisterPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const config = useQuery({ queryKey: ['public-config'], queryFn: fetchPublicConfig, staleTime: 60_000 });
  const [step, setStep] = useState<1 | 2>(1);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [detail, setDetail] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const language = i18n.resolvedLanguage === 'es' ? 'es' : 'en';

  useEffect(() => {
    if (!success) return;
    const timer = setTimeout(() => void navigate('/login'), 2000);
    return () => clearTimeout(timer);
  }, [success, navigate]);

  const fail = (message: string, why: string | null = null) => {
    setError(message);
    setDetail(why);
  };

  const sendCode = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setDetail(null);
    if (!email.trim() || !password || !confirm) return fail(t('auth.register.required'));
    if (password !== confirm) return fail(t('auth.register.mismatch'));
    if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
      return fail(t('auth.register.passwordLength'));
    }
    setBusy(true);
    try {
      const res = await sendSignupCode(email.trim(), language, password);
      if (res.success) {
        setStep(2);
        setError(null);
      } else {
        fail(t('auth.register.sendFailed'), res.message ?? null);
      }
    } catch (err) {
      // A refused password (too common, the email, …) is named in the user's language.
      const rule = passwordRule(err);
      if (rule) fail(t(`session.passwordRules.${rule}`));
      else if (err instanceof ApiError) fail(t('auth.register.sendFailed'), serverMessage(err));
      else fail(t('auth.register.connection'));
    } finally {
      setBusy(false);
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setDetail(null);
    if (!code.trim()) return fail(t('auth.register.enterCode'));
    setBusy(true);
    try {
      const res = await registerCall(email.trim(), password, code.trim(), language);
      if (res.success) setSuccess(t('auth.register.created'));
      else fail(res.message || t('auth.register.registerFailed'));
    } catch (err) {
      const rule = passwordRule(err);
      fail(
        rule ? t(`session.passwordRules.${rule}`) : (serverMessage(err) ?? t('auth.register.registerFailed')),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box pos="relative" mih="70vh">
      {config.data && !config.data.registrationOpen && <LockedOverlay />}
      <Container size={440} py="xl">
        <Paper withBorder p="lg" radius="md">
          <Title order={1} size="h2" mb="md">
            {t('auth.register.title')}
          </Title>
          {step === 1 ? (
            <form onSubmit={(e) => void sendCode(e)} data-testid="register-step1" noValidate>
              <Stack gap="xs">
                <TextInput
                  label={t('auth.register.email')}
                  type="email"
                  value={email}
                  onChange={(e) => setEmail(e.currentTarget.value)}
                  autoComplete="email"
                  data-testid="register-email"
                />
                <PasswordInput
                  label={t('auth.register.password')}
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                  autoComplete="new-password"
                  description={t('auth.register.passwordHint')}
                  data-testid="register-password"
                />
                <PasswordInput
                  label={t('auth.register.confirm')}
                  value={confirm}
                  onChange={(e) => setConfirm(e.currentTarget.value)}
                  autoComplete="new-password"
                  data-testid="register-confirm"
                />
                <Button type="submit" loading={busy} data-testid="register-send">
                  {t('auth.register.send')}
                </Button>
              </Stack>
            </form>
          ) : (
            <form onSubmit={(e) => void verify(e)} data-testid="register-step2" noValidate>
              <Stack gap="xs">
                <Text size="sm">{t('auth.register.codeSent', { email: email.trim() })}</Text>
                <TextInput
                  label={t('auth.register.code')}
                  value={code}
                  onChange={(e) => setCode(e.currentTarget.value)}
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={6}
                  data-testid="register-code"
                />
                <Button type="submit" loading={busy} disabled={!!success} data-testid="register-verify">
                  {t('auth.register.verify')}
                </Button>
                <Button variant="subtle" size="xs" onClick={() => setStep(1)} disabled={!!success}>
                  {t('auth.register.back')}
                </Button>
              </Stack>
            </form>
          )}
          {error && (
            <Alert color="red" mt="sm" data-testid="register-error">
              <ServerText text={error} />
              {detail && (
                <Text size="sm" c="dimmed" mt={4} data-testid="register-error-detail">
                  <ServerText text={detail} />
                </Text>
              )}
            </Alert>
          )}
          {success && (
            <Alert color="green" mt="sm" data-testid="register-success">
              {success}
            </Alert>
          )}
        </Paper>
      </Container>
    </Box>
  );
}
