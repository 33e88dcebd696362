import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function SettingsPage() {
  return <InDevelopment title="Settings" />;
}
