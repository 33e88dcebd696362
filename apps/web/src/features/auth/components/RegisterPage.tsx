import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function RegisterPage() {
  return <InDevelopment title="Sign up" />;
}
