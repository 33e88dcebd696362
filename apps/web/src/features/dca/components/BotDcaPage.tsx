import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function BotDcaPage() {
  return <InDevelopment title="Grid Bot DCA" />;
}
