// `@bytx/venues/live`: everything in index.ts and the live layer (live-layer.ts, with ccxt), for tests
// and benches that make a CcxtVenue themselves. The server takes the live layer from loadLiveVenues().
export * from './index';
export * from './live-layer';
// Named here: index.ts exports their types only, and a name two `export *` give is dropped.
export { CcxtVenue, type CcxtVenueOptions } from './live-layer';
