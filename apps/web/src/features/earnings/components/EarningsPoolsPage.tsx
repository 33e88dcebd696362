import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function EarningsPoolsPage() {
  return <InDevelopment title="Staking" />;
}
