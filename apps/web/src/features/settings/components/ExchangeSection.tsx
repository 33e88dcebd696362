/** Connect Exchange and the list of connected exchanges (owned by the exchanges area). */
export function ExchangeSection() {
  return null;
}
