import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function MoviesSeriesPage() {
  return <InDevelopment title="Películas y series" />;
}
