export function TickerBar() {
  return <div data-testid="ticker-bar" />;
}
