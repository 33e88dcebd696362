import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function GlobalPendingOrdersPage() {
  return <InDevelopment title="Global Pending Orders" />;
}
