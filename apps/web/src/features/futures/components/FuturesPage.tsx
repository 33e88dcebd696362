import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function FuturesPage() {
  return <InDevelopment title="Futures" />;
}
