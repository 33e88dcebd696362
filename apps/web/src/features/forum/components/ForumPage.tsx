import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function ForumPage() {
  return <InDevelopment title="Forum" />;
}
