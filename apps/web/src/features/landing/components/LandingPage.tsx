import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function LandingPage() {
  return <InDevelopment title="BYTX" />;
}
