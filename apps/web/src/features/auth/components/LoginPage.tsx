import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function LoginPage() {
  return <InDevelopment title="Login" />;
}
