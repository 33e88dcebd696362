// The live layer (CcxtVenue and the emulators' ccxt options: live-layer.ts) is loaded on first use,
// with ccxt: importing ccxt costs 0.5 s of CPU in plain node and 1.2-1.5 s under tsx, and a paper
// server (the default, and most tests) never needs it (docs/performance.md "ccxt loaded on demand").
// This module must not import ccxt, nor anything that does, except through `import()`.
import type { CcxtVenue } from './ccxt-venue';
import type * as LiveLayer from './live-layer';
import { isCcxtVenueInstance } from './live-registry';

export type LiveVenues = typeof LiveLayer;

let loading: Promise<LiveVenues> | null = null;

/** The live layer, and ccxt with it; loaded once (a failed load is tried again at the next call). */
export function loadLiveVenues(): Promise<LiveVenues> {
  loading ??= import('./live-layer').catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

/**
 * Whether `venue` is a CcxtVenue, without loading ccxt: before the live layer is loaded (by
 * loadLiveVenues, or imported by a test) no CcxtVenue can exist.
 */
export function isCcxtVenue(venue: unknown): venue is CcxtVenue {
  return isCcxtVenueInstance(venue);
}
