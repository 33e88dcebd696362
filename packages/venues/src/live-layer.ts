// The live layer: CcxtVenue (ccxt-venue.ts), the emulators' ccxt options and what else imports ccxt.
// Loaded on first use by live-loader.ts (loadLiveVenues); not exported by index.ts.
export * from './ccxt-venue';
export * from './emulator/ccxt-options';
