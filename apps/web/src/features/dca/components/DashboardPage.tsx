import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function DashboardPage() {
  return <InDevelopment title="Dashboard" />;
}
