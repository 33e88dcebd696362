// Which class is CcxtVenue, once its module ran (ccxt-venue.ts registers it): answers "is this a
// CcxtVenue" without importing it, so without loading ccxt (live-loader.ts isCcxtVenue). No imports:
// ccxt-venue.ts and live-loader.ts both use it.
type Klass = abstract new (...args: never[]) => object;

let ccxtVenueClass: Klass | null = null;

/** Called once by ccxt-venue.ts when its module runs. */
export function registerCcxtVenue(klass: Klass): void {
  ccxtVenueClass = klass;
}

/** True for an instance of the registered CcxtVenue; false while no CcxtVenue can exist. */
export function isCcxtVenueInstance(value: unknown): boolean {
  return ccxtVenueClass !== null && value instanceof ccxtVenueClass;
}
