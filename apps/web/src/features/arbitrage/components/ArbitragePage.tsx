import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function ArbitragePage() {
  return <InDevelopment title="Arbitrage" />;
}
