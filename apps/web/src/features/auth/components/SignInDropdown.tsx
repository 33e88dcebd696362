import { Button, Popover } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoginForm } from './LoginForm';

/**
 * Header sign-in control (spec part 1 §2): email and password, then a 2FA code step when required.
 * `defaultOpened`: the header's stand-in was clicked before this loaded (app/shell/Deferred.tsx).
 */
export function SignInDropdown({ defaultOpened = false }: { defaultOpened?: boolean }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(defaultOpened);
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={300} shadow="md" trapFocus>
      <Popover.Target>
        <Button
          size="compact-sm"
          variant="light"
          onClick={() => setOpened((o) => !o)}
          data-testid="signin-toggle"
        >
          {t('auth.login.submit')}
        </Button>
      </Popover.Target>
      <Popover.Dropdown data-testid="signin-dropdown">
        <LoginForm idPrefix="signin" onDone={() => setOpened(false)} />
      </Popover.Dropdown>
    </Popover>
  );
}
