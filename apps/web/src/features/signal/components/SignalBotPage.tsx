import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function SignalBotPage() {
  return <InDevelopment title="Signal Bot" />;
}
