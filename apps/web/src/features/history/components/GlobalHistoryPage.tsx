import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function GlobalHistoryPage() {
  return <InDevelopment title="Historial global — Todos tus bots" />;
}
