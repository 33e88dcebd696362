export * from './errors';
export * from './types';
export * from './precision';
export * from './derivatives';
export * from './simulator';
export * from './paper-venue';
export * from './matching/order-book';
export * from './addresses';
// The live layer (CcxtVenue, with ccxt) is not exported here: loadLiveVenues() or '@bytx/venues/live'.
export type { CcxtVenue, CcxtVenueOptions } from './ccxt-venue';
export { isCcxtVenue, loadLiveVenues, type LiveVenues } from './live-loader';
export * from './withdraw-permission';
export * from './exchanges/client-ids';
export * from './exchanges/capabilities';
export * from './emulator';
