// The paper venue's old module path, kept so imports of '../paper-venue' stay valid. The venue is
// in paper/: venue.ts (PaperVenue, the Venue interface), account.ts (shared state), spot.ts,
// derivatives.ts and store.ts (saved state, stores, saver).
export {
  PAPER_INITIAL_BALANCES,
  PAPER_INITIAL_DERIVATIVES_BALANCES,
  PaperVenue,
  type PaperMarketFeed,
  type PaperVenueOptions,
} from './paper/venue';
export {
  MemoryPaperStore,
  type PaperAccountState,
  type PaperBalance,
  type PaperDerivativesState,
  type PaperPosition,
  type PaperStateChange,
  type PaperStore,
} from './paper/store';
