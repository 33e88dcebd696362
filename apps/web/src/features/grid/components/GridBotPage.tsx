import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function GridBotPage() {
  return <InDevelopment title="Grid Bot" />;
}
