import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function SpotPage() {
  return <InDevelopment title="Spot" />;
}
